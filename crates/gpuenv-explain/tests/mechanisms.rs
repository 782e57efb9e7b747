//! The ranking mechanisms beyond plain signatures: category hints (re-ranking a matched
//! signature's causes, and the weak fallback answer when nothing else answers), and signatures
//! that count only when two different versions are stated.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use gpuenv_explain::{Catalogue, Category, Explainer, Level, ANSWER_FLOOR, MEDIUM};
use gpuenv_facts::{Facts, Gpu, KernelModule, Source, Sourced};

fn explainer() -> Explainer {
    Explainer::builtin().unwrap()
}

#[test]
fn a_hint_alone_is_a_weak_labelled_answer() {
    let x = explainer().explain(
        b"$ export CUDA_VISIBLE_DEVICES=-1\n$ python train.py\nSegmentation fault (core dumped)\n",
        None,
        None,
    );
    assert!(x.recognised.is_empty());
    let top = x.top().expect("the hint is an answer");
    assert_eq!(top.category, Category::EnvVarMisconfiguration);
    assert!(top.hint);
    assert_eq!(top.level, Level::Low);
    assert!(top.confidence >= ANSWER_FLOOR && top.confidence < MEDIUM);
    assert!(top.signature.starts_with("hint:"), "{}", top.signature);
    assert!(
        top.explanation.starts_with("Weak hint only")
            && top.explanation.contains("CUDA_VISIBLE_DEVICES=-1"),
        "{}",
        top.explanation
    );
}

#[test]
fn a_hint_does_not_answer_when_a_signature_does() {
    let x = explainer().explain(
        b"export CUDA_VISIBLE_DEVICES=-1\ntorch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\n",
        None,
        None,
    );
    assert_eq!(x.top().unwrap().category, Category::OutOfMemory);
    assert!(x.diagnoses.iter().all(|d| !d.hint));
}

#[test]
fn hints_of_different_categories_give_no_answer() {
    let x = explainer().explain(
        b"Linux 5.15.153.1-microsoft-standard-WSL2\nexport CUDA_VISIBLE_DEVICES=-1\nit does not work\n",
        None,
        None,
    );
    // `microsoft-standard-WSL2` is itself a signature (wsl-lib-path); without it, the two hints
    // disagree.
    let y = explainer().explain(
        b"WSL 2 Ubuntu\nexport CUDA_VISIBLE_DEVICES=-1\nit does not work\n",
        None,
        None,
    );
    assert_eq!(x.top().unwrap().category, Category::Wsl);
    assert!(y.top().is_none(), "{:?}", y.top());
    assert!(y.diagnoses.iter().all(|d| d.hint && d.level == Level::Low));
}

#[test]
fn facts_can_rule_a_hint_out() {
    let facts = Facts {
        live: true,
        ..Facts::default()
    };
    let text = b"WSL 2 Ubuntu 22.04\nsomething unrelated failed\n";
    assert_eq!(
        explainer()
            .explain(text, None, None)
            .top()
            .unwrap()
            .category,
        Category::Wsl
    );
    // A live machine that is not WSL: the hint falls below the answer floor.
    assert!(explainer()
        .explain(text, Some(&facts), None)
        .top()
        .is_none());
}

#[test]
fn a_hint_reranks_the_causes_of_a_matched_signature() {
    let smi = "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest NVIDIA driver is installed and running.\n";
    let native = explainer().explain(smi.as_bytes(), None, None);
    assert_eq!(native.top().unwrap().category, Category::DriverMissing);
    let wsl1 = format!(
        "{smi}Error! Your kernel headers for kernel 4.4.0-19041-Microsoft cannot be found.\n"
    );
    let x = explainer().explain(wsl1.as_bytes(), None, None);
    let top = x.top().unwrap();
    assert_eq!(top.category, Category::Wsl);
    assert!(!top.hint, "a matched signature's cause, not a fallback");
    assert_eq!(top.signature, "nvidia-smi-cannot-communicate");
}

#[test]
fn two_stated_toolkit_versions_are_two_installs() {
    let two = b"-- got cuda version 7.5\n-- Found CUDA with FP16 support\nnvcc: NVIDIA (R) Cuda compiler driver\nCuda compilation tools, release 8.0, V8.0.61\n";
    let x = explainer().explain(two, None, None);
    let top = x.top().unwrap();
    assert_eq!(top.category, Category::MultipleInstallsConflict);
    assert_eq!(top.signature, "cuda-toolkit-versions-differ");

    let one = b"-- Found CUDA: /usr/local/cuda (found version \"11.8\")\n-- Found PythonInterp: /usr/bin/python3 (found version \"3.10.12\")\nCuda compilation tools, release 11.8, V11.8.89\n";
    let y = explainer().explain(one, None, None);
    assert!(
        y.recognised
            .iter()
            .all(|r| r.signature != "cuda-toolkit-versions-differ"),
        "{:?}",
        y.recognised
    );
}

