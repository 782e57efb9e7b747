//! Unit tests of the framework tables, pinned against ../shared/reference/framework-facts.md.

use super::*;
use crate::Kb;

fn v(s: &str) -> Version {
    s.parse().unwrap()
}

fn cc(s: &str) -> ComputeCapability {
    s.parse().unwrap()
}

fn ccs(list: &[&str]) -> Vec<ComputeCapability> {
    list.iter().map(|s| cc(s)).collect()
}

fn kb() -> Kb {
    Kb::builtin().unwrap()
}

fn cuda(major: u32, minor: u32) -> BuildVariant {
    BuildVariant::Cuda(CudaVersion::new(major, minor))
}

#[test]
fn builtin_framework_tables_load_with_expected_row_counts() {
    let kb = kb();
    let fw = &kb.frameworks;
    assert_eq!(fw.torch_releases.len(), 23);
    assert_eq!(fw.torch_wheels.len(), 23);
    assert_eq!(fw.torchvision.len(), 45);
    assert_eq!(fw.torchaudio.len(), 37);
    assert_eq!(fw.tensorflow.len(), 18);
    assert_eq!(fw.jax_plugins.len(), 2);
    assert_eq!(fw.deeplabcut.len(), 6);
    assert_eq!(fw.conflicts.len(), 12);
    assert!(fw.torch_cudnn.len() >= 30);
    assert!(fw.torch_archs.len() >= 25);
}

#[test]
fn torch_2_1_release() {
    let kb = kb();
    let r = kb.frameworks.torch_release(&v("2.1.0")).unwrap();
    assert_eq!(r.minor, v("2.1"));
    assert_eq!(r.python().to_string(), "3.8-3.11");
    assert!(r.python().contains(&v("3.11.4")));
    assert!(!r.python().contains(&v("3.12")));
    assert_eq!(r.pypi_default, cuda(12, 1));
    for variant in ["cu118", "cu121", "cpu"] {
        assert!(r.has_variant(&variant.parse().unwrap()), "{variant}");
    }
    assert_eq!(
        r.cuda_variants(),
        vec![CudaVersion::new(11, 8), CudaVersion::new(12, 1)]
    );
    assert_eq!(r.torchvision, vec![v("0.16.0"), v("0.16.1"), v("0.16.2")]);
    assert_eq!(r.torchaudio, vec![v("2.1.0"), v("2.1.1"), v("2.1.2")]);
    assert!(r.requires_python.matches(&v("3.8.0"), None));
    assert!(!r.release_date_confirmed);
    // A patch of a minor finds the minor; a minor that does not exist finds nothing.
    assert_eq!(
        kb.frameworks.torch_release(&v("2.1.2")).unwrap().minor,
        v("2.1")
    );
    assert!(kb.frameworks.torch_release(&v("2.16.0")).is_none());
    assert!(kb.frameworks.torch_release(&v("1.6.0")).is_none());
}

#[test]
fn torch_2_1_cu121_build() {
    let kb = kb();
    let b = kb.frameworks.torch_variant(&v("2.1.0"), "cu121").unwrap();
    assert_eq!(b.cudnn_version(), Some(&v("8.9.2.26")));
    assert_eq!(b.cudnn.unwrap().shipping, CudnnShipping::PipPin);
    assert_eq!(
        b.sass(),
        ccs(&["5.0", "6.0", "7.0", "7.5", "8.0", "8.6", "9.0"]).as_slice()
    );
    assert!(b.ptx().is_empty());
    assert!(b.published() && b.confirmed());
    // The wheel agrees with the build table.
    let w = kb.frameworks.torch_wheel(&v("2.1.2")).unwrap();
    assert_eq!(w.cudnn_pin, Some(v("8.9.2.26")));
    assert_eq!(w.cudnn_distribution.as_deref(), Some("nvidia-cudnn-cu12"));
    assert_eq!(w.variant, cuda(12, 1));
    let from_wheel: Vec<ComputeCapability> = w.arch_flags.iter().map(|a| a.cc).collect();
    assert_eq!(from_wheel, b.sass());
    assert!(w.arch_flags.iter().all(|a| !a.ptx));
    assert_eq!(w.arch_flags[0].to_string(), "sm_50");
}

