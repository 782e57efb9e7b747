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

/// The same error text, two answers: from the text alone the likeliest cause is a missing
/// driver; on a machine whose driver is loaded and whose CUDA_VISIBLE_DEVICES is empty, it is
/// the variable.
#[test]
fn facts_change_the_ranking() {
    if !have_cc() {
        eprintln!("skipped: no C compiler");
        return;
    }
    let s = Scenario::load(&scenarios_dir().join("cuda-visible-devices-empty.toml"));
    let root = FakeRoot::build(&s);
    let alone = run_gpuenv(
        root.path(),
        &s.env,
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
    assert_eq!(answer(&alone.stdout), "driver-missing");

    let refined = run_gpuenv(
        root.path(),
        &s.env,
        &["explain", "--format", "json", "--text", NO_DEVICE],
    );
    assert_eq!(refined.status, 0, "{}", refined.stderr);
    assert_eq!(
        answer(&refined.stdout),
        "env-var-misconfiguration",
        "{}",
        refined.stdout
    );
    assert!(refined.stdout.contains("rules-out"), "{}", refined.stdout);
    assert!(
        refined.stdout.contains("hides every GPU"),
        "{}",
        refined.stdout
    );

    // The same facts from a saved doctor report of that machine.
    let report = run_gpuenv(root.path(), &s.env, &["doctor", "--format", "json"]);
    let file = root.path().join("report.json");
    std::fs::write(&file, &report.stdout).unwrap();
    let from_report = run_gpuenv(
        root.path(),
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
    assert_eq!(answer(&from_report.stdout), "env-var-misconfiguration");
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
