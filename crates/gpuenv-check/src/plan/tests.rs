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