#[test]
fn torch_2_1_cu118_build_keeps_kepler() {
    let kb = kb();
    let b = kb.frameworks.torch_variant(&v("2.1"), "cu118").unwrap();
    assert_eq!(b.cudnn_version(), Some(&v("8.7.0.84")));
    assert_eq!(b.sass().first(), Some(&cc("3.7")));
    assert_eq!(b.sass().last(), Some(&cc("9.0")));
}

#[test]
fn torch_2_15_release_and_build() {
    let kb = kb();
    let fw = &kb.frameworks;
    let r = fw.torch_release(&v("2.15.0")).unwrap();
    assert_eq!(r.python().to_string(), "3.11-3.15");
    assert_eq!(r.pypi_default, cuda(13, 2));
    assert_eq!(r.variants, vec![cuda(13, 2)]);
    // cu126 is gone; cu130 and cpu are believed, not confirmed.
    assert!(!r.has_variant(&cuda(12, 6)));
    assert!(r.unconfirmed_variants.contains(&cuda(13, 0)));
    assert_eq!(r.torchvision, vec![v("0.29.2")]);
    let b = fw.torch_variant(&v("2.15.0"), "cu132").unwrap();
    assert_eq!(b.cudnn_version(), Some(&v("9.26.0.51")));
    assert_eq!(
        b.sass(),
        ccs(&["7.5", "8.0", "8.6", "9.0", "10.0", "12.0"]).as_slice()
    );
    assert!(b.ptx().is_empty());
    assert!(b.confirmed());
    // 2.15 cu130 is carried as unconfirmed, without a cuDNN.
    let u = fw.torch_variant(&v("2.15.0"), "cu130").unwrap();
    assert_eq!(u.cudnn_version(), None);
    assert!(!u.confirmed());
    assert!(!u.published());
    assert!(fw.torch_variant(&v("2.15.0"), "cu126").is_none());
    let w = fw.torch_wheel(&v("2.15.0")).unwrap();
    assert_eq!(w.local_version, "2.15.0+cu132");
    assert_eq!(w.cuda, CudaVersion::new(13, 2));
    assert_eq!(w.cudnn_distribution.as_deref(), Some("nvidia-cudnn-cu13"));
    assert!(w.requires_python.matches(&v("3.11"), None));
    assert!(!w.requires_python.matches(&v("3.10"), None));
}

#[test]
fn torch_python_ranges_per_patch() {
    let kb = kb();
    let fw = &kb.frameworks;
    assert_eq!(fw.torch_python(&v("1.7.0")).unwrap().to_string(), "3.6-3.8");
    assert_eq!(fw.torch_python(&v("1.7.1")).unwrap().to_string(), "3.6-3.9");
    assert_eq!(
        fw.torch_python(&v("1.10.1")).unwrap().to_string(),
        "3.6-3.9"
    );
    assert_eq!(
        fw.torch_python(&v("1.10.2")).unwrap().to_string(),
        "3.6-3.10"
    );
    assert_eq!(
        fw.torch_python(&v("2.5.1")).unwrap().to_string(),
        "3.9-3.13"
    );
    assert_eq!(
        fw.torch_python(&v("2.9.0")).unwrap().to_string(),
        "3.10-3.14"
    );
}

