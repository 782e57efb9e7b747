//! `gpuenv verify` without a GPU: a real PyTorch whose import really fails for a missing CUDA
//! library (`.ci/make-real-torch-env`), and fake interpreters that hang (the timeout kills the
//! whole process group), crash, or print a scripted happy path (the rendering).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

fn gpuenv() -> Command {
    Command::new(env!("CARGO_BIN_EXE_gpuenv"))
}

fn real_envs() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/real-envs")
}

/// The JSON output, checked against `schemas/verify.schema.json`.
fn json(out: &Output) -> serde_json::Value {
    let value: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "not JSON ({e}):\n{}\nstderr:\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../schemas/verify.schema.json");
    let schema: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let validator = jsonschema::validator_for(&schema).expect("the schema itself is valid");
    let errors: Vec<String> = validator
        .iter_errors(&value)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(
        errors.is_empty(),
        "verify's JSON does not match its schema:\n{}",
        errors.join("\n")
    );
    value
}

/// A fake venv whose `bin/python3` is `script` (a shell script).
fn fake_env(dir: &Path, script: &str) -> PathBuf {
    let prefix = dir.join("fake-env");
    std::fs::create_dir_all(prefix.join("bin")).unwrap();
    std::fs::create_dir_all(prefix.join("lib/python3.11/site-packages")).unwrap();
    std::fs::write(
        prefix.join("pyvenv.cfg"),
        "home = /usr/bin\ninclude-system-site-packages = false\nversion = 3.11.7\n",
    )
    .unwrap();
    let python = prefix.join("bin/python3");
    std::fs::write(&python, format!("#!/bin/sh\n{script}")).unwrap();
    std::fs::set_permissions(&python, std::fs::Permissions::from_mode(0o755)).unwrap();
    prefix
}

fn verify(prefix: &Path, extra: &[&str]) -> Output {
    gpuenv()
        .arg("verify")
        .arg("--env")
        .arg(prefix)
        .args(["--framework", "torch"])
        .args(extra)
        .env("NO_COLOR", "1")
        .env("GPUENV_NO_NVML", "1")
        .output()
        .unwrap()
}

fn line(json: &str) -> String {
    format!("echo '@@gpuenv-verify@@ {json}'\n")
}

/// Whether `pid` still runs (a zombie waiting for its reaper does not count).
fn running(pid: &str) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => {
            let state = stat.rsplit(')').next().unwrap_or("").trim_start();
            !state.starts_with('Z') && !state.starts_with('X')
        }
        Err(_) => false,
    }
}

#[test]
fn a_hung_import_is_killed_at_the_timeout_with_everything_it_started() {
    let dir = tempfile::tempdir().unwrap();
    let pids = dir.path().join("pids");
    let script = format!(
        "{}{}sleep 300 &\necho $! >> {p}\necho $$ >> {p}\nsleep 300\n",
        line(r#"{"step":"python","ok":true,"version":"3.11.7","executable":"fake"}"#),
        line(r#"{"step":"start","ok":true,"framework":"torch"}"#),
        p = pids.display()
    );
    let prefix = fake_env(dir.path(), &script);
    let started = Instant::now();
    let out = verify(&prefix, &["--timeout", "2", "--format", "json"]);
    let took = started.elapsed();
    let v = json(&out);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(v["schema"], "gpuenv.verify/1");
    assert_eq!(v["status"], "timed-out");
    assert_eq!(v["stopped_at"], "import");
    assert!(took < Duration::from_secs(30), "took {took:?}");
    let pids = std::fs::read_to_string(&pids).unwrap();
    // The kernel may take a moment to tear the killed processes down.
    let deadline = Instant::now() + Duration::from_secs(5);
    for pid in pids.split_whitespace() {
        while running(pid) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(50));
        }
        assert!(!running(pid), "process {pid} survived the timeout");
    }

    let human = verify(&prefix, &["--timeout", "1"]);
    let text = String::from_utf8_lossy(&human.stdout);
    assert!(
        text.contains(
            "import did not finish within 1 s (a hung import); the process group was killed"
        ),
        "{text}"
    );
    assert!(text.contains("Result: TIMED-OUT"), "{text}");
}

