//! Unit tests of the plan engine with explicit targets (the built-in knowledge base).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::*;

fn kb() -> Kb {
    Kb::builtin().unwrap()
}

fn target(kb: &Kb, ccs: &[&str], driver: Option<&str>, python: Option<&str>) -> Target {
    let mut t = Target::unconstrained();
    let ccs: Vec<ComputeCapability> = ccs.iter().map(|c| c.parse().unwrap()).collect();
    t.set_gpus(kb, &ccs, "--gpu");
    if let Some(d) = driver {
        t.set_driver(kb, d.parse().unwrap(), "--driver");
    }
    if let Some(p) = python {
        t.python = Some(p.parse().unwrap());
        t.python_from = "--python".into();
    }
    t
}

#[test]
fn version_spec_parsing() {
    assert_eq!(
        parse_version_spec("torch>=2.4,<2.6").unwrap(),
        (Some("torch".into()), ">=2.4,<2.6".into())
    );
    assert_eq!(
        parse_version_spec("2.5.1").unwrap(),
        (None, "==2.5.1".into())
    );
    assert!(parse_version_spec("torch").is_err());
    assert!(parse_version_spec("torch>=>2").is_err());
}

#[test]
fn pascal_on_535_gets_the_newest_fully_supported_build_with_sm_60() {
    let kb = kb();
    let p = plan(
        &kb,
        target(&kb, &["6.1"], Some("535.104.05"), None),
        &Request::default(),
        &[],
    );
    let c = p.choice.unwrap();
    // framework-facts 1.4: cu118 of 2.6-2.7 carries sm_60 (UNCONFIRMED row); cu126/cu128 need
    // driver 560/570 for full support (nvidia-facts 1a); so 2.7.1+cu118, flagged unconfirmed.
    assert_eq!(c.version.to_string(), "2.7.1");
    assert_eq!(c.variant.as_deref(), Some("cu118"));
    assert!(!c.confirmed);
}

#[test]
fn gpu_code_rule_same_major_sass_or_older_ptx() {
    // NVIDIA's rules (nvidia-facts 6b): SASS X.Z runs on X.Y with Z <= Y, never across majors.
    let kb = kb();
    let v = kb
        .frameworks
        .torch_variant(&"2.14.1".parse().unwrap(), "cu130")
        .unwrap();
    let arch = v.arch.unwrap();
    let cover = |cc: &str| torch::arch_covers(arch, cc.parse().unwrap());
    assert_eq!(cover("12.1").as_deref(), Some("SASS sm_120")); // GB10 runs sm_120
    assert_eq!(cover("10.3").as_deref(), Some("SASS sm_100")); // B300 runs sm_100
    assert_eq!(cover("8.9").as_deref(), Some("SASS sm_86")); // Ada runs sm_86
    assert_eq!(cover("7.0"), None); // Volta: no 7.x SASS <= 7.0, no PTX
    assert_eq!(cover("6.1"), None);
}

#[test]
fn kepler_gets_named_newest_build_when_nothing_fits() {
    let kb = kb();
    let request = Request {
        version_spec: Some(">=2.6".into()),
        ..Request::default()
    };
    let p = plan(
        &kb,
        target(&kb, &["3.7"], Some("470.256.02"), None),
        &request,
        &[],
    );
    assert!(p.choice.is_none());
    let nf = p.nothing_fits.unwrap();
    let newest = nf.newest_for_gpu.unwrap();
    // framework-facts 1.4: sm_37 through cu118, confirmed up to 2.5.
    assert_eq!(newest.version.to_string(), "2.5.1");
    assert_eq!(newest.variant.as_deref(), Some("cu118"));
}