#[test]
fn arch_transitions_from_the_reference() {
    let kb = kb();
    let fw = &kb.frameworks;
    let sass = |t: &str, var: &str| fw.torch_variant(&v(t), var).unwrap().sass().to_vec();
    // Maxwell/Pascal only in cu126 and older; Blackwell only in cu128 and newer.
    assert!(sass("2.8.0", "cu126").contains(&cc("5.0")));
    assert!(!sass("2.8.0", "cu128").contains(&cc("5.0")));
    assert!(sass("2.8.0", "cu128").contains(&cc("12.0")));
    assert!(!sass("2.14.0", "cu126").contains(&cc("12.0")));
    // sm_70 in cu128 for 2.8-2.10, dropped in 2.11.
    assert!(sass("2.10.0", "cu128").contains(&cc("7.0")));
    assert!(!sass("2.11.0", "cu128").contains(&cc("7.0")));
    // PTX claims resting on RELEASE.md alone are carried as unconfirmed.
    let cu132 = fw.torch_variant(&v("2.13.0"), "cu132").unwrap();
    assert_eq!(cu132.ptx(), &[cc("12.0")]);
    assert!(!cu132.arch.unwrap().ptx_confirmed);
    let cu130 = fw.torch_variant(&v("2.13.0"), "cu130").unwrap();
    assert!(cu130.ptx().is_empty() && cu130.arch.unwrap().ptx_confirmed);
    // Unconfirmed arch lists stay unconfirmed.
    assert!(!fw.torch_variant(&v("2.7.0"), "cu128").unwrap().confirmed());
    assert!(!fw.torch_variant(&v("2.6.0"), "cu126").unwrap().confirmed());
    // aarch64 has its own list.
    let arm = fw
        .torch_variant_on(&v("2.13.0"), "cu130", "linux-aarch64")
        .unwrap();
    assert_eq!(
        arm.sass(),
        ccs(&["8.0", "9.0", "10.0", "11.0", "12.0"]).as_slice()
    );
}

#[test]
fn cudnn_where_sources_disagree_follows_the_wheel() {
    let kb = kb();
    let b = kb.frameworks.torch_variant(&v("2.11.0"), "cu130").unwrap();
    assert_eq!(b.cudnn_version(), Some(&v("9.19.0.56")));
    assert!(b.cudnn.unwrap().note.contains("9.17.1.4"));
}

#[test]
fn every_pypi_wheel_matches_its_release_default_and_build_rows() {
    let kb = kb();
    let fw = &kb.frameworks;
    for w in &fw.torch_wheels {
        let r = fw.torch_release(&w.version).unwrap();
        assert_eq!(r.pypi_default, w.variant, "{}", w.version);
        assert!(r.patches.contains(&w.version), "{}", w.version);
        let b = fw
            .torch_variant(&w.version, &w.variant.to_string())
            .unwrap();
        if let (Some(pin), Some(row)) = (&w.cudnn_pin, b.cudnn) {
            assert_eq!(row.cudnn.as_ref(), Some(pin), "{}", w.version);
        }
        let sass: Vec<ComputeCapability> = w
            .arch_flags
            .iter()
            .filter(|a| !a.ptx)
            .map(|a| a.cc)
            .collect();
        assert_eq!(b.sass(), sass.as_slice(), "{}", w.version);
    }
}

#[test]
fn torchvision_pins_both_ways() {
    let kb = kb();
    let fw = &kb.frameworks;
    let req = fw.torch_for_torchvision(&v("0.16.0")).unwrap();
    assert_eq!(req.to_string(), "==2.1.0");
    assert_eq!(req.exact(), Some(&v("2.1.0")));
    let names = |rows: Vec<&CompanionRow>| -> Vec<String> {
        rows.iter().map(|r| r.version.to_string()).collect()
    };
    assert_eq!(
        names(fw.torchvision_for_torch(&v("2.1.0"), None)),
        ["0.16.0"]
    );
    assert_eq!(
        names(fw.torchvision_for_torch(&v("2.1.2"), Some("cu121"))),
        ["0.16.2"]
    );
    // 0.15.0 pins 2.0.0+cu117: a CPU build of 2.0.0 does not satisfy it.
    assert_eq!(
        names(fw.torchvision_for_torch(&v("2.0.0"), Some("cu117"))),
        ["0.15.0", "0.15.1"]
    );
    assert_eq!(
        names(fw.torchvision_for_torch(&v("2.0.0"), Some("cpu"))),
        ["0.15.1"]
    );
    // 0.29.1 and 0.29.2 accept any torch >= 2.14.0.
    assert_eq!(
        names(fw.torchvision_for_torch(&v("2.15.0"), None)),
        ["0.29.1", "0.29.2"]
    );
    assert_eq!(fw.torchvision(&v("0.29.2")).unwrap().python_tags, ["py3"]);
}

