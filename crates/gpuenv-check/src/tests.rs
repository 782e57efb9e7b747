//! Unit tests of the checks on hand-built facts (the scenario tests in crates/gpuenv cover them
//! end to end on fake machine roots).

use gpuenv_facts::{
    CudnnInstall, Facts, Gpu, KernelModule, LibraryFile, LinkState, Source, Sourced, Toolkit,
};
use gpuenv_kb::{ComputeCapability, Kb, Version};

use crate::{run_checks, Context, Severity};

fn kb() -> Kb {
    Kb::builtin().unwrap()
}

fn v(s: &str) -> Version {
    s.parse().unwrap()
}

fn file(p: &str) -> Source {
    Source::File(p.into())
}

fn with_driver(version: &str) -> Facts {
    let mut f = Facts::default();
    f.driver.kernel_module = Some(KernelModule {
        version: Sourced::new(v(version), file("/proc/driver/nvidia/version")),
        flavor: Some("proprietary".into()),
    });
    f.driver.userspace_version = Some(Sourced::new(
        v(version),
        Source::Path("/usr/lib/libcuda.so.x".into()),
    ));
    f
}

fn toolkit(version: &str) -> Toolkit {
    let parsed = v(version);
    let root = format!("/usr/local/cuda-{}.{}", parsed.major(), parsed.minor());
    Toolkit {
        root: root.clone(),
        real_root: root.clone(),
        version: Some(Sourced::new(
            v(version),
            file(&format!("{root}/version.json")),
        )),
        layout: "nvidia".into(),
        found_via: vec![root],
        nvcc: None,
    }
}

fn gpu(device_id: u16, cc: &str) -> Gpu {
    Gpu {
        pci_address: "0000:01:00.0".into(),
        device_id,
        name: Some(Sourced::new("GPU".into(), Source::Kb("gpus.tsv".into()))),
        chip: None,
        cc: Some(Sourced::new(
            cc.parse::<ComputeCapability>().unwrap(),
            Source::Kb("gpus.tsv".into()),
        )),
        architecture: None,
        uuid: None,
        bound_driver: None,
        legacy_branch: None,
    }
}

fn ids(f: &Facts) -> Vec<(String, Severity)> {
    run_checks(f, &kb())
        .into_iter()
        .map(|f| (f.id, f.severity))
        .collect()
}

#[test]
fn driver_api_ceiling_wins_over_the_branch_table() {
    let mut f = with_driver("535.104.05");
    let kb = kb();
    assert_eq!(
        Context::new(&f, &kb)
            .driver_ceiling()
            .unwrap()
            .0
            .to_string(),
        "12.2"
    );
    f.driver.cuda_driver_version = Some(Sourced::new(
        "12.4".parse().unwrap(),
        Source::DriverApi("cuDriverGetVersion".into()),
    ));
    assert_eq!(
        Context::new(&f, &kb)
            .driver_ceiling()
            .unwrap()
            .0
            .to_string(),
        "12.4"
    );
}

#[test]
fn toolkit_within_the_ceiling_is_fine_above_it_is_a_warning_below_mvc_an_error() {
    let mut f = with_driver("535.104.05");
    f.cuda.toolkits = vec![toolkit("12.2.2")];
    assert!(!ids(&f)
        .iter()
        .any(|(id, _)| id == "driver-too-old-for-cuda"));
    f.cuda.toolkits = vec![toolkit("12.4.1")];
    assert!(ids(&f).contains(&("driver-too-old-for-cuda".into(), Severity::Warning)));
    let mut old = with_driver("470.239.06");
    old.cuda.toolkits = vec![toolkit("12.2.0")];
    assert!(ids(&old).contains(&("driver-too-old-for-cuda".into(), Severity::Error)));
    // Before CUDA 11 each toolkit needs its own minimum: 10.2 needs 440.33.
    let mut ancient = with_driver("418.39");
    ancient.cuda.toolkits = vec![toolkit("10.2.89")];
    assert!(ids(&ancient).contains(&("driver-too-old-for-cuda".into(), Severity::Error)));
}