#[test]
fn kepler_on_470_gets_conda_forge_cuda112_build_newer_than_pypi() {
    // conda-forge/pytorch-cpu-feedstock: 2.1.2 has a cuda112 build (linux-64) whose
    // TORCH_CUDA_ARCH_LIST starts at 3.5 (recipe/build.sh); CUDA 11.2 needs driver 460.27.03
    // (release notes' Table 3), which R470 exceeds. PyPI's newest for sm_37 on 470 is 1.12.1+cu102.
    let kb = kb();
    let p = plan(
        &kb,
        target(&kb, &["3.7"], Some("470.256.02"), None),
        &Request::default(),
        &[],
    );
    assert_eq!(p.choice.as_ref().unwrap().version.to_string(), "1.12.1");
    let cf = p.conda_forge.as_ref().unwrap();
    assert_eq!(cf.version.to_string(), "2.1.2");
    assert_eq!(cf.build_prefix.as_deref(), Some("cuda112"));
    assert_eq!(cf.gpu_code, vec!["sm_37: SASS sm_35".to_string()]);
    assert!(cf.commands[0].contains("\"pytorch=2.1.2=cuda112*\""));
    assert!(p
        .alternatives
        .iter()
        .any(|a| a.starts_with("conda-forge has a newer build that fits: pytorch 2.1.2")));
    // No official image carries a build for sm_37 on this driver.
    assert!(p.docker_image.is_none());
}

#[test]
fn pascal_on_580_conda_forge_keeps_sm_60_in_cuda129_builds() {
    // conda-forge's CUDA 12.9 builds (2.7.1 build 1 .. 2.13.0) keep 6.0 in TORCH_CUDA_ARCH_LIST
    // (feedstock commit 7b937ea1); the cuda130 builds start at 7.5. CUDA 12.9 needs driver
    // 575.51.03 for full support.
    let kb = kb();
    let p = plan(
        &kb,
        target(&kb, &["6.1"], Some("580.65.06"), Some("3.12")),
        &Request::default(),
        &[],
    );
    let cf = p.conda_forge.as_ref().unwrap();
    assert_eq!(cf.version.to_string(), "2.13.0");
    assert_eq!(cf.build_prefix.as_deref(), Some("cuda129"));
    assert!(cf.commands[0].contains("python=3.12"));
    // On 570 (CUDA 12.8) the cuda129 builds run only under minor-version compatibility: the
    // newest fully supported conda-forge build is 2.7.1's cuda126 build.
    let p = plan(
        &kb,
        target(&kb, &["6.1"], Some("570.86.10"), None),
        &Request::default(),
        &[],
    );
    let cf = p.conda_forge.as_ref().unwrap();
    assert_eq!(
        (cf.version.to_string(), cf.build_prefix.as_deref()),
        ("2.7.1".to_string(), Some("cuda126"))
    );
}

#[test]
fn docker_image_of_the_chosen_build_and_of_an_older_one() {
    // pytorch/test-infra's release matrix when 2.11.0 became stable: CUDA 12.6, 12.8, 13.0,
    // cuDNN 9; tags {version}-cuda{X.Y}-cudnn9-{runtime,devel}.
    let kb = kb();
    let p = plan(
        &kb,
        target(&kb, &["12.0"], Some("570.86.10"), None),
        &Request::default(),
        &[],
    );
    let c = p.choice.as_ref().unwrap();
    assert_eq!(
        (c.version.to_string(), c.variant.as_deref()),
        ("2.11.0".to_string(), Some("cu128"))
    );
    let img = p.docker_image.as_ref().unwrap();
    assert_eq!(img.image, "pytorch/pytorch:2.11.0-cuda12.8-cudnn9-runtime");
    assert_eq!(
        img.devel.as_deref(),
        Some("pytorch/pytorch:2.11.0-cuda12.8-cudnn9-devel")
    );
    assert!(img.same_as_choice && img.confirmed);
    let dockerfile = emit_file(&p, EmitKind::Dockerfile).unwrap();
    assert!(dockerfile.contains("\nFROM pytorch/pytorch:2.11.0-cuda12.8-cudnn9-runtime\n"));
    // The knowledge base's image list ends at 2.13.0: a 2.14 choice names the newest image that
    // fits and keeps python:X-slim in the Dockerfile.
    let p = plan(
        &kb,
        target(&kb, &["8.6"], Some("580.65.06"), Some("3.12")),
        &Request::default(),
        &[],
    );
    assert_eq!(p.choice.as_ref().unwrap().version.to_string(), "2.14.1");
    let img = p.docker_image.as_ref().unwrap();
    assert!(!img.same_as_choice);
    assert_eq!(img.image, "pytorch/pytorch:2.13.0-cuda13.0-cudnn9-runtime");
    let dockerfile = emit_file(&p, EmitKind::Dockerfile).unwrap();
    assert!(dockerfile.contains("\nFROM python:3.12-slim\n"));
}