#[test]
fn torchaudio_pins_both_ways() {
    let kb = kb();
    let fw = &kb.frameworks;
    assert_eq!(
        fw.torch_for_torchaudio(&v("2.1.0")).unwrap().to_string(),
        "==2.1.0"
    );
    assert_eq!(
        fw.torch_for_torchaudio(&v("0.7.2")).unwrap().to_string(),
        "==1.7.1"
    );
    // 2.11.0 declares no torch requirement; 2.11.1 requires torch>=2.11.
    assert!(fw.torchaudio(&v("2.11.0")).unwrap().torch.is_none());
    assert!(fw.torch_for_torchaudio(&v("2.11.0")).is_none());
    let for_215: Vec<String> = fw
        .torchaudio_for_torch(&v("2.15.0"), None)
        .iter()
        .map(|r| r.version.to_string())
        .collect();
    assert_eq!(for_215, ["2.11.1"]);
}

#[test]
fn tensorflow_tested_configurations() {
    let kb = kb();
    let fw = &kb.frameworks;
    let t = fw.tensorflow(&v("2.21.0")).unwrap();
    assert_eq!(t.cuda, CudaVersion::new(12, 5));
    assert_eq!(t.cudnn, v("9.3"));
    assert_eq!(t.python().to_string(), "3.10-3.13");
    let and_cuda = t.and_cuda.as_ref().unwrap();
    assert!(!and_cuda.exact_pins);
    assert!(and_cuda.cudnn.matches(&v("9.10.2.21"), None));
    assert!(!and_cuda.cudnn.matches(&v("10.0.0"), None));
    // Any patch finds its minor's row (2.16.1 serves 2.16.2).
    let t216 = fw.tensorflow(&v("2.16.2")).unwrap();
    assert_eq!(t216.cuda, CudaVersion::new(12, 3));
    assert_eq!(
        t216.and_cuda.as_ref().unwrap().cudnn.exact(),
        Some(&v("8.9.7.29"))
    );
    let t214 = fw.tensorflow(&v("2.14.1")).unwrap();
    assert_eq!(t214.and_cuda.as_ref().unwrap().cuda_major, 11);
    assert!(fw.tensorflow(&v("2.13.0")).unwrap().and_cuda.is_none());
    assert!(!fw
        .tensorflow(&v("2.17.0"))
        .unwrap()
        .numpy
        .as_ref()
        .unwrap()
        .matches(&v("2.0.0"), None));
    assert!(fw
        .tensorflow(&v("2.18.0"))
        .unwrap()
        .numpy
        .as_ref()
        .unwrap()
        .matches(&v("2.0.2"), None));
    assert!(fw.tensorflow(&v("2.3.0")).is_none());
}

