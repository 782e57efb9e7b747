//! A machine root full of hostile files: symlink loops where toolkits and libraries should be,
//! a garbage ld.so.cache, truncated and non-ELF "libraries", non-UTF-8 names, a huge version file,
//! a directory where a file should be. doctor must finish, report what it could not read, and never
//! panic or hang.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::symlink;
use std::time::{Duration, Instant};

use support::run_gpuenv;

#[test]
fn hostile_root_gives_a_report_not_a_crash() {
    let dir = tempfile::tempdir().unwrap();
    let r = dir.path();
    let lib = r.join("usr/lib/x86_64-linux-gnu");
    fs::create_dir_all(&lib).unwrap();
    fs::create_dir_all(r.join("usr/local")).unwrap();
    fs::create_dir_all(r.join("etc")).unwrap();
    fs::create_dir_all(r.join("proc/driver/nvidia")).unwrap();
    fs::create_dir_all(r.join("sys/bus/pci/devices/0000:01:00.0")).unwrap();

    // Loops and dangling links where the toolkit and the driver should be.
    symlink("/usr/local/cuda", r.join("usr/local/cuda")).unwrap();
    symlink("/usr/local/cuda-12.4", r.join("usr/local/cuda-12.3")).unwrap();
    symlink("/usr/local/cuda-12.3", r.join("usr/local/cuda-12.4")).unwrap();
    symlink("libcuda.so.1", lib.join("libcuda.so.1.loop")).unwrap();
    symlink("/nowhere/libcuda.so.535.1.1", lib.join("libcuda.so.1")).unwrap();
    // Garbage cache, truncated ELF, text pretending to be a library, an empty file.
    fs::write(
        r.join("etc/ld.so.cache"),
        b"glibc-ld.so.cache1.1\xff\xff\xff\xff garbage",
    )
    .unwrap();
    fs::write(
        lib.join("libcudnn.so.9.1.0"),
        b"\x7fELF\x02\x01\x01\0\0\0\0",
    )
    .unwrap();
    symlink("libcudnn.so.9.1.0", lib.join("libcudnn.so.9")).unwrap();
    fs::write(lib.join("libcudnn_ops.so.9"), b"not an ELF file at all").unwrap();
    fs::write(lib.join("libcudart.so.12"), b"").unwrap();
    // A non-UTF-8 name among the libraries, a directory where a file is expected.
    fs::write(lib.join(OsStr::from_bytes(b"libcudnn\xff\xfe.so.8")), b"x").unwrap();
    fs::create_dir_all(r.join("etc/os-release")).unwrap();
    // A huge, meaningless version file and malformed sysfs attributes.
    fs::write(
        r.join("proc/driver/nvidia/version"),
        "NVRM version: ".repeat(500_000),
    )
    .unwrap();
    let gpu = r.join("sys/bus/pci/devices/0000:01:00.0");
    fs::write(gpu.join("vendor"), "0x10de").unwrap();
    fs::write(gpu.join("device"), "0xzzzz").unwrap();
    fs::write(gpu.join("class"), "\u{0}\u{1}").unwrap();
    // A symlink loop through the PCI tree.
    symlink("/sys/bus/pci/devices", r.join("sys/bus/pci/devices/loop")).unwrap();

    // A venv whose site-packages/nvidia holds a loop back to itself, a package that is a file,
    // a library that links to itself and a library name that is not UTF-8.
    let site = r.join("home/u/venv/lib/python3.10/site-packages");
    let wheel_lib = site.join("nvidia/cudnn/lib");
    fs::create_dir_all(&wheel_lib).unwrap();
    fs::write(r.join("home/u/venv/pyvenv.cfg"), "home = /usr/bin\n").unwrap();
    symlink(
        "/home/u/venv/lib/python3.10/site-packages/nvidia",
        site.join("nvidia/loop"),
    )
    .unwrap();
    fs::write(
        site.join("nvidia/cublas"),
        b"a file, not a package directory",
    )
    .unwrap();
    fs::write(wheel_lib.join("libcudnn.so.9"), b"").unwrap();
    symlink("libcudnn_ops.so.9", wheel_lib.join("libcudnn_ops.so.9")).unwrap();
    fs::write(
        wheel_lib.join(OsStr::from_bytes(b"libcudnn\xff.so.8")),
        b"x",
    )
    .unwrap();

    let mut env = BTreeMap::new();
    env.insert("VIRTUAL_ENV".to_string(), "/home/u/venv".to_string());
    env.insert("CUDA_HOME".to_string(), "/usr/local/cuda".to_string());
    env.insert(
        "LD_LIBRARY_PATH".to_string(),
        "/usr/local/cuda/lib64::relative/dir:/usr/lib/x86_64-linux-gnu".to_string(),
    );
    env.insert(
        "PATH".to_string(),
        "/usr/local/cuda/bin:/usr/bin".to_string(),
    );
    let started = Instant::now();
    let run = run_gpuenv(r, &env, &["doctor", "--format", "json"]);
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "doctor took {:?}",
        started.elapsed()
    );
    assert!(
        run.status == 0 || run.status == 1,
        "exit {}; stderr: {}",
        run.status,
        run.stderr
    );
    assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
    let report: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let facts = &report["facts"];
    assert!(facts["probe_errors"]
        .as_array()
        .unwrap()
        .iter()
        .any(|e| e["subject"] == "/etc/ld.so.cache"));
    assert!(
        facts["driver"]["kernel_module"].is_null(),
        "a meaningless version file gives no version"
    );
    assert_eq!(facts["cuda"]["usr_local_cuda"]["state"], "loop");
    assert_eq!(facts["cuda"]["cuda_home"]["state"], "loop");
    let ids: Vec<&str> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["id"].as_str().unwrap())
        .collect();
    assert!(ids.contains(&"cuda-home-invalid"), "{ids:?}");
    assert!(
        ids.contains(&"cudnn-broken-link"),
        "the truncated cuDNN is reported broken: {ids:?}"
    );
    let venv = facts["python"]["environments"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["prefix"] == "/home/u/venv")
        .expect("the venv is reported");
    let own: Vec<&str> = venv["cuda_libraries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_str().unwrap())
        .collect();
    assert!(
        own.contains(&"/home/u/venv/lib/python3.10/site-packages/nvidia/cudnn/lib/libcudnn.so.9"),
        "{own:?}"
    );
    assert!(own.iter().all(|p| !p.contains('\u{fffd}')), "{own:?}");
    assert!(
        own.iter().all(|p| !p.ends_with("libcudnn_ops.so.9")),
        "a link to itself is no library: {own:?}"
    );

    let human = run_gpuenv(r, &env, &["doctor", "-v", "--color", "never"]);
    assert!(human.status == 0 || human.status == 1, "{}", human.stderr);
    assert!(human.stdout.contains("Could not read"), "{}", human.stdout);
}

#[test]
fn a_root_that_is_not_a_directory_is_a_usage_error() {
    let file = tempfile::NamedTempFile::new().unwrap();
    let run = run_gpuenv(file.path(), &BTreeMap::new(), &["doctor"]);
    assert_eq!(run.status, 2);
    assert!(run.stderr.contains("--root"), "{}", run.stderr);
    let missing = run_gpuenv(
        std::path::Path::new("/nonexistent/root"),
        &BTreeMap::new(),
        &["doctor"],
    );
    assert_eq!(missing.status, 2);
}

#[test]
fn a_bad_kb_file_is_a_usage_error_that_names_the_file() {
    let kb = tempfile::NamedTempFile::new().unwrap();
    fs::write(kb.path(), "[[branch]]\nbranch = \"not a number\"\n").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut env = BTreeMap::new();
    env.insert("GPUENV_KB".to_string(), kb.path().display().to_string());
    let run = run_gpuenv(dir.path(), &env, &["doctor"]);
    assert_eq!(run.status, 2, "{}", run.stdout);
    assert!(
        run.stderr.contains(&kb.path().display().to_string()),
        "{}",
        run.stderr
    );
}
