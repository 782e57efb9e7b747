//! `gpuenv explain` through the real binary: fake roots whose facts change the ranking, a saved
//! doctor report, stdin, `-- COMMAND` (output passed through, exit status kept), JSON output.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::collections::BTreeMap;
use std::io::Write;
use std::process::{Command, Stdio};

use support::{have_cc, run_gpuenv, scenarios_dir, FakeRoot, Scenario};

const NO_DEVICE: &str = "RuntimeError: CUDA error: no CUDA-capable device is detected";

fn answer(stdout: &str) -> String {
    let v: serde_json::Value = serde_json::from_str(stdout).unwrap();
    v["answer"].as_str().unwrap_or("unknown").to_string()
}

/// `gpuenv explain --format json --text TEXT` on the fake root of a scenario: its stdout.
fn explain_on(scenario: &str, text: &str) -> String {
    let s = Scenario::load(&scenarios_dir().join(scenario));
    let root = FakeRoot::build(&s);
    let run = run_gpuenv(
        root.path(),
        &s.env,
        &["explain", "--format", "json", "--text", text],
    );
    assert_eq!(run.status, 0, "{scenario}: {}", run.stderr);
    run.stdout
}

fn diagnoses(stdout: &str) -> Vec<(String, String)> {
    let v: serde_json::Value = serde_json::from_str(stdout).unwrap();
    v["diagnoses"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["category"].as_str().unwrap_or("").to_string(),
                d["level"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect()
}

/// The same error text, different answers by the machine's facts. From the text alone the
/// likeliest cause is CUDA_VISIBLE_DEVICES (every public report of this message collected was
/// the variable naming a GPU that does not exist), at medium, with a missing driver second; on a
/// machine without an NVIDIA driver the facts put the driver first; on machines whose driver is
/// loaded they rule it out and, where the variable is set, confirm the variable (empty, or an
/// index beyond the GPUs). The same facts work from a saved doctor report.
#[test]
fn facts_change_the_ranking() {
    if !have_cc() {
        eprintln!("skipped: no C compiler");
        return;
    }
    let no_driver = Scenario::load(&scenarios_dir().join("kernel-upgrade-no-dkms-module.toml"));
    let no_driver_root = FakeRoot::build(&no_driver);
    let alone = run_gpuenv(
        no_driver_root.path(),
        &no_driver.env,
        &[
            "explain",
            "--no-probe",
            "--format",
            "json",
            "--text",
            NO_DEVICE,
        ],
    );
    assert_eq!(alone.status, 0, "{}", alone.stderr);
    assert_eq!(answer(&alone.stdout), "env-var-misconfiguration");
    let ranked = diagnoses(&alone.stdout);
    assert_eq!(
        ranked[0],
        ("env-var-misconfiguration".to_string(), "medium".to_string()),
        "{}",
        alone.stdout
    );
    assert_eq!(ranked[1].0, "driver-missing", "{}", alone.stdout);

    // No NVIDIA kernel module on this machine (its userspace driver is installed): the facts put
    // the driver first.
    let refined = run_gpuenv(
        no_driver_root.path(),
        &no_driver.env,
        &["explain", "--format", "json", "--text", NO_DEVICE],
    );
    assert_eq!(refined.status, 0, "{}", refined.stderr);
    assert_eq!(
        answer(&refined.stdout),
        "driver-missing",
        "{}",
        refined.stdout
    );
    assert!(refined.stdout.contains("confirms"), "{}", refined.stdout);
    assert!(
        refined.stdout.contains("no NVIDIA kernel module is loaded"),
        "{}",
        refined.stdout
    );

    // The same facts from a saved doctor report of that machine.
    let report = run_gpuenv(
        no_driver_root.path(),
        &no_driver.env,
        &["doctor", "--format", "json"],
    );
    let file = no_driver_root.path().join("report.json");
    std::fs::write(&file, &report.stdout).unwrap();
    let from_report = run_gpuenv(
        no_driver_root.path(),
        &BTreeMap::new(),
        &[
            "explain",
            "--format",
            "json",
            "--report",
            file.to_str().unwrap(),
            "--text",
            NO_DEVICE,
        ],
    );
    assert_eq!(from_report.status, 0, "{}", from_report.stderr);
    assert_eq!(
        answer(&from_report.stdout),
        "driver-missing",
        "{}",
        from_report.stdout
    );

    // A machine without any NVIDIA userspace driver cannot have printed "no CUDA-capable device"
    // (CUDA says so only once libcuda is loaded; without it, that the driver is insufficient):
    // the log is explained from its text, and says why.
    let stdout = explain_on("gpu-present-no-driver.toml", NO_DEVICE);
    assert_eq!(answer(&stdout), "env-var-misconfiguration", "{stdout}");
    let v: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(v["refined"], false);
    assert!(
        v["facts_not_used"][0]
            .as_str()
            .unwrap()
            .contains("NVIDIA userspace driver installed"),
        "{stdout}"
    );

    // A working driver and CUDA_VISIBLE_DEVICES set: the driver is ruled out and the variable
    // confirmed, whether it is empty or names a GPU that is not there.
    for (scenario, says) in [
        ("cuda-visible-devices-empty.toml", "hides every GPU"),
        (
            "cuda-visible-devices-index-out-of-range.toml",
            "there is no GPU 3",
        ),
    ] {
        let s = Scenario::load(&scenarios_dir().join(scenario));
        let root = FakeRoot::build(&s);
        let run = run_gpuenv(
            root.path(),
            &s.env,
            &["explain", "--format", "json", "--text", NO_DEVICE],
        );
        assert_eq!(run.status, 0, "{scenario}: {}", run.stderr);
        assert_eq!(
            answer(&run.stdout),
            "env-var-misconfiguration",
            "{scenario}: {}",
            run.stdout
        );
        assert_eq!(
            diagnoses(&run.stdout)[0].1,
            "high",
            "{scenario}: confirmed by the facts"
        );
        assert!(
            run.stdout.contains("rules-out"),
            "{scenario}: {}",
            run.stdout
        );
        assert!(run.stdout.contains(says), "{scenario}: {}", run.stdout);
    }
}

/// A log that names a home directory the machine root does not have came from another machine:
/// it is explained from the text (the variable first), and the output says why the facts were
/// not used; the same text without the path is refined by this machine's facts.
#[test]
fn a_log_from_another_machine_is_explained_from_its_text() {
    if !have_cc() {
        eprintln!("skipped: no C compiler");
        return;
    }
    let no_driver = Scenario::load(&scenarios_dir().join("kernel-upgrade-no-dkms-module.toml"));
    let root = FakeRoot::build(&no_driver);
    let log = format!(
        "Traceback (most recent call last):\n  File \"/home/someone-else/venv/lib/python3.10/site-packages/torch/cuda/__init__.py\", line 302, in _lazy_init\n{NO_DEVICE}\n"
    );
    let json = run_gpuenv(
        root.path(),
        &no_driver.env,
        &["explain", "--format", "json", "--text", &log],
    );
    assert_eq!(json.status, 0, "{}", json.stderr);
    assert_eq!(
        answer(&json.stdout),
        "env-var-misconfiguration",
        "{}",
        json.stdout
    );
    let v: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(v["refined"], false);
    let reasons = v["facts_not_used"].as_array().unwrap();
    assert!(
        reasons[0]
            .as_str()
            .unwrap()
            .contains("/home/someone-else, which does not exist on this machine"),
        "{reasons:?}"
    );
    let human = run_gpuenv(root.path(), &no_driver.env, &["explain", "--text", &log]);
    assert!(
        human
            .stdout
            .contains("from the text alone: the log comes from another machine"),
        "{}",
        human.stdout
    );
    assert!(human.stdout.contains("--report"), "{}", human.stdout);
}

#[test]
fn human_output_names_cause_lines_and_fix() {
    let run = run_gpuenv(
        std::path::Path::new("/"),
        &BTreeMap::new(),
        &[
            "explain",
            "--no-probe",
            "--text",
            "Traceback (most recent call last):\n  File \"x.py\", line 1\nImportError: libcudnn.so.8: cannot open shared object file: No such file or directory",
        ],
    );
    assert_eq!(run.status, 0, "{}", run.stderr);
    assert!(run.stdout.contains("1. cudnn-missing"), "{}", run.stdout);
    assert!(
        run.stdout.contains("line 3: ImportError: libcudnn.so.8"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("Fix:"), "{}", run.stdout);
}

#[test]
fn user_bugs_are_not_blamed_on_the_environment() {
    let run = run_gpuenv(
        std::path::Path::new("/"),
        &BTreeMap::new(),
        &[
            "explain",
            "--no-probe",
            "--format",
            "json",
            "--text",
            "../aten/src/ATen/native/cuda/Loss.cu:240: nll_loss_forward_reduce_cuda_kernel_2d: block: [0,0,0], thread: [5,0,0] Assertion `t >= 0 && t < n_classes` failed.\nRuntimeError: CUDA error: device-side assert triggered",
        ],
    );
    assert_eq!(answer(&run.stdout), "not-an-environment-problem");
}

#[test]
fn unknown_text_is_unknown() {
    let run = run_gpuenv(
        std::path::Path::new("/"),
        &BTreeMap::new(),
        &[
            "explain",
            "--no-probe",
            "--format",
            "json",
            "--text",
            "all good, 3 epochs done",
        ],
    );
    assert_eq!(run.status, 0);
    assert_eq!(answer(&run.stdout), "unknown");
}

#[test]
fn stdin_and_missing_input() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_gpuenv"))
        .args(["explain", "--no-probe", "--format", "json", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"\x1b[31mFailed to initialize NVML: Driver/library version mismatch\x1b[0m\r\nNVML library version: 550.144\r\n")
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    assert_eq!(
        answer(&String::from_utf8_lossy(&out.stdout)),
        "driver-kernel-userspace-mismatch"
    );

    let none = run_gpuenv(std::path::Path::new("/"), &BTreeMap::new(), &["explain"]);
    assert_eq!(none.status, 2);
    let missing = run_gpuenv(
        std::path::Path::new("/"),
        &BTreeMap::new(),
        &["explain", "/nonexistent/log"],
    );
    assert_eq!(missing.status, 2);
}

#[test]
fn command_output_passes_through_and_status_is_kept() {
    let run = run_gpuenv(
        std::path::Path::new("/"),
        &BTreeMap::new(),
        &[
            "explain",
            "--no-probe",
            "--",
            "sh",
            "-c",
            "echo step 1; echo 'torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB' >&2; exit 7",
        ],
    );
    assert_eq!(run.status, 7);
    assert!(run.stdout.contains("step 1"));
    assert!(run.stderr.contains("CUDA out of memory"));
    assert!(run.stderr.contains("out-of-memory"), "{}", run.stderr);

    let ok = run_gpuenv(
        std::path::Path::new("/"),
        &BTreeMap::new(),
        &["explain", "--no-probe", "--", "sh", "-c", "echo fine"],
    );
    assert_eq!(ok.status, 0);
    assert_eq!(ok.stdout, "fine\n");
    assert!(!ok.stderr.contains("gpuenv explain"));
}

/// On a machine whose driver is loaded and healthy, a log saying nvidia-smi cannot reach the
/// driver shows another machine (or this one before a fix): it is explained from its text, with
/// the fact that rules the driver out given as the reason.
#[test]
fn a_driver_state_this_machine_does_not_have_is_explained_from_the_text() {
    if !have_cc() {
        eprintln!("skipped: no C compiler");
        return;
    }
    let healthy = Scenario::load(&scenarios_dir().join("healthy-rtx3090-cuda124.toml"));
    let root = FakeRoot::build(&healthy);
    let log = "$ nvidia-smi\nNVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest NVIDIA driver is installed and running.\n";
    let run = run_gpuenv(
        root.path(),
        &healthy.env,
        &["explain", "--format", "json", "--text", log],
    );
    assert_eq!(run.status, 0, "{}", run.stderr);
    assert_eq!(answer(&run.stdout), "driver-missing", "{}", run.stdout);
    let v: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(v["refined"], false, "{}", run.stdout);
    let reason = v["facts_not_used"][0].as_str().unwrap();
    assert!(
        reason.contains("rules it out") && reason.contains("550.54.14"),
        "{reason}"
    );
}

/// `libcudnn.so.8: cannot open` reads the same whether cuDNN 8 is absent or sits where the
/// loader does not look. In an active conda environment whose `cudnn` package put it in the
/// environment's lib/, the facts confirm the variable and name the directory; on a machine
/// without any cuDNN, it is missing.
#[test]
fn a_library_in_a_conda_environment_is_the_variables() {
    let log =
        "ImportError: libcudnn.so.8: cannot open shared object file: No such file or directory";
    let stdout = explain_on("python-conda-cudnn-outside-loader-path.toml", log);
    assert_eq!(answer(&stdout), "env-var-misconfiguration", "{stdout}");
    assert!(
        stdout.contains("/home/user/miniconda3/envs/ml/lib"),
        "{stdout}"
    );

    let stdout = explain_on("gpu-present-no-driver.toml", log);
    assert_eq!(answer(&stdout), "cudnn-missing", "{stdout}");
    assert!(stdout.contains("no libcudnn.so.8 is installed"), "{stdout}");

    // A torch venv whose nvidia-cudnn-cu12 wheel was uninstalled: missing, and which framework
    // wants which cuDNN.
    if have_cc() {
        let stdout = explain_on("torch-wheel-cudnn-missing.toml", log);
        assert_eq!(answer(&stdout), "cudnn-missing", "{stdout}");
        assert!(
            stdout.contains("pins nvidia-cudnn-cu12==8.9.2.26")
                && stdout.contains("no libcudnn.so.8 is installed"),
            "{stdout}"
        );
    }
}

/// A package built for CUDA 11 beside a torch built for CUDA 12.1 (a custom extension, an
/// onnxruntime-gpu or ctranslate2 wheel of the other major): `libcudart.so.11.0` is missing on a
/// machine whose only framework brings CUDA 12's runtime. From the text alone it is a missing
/// runtime; on this machine the facts name the package conflict and the torch build.
#[test]
fn a_cuda_runtime_of_another_major_than_torch_is_a_package_conflict() {
    if !have_cc() {
        eprintln!("skipped: no C compiler");
        return;
    }
    let log =
        "ImportError: libcudart.so.11.0: cannot open shared object file: No such file or directory";
    let stdout = explain_on("torch-wheel-cudnn-missing.toml", log);
    assert_eq!(answer(&stdout), "package-conflict", "{stdout}");
    assert!(
        stdout.contains("built for CUDA 12.1") && stdout.contains("libcudart.so.11.0"),
        "{stdout}"
    );

    let s = Scenario::load(&scenarios_dir().join("torch-wheel-cudnn-missing.toml"));
    let root = FakeRoot::build(&s);
    let alone = run_gpuenv(
        root.path(),
        &s.env,
        &["explain", "--no-probe", "--format", "json", "--text", log],
    );
    assert_eq!(alone.status, 0, "{}", alone.stderr);
    assert_eq!(
        answer(&alone.stdout),
        "cuda-runtime-lib-missing",
        "{}",
        alone.stdout
    );
}