#[test]
fn jax_requirements_fold_the_changelog() {
    let kb = kb();
    let fw = &kb.frameworks;
    let r = fw.jax_requirements(&v("0.4.31"));
    assert_eq!(r.python_min.map(|p| p.0), Some(&v("3.10")));
    assert_eq!(r.cudnn_min.map(|p| p.0), Some(&v("9.1")));
    assert_eq!(r.cuda_min.map(|p| p.0), Some(CudaVersion::new(12, 1)));
    assert_eq!(r.monolithic_cuda_jaxlib.map(|p| p.0), Some(false));
    let r = fw.jax_requirements(&v("0.7.2"));
    assert_eq!(r.python_min.map(|p| p.0), Some(&v("3.11")));
    assert_eq!(r.numpy_min.map(|p| p.0), Some(&v("2.0")));
    assert_eq!(r.cudnn_min.map(|p| p.0), Some(&v("9.8")));
    assert_eq!(
        r.built_with_cuda.map(|p| p.0),
        Some(CudaVersion::new(12, 9))
    );
    let r = fw.jax_requirements(&v("0.12.0.1"));
    assert_eq!(r.python_min.map(|p| p.0), Some(&v("3.12")));
    assert_eq!(r.numpy_min.map(|p| p.0), Some(&v("2.2")));
    let old = fw.jax_requirements(&v("0.4.20"));
    assert!(old.cuda_min.is_none() && old.monolithic_cuda_jaxlib.is_none());
    let p13 = fw.jax_plugin("jax-cuda13-plugin").unwrap();
    assert_eq!(p13.min_driver, v("580"));
    assert_eq!(p13.min_cc, cc("7.5"));
    assert_eq!(p13.first_version, v("0.7.2"));
    assert_eq!(fw.jax_plugin("jax-cuda12-pjrt").unwrap().cuda_major, 12);
    assert_eq!(fw.jax_plugin_for_cuda(12).unwrap().min_cc, cc("5.2"));
    assert!(fw.jax_plugin_for_cuda(11).is_none());
}

#[test]
fn deeplabcut_backends_and_stacks() {
    let kb = kb();
    let fw = &kb.frameworks;
    let d = fw.deeplabcut(&v("3.0.2")).unwrap();
    assert_eq!(d.backend, DlcBackend::Pytorch);
    assert_eq!(d.opencv, ["opencv-python-headless"]);
    assert!(!d.opencv_conflict);
    assert!(d
        .requires_python
        .as_ref()
        .unwrap()
        .matches(&v("3.10"), None));
    assert!(fw.deeplabcut(&v("3.0.1")).unwrap().opencv_conflict);
    assert_eq!(fw.deeplabcut(&v("2.2.0")).unwrap().gui, DlcGui::Wxpython);
    assert_eq!(fw.deeplabcut(&v("2.3.0")).unwrap().gui, DlcGui::Qt);
    assert_eq!(
        fw.deeplabcut_backend(&v("2.3.5")),
        Some(DlcBackend::Tensorflow)
    );
    assert_eq!(
        fw.deeplabcut_backend(&v("3.1.0")),
        Some(DlcBackend::Pytorch)
    );
    assert_eq!(fw.deeplabcut_backend(&v("4.0.0")), None);
    assert!(fw.deeplabcut(&v("2.3.5")).is_none());
    let near = fw.deeplabcut_nearest(&v("2.3.5")).unwrap();
    assert_eq!(near.versions, [v("2.3.0")]);
}

#[test]
fn conflicts_are_iterable_rows() {
    let kb = kb();
    let fw = &kb.frameworks;
    let cv = fw.conflict("opencv-multiple-dists").unwrap();
    assert_eq!(cv.module.as_deref(), Some("cv2"));
    assert!(cv
        .distributions
        .iter()
        .any(|d| d == "opencv-python-headless"));
    let np = fw.conflict("numpy2-abi").unwrap();
    let torch = np
        .numpy2_floor
        .iter()
        .find(|f| f.distribution == "torch")
        .unwrap();
    assert_eq!(torch.first, v("2.3.0"));
    assert!(
        !fw.conflict("unconfirmed-installer-field")
            .unwrap()
            .confirmed
    );
    assert!(fw.conflicts.iter().all(|c| !c.check.is_empty()));
}

#[test]
fn unconfirmed_rows_never_cite_only_confirmed_facts() {
    // A row marked unconfirmed keeps that mark; a row citing only FW-UNCONFIRMED is unconfirmed.
    let kb = kb();
    let fw = &kb.frameworks;
    let only_unconfirmed = |s: &[String]| s.iter().all(|id| id == "FW-UNCONFIRMED");
    assert!(fw
        .torch_cudnn
        .iter()
        .filter(|r| only_unconfirmed(&r.sources))
        .all(|r| !r.confirmed));
    assert!(fw
        .conflicts
        .iter()
        .filter(|r| only_unconfirmed(&r.sources))
        .all(|r| !r.confirmed));
    assert!(fw.torch_archs.iter().filter(|r| !r.confirmed).count() >= 3);
}

