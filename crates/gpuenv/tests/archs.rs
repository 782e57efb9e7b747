//! `gpuenv archs` end to end: the real binary on the committed CUDA 13 fixture (built by nvcc 13.5
//! with `a` and `f` targets, see crates/gpuenv-elf/tests/fixtures/README.md), its exit statuses
//! and its JSON document.

use std::path::PathBuf;
use std::process::{Command, Output};

fn fixture() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../gpuenv-elf/tests/fixtures/cuda13-variants.so")
}

fn archs(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gpuenv"))
        .arg("archs")
        .args(args)
        .env("GPUENV_NO_NVML", "1")
        .env_remove("GPUENV_GPU_CC")
        .output()
        .expect("run gpuenv")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

#[test]
fn native_jit_and_none() {
    let file = fixture();
    let file = file.to_str().expect("utf-8 path");

    let o = archs(&[file, "--gpu", "10.3,9.0"]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    let text = stdout(&o);
    assert!(
        text.contains("SASS: sm_75 ×1, sm_90a ×1, sm_100f ×1, sm_103a ×1, sm_120 ×1"),
        "{text}"
    );
    assert!(
        text.contains("PTX:  compute_100f ×1 (PTX ISA 9.5)"),
        "{text}"
    );
    assert!(
        text.contains("compute capability 10.3 (--gpu): runs natively (sm_103a, sm_100f)"),
        "{text}"
    );

    // 12.1: sm_120 runs natively (same major); 8.6: nothing fits.
    let o = archs(&[file, "--gpu", "12.1"]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    assert!(stdout(&o).contains("runs natively (sm_120)"));
    let o = archs(&[file, "--gpu", "sm_86"]);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    assert!(stdout(&o).contains("no kernel image is available"));
}

#[test]
fn json_document() {
    let file = fixture();
    let o = archs(&[
        file.to_str().expect("utf-8"),
        "--gpu",
        "13.0",
        "--format",
        "json",
        "-v",
    ]);
    // 13.0: no cubin; compute_120 (plain) is forward compatible: PTX JIT needing CUDA 13.5.
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    assert_eq!(doc["schema"], "gpuenv.archs/1");
    assert_eq!(doc["fatbin"]["entries"], 8);
    assert_eq!(doc["fatbin"]["compression"]["zstd"], 3);
    assert_eq!(
        doc["fatbin"]["entry_list"].as_array().map(Vec::len),
        Some(8)
    );
    let gpu = &doc["gpus"][0];
    assert_eq!(gpu["status"], "ptx_jit");
    assert_eq!(gpu["jit_targets"][0], "compute_120");
    assert_eq!(gpu["jit_needs"]["cuda"], "13.5");
}

#[test]
fn no_gpu_code_and_not_elf() {
    let exe = env!("CARGO_BIN_EXE_gpuenv");
    let o = archs(&[exe, "--gpu", "8.6"]);
    assert_eq!(o.status.code(), Some(0));
    assert!(stdout(&o).contains("no CUDA GPU code"));
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml");
    let o = archs(&[manifest.to_str().expect("utf-8"), "--gpu", "8.6"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("not an ELF file"));
    let o = archs(&["/nonexistent/libfoo.so", "--gpu", "8.6"]);
    assert_eq!(o.status.code(), Some(2));
}
