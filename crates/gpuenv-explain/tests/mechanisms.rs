//! The ranking mechanisms beyond plain signatures: category hints (re-ranking a matched signature's
//! causes, and the weak fallback answer when nothing else answers), the word model's guess when
//! neither answers, signatures that count only when two different versions are stated, conditions
//! on the text beyond single words (another cuDNN major named, LD_LIBRARY_PATH shown naming a CUDA
//! directory, a Docker Compose service column), which words count as context (not inside a
//! framework's own advice, only at the start of a word), the machine's facts (where a missing
//! library is, which frameworks want which cuDNN), and logs from other machines.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use gpuenv_explain::{Catalogue, Category, Explainer, Level, ANSWER_FLOOR, MEDIUM};
use gpuenv_facts::{
    CudnnInstall, DriverLibrary, Facts, FrameworkFacts, Gpu, KernelModule, LinkState,
    PythonEnvironment, Source, Sourced, TensorflowBuild, Toolkit, TorchBuild,
};
use gpuenv_kb::Kb;

fn explainer() -> Explainer {
    Explainer::builtin().unwrap()
}

/// The built-in catalogue without the word model: for what signatures and hints do alone.
fn without_words() -> Explainer {
    Explainer::new(Catalogue::builtin().unwrap()).unwrap()
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
    // disagree (the word model, the last resort, may still guess).
    let y = without_words().explain(
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
    let text = b"WSL 2 Ubuntu 22.04\nfrobnicate xyzzy failed\n";
    assert_eq!(
        without_words()
            .explain(text, None, None)
            .top()
            .unwrap()
            .category,
        Category::Wsl
    );
    // A live machine that is not WSL: the hint falls below the answer floor.
    assert!(without_words()
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
fn another_cudnn_major_in_the_log_is_a_version_mismatch() {
    // TensorFlow 2.3 wants cuDNN 7; the reporter's template says cuDNN 8 is installed.
    let other = b"- CUDA/cuDNN version: 10.1/8.0.2.39\nW tensorflow/stream_executor/platform/default/dso_loader.cc:59] Could not load dynamic library 'libcudnn.so.7'; dlerror: libcudnn.so.7: cannot open shared object file: No such file or directory\n";
    let x = explainer().explain(other, None, None);
    let top = x.top().unwrap();
    assert_eq!(top.category, Category::CudnnVersionMismatch);
    assert!(
        top.evidence
            .iter()
            .any(|e| format!("{e:?}").contains("8.0.2.39")),
        "{:?}",
        top.evidence
    );

    // The same message with the same major named elsewhere (or none) is cuDNN missing.
    for log in [
        &b"cuDNN version: 7.6.5\nCould not load dynamic library 'libcudnn.so.7'; dlerror: libcudnn.so.7: cannot open shared object file: No such file or directory\n"[..],
        &b"Could not load dynamic library 'libcudnn.so.7'; dlerror: libcudnn.so.7: cannot open shared object file: No such file or directory\n"[..],
    ] {
        let y = explainer().explain(log, None, None);
        assert_eq!(y.top().unwrap().category, Category::CudnnMissing);
    }
}

#[test]
fn text_checks_are_validated() {
    let signature = |check: &str| {
        format!(
            r#"
[[signature]]
id = "s"
patterns = ["libcudnn.so"]
frameworks = ["pytorch"]
weight = 0.9
explanation = "e"
sources = ["https://example.org/report"]
[[signature.cause]]
category = "cudnn-missing"
prior = 0.8
unless_text = ["{check}"]
fix = "f"
"#
        )
    };
    assert!(Catalogue::from_files(&[("ok.toml", &signature("another-cudnn-major"))]).is_ok());
    assert!(
        Catalogue::from_files(&[("ok.toml", &signature("ld-library-path-names-cuda"))]).is_ok()
    );
    assert!(Catalogue::from_files(&[("bad.toml", &signature("no-such-check"))]).is_err());
    // A cause only facts can name must name them.
    let needs = |facts: &str| {
        signature("another-cudnn-major").replace(
            "fix = \"f\"",
            &format!("needs_facts = true\n{facts}fix = \"f\""),
        )
    };
    assert!(
        Catalogue::from_files(&[("ok.toml", &needs("facts = [\"library-unreachable\"]\n"))])
            .is_ok()
    );
    assert!(Catalogue::from_files(&[("bad.toml", &needs(""))]).is_err());
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

#[test]
fn word_sets_expand_in_every_file_and_are_validated() {
    let signature = r#"
[[signature]]
id = "s"
patterns = ["Torch not compiled with CUDA enabled"]
frameworks = ["pytorch"]
weight = 0.9
explanation = "e"
sources = ["https://example.org/report"]
[[signature.cause]]
category = "cpu-only-build"
prior = 0.8
unless = ["@mac", "GeForce"]
fix = "f"
"#;
    let sets = |words: &str| format!("[[word_set]]\nid = \"mac\"\nwords = [{words}]\n");
    // A set defined in a later file still reaches the signature, in place of its `@` entry.
    let catalogue = Catalogue::from_files(&[
        ("a.toml", signature),
        ("b.toml", &sets("\"macOS\", \"MacBook\"")),
    ])
    .unwrap();
    assert_eq!(
        catalogue.signatures[0].causes[0].unless,
        ["macOS", "MacBook", "GeForce"]
    );
    // An unknown set, an empty one, a set naming a set, a set defined twice: rejected.
    assert!(Catalogue::from_files(&[("a.toml", signature)]).is_err());
    assert!(Catalogue::from_files(&[("a.toml", signature), ("b.toml", &sets(""))]).is_err());
    assert!(
        Catalogue::from_files(&[("a.toml", signature), ("b.toml", &sets("\"@mac\""))]).is_err()
    );
    let twice = sets("\"macOS\"");
    assert!(Catalogue::from_files(&[
        ("a.toml", signature),
        ("b.toml", &twice),
        ("c.toml", &twice)
    ])
    .is_err());
    // The built-in catalogue's sets reach its causes: a Mac path makes this a Mac.
    let explainer = Explainer::builtin().unwrap();
    let log =
        "File \"/Users/me/app.py\", line 3\nAssertionError: Torch not compiled with CUDA enabled";
    let explanation = explainer.explain(log.as_bytes(), None, None);
    assert_eq!(
        explanation.top().unwrap().category,
        Category::NotAnEnvironmentProblem
    );
}

/// A one-signature catalogue whose second cause is favoured by `word`, with one advice text.
fn catalogue_with_word(word: &str) -> Explainer {
    let toml = format!(
        r#"
[[signature]]
id = "s"
patterns = ["CUDA unknown error"]
frameworks = ["pytorch"]
weight = 0.9
explanation = "e"
sources = ["https://example.org/report"]
[[signature.cause]]
category = "hardware-or-driver-state"
prior = 0.6
fix = "f"
[[signature.cause]]
category = "env-var-misconfiguration"
prior = 0.3
when = ["{word}"]
fix = "f"

[[advice]]
text = "e.g. changing env variable CUDA_VISIBLE_DEVICES after program start"
source = "https://example.org/source"
"#
    );
    Explainer::new(Catalogue::from_files(&[("c.toml", &toml)]).unwrap()).unwrap()
}

#[test]
fn words_inside_a_frameworks_advice_are_not_context() {
    let x = catalogue_with_word("CUDA_VISIBLE_DEVICES");
    let message = "RuntimeError: CUDA unknown error - this may be due to an incorrectly set up environment, e.g. changing env variable CUDA_VISIBLE_DEVICES after program start.\n";
    let bare = x.explain(message.as_bytes(), None, None);
    assert_eq!(
        bare.top().unwrap().category,
        Category::HardwareOrDriverState
    );
    // The same word outside the advice is context and favours the variable.
    let set = format!("$ CUDA_VISIBLE_DEVICES=3 python train.py\n{message}");
    let with_context = x.explain(set.as_bytes(), None, None);
    assert_eq!(
        with_context.top().unwrap().category,
        Category::EnvVarMisconfiguration
    );
}

#[test]
fn a_context_word_must_start_a_word() {
    let x = catalogue_with_word("hang");
    // `hang` inside `changing` is not the word.
    let inside = x.explain(b"CUDA unknown error while changing the batch\n", None, None);
    assert_eq!(
        inside.top().unwrap().category,
        Category::HardwareOrDriverState
    );
    let word = x.explain(b"CUDA unknown error, then it hangs\n", None, None);
    assert_eq!(
        word.top().unwrap().category,
        Category::EnvVarMisconfiguration
    );
}

#[test]
fn an_f_string_above_a_syntax_error_is_an_older_python() {
    let x = explainer();
    let py2 = x.explain(
        b"$ python hunt.py\n  File \"hunt.py\", line 58\n    print(f\"[+] {n} found\")\n                        ^\nSyntaxError: invalid syntax\n",
        None,
        None,
    );
    assert_eq!(py2.top().unwrap().category, Category::PythonEnvMismatch);
    // Without one it is the code, and said with less confidence.
    let typo = x.explain(
        b"  File \"a.py\", line 3\n    x = = 2\n        ^\nSyntaxError: invalid syntax\n",
        None,
        None,
    );
    let top = typo.top().unwrap();
    assert_eq!(top.category, Category::NotAnEnvironmentProblem);
    assert_ne!(top.level, Level::High);
}

#[test]
fn a_message_quoted_in_advice_is_not_that_message() {
    // PyTorch's profiler prints this whenever CUPTI does not start, whatever the reason.
    let log = b"WARNING:2024-02-02 09:53:39 166:166 init.cpp:155] function cbapi->getCuptiStatus() failed with error CUPTI_ERROR_NOT_INITIALIZED (15)\nINFO:2024-02-02 09:53:39 166:166 init.cpp:158] If you see CUPTI_ERROR_INSUFFICIENT_PRIVILEGES, refer to https://developer.nvidia.com/nvidia-development-tools-solutions-err-nvgpuctrperm-cupti\n";
    let x = explainer().explain(log, None, None);
    assert!(
        x.diagnoses
            .iter()
            .all(|d| d.signature != "cupti-insufficient-privileges"),
        "{:?}",
        x.diagnoses
    );
    // The message itself still counts.
    let real = explainer().explain(
        b"CUPTI_ERROR_INSUFFICIENT_PRIVILEGES: the user does not have permission to profile\n",
        None,
        None,
    );
    assert_eq!(
        real.top().unwrap().category,
        Category::PermissionsDeviceNodes
    );
}

#[test]
fn a_message_wrapped_in_two_lines_is_still_the_message() {
    let x = explainer();
    let wrapped = x.explain(
        b"ImportError: /venv/lib/python3.6/site-packages/torchaudio/_torch_sox.cpython-36m-x86_64-linux-gnu.so: \nundefined symbol: _ZN2at19NonVariableTypeMode10is_enabledEv\n",
        None,
        None,
    );
    assert!(
        wrapped
            .diagnoses
            .iter()
            .any(|d| d.signature == "undefined-symbol-torch-extension"),
        "{:?}",
        wrapped.diagnoses
    );
    // Not when the line above is something else, or the pattern does not open its line.
    for text in [
        &b"Loading model\nundefined symbol: _ZN2at19NonVariableTypeMode10is_enabledEv\n"[..],
        &b"ImportError: /x/y.so: \nnote: undefined symbol: _ZN2at19NonVariableTypeMode10is_enabledEv\n"[..],
    ] {
        let other = x.explain(text, None, None);
        assert!(
            other
                .diagnoses
                .iter()
                .all(|d| d.signature != "undefined-symbol-torch-extension"),
            "{:?}",
            other.diagnoses
        );
    }
}

#[test]
fn advice_is_validated() {
    let advice = |text: &str, source: &str| {
        format!("[[advice]]\ntext = \"{text}\"\nsource = \"{source}\"\n")
    };
    assert!(Catalogue::from_files(&[(
        "ok.toml",
        &advice(
            "or manually add a path to LD_LIBRARY_PATH",
            "https://example.org/s"
        )
    )])
    .is_ok());
    // Short texts would silence ordinary context; every text names where it is printed.
    assert!(Catalogue::from_files(&[(
        "short.toml",
        &advice("LD_LIBRARY_PATH", "https://example.org/s")
    )])
    .is_err());
    assert!(Catalogue::from_files(&[(
        "nosource.toml",
        &advice("or manually add a path to LD_LIBRARY_PATH", "example.org")
    )])
    .is_err());
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

/// "CUDA_HOME environment variable is not set": a variable to set (medium) from the text alone;
/// on a machine with no toolkit at all the toolkit is what is missing, and on one whose toolkit
/// the variable does not name, the variable is confirmed.
#[test]
fn cuda_home_unset_is_the_variable_or_a_missing_toolkit_by_the_facts() {
    let text = b"OSError: CUDA_HOME environment variable is not set. Please set it to your CUDA install root.\n";
    let e = explainer();
    let alone = e.explain(text, None, None);
    assert_eq!(
        alone.top().unwrap().category,
        Category::EnvVarMisconfiguration
    );
    assert!(alone
        .diagnoses
        .iter()
        .all(|d| d.category != Category::CudaRuntimeLibMissing));

    let without = machine(1, Some("550.144.03"), None);
    let x = e.explain(text, Some(&without), None);
    let top = x.top().unwrap();
    assert_eq!(top.category, Category::CudaRuntimeLibMissing);
    assert!(
        format!("{:?}", top.evidence).contains("no CUDA toolkit with nvcc"),
        "{:?}",
        top.evidence
    );

    let mut with = machine(1, Some("550.144.03"), None);
    with.cuda.toolkits.push(Toolkit {
        root: "/usr/local/cuda-12.4".to_string(),
        real_root: "/usr/local/cuda-12.4".to_string(),
        version: None,
        layout: "nvidia".to_string(),
        found_via: vec!["/usr/local/cuda-*".to_string()],
        nvcc: Some("/usr/local/cuda-12.4/bin/nvcc".to_string()),
    });
    let x = e.explain(text, Some(&with), None);
    let top = x.top().unwrap();
    assert_eq!(top.category, Category::EnvVarMisconfiguration);
    assert_eq!(top.level, Level::High);
    assert!(
        format!("{:?}", top.evidence).contains("/usr/local/cuda-12.4"),
        "{:?}",
        top.evidence
    );
    assert!(x
        .diagnoses
        .iter()
        .all(|d| d.category != Category::CudaRuntimeLibMissing));
}

/// Messages that a machine without an NVIDIA GPU prints as well are not `high` from one line:
/// the same line with NVIDIA hardware in the log is, and with Intel graphics it is the program's
/// request for a GPU that is wrong.
#[test]
fn no_gpu_messages_are_medium_alone_and_settled_by_the_hardware_named() {
    let e = explainer();
    for (line, category) in [
        (
            "RuntimeError: Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and installed a driver from http://www.nvidia.com/Download/index.aspx",
            Category::DriverMissing,
        ),
        (
            "docker: Error response from daemon: could not select device driver \"\" with capabilities: [[gpu]].",
            Category::ContainerRuntime,
        ),
        (
            "ValueError: This CTranslate2 package was not compiled with CUDA support",
            Category::CpuOnlyBuild,
        ),
    ] {
        let alone = e.explain(format!("{line}\n").as_bytes(), None, None);
        let top = alone.top().unwrap();
        assert_eq!(top.category, category, "{line}");
        assert_eq!(top.level, Level::Medium, "{line}");

        let with_gpu = format!("GPU 0: NVIDIA GeForce RTX 3060\n{line}\n");
        let x = e.explain(with_gpu.as_bytes(), None, None);
        let top = x.top().unwrap();
        assert_eq!(top.category, category, "{line}");
        assert_eq!(top.level, Level::High, "{line}");

        let intel = format!("Graphics: Mesa Intel(R) UHD Graphics 620\n{line}\n");
        let x = e.explain(intel.as_bytes(), None, None);
        assert_eq!(
            x.top().unwrap().category,
            Category::NotAnEnvironmentProblem,
            "{line}"
        );
    }
}

/// torch's capability warning: a GPU older than the build's oldest architecture has no kernels;
/// a newer minor revision of its newest major runs that code, so the warning is harmless.
#[test]
fn a_capability_warning_is_harmless_for_a_newer_minor_of_the_newest_major() {
    let e = explainer();
    let warning = |name: &str, gpu: &str, max: &str| {
        format!("Found GPU0 {name} which is of cuda capability {gpu}. Minimum and Maximum cuda capability supported by this version of PyTorch is (5.0) - ({max})\n")
    };
    let old = e.explain(
        warning("NVIDIA GeForce GTX 780", "3.5", "9.0").as_bytes(),
        None,
        None,
    );
    assert_eq!(
        old.top().unwrap().category,
        Category::GpuArchUnsupportedByBuild
    );
    let newer = e.explain(
        warning("NVIDIA GB10", "12.1", "12.0").as_bytes(),
        None,
        None,
    );
    assert_eq!(
        newer.top().unwrap().category,
        Category::NotAnEnvironmentProblem
    );
}

/// ggml names the architecture it looked for, which is the device's: a device of that
/// architecture means the build lacks it; devices of others listed and none of it means the check
/// misfired (a llama.cpp regression asked for 750 on every GPU).
#[test]
fn ggml_arch_message_is_read_against_the_devices_listed() {
    let e = explainer();
    let log = |device: &str, cc: &str, arch: &str| {
        format!("ggml_cuda_init: found 1 CUDA devices:\n  Device 0: {device}, compute capability {cc}, VMM: yes\n/src/ggml-cuda/common.cuh:112: ggml was not compiled with any CUDA arch <= {arch}\n")
    };
    let build_lacks_it = e.explain(
        log("NVIDIA GeForce GTX 1080 Ti", "6.1", "610").as_bytes(),
        None,
        None,
    );
    assert_eq!(
        build_lacks_it.top().unwrap().category,
        Category::GpuArchUnsupportedByBuild
    );
    let misfired = e.explain(
        log("NVIDIA A100-SXM4-80GB", "8.0", "750").as_bytes(),
        None,
        None,
    );
    assert_eq!(
        misfired.top().unwrap().category,
        Category::NotAnEnvironmentProblem
    );
    let no_devices_shown = e.explain(
        b"ggml was not compiled with any CUDA arch <= 750\n",
        None,
        None,
    );
    assert_eq!(
        no_devices_shown.top().unwrap().category,
        Category::GpuArchUnsupportedByBuild
    );
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

/// A log from another machine is explained from its text, not with this machine's facts, and
/// says why; a log that fits this machine is refined as before.
#[test]
fn a_log_from_another_machine_is_not_refined_with_these_facts() {
    let e = explainer();
    let no_gpu_here = machine(0, None, None);
    let nothing_exists = |_: &str| false;
    let everything_exists = |_: &str| true;

    // Each of these names something this machine cannot have produced.
    let foreign: [(&str, &str); 6] = [
        (
            "Traceback (most recent call last):\n  File \"/home/beryl/env/lib/python3.8/site-packages/torch/cuda/__init__.py\", line 1\nRuntimeError: No CUDA GPUs are available\n",
            "/home/beryl",
        ),
        (
            "  File \"C:\\Users\\ann\\miniconda3\\lib\\site-packages\\torch\\cuda\\__init__.py\", line 1\nRuntimeError: No CUDA GPUs are available\n",
            "Windows path",
        ),
        (
            "Linux version 5.15.90.1-microsoft-standard-WSL2\nRuntimeError: No CUDA GPUs are available\n",
            "WSL",
        ),
        (
            "| NVIDIA-SMI 470.82.01    Driver Version: 470.82.01    CUDA Version: 11.4 |\nRuntimeError: No CUDA GPUs are available\n",
            "470.82.01",
        ),
        (
            "I tensorflow/core/common_runtime/gpu/gpu_device.cc:1716] Found device 0 with properties:\nRuntimeError: No CUDA GPUs are available\n",
            "GPU at work",
        ),
        (
            "  File \"/Users/ann/miniforge3/lib/python3.11/site-packages/torch/serialization.py\", line 1\nRuntimeError: No CUDA GPUs are available\n",
            "macOS",
        ),
    ];
    for (text, why) in foreign {
        let scanned = e.scan(text.as_bytes());
        let x = e.conclude_checked(&scanned, &no_gpu_here, None, &nothing_exists);
        assert!(!x.refined, "{why}: {text}");
        assert!(
            x.facts_not_used.iter().any(|r| r.contains(why)),
            "{why}: {:?}",
            x.facts_not_used
        );
        // From the text alone (the variable; under WSL, WSL), not this machine's missing driver.
        let expected = if why == "WSL" {
            Category::Wsl
        } else {
            Category::EnvVarMisconfiguration
        };
        assert_eq!(x.top().unwrap().category, expected, "{why}");
    }

    // Nothing foreign: the facts are used (userspace libraries but no kernel module here: the
    // driver).
    let text = b"Traceback (most recent call last):\n  File \"/home/me/env/lib/python3.11/site-packages/torch/cuda/__init__.py\", line 1\nRuntimeError: No CUDA GPUs are available\n";
    let scanned = e.scan(text);
    let no_module_here = with_userspace(machine(0, None, None), "550.144.03");
    let x = e.conclude_checked(&scanned, &no_module_here, None, &everything_exists);
    assert!(x.refined);
    assert!(x.facts_not_used.is_empty(), "{:?}", x.facts_not_used);
    assert_eq!(x.top().unwrap().category, Category::DriverMissing);

    // This machine's own driver version in the log is not foreign; another one is.
    let here = machine(1, Some("550.144.03"), None);
    let ours = b"NVRM: API mismatch: the client has the version 550.144.03, but this kernel module has the version 550.120\n";
    let x = e.conclude_checked(&e.scan(ours), &here, None, &everything_exists);
    assert!(x.refined, "{:?}", x.facts_not_used);
    let theirs = b"Failed to initialize NVML: Driver/library version mismatch\nNVML library version: 535.54\n| NVIDIA-SMI 535.54.03    Driver Version: 535.54.03 |\n";
    let x = e.conclude_checked(&e.scan(theirs), &here, None, &everything_exists);
    assert!(!x.refined);
    assert!(
        x.facts_not_used[0].contains("535.54.03") && x.facts_not_used[0].contains("550.144.03"),
        "{:?}",
        x.facts_not_used
    );
}

/// A shell prompt of another host, an NVIDIA product name on a machine without a GPU and the
/// kernel module's own version line are signs of another machine; this machine's own prompt, an
/// e-mail address, a host called `titan` and a GPU name under WSL are not.
#[test]
fn prompts_gpu_names_and_module_lines_tell_the_machine() {
    let e = explainer();
    let mut here = machine(0, None, None);
    here.os.hostname = Some(Sourced::new(
        "vm".to_string(),
        Source::File("/proc/sys/kernel/hostname".to_string()),
    ));
    let everything_exists = |_: &str| true;
    let error = "RuntimeError: cuda runtime error (35) : CUDA driver version is insufficient for CUDA runtime version\n";
    let foreign = [
        ("[zamparol@gpu-2-17 ~]$ python train.py\n", "host `gpu-2-17`"),
        ("root@00921839c781:/anomalib# python\n", "host `00921839c781`"),
        ("(base) ann@lab-box:~/src$ python train.py\n", "host `lab-box`"),
        ("- GPU model and memory: NVIDIA GeForce GTX 1050 Mobile\n", "GeForce"),
        ("GPU: Tesla V100-SXM2-16GB\n", "Tesla V100"),
        (
            "NVRM version: NVIDIA UNIX x86_64 Kernel Module  396.54  Tue Aug 14 22:37:40 PDT 2018\n",
            "396.54",
        ),
    ];
    for (line, why) in foreign {
        let text = format!("{line}{error}");
        let x = e.conclude_checked(&e.scan(text.as_bytes()), &here, None, &everything_exists);
        assert!(!x.refined, "{why}");
        assert!(
            x.facts_not_used.iter().any(|r| r.contains(why)),
            "{why}: {:?}",
            x.facts_not_used
        );
        // From the text alone: the driver is older than the runtime, not "no driver here".
        assert_eq!(x.top().unwrap().category, Category::DriverTooOldForRuntime);
    }
    let not_foreign = [
        "me@vm:~/src$ python train.py\n",
        "me@VM.example.org:~$ python train.py\n",
        "mail me at ann@lab-box.example.org about it\n",
        "hyeon@titan:~$ nvidia-docker start bdeb\n",
        "git clone git@github.com:org/repo.git\n",
    ];
    for line in not_foreign {
        let text = format!("{line}{error}");
        let x = e.conclude_checked(&e.scan(text.as_bytes()), &here, None, &everything_exists);
        let named_titan = x.facts_not_used.iter().any(|r| r.contains("GPU"));
        assert!(!named_titan, "{line}: {:?}", x.facts_not_used);
        if !line.contains("titan") {
            assert!(x.refined, "{line}: {:?}", x.facts_not_used);
            assert_eq!(x.top().unwrap().category, Category::DriverMissing, "{line}");
        }
    }
    // Under WSL a working GPU shows no PCI device: its name in the log is no sign.
    let mut wsl = here.clone();
    wsl.os.wsl = Some(Sourced::new(
        gpuenv_facts::WslFacts::default(),
        Source::File("/proc/version".to_string()),
    ));
    let text = format!("GPU: NVIDIA GeForce RTX 3060\n{error}");
    let x = e.conclude_checked(&e.scan(text.as_bytes()), &wsl, None, &everything_exists);
    assert!(
        !x.facts_not_used.iter().any(|r| r.contains("GeForce")),
        "{:?}",
        x.facts_not_used
    );
}

/// `machine` with the userspace driver library `libcuda.so.1` of `version` reachable.
fn with_userspace(mut facts: Facts, version: &str) -> Facts {
    facts.driver.userspace.push(DriverLibrary {
        soname: "libcuda.so.1".to_string(),
        path: "/usr/lib/x86_64-linux-gnu/libcuda.so.1".to_string(),
        real_path: Some(format!("/usr/lib/x86_64-linux-gnu/libcuda.so.{version}")),
        version: Some(version.parse().unwrap()),
        found_via: vec!["ld.so.cache".to_string()],
        link_state: LinkState::Ok,
        selected: true,
        wsl: false,
    });
    facts
}

/// Messages only the NVIDIA userspace driver prints, pasted on a machine that has none of it:
/// the log is foreign. The same log on a machine with the libraries is refined.
#[test]
fn userspace_driver_messages_on_a_machine_without_one_are_foreign() {
    let e = explainer();
    let bare = machine(0, None, None);
    let everything_exists = |_: &str| true;
    for text in [
        "RuntimeError: No CUDA GPUs are available\n",
        "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest NVIDIA driver is installed and running.\n",
        "Failed to initialize NVML: Driver/library version mismatch\n",
    ] {
        let x = e.conclude_checked(&e.scan(text.as_bytes()), &bare, None, &everything_exists);
        assert!(!x.refined, "{text}");
        assert!(
            x.facts_not_used[0].contains("userspace driver"),
            "{:?}",
            x.facts_not_used
        );
        let libs_here = with_userspace(machine(0, None, None), "550.144.03");
        let x = e.conclude_checked(&e.scan(text.as_bytes()), &libs_here, None, &everything_exists);
        assert!(x.refined, "{text}: {:?}", x.facts_not_used);
    }
}

/// A `~/...` site-packages path is asked about like an absolute one, and lower-case `wsl2`
/// counts as WSL.
#[test]
fn home_relative_paths_and_lower_case_wsl_are_read() {
    let e = explainer();
    let here = with_userspace(machine(0, None, None), "550.144.03");
    let text = b"File ~/miniconda3/envs/dev/lib/python3.8/site-packages/cuda/cuda.pyx:8876, in cuda.cuda.cuInit()\nRuntimeError: No CUDA GPUs are available\n";
    let asked = std::cell::RefCell::new(Vec::new());
    let exists = |path: &str| {
        asked.borrow_mut().push(path.to_string());
        false
    };
    let x = e.conclude_checked(&e.scan(text), &here, None, &exists);
    assert!(!x.refined);
    assert_eq!(
        asked.borrow().as_slice(),
        ["~/miniconda3/envs/dev/lib/python3.8/site-packages"]
    );
    let everything_exists = |_: &str| true;
    let x = e.conclude_checked(&e.scan(text), &here, None, &everything_exists);
    assert!(x.refined, "{:?}", x.facts_not_used);

    let text = b"I have the same issue with my cuda 12.1 run under wsl2\nRuntimeError: No CUDA GPUs are available\n";
    let x = e.conclude_checked(&e.scan(text), &here, None, &everything_exists);
    assert!(
        x.facts_not_used[0].contains("WSL"),
        "{:?}",
        x.facts_not_used
    );
}

/// A log that shows a driver state this machine does not have (nvidia-smi cannot reach the
/// driver, on a machine whose driver is loaded) is explained from its text and says why, unless
/// the facts confirm another cause, which then stands.
#[test]
fn a_machine_state_the_machine_rules_out_is_explained_from_the_text() {
    let e = explainer();
    let everything_exists = |_: &str| true;
    let text = b"$ nvidia-smi\nNVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest NVIDIA driver is installed and running.\n";
    let alone = e.explain(text, None, None);
    assert_eq!(alone.top().unwrap().category, Category::DriverMissing);

    let healthy = with_userspace(machine(1, Some("550.144.03"), None), "550.144.03");
    let x = e.conclude_checked(&e.scan(text), &healthy, None, &everything_exists);
    assert!(!x.refined, "{:#?}", x.diagnoses);
    assert_eq!(x.top().unwrap().category, Category::DriverMissing);
    assert!(
        x.facts_not_used[0].contains("rules it out")
            && x.facts_not_used[0].contains("kernel module 550.144.03 is loaded"),
        "{:?}",
        x.facts_not_used
    );

    // In a container, the facts confirm the container cause: refined, and it comes first.
    let mut in_container = healthy.clone();
    in_container.os.container = Some(Sourced::new(
        "docker".to_string(),
        Source::File("/.dockerenv".to_string()),
    ));
    let x = e.conclude_checked(&e.scan(text), &in_container, None, &everything_exists);
    assert!(x.refined, "{:?}", x.facts_not_used);
    assert_eq!(x.top().unwrap().category, Category::ContainerRuntime);
}

/// `scan` then `conclude` is `explain`.
#[test]
fn scan_and_conclude_is_explain() {
    let e = explainer();
    let text =
        b"RuntimeError: CUDA error: no kernel image is available for execution on the device\n";
    let facts = machine(1, Some("550.144.03"), None);
    let whole = e.explain(text, Some(&facts), None);
    let halves = e.conclude(&e.scan(text), Some(&facts), None);
    assert_eq!(
        serde_json::to_value(&whole).unwrap(),
        serde_json::to_value(&halves).unwrap()
    );
}

/// With no signature and no hint, the word model may guess from the words of the corpus's
/// reports: labelled as a guess, `low`, with the lines that hold the words it weighed.
#[test]
fn the_word_model_guesses_only_where_nothing_else_answers() {
    let e = explainer();
    let x = e.explain(
        b"When I start multi-node training with torch.distributed.launch\nthe ranks cannot connect and it fails with a timeout error after NCCL init\n",
        None,
        None,
    );
    assert!(x.recognised.is_empty());
    let top = x.top().expect("a weak guess");
    assert_eq!(top.category, Category::NcclNetworkConfig);
    assert_eq!(top.signature, "words");
    assert!(top.hint);
    assert_eq!(top.level, Level::Low);
    assert!((ANSWER_FLOOR..MEDIUM).contains(&top.confidence));
    assert!(
        top.explanation.starts_with("A weak guess"),
        "{}",
        top.explanation
    );
    assert!(!top.evidence.is_empty());
    assert!(!top.fix.is_empty());

    // Without an error word it is not a report: no guess.
    let x = e.explain(
        b"multi gpu training with python -m torch.distributed.launch --nproc_per_node=2 train.py\n",
        None,
        None,
    );
    assert!(x.top().is_none());

    // A recognised message answers; the word model stays out.
    let x = e.explain(
        b"multi gpu training with torch.distributed.launch\nRuntimeError: CUDA error: out of memory\n",
        None,
        None,
    );
    assert_eq!(x.top().unwrap().category, Category::OutOfMemory);
    assert!(x.diagnoses.iter().all(|d| d.signature != "words"));

    // An explainer built without a model never guesses.
    let bare = Explainer::new(Catalogue::builtin().unwrap()).unwrap();
    let x = bare.explain(
        b"When I start multi-node training with torch.distributed.launch\nthe ranks cannot connect and it fails with a timeout error after NCCL init\n",
        None,
        None,
    );
    assert!(x.top().is_none());
}

/// A cuDNN of `major` in `dir`, reachable by the system loader or not.
fn cudnn_install(dir: &str, major: u32, reachable: bool) -> CudnnInstall {
    CudnnInstall {
        dir: dir.to_string(),
        major,
        version: None,
        shim: None,
        dev_link: None,
        sublibraries: Vec::new(),
        cuda_major: None,
        header: None,
        reachable_via: if reachable {
            vec!["ld.so.cache".to_string()]
        } else {
            Vec::new()
        },
        loader_selected: reachable,
    }
}

/// A Python environment holding these CUDA libraries itself (pip's nvidia-* wheels).
fn environment_with(name: &str, libraries: &[&str]) -> PythonEnvironment {
    PythonEnvironment {
        name: name.to_string(),
        prefix: format!("/home/u/{name}"),
        kind: "venv".to_string(),
        found_via: vec!["VIRTUAL_ENV".to_string()],
        active: true,
        full: true,
        python_version: None,
        base_home: None,
        site_packages: Vec::new(),
        distributions: Vec::new(),
        conda_packages: Vec::new(),
        frameworks: FrameworkFacts::default(),
        file_conflicts: Vec::new(),
        cuda_libraries: libraries.iter().map(|l| l.to_string()).collect(),
        errors: Vec::new(),
    }
}

/// A missing library reads the same in the text whether it is absent, installed where the
/// loader does not look, or installed in another major; the facts tell them apart, and the cause
/// only the facts can name (the variable) never answers from the text alone.
#[test]
fn where_a_missing_library_is_decides_its_cause() {
    let e = explainer();
    let text =
        b"ImportError: libcudnn.so.8: cannot open shared object file: No such file or directory\n";
    let alone = e.explain(text, None, None);
    assert_eq!(alone.top().unwrap().category, Category::CudnnMissing);
    assert!(alone
        .diagnoses
        .iter()
        .all(|d| d.category != Category::EnvVarMisconfiguration));

    let base = with_userspace(machine(1, Some("550.144.03"), None), "550.144.03");
    let site = "/home/u/venv/lib/python3.10/site-packages/nvidia/cudnn/lib";

    // Installed in the environment's own directory only: the variable.
    let mut in_env = base.clone();
    in_env.python.environments.push(environment_with(
        "venv",
        &[
            &format!("{site}/libcudnn.so.8"),
            &format!("{site}/libcudnn_ops_infer.so.8"),
        ],
    ));
    let x = e.explain(text, Some(&in_env), None);
    let top = x.top().unwrap();
    assert_eq!(
        top.category,
        Category::EnvVarMisconfiguration,
        "{:#?}",
        x.diagnoses
    );
    assert!(
        format!("{:?}", top.evidence).contains(site),
        "{:?}",
        top.evidence
    );

    // Not installed, but cuDNN 9 is: another major than the program's.
    let mut other = base.clone();
    other
        .libraries
        .cudnn
        .push(cudnn_install("/usr/lib/x86_64-linux-gnu", 9, true));
    let x = e.explain(text, Some(&other), None);
    assert_eq!(
        x.top().unwrap().category,
        Category::CudnnVersionMismatch,
        "{:#?}",
        x.diagnoses
    );

    // Nowhere at all: missing, confirmed.
    let x = e.explain(text, Some(&base), None);
    let top = x.top().unwrap();
    assert_eq!(top.category, Category::CudnnMissing);
    assert!(format!("{:?}", top.evidence).contains("no libcudnn.so.8 is installed"));

    // Reachable by the loader: not missing (the program looks elsewhere).
    let mut reachable = base;
    reachable
        .libraries
        .cudnn
        .push(cudnn_install("/usr/lib/x86_64-linux-gnu", 8, true));
    let x = e.explain(text, Some(&reachable), None);
    let missing = x
        .diagnoses
        .iter()
        .find(|d| d.category == Category::CudnnMissing)
        .unwrap();
    assert!(missing.confidence < alone.top().unwrap().confidence);
}

/// The same for the CUDA libraries: a cuBLAS wheel in the environment is the variable's; a
/// library the probes do not inventory (cuFFT) found nowhere proves nothing.
#[test]
fn a_cuda_library_in_an_environment_is_the_variables() {
    let e = explainer();
    let base = with_userspace(machine(1, Some("550.144.03"), None), "550.144.03");
    let mut in_env = base.clone();
    in_env.python.environments.push(environment_with(
        "tf",
        &["/home/u/tf/lib/python3.10/site-packages/nvidia/cublas/lib/libcublas.so.11"],
    ));
    let text = b"Could not load dynamic library 'libcublas.so.11'; dlerror: libcublas.so.11: cannot open shared object file: No such file or directory\n";
    let x = e.explain(text, Some(&in_env), None);
    assert_eq!(
        x.top().unwrap().category,
        Category::EnvVarMisconfiguration,
        "{:#?}",
        x.diagnoses
    );
    let x = e.explain(text, Some(&base), None);
    assert_eq!(x.top().unwrap().category, Category::CudaRuntimeLibMissing);

    let text =
        b"OSError: libcufft.so.10: cannot open shared object file: No such file or directory\n";
    let x = e.explain(text, Some(&base), None);
    let top = x.top().unwrap();
    assert_eq!(top.category, Category::CudaRuntimeLibMissing);
    assert!(
        !format!("{:?}", top.evidence).contains("no libcufft"),
        "{:?}",
        top.evidence
    );
}

/// A log that shows LD_LIBRARY_PATH naming a cuDNN directory next to torch's cuDNN
/// incompatibility: the variable put that copy first.
#[test]
fn a_shown_library_path_with_cudnn_is_shadowing() {
    let e = explainer();
    let text = b"RuntimeError: cuDNN version incompatibility: PyTorch was compiled against (8, 3, 2) but linked against (8, 0, 3)\n$ echo $LD_LIBRARY_PATH\n/public/apps/cudnn/v8.0.3.33-cuda.11.0/cuda/lib64:/usr/local/lib\n";
    let x = e.explain(text, None, None);
    assert_eq!(x.top().unwrap().category, Category::LibraryPathShadowing);
    let without = b"RuntimeError: cuDNN version incompatibility: PyTorch was compiled against (8, 3, 2) but linked against (8, 0, 3)\n$ echo $LD_LIBRARY_PATH\n/usr/local/lib\n";
    let x = e.explain(without, None, None);
    assert_eq!(x.top().unwrap().category, Category::CudnnVersionMismatch);
}

/// For a missing cuDNN the evidence says which environments' frameworks want which cuDNN: a
/// TensorFlow build's own build_info, a torch build's cuDNN from the knowledge base when it pins
/// no cuDNN wheel.
#[test]
fn a_missing_cudnn_names_the_frameworks_that_want_one() {
    let e = explainer();
    let kb = Kb::builtin().unwrap();
    let mut facts = with_userspace(machine(1, Some("550.144.03"), None), "550.144.03");
    let torch_env = torch_environment("t", "2.1.2+cu121", "12.1");
    let mut tf_env = environment_with("tf", &[]);
    tf_env.frameworks.tensorflow = Some(TensorflowBuild {
        version: "2.11.0".to_string(),
        is_cuda_build: Some(true),
        cuda_version: Some("11.2".to_string()),
        cudnn_version: Some("8".to_string()),
        compute_capabilities: Vec::new(),
        source: "tensorflow/python/platform/build_info.py".to_string(),
    });
    facts.python.environments = vec![torch_env, tf_env];
    let x = e.explain(
        b"ImportError: libcudnn.so.8: cannot open shared object file: No such file or directory\n",
        Some(&facts),
        Some(&kb),
    );
    let evidence = format!("{:?}", x.top().unwrap().evidence);
    let torch_cudnn = kb
        .frameworks
        .torch_variant(&"2.1.2".parse().unwrap(), "cu121")
        .and_then(|v| v.cudnn_version().cloned())
        .expect("the knowledge base knows torch 2.1 cu121's cuDNN");
    assert!(
        evidence.contains(&format!(
            "torch 2.1.2+cu121 in `t` ships or pins cuDNN {torch_cudnn}"
        )),
        "{evidence}"
    );
    assert!(
        evidence.contains("TensorFlow 2.11.0 in `tf` was built for cuDNN 8"),
        "{evidence}"
    );
}

#[test]
fn a_compose_service_column_says_the_program_ran_in_a_container() {
    let message = "RuntimeError: Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and installed a driver from http://www.nvidia.com/Download/index.aspx\n";
    let bare = explainer().explain(message.as_bytes(), None, None);
    assert_eq!(bare.top().unwrap().category, Category::DriverMissing);
    // The same line under Docker Compose's prefix (normalising strips it, and remembers it).
    let composed =
        format!("qna-transformers_1  |     torch._C._cuda_init()\nqna-transformers_1  | {message}");
    let x = explainer().explain(composed.as_bytes(), None, None);
    let top = x.top().unwrap();
    assert_eq!(top.category, Category::ContainerRuntime);
}

#[test]
fn a_log_naming_wsl_argues_against_a_container_cause() {
    let log = b"nvidia-container-cli: initialization error: load library failed: libnvidia-ml.so.1: cannot open shared object file: no such file or directory: unknown\n";
    let plain = explainer().explain(log, None, None);
    assert_eq!(plain.top().unwrap().category, Category::ContainerRuntime);
    let mut under_wsl = log.to_vec();
    under_wsl.extend_from_slice(b"I'm using WSL2 (latest Docker Desktop).\n");
    let x = explainer().explain(&under_wsl, None, None);
    assert_eq!(x.top().unwrap().category, Category::Wsl);
    let container = x
        .diagnoses
        .iter()
        .find(|d| d.category == Category::ContainerRuntime)
        .unwrap();
    let before = plain.top().unwrap().confidence;
    assert!(
        container.confidence < before * 0.6,
        "{} against {before}",
        container.confidence
    );
}

/// `--gpus` on a laptop whose only graphics is Intel's: there is no NVIDIA GPU to pass in, so the
/// request is what to change (LABELLING.md), not the container toolkit.
#[test]
fn docker_asked_for_gpus_on_intel_graphics_has_no_nvidia_gpu() {
    let log = b"docker: Error response from daemon: could not select device driver \"\" with capabilities: [[gpu]].\n\nI'm using Ubuntu 22.04.02 LTS\nGraphics Mesa Intel\xc2\xae Xe Graphics (TGL GT2)\n";
    let x = explainer().explain(log, None, None);
    assert_eq!(x.top().unwrap().category, Category::NotAnEnvironmentProblem);
}

#[test]
fn a_loader_message_cut_after_the_library_name_still_counts() {
    let x = explainer().explain(b"ImportError: libcusolver.so.8.0\n", None, None);
    assert_eq!(x.top().unwrap().category, Category::CudaRuntimeLibMissing);
    // A name alone, without the loader's words, is not the message.
    let y = explainer().explain(b"linking against libcusolver.so.8.0\n", None, None);
    assert!(y
        .diagnoses
        .iter()
        .all(|d| d.category != Category::CudaRuntimeLibMissing || d.hint));
}

/// "CUDA driver version is insufficient": a driver too old from the text (and on a machine with
/// a driver); on a machine with no NVIDIA driver at all, that is the cause.
#[test]
fn an_insufficient_driver_on_a_machine_without_one_is_no_driver() {
    let text =
        b"RuntimeError: CUDA error: CUDA driver version is insufficient for CUDA runtime version\n";
    let e = explainer();
    let alone = e.explain(text, None, None);
    assert_eq!(
        alone.top().unwrap().category,
        Category::DriverTooOldForRuntime
    );
    assert!(alone
        .diagnoses
        .iter()
        .all(|d| d.category != Category::DriverMissing));

    let none = e.explain(text, Some(&machine(0, None, None)), None);
    assert_eq!(none.top().unwrap().category, Category::DriverMissing);

    let with_driver = e.explain(text, Some(&machine(1, Some("550.144.03"), None)), None);
    assert_eq!(
        with_driver.top().unwrap().category,
        Category::DriverTooOldForRuntime
    );
    assert!(with_driver
        .diagnoses
        .iter()
        .all(|d| d.category != Category::DriverMissing));
}

/// Beside "driver version is insufficient", `nvidia-smi: command not found` (nvidia-smi comes with
/// the driver) says there is no driver to be too old, from the text alone; the `needs_words`
/// cause that says so is no candidate without those words (the test above).
#[test]
fn an_insufficient_driver_without_nvidia_smi_is_no_driver() {
    let text = b"error: 35\nerror string: CUDA driver version is insufficient for CUDA runtime version\n\nbash: nvidia-smi: command not found...\n";
    let e = explainer();
    let alone = e.explain(text, None, None);
    assert_eq!(alone.top().unwrap().category, Category::DriverMissing);
}

/// The top answer for `log` from the text alone is `expected`.
fn assert_top(e: &Explainer, log: &[u8], expected: Category) {
    let x = e.explain(log, None, None);
    assert_eq!(
        x.top().map(|d| d.category),
        Some(expected),
        "{}",
        String::from_utf8_lossy(log)
    );
}

/// Triton links its launcher with `-lcuda`: the linker not finding the driver's unversioned
/// libcuda.so is a search-path problem (WSL2's when the log says WSL), and `-lcudart` is not it.
#[test]
fn a_linker_that_cannot_find_libcuda_wants_a_search_path() {
    let e = explainer();
    for log in [
        &b"/usr/bin/ld: cannot find -lcuda: No such file or directory\ncollect2: error: ld returned 1 exit status\n"[..],
        &b"/usr/bin/ld: cannot find -lcuda\ncollect2: error: ld returned 1 exit status\n"[..],
    ] {
        let x = e.explain(log, None, None);
        let top = x.top().unwrap();
        assert_eq!(top.category, Category::EnvVarMisconfiguration);
        assert_eq!(top.signature, "triton-cannot-link-libcuda");
    }
    assert_top(&e, b"Linux 5.15.146.1-microsoft-standard-WSL2\n/usr/bin/ld: cannot find -lcuda: No such file or directory\n", Category::Wsl);
    let cudart = e.explain(b"/usr/bin/ld: cannot find -lcudart\n", None, None);
    assert!(cudart
        .diagnoses
        .iter()
        .all(|d| d.signature != "triton-cannot-link-libcuda"));
}

/// Windows' "procedure not found" (error 127, the entry-point dialog, also in a Chinese locale)
/// means a DLL was found and is the wrong version: two installs, not a missing library.
#[test]
fn a_windows_procedure_not_found_is_two_versions_not_a_missing_library() {
    let e = explainer();
    for log in [
        &b"OSError: [WinError 127] The specified procedure could not be found. Error loading \"C:\\venv\\lib\\site-packages\\nvidia\\cudnn\\bin\\cudnn_cnn64_9.dll\" or one of its dependencies.\n"[..],
        "无法定位程序输入点 ?destroyTensorDescriptorEx@ops@cudnn 于动态链接库 E:\\sd\\venv\\Lib\\site-packages\\nvidia\\cudnn\\bin\\cudnn_adv_infer64_8.dll 上。\n".as_bytes(),
    ] {
        assert_top(&e, log, Category::MultipleInstallsConflict);
    }
    // A compiled extension's own module stays the extension's (built for another torch).
    assert_top(&e, b"ImportError: DLL load failed while importing _C: The specified procedure could not be found.\n", Category::PackageConflict);
}

/// Package managers describe the machine with virtual packages; no `__cuda` means they found no
/// NVIDIA driver.
#[test]
fn a_solver_without_the_cuda_virtual_package_found_no_driver() {
    let e = explainer();
    for log in [
        &b"LibMambaUnsatisfiableError: Encountered problems while solving:\n  - nothing provides __cuda needed by tensorflow-2.9.1-cuda112py310he87a039_0\n"[..],
        &b"Error:   x Cannot install environment 'default'\n    Virtual package '__cuda' does not match any of the available virtual packages on your machine: [__glibc=2.39=0, __unix=0=0]\n"[..],
    ] {
        assert_top(&e, log, Category::DriverMissing);
    }
}

/// TensorFlow's allocator dump is printed when an allocation fails, even where the pasted part
/// of the log holds nothing else.
#[test]
fn the_tensorflow_allocator_dump_is_out_of_memory() {
    let log = b"I tensorflow/core/common_runtime/bfc_allocator.cc:641] 5 Chunks of size 749412352 totalling 3.49GiB\nI tensorflow/core/common_runtime/bfc_allocator.cc:645] Sum Total of in-use chunks: 5.98GiB\nLimit:                  6705216225\nInUse:                  6423041280\n";
    assert_top(&explainer(), log, Category::OutOfMemory);
}

/// TensorFlow tries the driver's libcuda.so.1 and the runtime's libcudart; both missing is a
/// machine without an NVIDIA driver first, not only a missing runtime.
#[test]
fn no_libcuda_beside_no_cudart_is_no_driver_first() {
    let log = b"W tensorflow/stream_executor/platform/default/dso_loader.cc:59] Could not load dynamic library 'libcudart.so.10.1'; dlerror: libcudart.so.10.1: cannot open shared object file: No such file or directory\nW tensorflow/stream_executor/platform/default/dso_loader.cc:59] Could not load dynamic library 'libcuda.so.1'; dlerror: libcuda.so.1: cannot open shared object file: No such file or directory\n";
    assert_top(&explainer(), log, Category::DriverMissing);
    assert_top(&explainer(), b"ImportError: libcudart.so.11.0: cannot open shared object file: No such file or directory\n", Category::CudaRuntimeLibMissing);
}

/// A CUDA library named by .NET's loader or by cuDNN 8's own lookup on Windows is missing like
/// one named by the system loader; cuDNN's lookup of zlibwapi.dll stays a system library.
#[test]
fn windows_wordings_of_a_missing_cuda_library() {
    let e = explainer();
    for log in [
        &b"System.DllNotFoundException: 'Unable to load DLL 'cublas64_10': \n"[..],
        &b"Could not locate cublasLt64_12.dll. Please make sure it is in your library path!\n"[..],
    ] {
        assert_top(&e, log, Category::CudaRuntimeLibMissing);
    }
    assert_top(
        &e,
        b"Could not locate zlibwapi.dll. Please make sure it is in your library path!\n",
        Category::MissingSystemLibrary,
    );
}

/// CMake's `-NOTFOUND` for cuDNN's header and library: cuDNN is not installed where the build
/// looks.
#[test]
fn a_build_that_finds_no_cudnn_says_cudnn_is_missing() {
    let log = b"-- Found CUDA V11.5.119\n-- CUDNN_INCLUDE_DIR: CUDNN_INCLUDE_DIR-NOTFOUND\n-- CUDNN_LIBRARY: CUDNN_LIBRARY-NOTFOUND\nCMake Error at ports/cudnn/portfile.cmake:69 (message):\n";
    assert_top(&explainer(), log, Category::CudnnMissing);
}

/// Library checks that say what torch sees: transformers' fp16 needs a CUDA device (none seen:
/// no GPU or driver), its bf16 needs an Ampere or newer GPU, and Lightning's device list names
/// the GPUs there are (an index beyond them is the code's; none at all is the machine's).
#[test]
fn framework_device_checks_name_what_torch_sees() {
    let e = explainer();
    assert_top(
        &e,
        b"ValueError: Mixed precision training with AMP or APEX (`--fp16`) and FP16 evaluation can only be used on CUDA devices.\n",
        Category::DriverMissing,
    );
    assert_top(
        &e,
        b"ValueError: Your setup doesn't support bf16/gpu. You need torch>=1.10, using Ampere GPU with cuda>=11.0\n",
        Category::GpuArchUnsupportedByBuild,
    );
    assert_top(
        &e,
        b"lightning_fabric.utilities.exceptions.MisconfigurationException: You requested gpu: [1]\n But your machine only has: [0]\n",
        Category::NotAnEnvironmentProblem,
    );
    assert_top(
        &e,
        b"lightning_fabric.utilities.exceptions.MisconfigurationException: You requested gpu: [0]\n But your machine only has: []\n",
        Category::DriverMissing,
    );
}

/// What torch and the libraries on it say when the build has no CUDA: torch._C without its
/// `_cuda_*` functions, and a conda-forge CPU build in a package listing. A newer `_cuda_*`
/// function missing is an older torch, not a CPU one.
#[test]
fn torch_without_cuda_functions_is_a_cpu_build() {
    let e = explainer();
    for log in [
        &b"AttributeError: module 'torch._C' has no attribute '_cuda_setDevice'\n"[..],
        b"CudaWarning: module 'torch._C' has no attribute '_cuda_getDeviceCount'\n",
        b"pytorch                    2.5.1            cpu_generic_py311_h5eef2c6_16  conda-forge\n",
        b"  + pytorch                       2.4.1  cpu_mkl_py311hb499fb8_100  conda-forge       36MB\n",
    ] {
        assert_top(&e, log, Category::CpuOnlyBuild);
    }
    let newer = e.explain(
        b"AttributeError: module 'torch._C' has no attribute '_cuda_clearCublasWorkspaces'\n",
        None,
        None,
    );
    assert_ne!(
        newer.top().map(|d| d.category),
        Some(Category::CpuOnlyBuild)
    );
}

/// A TensorRT engine built on another GPU names both compute capabilities; Numba's driver
/// without cuInit is not the driver (an environment variable naming cudart); the DRM render
/// node EGL opens is a device node like /dev/nvidia*; NVML's library missing is the driver's
/// absence unless the log is a container's.
#[test]
fn engines_drivers_and_nodes_that_are_not_what_was_expected() {
    let e = explainer();
    assert_top(
        &e,
        b"[TensorRT] ERROR: INVALID_CONFIG: The engine plan file is generated on an incompatible device, expecting compute 6.1 got compute 7.5, please rebuild.\n",
        Category::GpuArchUnsupportedByBuild,
    );
    assert_top(
        &e,
        b"CudaDriverError: driver missing function: cuInit.\nRequires CUDA 8.0 or above.\n",
        Category::EnvVarMisconfiguration,
    );
    assert_top(
        &e,
        b"libEGL warning: failed to open /dev/dri/renderD128: Permission denied\n",
        Category::PermissionsDeviceNodes,
    );
    assert_top(
        &e,
        b"OSError: libnvidia-ml.so.1: cannot open shared object file: No such file or directory\n",
        Category::DriverMissing,
    );
    assert_top(
        &e,
        b"$ docker run --rm my-image nvidia-smi\nOSError: libnvidia-ml.so.1: cannot open shared object file: No such file or directory\n",
        Category::ContainerRuntime,
    );
}

/// Messages that name their cause outside Python's own frameworks: torch's Visual C++ runtime
/// check on Windows, the Rust tch crate's libtorch version check, the loader not finding libtorch
/// for a linked program, an older onnxruntime library answering a newer binding, and MATLAB's
/// two driver causes.
#[test]
fn bindings_and_runtimes_that_say_what_they_found() {
    let e = explainer();
    for (log, expected) in [
        (
            &b"Microsoft Visual C++ Redistributable is not installed, this may lead to the DLL load failure.\n  It can be downloaded at https://aka.ms/vs/16/release/vc_redist.x64.exe\nImportError: DLL load failed\n"[..],
            Category::MissingSystemLibrary,
        ),
        (
            b"  Error: this tch version expects PyTorch 2.7.0, got 2.2.2, this check can be bypassed by setting the LIBTORCH_BYPASS_VERSION_CHECK environment variable\n",
            Category::PackageConflict,
        ),
        (
            b"target/debug/app: error while loading shared libraries: libtorch_cuda.so: cannot open shared object file: No such file or directory\n",
            Category::EnvVarMisconfiguration,
        ),
        (
            b"The requested API version [23] is not available, only API versions [1, 17] are supported in this build. Current ORT Version is: 1.17.1\n",
            Category::LibraryPathShadowing,
        ),
        (
            b"Caused by:\n    The CUDA driver was found, but it is too old. The CUDA driver on your system supports CUDA version 5.5. The required CUDA version is 7.5 or greater.\n",
            Category::DriverTooOldForRuntime,
        ),
        (
            b"Caused by:\n    The CUDA driver could not be loaded. The library name used was 'nvcuda.dll'. The error was:\n    The specified module could not be found.\n",
            Category::DriverMissing,
        ),
    ] {
        assert_top(&e, log, expected);
    }
}

/// TensorFlow listing its devices without a GPU: 1.x's session log and a device list that
/// closes after the CPU.
#[test]
fn tensorflow_device_lists_without_a_gpu_are_cpu_builds() {
    let e = explainer();
    let session_log = b"I tensorflow/core/common_runtime/direct_session.cc:45] Direct session inter op parallelism threads: 8\nDevice mapping: no known devices.\n";
    assert_top(&e, session_log, Category::CpuOnlyBuild);
    let device_list =
        b"GPU []\n[PhysicalDevice(name='/physical_device:CPU:0', device_type='CPU')]\n";
    assert_top(&e, device_list, Category::CpuOnlyBuild);
}

/// Build-time and start-up messages that name their cause: Triton finding no C compiler, nvcc on
/// Windows without cl.exe on PATH, an extension including the TH/THC headers PyTorch 1.11
/// removed (a CPU torch when torch's own CUDA headers include them), onnxruntime's TensorRT
/// provider missing a TensorRT symbol, and an NGC image's banner about the host driver.
#[test]
fn build_and_startup_messages_that_name_their_cause() {
    let e = explainer();
    for (log, expected) in [
        (
            &b"RuntimeError: Failed to find C compiler. Please specify via CC environment variable.\n"[..],
            Category::MissingSystemLibrary,
        ),
        (
            b"pycuda.driver.CompileError:\nnvcc fatal   : Cannot find compiler 'cl.exe' in PATH\n",
            Category::EnvVarMisconfiguration,
        ),
        (
            b"src/roi_align_cuda.cpp:2:10: fatal error: THC/THC.h: No such file or directory\n    2 | #include <THC/THC.h>\ncompilation terminated.\n",
            Category::PackageConflict,
        ),
        (
            b"/venv/lib/python3.8/site-packages/torch/include/ATen/cuda/detail/OffsetCalculator.cuh:8:37: fatal error: THC/THCIntegerDivider.cuh: No such file or directory\n",
            Category::CpuOnlyBuild,
        ),
        (
            b"[ONNXRuntimeError] : 1 : FAIL : Failed to load library libonnxruntime_providers_tensorrt.so with error: /opt/ort/lib/libonnxruntime_providers_tensorrt.so: undefined symbol: getBuilderPluginRegistry\n",
            Category::PackageConflict,
        ),
        (
            b"ERROR: This container was built for NVIDIA Driver Release 450.51 or later, but\n       version 410.78 was detected and compatibility mode is UNAVAILABLE.\n\n       [[CUDA Driver UNAVAILABLE (cuInit(0) returned 803)]]\n",
            Category::DriverTooOldForRuntime,
        ),
    ] {
        assert_top(&e, log, expected);
    }
    // Under WSL, a display that cannot be opened is WSL's (WSLg or an X server on Windows).
    assert_top(
        &e,
        b"Linux version 5.15.153.1-microsoft-standard-WSL2\nqt.qpa.xcb: could not connect to display :0\n",
        Category::Wsl,
    );
    assert_top(
        &e,
        b"qt.qpa.xcb: could not connect to display :0\n",
        Category::EnvVarMisconfiguration,
    );
}

/// A pattern on a line holding one of its signature's `unless_on_line` words does not count:
/// JAX's ROCm probe failing on a CPU-only jaxlib is not the jax/jaxlib mix that the CUDA probe
/// failing the same way is.
#[test]
fn a_pattern_beside_an_unless_on_line_word_does_not_count() {
    let e = explainer();
    let rocm_only = b"INFO - Unable to initialize backend 'rocm': module 'jaxlib.xla_extension' has no attribute 'GpuAllocatorConfig'\nWARNING - An NVIDIA GPU may be present on this machine, but a CUDA-enabled jaxlib is not installed. Falling back to cpu.\n";
    let x = e.explain(rocm_only, None, None);
    assert_eq!(x.top().unwrap().category, Category::CpuOnlyBuild);
    assert!(x
        .diagnoses
        .iter()
        .all(|d| d.signature != "jax-jaxlib-version"));
    let cuda_too = b"Unable to initialize backend 'cuda': module 'jaxlib.xla_extension' has no attribute 'GpuAllocatorConfig'\nUnable to initialize backend 'rocm': module 'jaxlib.xla_extension' has no attribute 'GpuAllocatorConfig'\nNo GPU/TPU found, falling back to CPU.\n";
    let x = e.explain(cuda_too, None, None);
    let top = x.top().unwrap();
    assert_eq!(top.category, Category::PackageConflict);
    assert_eq!(top.signature, "jax-jaxlib-version");
}

/// The built-in explainer parses its word model only when a log needs it, and it parses.
#[test]
fn the_builtin_word_model_is_there_when_asked_for() {
    let explainer = Explainer::builtin().unwrap();
    let words = explainer.words().expect("the built-in word model parses");
    assert!(words.len() > 1000, "{} words", words.len());
    // A log no signature knows gets the word model's guess, as before it was lazy.
    let explanation = explainer.explain(
        b"When I start multi gpu training with torch.distributed.launch the program hangs and \
          fails with a timeout error in the nccl watchdog",
        None,
        None,
    );
    let top = explanation.top().expect("a guess");
    assert_eq!(top.signature, "words");
    assert_eq!(top.category, Category::NcclNetworkConfig);
}

/// A loader message in the C library's German is matched as glibc's English, and the evidence
/// quotes the line as the user pasted it.
#[test]
fn a_translated_loader_message_is_recognised_and_quoted_as_pasted() {
    let pasted = "OSError: libcudnn.so.9: Kann die Shared-Object-Datei nicht öffnen: Datei oder \
                  Verzeichnis nicht gefunden";
    let log = format!("Traceback (most recent call last):\n  File \"t.py\", line 1\n{pasted}\n");
    let explanation = explainer().explain(log.as_bytes(), None, None);
    let top = explanation.top().expect("an answer");
    assert_eq!(top.category, Category::CudnnMissing);
    let quoted: Vec<&str> = top
        .evidence
        .iter()
        .filter_map(|e| match e {
            gpuenv_explain::Evidence::Log { line: 3, text } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(quoted, vec![pasted]);
}

/// An environment whose torch is built for CUDA `cuda` (`12.1`) and brings its own libraries.
fn torch_environment(name: &str, version: &str, cuda: &str) -> PythonEnvironment {
    let mut env = environment_with(name, &[]);
    env.frameworks.torch = Some(TorchBuild {
        version: Sourced::new(
            version.to_string(),
            Source::File("torch/version.py".to_string()),
        ),
        cuda: Some(cuda.to_string()),
        hip: None,
        cuda_pins: Default::default(),
        cuda_libraries: "bundled".to_string(),
        site_packages: format!("/home/u/{name}/lib/python3.10/site-packages"),
    });
    env
}

/// `libcudart.so.12` missing reads the same whether CUDA 12 is simply absent or a package built
/// for CUDA 12 sits beside a torch built for CUDA 11.8 (vllm#1716): the frameworks' CUDA majors
/// tell them apart, and the package conflict is never named from the text alone.
#[test]
fn a_cuda_library_of_another_major_than_the_framework_is_a_package_conflict() {
    let e = explainer();
    let text =
        b"ImportError: libcudart.so.12: cannot open shared object file: No such file or directory\n";
    let alone = e.explain(text, None, None);
    assert_eq!(
        alone.top().unwrap().category,
        Category::CudaRuntimeLibMissing
    );
    assert!(alone
        .diagnoses
        .iter()
        .all(|d| d.category != Category::PackageConflict));

    let base = with_userspace(machine(1, Some("550.144.03"), None), "550.144.03");

    // Every framework here is built for CUDA 11.8: the package asking for 12 is the conflict.
    let mut cu118 = base.clone();
    cu118
        .python
        .environments
        .push(torch_environment("venv", "2.1.0+cu118", "11.8"));
    let x = e.explain(text, Some(&cu118), None);
    let top = x.top().unwrap();
    assert_eq!(
        top.category,
        Category::PackageConflict,
        "{:#?}",
        x.diagnoses
    );
    let said = format!("{:?}", top.evidence);
    assert!(
        said.contains("CUDA 11.8") && said.contains("venv"),
        "{said}"
    );

    // A torch built for CUDA 12.1 asks for it itself: the runtime is missing.
    let mut cu121 = base.clone();
    cu121
        .python
        .environments
        .push(torch_environment("venv", "2.1.2+cu121", "12.1"));
    let x = e.explain(text, Some(&cu121), None);
    assert_eq!(
        x.top().unwrap().category,
        Category::CudaRuntimeLibMissing,
        "{:#?}",
        x.diagnoses
    );
    assert!(x
        .diagnoses
        .iter()
        .all(|d| d.category != Category::PackageConflict));
}