#[test]
fn build_variants_parse_and_print() {
    assert_eq!("cu121".parse::<BuildVariant>().unwrap(), cuda(12, 1));
    assert_eq!("cu92".parse::<BuildVariant>().unwrap(), cuda(9, 2));
    assert_eq!("cu130".parse::<BuildVariant>().unwrap(), cuda(13, 0));
    assert_eq!("cpu".parse::<BuildVariant>().unwrap(), BuildVariant::Cpu);
    assert_eq!(
        "rocm6.2.4".parse::<BuildVariant>().unwrap(),
        BuildVariant::Rocm("6.2.4".into())
    );
    for text in ["cu121", "cu92", "cpu", "xpu", "rocm5.7"] {
        assert_eq!(text.parse::<BuildVariant>().unwrap().to_string(), text);
    }
    for bad in ["cu", "cu1", "cuda12", "rocm", "rocmx", "gpu", "", "cu12345"] {
        assert!(bad.parse::<BuildVariant>().is_err(), "{bad:?}");
    }
}

#[test]
fn version_requirements() {
    let r: VersionReq = ">=9.3.0.75,<10.0".parse().unwrap();
    assert!(r.matches(&v("9.3.0.75"), None));
    assert!(!r.matches(&v("9.3.0.74"), None));
    assert!(!r.matches(&v("10.0"), None));
    assert_eq!(r.lower_bound(), Some(&v("9.3.0.75")));
    let r: VersionReq = "==1.10.0+cu102".parse().unwrap();
    assert!(r.matches(&v("1.10.0"), Some("cu102")));
    assert!(!r.matches(&v("1.10.0"), None));
    assert_eq!(r.to_string(), "==1.10.0+cu102");
    let r: VersionReq = "==2.1.0".parse().unwrap();
    assert!(r.matches(&v("2.1.0"), Some("cu118")));
    assert!(r.matches(&v("2.1"), None));
    let r: VersionReq = "~=3.9.0".parse().unwrap();
    assert!(r.matches(&v("3.9.4"), None));
    assert!(!r.matches(&v("3.10.0"), None));
    let r: VersionReq = "!=9.10.0".parse().unwrap();
    assert!(!r.matches(&v("9.10.0"), None));
    for bad in [
        "",
        "2.1",
        "=2.1",
        "===2.1",
        ">=2.1+cu1",
        ">=",
        "==x",
        "~=3",
        "==2.1+",
    ] {
        assert!(bad.parse::<VersionReq>().is_err(), "{bad:?}");
    }
}

#[test]
fn arch_flags_parse() {
    let f: ArchFlag = "compute_120".parse().unwrap();
    assert!(f.ptx);
    assert_eq!(f.cc, cc("12.0"));
    assert_eq!(f.to_string(), "compute_120");
    assert_eq!("sm_37".parse::<ArchFlag>().unwrap().cc, cc("3.7"));
    assert!("gfx90a".parse::<ArchFlag>().is_err());
    assert!("8.6".parse::<ArchFlag>().is_err());
}