#[test]
fn hints_are_validated() {
    let hint = |confidence: f64, against: &str| {
        format!(
            r#"
[[hint]]
id = "h"
category = "wsl"
words = ["WSL"]
against = [{against}]
confidence = {confidence}
explanation = "e"
fix = "f"
sources = ["https://example.org/report"]
"#
        )
    };
    assert!(Catalogue::from_files(&[("ok.toml", &hint(0.35, ""))]).is_ok());
    // Never medium or high, never below the answer floor.
    assert!(Catalogue::from_files(&[("high.toml", &hint(0.5, ""))]).is_err());
    assert!(Catalogue::from_files(&[("low.toml", &hint(0.2, ""))]).is_err());
    assert!(Catalogue::from_files(&[("self.toml", &hint(0.35, "\"wsl\""))]).is_err());
    assert!(Catalogue::from_files(&[("bad.toml", &hint(0.35, "\"no-such\""))]).is_err());
}

/// A machine with `gpus` NVIDIA GPUs on the bus, the given kernel module state, and
/// CUDA_VISIBLE_DEVICES as given.
fn machine(gpus: usize, module: Option<&str>, visible: Option<&str>) -> Facts {
    let mut facts = Facts {
        live: true,
        ..Facts::default()
    };
    facts.driver.kernel_module_state_known = true;
    facts.driver.kernel_module = module.map(|v| KernelModule {
        version: Sourced::new(
            v.parse().unwrap(),
            Source::File("/proc/driver/nvidia/version".to_string()),
        ),
        flavor: None,
    });
    for i in 0..gpus {
        facts.gpus.devices.push(Gpu {
            pci_address: format!("0000:0{}:00.0", i + 1),
            device_id: 0x2204,
            name: None,
            chip: None,
            cc: None,
            architecture: None,
            uuid: None,
            bound_driver: None,
            legacy_branch: None,
        });
    }
    facts.gpus.cuda_visible_devices =
        visible.map(|v| Sourced::new(v.to_string(), Source::Env("CUDA_VISIBLE_DEVICES".into())));
    facts
}

/// "No CUDA GPUs are available": from the text alone CUDA_VISIBLE_DEVICES (medium) before a
/// missing driver; the machine's facts decide when there are some.
#[test]
fn no_device_is_the_variable_from_the_text_and_the_facts_decide() {
    let text = b"RuntimeError: No CUDA GPUs are available\n";
    let e = explainer();
    let alone = e.explain(text, None, None);
    let top = alone.top().unwrap();
    assert_eq!(top.category, Category::EnvVarMisconfiguration);
    assert_eq!(top.level, Level::Medium);
    assert_eq!(alone.diagnoses[1].category, Category::DriverMissing);

    // No kernel module: the driver.
    let x = e.explain(text, Some(&machine(1, None, None)), None);
    assert_eq!(x.top().unwrap().category, Category::DriverMissing);

    // A loaded driver, one GPU, CUDA_VISIBLE_DEVICES=3 (or 1,0: CUDA stops at the first entry
    // that names no GPU): the variable, confirmed.
    for visible in ["3", "1,0"] {
        let x = e.explain(
            text,
            Some(&machine(1, Some("550.144.03"), Some(visible))),
            None,
        );
        let top = x.top().unwrap();
        assert_eq!(top.category, Category::EnvVarMisconfiguration, "{visible}");
        assert_eq!(top.level, Level::High, "{visible}");
        assert!(
            format!("{:?}", top.evidence).contains("there is no GPU"),
            "{:?}",
            top.evidence
        );
    }
    // An index that exists is only noted.
    let x = e.explain(text, Some(&machine(2, Some("550.144.03"), Some("1"))), None);
    let top = x.top().unwrap();
    assert_eq!(top.category, Category::EnvVarMisconfiguration);
    assert_eq!(top.level, Level::Medium);
}

/// The JSON of a diagnosis (`gpuenv explain --format json`): the fields it promises.
#[test]
fn a_diagnosis_serialises_its_fields() {
    let x = explainer().explain(
        b"ImportError: libcudnn.so.9: cannot open shared object file: No such file or directory\n",
        None,
        None,
    );
    let json = serde_json::to_value(x.top().unwrap()).unwrap();
    for key in [
        "category",
        "layer",
        "confidence",
        "level",
        "signature",
        "explanation",
        "evidence",
        "fix",
        "sources",
        "hint",
    ] {
        assert!(json.get(key).is_some(), "{key}: {json:#}");
    }
    assert_eq!(json["category"], "cudnn-missing");
    assert_eq!(json.as_object().unwrap().len(), 10, "{json:#}");
}