#[test]
fn tensorflow_checks_the_gpu_code_measured_in_its_wheels() {
    // Measured in the PyPI wheels (tools/kb/research/tensorflow-archs.toml): 2.16.2 carries
    // sm_50 .. sm_90, 2.17.1 and later start at sm_60; 2.16 is tested with CUDA 12.3, which needs
    // driver 545.23.06. So a Maxwell sm_52 on 535 gets 2.15 (CUDA 12.2 needs 535.54.03).
    let kb = kb();
    let request = Request {
        framework: Some(Framework::Tensorflow),
        ..Request::default()
    };
    let p = plan(
        &kb,
        target(&kb, &["5.2"], Some("535.104.05"), None),
        &request,
        &[],
    );
    assert_eq!(p.choice.unwrap().version.to_string(), "2.15.0");
    let gpu = p.constraints.iter().find(|c| c.kind == "gpu").unwrap();
    assert!(gpu
        .excluded
        .iter()
        .any(|e| e.starts_with("tensorflow 2.17.0: no code for sm_52")));
    // Blackwell sm_120 has no SASS in any TensorFlow wheel; 2.20 and 2.21 ship compute_90 PTX in
    // every fatbin container, up to 2.19 one container per library has none: so <2.20 fits nothing.
    let p = plan(
        &kb,
        target(&kb, &["12.0"], Some("575.51.03"), None),
        &request,
        &[],
    );
    assert_eq!(p.choice.unwrap().version.to_string(), "2.21.0");
    let request = Request {
        framework: Some(Framework::Tensorflow),
        version_spec: Some("<2.20".into()),
        ..Request::default()
    };
    let p = plan(
        &kb,
        target(&kb, &["12.0"], Some("575.51.03"), None),
        &request,
        &[],
    );
    assert!(p.choice.is_none());
}

#[test]
fn deeplabcut_conda_forge_route_keeps_its_python_cap_and_adds_deeplabcut() {
    // DeepLabCut 3 supports Python 3.10–3.12 and torch>=2; a specifier naming deeplabcut does
    // not constrain torch. conda-forge's newest build fully supported by R550 (CUDA 12.4) for
    // sm_86: 2.5.1's cuda120 build (its cuda126 builds need 560.28.03).
    let kb = kb();
    let request = Request {
        framework: Some(Framework::Deeplabcut),
        version_spec: Some("==3.0.1".into()),
        version_name: Some("deeplabcut".into()),
        ..Request::default()
    };
    let p = plan(
        &kb,
        target(&kb, &["8.6"], Some("550.54.15"), None),
        &request,
        &[],
    );
    let cf = p.conda_forge.as_ref().unwrap();
    assert_eq!(
        (cf.version.to_string(), cf.build_prefix.as_deref()),
        ("2.5.1".to_string(), Some("cuda120"))
    );
    assert!(cf.commands[0].contains("python=3.12"), "{:?}", cf.commands);
    assert_eq!(
        cf.commands.last().unwrap(),
        "python -m pip install 'deeplabcut[gui]==3.0.1'"
    );
}