#[test]
fn a_scripted_happy_path_renders_every_step() {
    let dir = tempfile::tempdir().unwrap();
    // The framework's own output, far over the bound: it is read and dropped.
    let mut script = String::from(
        "echo 'the framework prints its own noise'\nhead -c 20000000 /dev/zero | tr '\\0' n\necho\n",
    );
    for l in [
        r#"{"step":"python","ok":true,"version":"3.11.7","executable":"/x/bin/python3","prefix":"/x","ld_preload":null}"#,
        r#"{"step":"start","ok":true,"framework":"torch"}"#,
        r#"{"step":"import","ok":true,"version":"2.4.1+cu124","ms":812.5}"#,
        r#"{"step":"cuda","ok":true,"cuda":"12.4","cudnn":90100,"device_count":2,"devices":[{"index":0,"name":"NVIDIA A100-SXM4-80GB","cc":"8.0","memory_bytes":85899345920},{"index":1,"name":"NVIDIA A100-SXM4-80GB","cc":"8.0","memory_bytes":85899345920}],"error":null}"#,
        r#"{"step":"matmul","ok":true,"device":0,"ms":7.1,"tflops":19.4}"#,
        r#"{"step":"conv","ok":true,"device":0,"ms":1.2,"cudnn":90100}"#,
        r#"{"step":"matmul","ok":true,"device":1,"ms":7.0,"tflops":19.6}"#,
        r#"{"step":"conv","ok":true,"device":1,"ms":1.3,"cudnn":90100}"#,
        r#"{"step":"memory","ok":true,"devices":[{"device":0,"peak_bytes":268435456},{"device":1,"peak_bytes":268435456}]}"#,
        r#"{"step":"libraries","ok":true,"mapped":["/x/lib/python3.11/site-packages/nvidia/cudnn/lib/libcudnn.so.9"],"error":null}"#,
        r#"{"step":"done","ok":true}"#,
    ] {
        script.push_str(&line(l));
    }
    let prefix = fake_env(dir.path(), &script);
    let out = verify(&prefix, &[]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    for want in [
        "✓ Python 3.11.7 (/x/bin/python3)",
        "✓ import (version 2.4.1+cu124) in 812.5 ms",
        "✓ CUDA: 2 GPU(s) visible, CUDA 12.4, cuDNN 90100; NVIDIA A100-SXM4-80GB (CC 8.0); NVIDIA A100-SXM4-80GB (CC 8.0)",
        "✓ 4096×4096 fp32 matrix product on GPU 1 in 7.0 ms, 19.6 TFLOP/s",
        "✓ cuDNN 3×3 convolution (32×64×56×56) on GPU 0 in 1.2 ms",
        "✓ peak memory: GPU 0 256 MiB, GPU 1 256 MiB",
        "✓ 1 CUDA library mapped (/proc/self/maps)",
        "Result: PASSED",
    ] {
        assert!(text.contains(want), "missing {want:?} in:\n{text}");
    }
    assert!(!text.contains("noise"), "{text}");
    let v = json(&verify(&prefix, &["--format", "json"]));
    assert_eq!(v["status"], "passed");
    assert!(v["stopped_at"].is_null());
    assert_eq!(v["steps"].as_array().unwrap().len(), 11);
    assert!(v["explanation"].is_null());
}

#[test]
fn a_crash_in_native_code_is_reported_with_its_signal() {
    let dir = tempfile::tempdir().unwrap();
    let script = format!(
        "{}{}{}kill -SEGV $$\n",
        line(r#"{"step":"python","ok":true}"#),
        line(r#"{"step":"start","ok":true}"#),
        line(r#"{"step":"import","ok":true,"version":"2.4.1"}"#),
    );
    let prefix = fake_env(dir.path(), &script);
    let out = verify(&prefix, &["--format", "json"]);
    let v = json(&out);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(v["status"], "crashed");
    assert_eq!(v["stopped_at"], "cuda");
    assert_eq!(v["exit_status"], 139);
}

#[test]
fn an_unknown_environment_is_a_usage_error() {
    let out = gpuenv()
        .args(["verify", "--env", "/nonexistent/gpuenv-verify-env"])
        .env("GPUENV_NO_NVML", "1")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

/// The real thing: torch 2.0.1 from PyPI with `--no-deps`, so its nvidia-*-cu11 wheels are
/// missing and `import torch` fails in the loader. verify must catch it at the import, explain it
/// as a missing library and name doctor's `library-missing` finding for this environment.
#[test]
fn a_real_torch_import_failure_is_explained_by_library_missing() {
    let prefix = real_envs().join("venv-torch");
    if !prefix.join(".complete").is_file() {
        eprintln!("SKIPPED: run .ci/make-real-torch-env first (CI does)");
        return;
    }
    let prefix = prefix.canonicalize().unwrap();
    let out = gpuenv()
        .arg("verify")
        .arg("--env")
        .arg(&prefix)
        .args(["--format", "json", "--timeout", "120"])
        .env("GPUENV_NO_NVML", "1")
        .env_remove("LD_LIBRARY_PATH")
        .output()
        .unwrap();
    let v = json(&out);
    assert_eq!(out.status.code(), Some(1), "{v:#}");
    assert_eq!(v["framework"], "torch", "detected from the environment");
    assert_eq!(v["status"], "failed");
    assert_eq!(v["stopped_at"], "import");
    let errors: String = v["steps"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|s| s["error"].as_str())
        .collect();
    assert!(
        errors.contains("cannot open shared object file"),
        "not the loader's error: {errors}"
    );
    let answer = v["explanation"]["diagnoses"][0]["category"]
        .as_str()
        .unwrap_or("");
    assert!(
        ["cudnn-missing", "cuda-runtime-lib-missing"].contains(&answer),
        "explained as {answer}: {:#}",
        v["explanation"]
    );
    let first = &v["explained_by"][0];
    assert_eq!(first["id"], "library-missing", "{:#}", v["explained_by"]);
    assert_eq!(first["environment"], prefix.display().to_string());
    let missing_named = first["title"].as_str().unwrap();
    assert!(
        errors
            .lines()
            .any(|l| l.contains("cannot open shared object file")
                && missing_named
                    .split([' ', ','])
                    .any(|w| w.starts_with("lib") && l.contains(w))),
        "the finding ({missing_named}) does not name the library the import failed on"
    );
    // The loader model had predicted the very library the import failed on.
    assert!(
        v["loading"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["id"] == "missing-as-predicted"),
        "{:#}",
        v["loading"]
    );
    // The script reported what the process had mapped when it failed.
    let libraries = v["steps"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["step"] == "libraries")
        .expect("a libraries step");
    assert_eq!(libraries["ok"], true);
}

/// A real venv (`python3 -m venv --without-pip`) with `modules` (path -> text) written into its
/// site-packages; `None` (the test says SKIPPED) without a working python3.
fn real_venv(dir: &Path, modules: &[(&str, &str)]) -> Option<PathBuf> {
    let python = ["/usr/bin/python3", "/usr/local/bin/python3"]
        .iter()
        .map(Path::new)
        .find(|p| p.is_file())?;
    let prefix = dir.join("venv");
    let made = Command::new(python)
        .args(["-m", "venv", "--without-pip"])
        .arg(&prefix)
        .status()
        .ok()?;
    if !made.success() {
        return None;
    }
    let site = std::fs::read_dir(prefix.join("lib"))
        .ok()?
        .next()?
        .ok()?
        .path()
        .join("site-packages");
    for (path, text) in modules {
        let file = site.join(path);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(file, text).unwrap();
    }
    Some(prefix)
}

fn step_names(v: &serde_json::Value) -> Vec<String> {
    v["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["step"].as_str().unwrap().to_string())
        .collect()
}

/// The embedded script itself, run by a real Python against a stand-in `torch` module that has
/// no GPU: the import succeeds, the CUDA step fails with torch's own warning, the libraries and
/// done steps still come, and the failure is explained.
#[test]
fn the_real_script_reports_a_torch_without_gpu() {
    let dir = tempfile::tempdir().unwrap();
    let Some(prefix) = real_venv(
        dir.path(),
        &[(
            "torch/__init__.py",
            r#"import types, warnings
__version__ = "2.4.1+cu124"
version = types.SimpleNamespace(cuda="12.4")
def _is_available():
    warnings.warn("CUDA initialization: Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and installed a driver from http://www.nvidia.com/Download/index.aspx")
    return False
cuda = types.SimpleNamespace(is_available=_is_available, device_count=lambda: 0)
backends = types.SimpleNamespace(cudnn=types.SimpleNamespace(version=lambda: 90100))
"#,
        )],
    ) else {
        eprintln!("SKIPPED: no working python3 -m venv");
        return;
    };
    let out = verify(&prefix, &["--format", "json"]);
    let v = json(&out);
    assert_eq!(out.status.code(), Some(1), "{v:#}");
    assert_eq!(v["status"], "failed");
    assert_eq!(v["stopped_at"], "cuda");
    assert_eq!(
        step_names(&v),
        ["python", "start", "import", "cuda", "libraries", "done"]
    );
    assert_eq!(v["steps"][2]["version"], "2.4.1+cu124");
    assert!(v["steps"][3]["error"]
        .as_str()
        .unwrap()
        .contains("Found no NVIDIA driver"));
    assert!(
        v["explanation"]["diagnoses"]
            .as_array()
            .is_some_and(|d| !d.is_empty()),
        "{:#}",
        v["explanation"]
    );
}

/// The script's GPU path (matrix product, convolution, peak memory) run by a real Python against
/// a stand-in `torch` with one GPU whose operations are no-ops.
#[test]
fn the_real_script_runs_the_workload_on_every_gpu() {
    let dir = tempfile::tempdir().unwrap();
    let Some(prefix) = real_venv(
        dir.path(),
        &[
            (
                "torch/__init__.py",
                r#"import contextlib, types
__version__ = "2.4.1+cu124"
version = types.SimpleNamespace(cuda="12.4")
class _T:
    def __matmul__(self, other):
        return self
def randn(*shape, device=None):
    return _T()
def device(kind, index):
    return (kind, index)
def no_grad():
    return contextlib.nullcontext()
_props = types.SimpleNamespace(name="NVIDIA H100 80GB HBM3", major=9, minor=0, total_memory=85520809984)
cuda = types.SimpleNamespace(
    is_available=lambda: True, device_count=lambda: 2,
    get_device_properties=lambda i: _props, synchronize=lambda d=None: None,
    max_memory_allocated=lambda i: 201326592)
backends = types.SimpleNamespace(cudnn=types.SimpleNamespace(version=lambda: 90100, enabled=False))
from torch import nn
"#,
            ),
            (
                "torch/nn.py",
                r#"class Conv2d:
    def __init__(self, *a, **k):
        pass
    def to(self, dev):
        return self
    def __call__(self, x):
        if x is None:
            raise RuntimeError("cuDNN error: CUDNN_STATUS_NOT_INITIALIZED")
        return x
"#,
            ),
        ],
    ) else {
        eprintln!("SKIPPED: no working python3 -m venv");
        return;
    };
    let out = verify(&prefix, &["--format", "json"]);
    let v = json(&out);
    assert_eq!(out.status.code(), Some(0), "{v:#}");
    assert_eq!(v["status"], "passed");
    assert_eq!(
        step_names(&v),
        [
            "python",
            "start",
            "import",
            "cuda",
            "matmul",
            "conv",
            "matmul",
            "conv",
            "memory",
            "libraries",
            "done"
        ]
    );
    assert_eq!(v["steps"][3]["devices"][1]["cc"], "9.0");
    assert_eq!(v["steps"][6]["device"], 1);
    assert!(v["steps"][4]["tflops"].as_f64().unwrap() > 0.0);
    assert_eq!(v["steps"][8]["devices"][0]["peak_bytes"], 201326592);
}

/// TensorFlow and JAX without a GPU, through the real script: each says so at the CUDA step.
#[test]
fn the_real_script_reports_tensorflow_and_jax_without_gpu() {
    let dir = tempfile::tempdir().unwrap();
    let Some(prefix) = real_venv(
        dir.path(),
        &[
            (
                "tensorflow/__init__.py",
                r#"import types
__version__ = "2.16.1"
sysconfig = types.SimpleNamespace(get_build_info=lambda: {"cuda_version": "12.3", "cudnn_version": "8", "is_cuda_build": True})
config = types.SimpleNamespace(list_physical_devices=lambda kind: [])
"#,
            ),
            (
                "jax/__init__.py",
                r#"__version__ = "0.4.30"
def devices(kind=None):
    raise RuntimeError("Unknown backend: 'gpu' requested, but no platforms that are instances of gpu are present. Platforms present are: cpu")
"#,
            ),
            ("jax/numpy.py", ""),
        ],
    ) else {
        eprintln!("SKIPPED: no working python3 -m venv");
        return;
    };
    for (framework, error) in [
        ("tensorflow", "TensorFlow sees no GPU"),
        ("jax", "no platforms that are instances of gpu"),
    ] {
        let out = gpuenv()
            .arg("verify")
            .arg("--env")
            .arg(&prefix)
            .args(["--framework", framework, "--format", "json"])
            .env("GPUENV_NO_NVML", "1")
            .output()
            .unwrap();
        let v = json(&out);
        assert_eq!(v["status"], "failed", "{framework}: {v:#}");
        assert_eq!(v["stopped_at"], "cuda", "{framework}");
        assert!(
            v["steps"][3]["error"].as_str().unwrap().contains(error),
            "{framework}: {v:#}"
        );
    }
}

/// gpuenv itself killed mid-run (Ctrl-C reaches only gpuenv: the workload has its own process
/// group): the script's guard kills the interpreter and everything it started.
#[test]
fn nothing_survives_when_gpuenv_itself_dies() {
    let dir = tempfile::tempdir().unwrap();
    let pids = dir.path().join("pids");
    let module = format!(
        r#"import os, subprocess, time
child = subprocess.Popen(["sleep", "300"])
with open({pids:?}, "w") as f:
    f.write("%d %d\n" % (os.getpid(), child.pid))
time.sleep(300)
"#,
        pids = pids.display().to_string()
    );
    let Some(prefix) = real_venv(dir.path(), &[("torch/__init__.py", &module)]) else {
        eprintln!("SKIPPED: no working python3 -m venv");
        return;
    };
    let mut gpuenv_run = gpuenv()
        .arg("verify")
        .arg("--env")
        .arg(&prefix)
        .args(["--framework", "torch", "--timeout", "300"])
        .env("GPUENV_NO_NVML", "1")
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    while !std::fs::read_to_string(&pids).is_ok_and(|t| t.ends_with('\n')) {
        assert!(Instant::now() < deadline, "the workload never started");
        std::thread::sleep(Duration::from_millis(50));
    }
    gpuenv_run.kill().unwrap();
    gpuenv_run.wait().unwrap();
    let pids = std::fs::read_to_string(&pids).unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    for pid in pids.split_whitespace() {
        while running(pid) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(50));
        }
        assert!(!running(pid), "process {pid} outlived gpuenv");
    }
}