#[test]
fn unknown_cuda_major_is_reported_not_guessed() {
    // R620's ceiling (13.5) is an unconfirmed row: nothing is concluded about CUDA 14.
    let mut f = with_driver("620.70.06");
    f.cuda.toolkits = vec![toolkit("14.0.0")];
    let found = ids(&f);
    assert!(!found.iter().any(|(id, _)| id == "driver-too-old-for-cuda"));
    assert!(found.contains(&("kb-unknown-version".into(), Severity::Info)));
    // R580's ceiling (13.0) is confirmed: a CUDA 14 toolkit needs a newer driver, whatever its minimum.
    let mut g = with_driver("580.95.05");
    g.cuda.toolkits = vec![toolkit("14.0.0")];
    let found = ids(&g);
    assert!(
        found.contains(&("driver-too-old-for-cuda".into(), Severity::Error)),
        "{found:?}"
    );
    assert!(found.contains(&("kb-unknown-version".into(), Severity::Info)));
}

#[test]
fn arch_support_by_toolkit_and_driver_branch() {
    let mut f = with_driver("550.54.14");
    f.gpus.devices = vec![gpu(0x2b85, "12.0")];
    f.cuda.toolkits = vec![toolkit("12.4.1")];
    let found = ids(&f);
    assert!(found.contains(&("gpu-arch-unsupported-by-toolkit".into(), Severity::Error)));
    assert!(found.contains(&("gpu-dropped-by-driver".into(), Severity::Error)));
    let mut k80 = with_driver("470.239.06");
    k80.gpus.devices = vec![gpu(0x102d, "3.7")];
    assert!(!ids(&k80)
        .iter()
        .any(|(id, _)| id == "gpu-dropped-by-driver"));
    let mut k80_new = with_driver("535.104.05");
    k80_new.gpus.devices = vec![gpu(0x102d, "3.7")];
    assert!(ids(&k80_new)
        .iter()
        .any(|(id, _)| id == "gpu-dropped-by-driver"));
}

#[test]
fn cudnn_release_without_a_build_for_the_runtime_major() {
    let mut f = with_driver("550.54.14");
    f.cuda.toolkits = vec![toolkit("12.4.1")];
    let dir = "/usr/local/cuda-12.4/lib64".to_string();
    let shim = LibraryFile {
        path: format!("{dir}/libcudnn.so.8"),
        real_path: Some(format!("{dir}/libcudnn.so.8.6.0")),
        link_state: LinkState::Ok,
        soname: Some("libcudnn.so.8".into()),
        needed: vec![],
        version: Some(v("8.6.0")),
        reachable_via: vec![],
        dir: dir.clone(),
        error: None,
        size: None,
        build_id: None,
    };
    f.libraries.cudnn = vec![CudnnInstall {
        dir: dir.clone(),
        major: 8,
        version: Some(Sourced::new(
            v("8.6.0"),
            Source::Path(format!("{dir}/libcudnn.so.8.6.0")),
        )),
        shim: Some(shim),
        dev_link: None,
        sublibraries: vec![],
        cuda_major: None,
        header: None,
        reachable_via: vec![],
        loader_selected: false,
    }];
    let found = run_checks(&f, &kb());
    let m = found
        .iter()
        .find(|f| f.id == "cudnn-cuda-mismatch")
        .unwrap_or_else(|| panic!("fires from the release table alone: {found:#?}"));
    assert!(m.title.contains("no build for CUDA 12"), "{}", m.title);
}

#[test]
fn a_machine_with_nothing_nvidia_has_no_findings() {
    assert!(ids(&Facts::default()).is_empty());
}

#[test]
fn cuda_visible_devices_is_applied_like_cuda_does() {
    let kb = kb();
    let mut f = with_driver("550.54.14");
    f.gpus.devices = vec![gpu(0x2204, "8.6"), gpu(0x2204, "8.6")];
    let count = |value: &str, f: &mut Facts| {
        f.gpus.cuda_visible_devices = Some(Sourced::new(
            value.to_string(),
            Source::Env("CUDA_VISIBLE_DEVICES".into()),
        ));
        Context::new(f, &kb).visible_gpu_count()
    };
    assert_eq!(count("0,1", &mut f), Some(2));
    assert_eq!(count("1", &mut f), Some(1));
    assert_eq!(count("", &mut f), Some(0));
    assert_eq!(count("-1,0", &mut f), Some(0));
    assert_eq!(
        count("0,5,1", &mut f),
        Some(1),
        "CUDA stops at the first invalid entry"
    );
    assert_eq!(count("0,0", &mut f), Some(1));
}