#[test]
fn validation_rejects_bad_framework_data() {
    let sources = kb().sources;
    let load = |text: &str| -> Result<Frameworks, KbError> {
        let doc: FrameworksDocument = toml::from_str(text).map_err(|e| KbError::Parse {
            name: "test".into(),
            source: Box::new(e),
        })?;
        let mut fw = Frameworks::default();
        fw.merge(doc);
        fw.validate(&sources)?;
        Ok(fw)
    };
    let cudnn = |first: &str, source: &str| {
        format!(
            "[[torch_cudnn]]\nfirst = \"{first}\"\nlast = \"2.3\"\nvariants = [\"cu121\"]\n\
             cudnn = \"8.9.2.26\"\nshipping = \"pip-pin\"\nconfirmed = true\nsources = [\"{source}\"]\n"
        )
    };
    assert!(load(&cudnn("2.1", "FW-PYPI-TORCH-WHEEL")).is_ok());
    let unknown = load(&cudnn("2.1", "NO-SUCH-SOURCE"))
        .unwrap_err()
        .to_string();
    assert!(unknown.contains("unknown source"), "{unknown}");
    let overlap = format!(
        "{}{}",
        cudnn("2.1", "FW-PYPI-TORCH-WHEEL"),
        cudnn("2.2", "FW-PYPI-TORCH-WHEEL")
    );
    assert!(load(&overlap)
        .unwrap_err()
        .to_string()
        .contains("same variant"));
    assert!(load(&cudnn("2.x", "FW-PYPI-TORCH-WHEEL")).is_err());
    let bad_variant = cudnn("2.1", "FW-PYPI-TORCH-WHEEL").replace("cu121", "cuda121");
    assert!(load(&bad_variant).is_err());
    assert!(Kb::with_override("test", "[[torch_nonsense]]\nx = 1\n", None).is_err());
    let dup = "[[conflict]]\nid = \"a\"\ndistributions = []\ncheck = \"c\"\nevidence = \"e\"\n\
               static_hint = \"\"\nconfirmed = true\nsources = [\"FW-OPENCV\"]\n";
    assert!(load(&format!("{dup}{dup}"))
        .unwrap_err()
        .to_string()
        .contains("twice"));
}

#[test]
fn confirmed_docker_images_match_the_release_variants_of_an_independent_table() {
    // torch_docker comes from pytorch/test-infra's release matrix; torch_releases from PyTorch's
    // RELEASE.md / previous-versions page and the wheel index. Every confirmed image's CUDA must
    // be a CUDA variant of its release (confirmed or not), and the images start at 2.2.2.
    let kb = kb();
    let fw = &kb.frameworks;
    let confirmed: Vec<_> = fw.torch_docker.iter().filter(|r| r.confirmed).collect();
    assert!(
        confirmed.len() >= 50,
        "{} confirmed image rows",
        confirmed.len()
    );
    for r in &confirmed {
        let release = fw.torch_release(&r.version).unwrap();
        let variant = BuildVariant::Cuda(r.cuda);
        assert!(
            release.has_variant(&variant) || release.unconfirmed_variants.contains(&variant),
            "image {} has no matching torch variant",
            r.image("runtime")
        );
        assert!(r.version >= v("2.1.0"), "{}", r.version);
    }
    let img = fw.torch_docker_images(&v("2.5.1"));
    let cudas: Vec<String> = img.iter().map(|r| r.cuda.to_string()).collect();
    assert_eq!(cudas, ["11.8", "12.1", "12.4"]);
    assert_eq!(
        img[2].image("runtime"),
        "pytorch/pytorch:2.5.1-cuda12.4-cudnn9-runtime"
    );
}

#[test]
fn conda_forge_builds_and_tensorflow_archs_load() {
    let kb = kb();
    let fw = &kb.frameworks;
    // conda-forge/pytorch-cpu-feedstock: no 2.0.1, 2.2.x, 2.5.0 or 2.9.0 was ever published.
    for missing in ["2.0.1", "2.2.0", "2.2.1", "2.2.2", "2.5.0", "2.9.0"] {
        assert!(
            !fw.conda_forge_torch_builds()
                .iter()
                .any(|r| r.version == v(missing)),
            "{missing}"
        );
    }
    let b = fw
        .conda_forge_torch_builds()
        .iter()
        .find(|r| r.version == v("2.13.0") && r.cuda == CudaVersion::new(12, 9))
        .unwrap();
    assert_eq!(b.build_prefix, "cuda129");
    assert!(b.sass.contains(&cc("6.0")) && b.ptx == ccs(&["12.0"]));
    // TensorFlow 2.17 dropped sm_50 (measured in the wheel; build_info.py agrees).
    let tf = fw.tensorflow_arch(&v("2.17.0")).unwrap();
    assert_eq!(tf.sass, ccs(&["6.0", "7.0", "8.0", "8.9", "9.0"]));
    assert_eq!(
        tf.declared.as_deref(),
        Some("sm_60,sm_70,sm_80,sm_89,compute_90")
    );
    assert!(fw
        .tensorflow_arch(&v("2.16.1"))
        .unwrap()
        .sass
        .contains(&cc("5.0")));
}

#[test]
fn every_framework_table_name_is_a_table_of_the_document() {
    // A value of the wrong type is rejected only for a real field (unknown top-level keys are
    // left to the other document type).
    for table in TABLES {
        let doc: Result<FrameworksDocument, _> = toml::from_str(&format!("{table} = 5"));
        assert!(doc.is_err(), "{table} is not a FrameworksDocument field");
        let doc: Result<FrameworksDocument, _> = toml::from_str(&format!("{table} = []"));
        assert!(doc.is_ok(), "{table}: {doc:?}");
    }
}

#[test]
fn builtin_framework_documents_hold_only_framework_tables() {
    for (name, text) in BUILTIN_DOCUMENTS {
        let table: toml::Table = toml::from_str(text).unwrap();
        for key in table.keys() {
            assert!(TABLES.contains(&key.as_str()), "{name}: `{key}`");
        }
    }
}

#[test]
fn a_users_file_replaces_a_framework_table_and_keeps_the_others() {
    let builtin = kb();
    let text = r#"
[[source]]
id = "SITE-BUILD"
description = "our own torch 2.1 build"

[[torch_cudnn]]
first = "2.1"
last = "2.1"
variants = ["cu121"]
cudnn = "8.9.7.29"
shipping = "bundled"
confirmed = true
sources = ["SITE-BUILD"]
"#;
    let site = Kb::with_override("site.toml", text, None).unwrap();
    assert_eq!(
        site.frameworks.torch_cudnn.len(),
        1,
        "the table is replaced whole"
    );
    assert_eq!(
        site.frameworks
            .torch_variant(&v("2.1.2"), "cu121")
            .and_then(|t| t.cudnn_version().cloned()),
        Some(v("8.9.7.29"))
    );
    assert_ne!(
        builtin
            .frameworks
            .torch_variant(&v("2.1.2"), "cu121")
            .and_then(|t| t.cudnn_version().cloned()),
        Some(v("8.9.7.29"))
    );
    assert_eq!(
        site.frameworks.torch_archs.len(),
        builtin.frameworks.torch_archs.len(),
        "other framework tables stay built-in"
    );
    assert!(site
        .origins
        .iter()
        .any(|(t, n)| t == "torch_cudnn" && n == "site.toml"));
}

#[test]
fn a_users_framework_table_is_validated_like_the_builtin_ones() {
    let unknown_source = "[[torch_cudnn]]\nfirst = \"2.1\"\nlast = \"2.1\"\nvariants = [\"cu121\"]\ncudnn = \"8.9.2.26\"\nshipping = \"bundled\"\nconfirmed = true\nsources = [\"NOPE\"]\n";
    let err = Kb::with_override("x.toml", unknown_source, None).unwrap_err();
    assert!(err.to_string().contains("NOPE"), "{err}");
    let bad_field = "[[torch_cudnn]]\nfirst = \"2.1\"\nlast = \"2.1\"\nvariants = [\"cu121\"]\nshipping = \"bundled\"\nconfirmed = true\nsources = [\"PYPI\"]\ncolour = 1\n";
    assert!(Kb::with_override("x.toml", bad_field, None).is_err());
    let err = Kb::with_override("x.toml", "[[torch_builds]]\n", None).unwrap_err();
    let message = err.to_string();
    assert!(
        message.contains("unknown table `torch_builds`"),
        "{message}"
    );
    assert!(
        message.contains("torch_cudnn") && message.contains("branch"),
        "{message}"
    );
}
