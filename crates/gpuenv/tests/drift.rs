//! Drift scenario pairs: two fake machines built by the scenario harness from two descriptions
//! (before and after), the real binary's `gpuenv snapshot` run on each, then `gpuenv diff` and
//! `gpuenv check --baseline` compared with what changed: cuDNN upgraded by the OS, the userspace
//! driver upgraded without a reboot, a new conda environment, torch replaced by a CPU build, and
//! nothing changed.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use support::{have_cc, run_gpuenv, FakeRoot, Run, Scenario};

/// A built machine and its snapshot file.
struct Side {
    root: FakeRoot,
    env: BTreeMap<String, String>,
    snapshot: PathBuf,
}

fn build(dir: &Path, name: &str, toml: &str) -> Side {
    let file = dir.join(format!("{name}.toml"));
    std::fs::write(&file, format!("{toml}\n[expect]\nexit = 0\n")).unwrap();
    let scenario = Scenario::load(&file);
    let root = FakeRoot::build(&scenario);
    let snapshot = dir.join(format!("{name}.snapshot.json"));
    let run = run_gpuenv(
        root.path(),
        &scenario.env,
        &["snapshot", "-o", snapshot.to_str().unwrap()],
    );
    assert_eq!(run.status, 0, "snapshot {name}: {}", run.stderr);
    let text = std::fs::read_to_string(&snapshot).unwrap();
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["schema"], "gpuenv.snapshot/1");
    Side {
        root,
        env: scenario.env,
        snapshot,
    }
}

fn diff(before: &Side, after: &Side, extra: &[&str]) -> (Run, serde_json::Value) {
    let a = before.snapshot.to_str().unwrap();
    let b = after.snapshot.to_str().unwrap();
    let mut args = vec!["diff", a, b, "--color", "never"];
    args.extend_from_slice(extra);
    let human = run_gpuenv(after.root.path(), &after.env, &args);
    // GPUENV_DRIFT_DUMP=1 prints each diff, for reading.
    if std::env::var_os("GPUENV_DRIFT_DUMP").is_some() {
        eprintln!("{}", human.stdout);
    }
    args.extend_from_slice(&["--format", "json"]);
    let json = run_gpuenv(after.root.path(), &after.env, &args);
    assert_eq!(json.status, human.status, "{}", json.stderr);
    let v = serde_json::from_str(&json.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}\n{}", json.stdout, json.stderr));
    (human, v)
}

fn texts(v: &serde_json::Value) -> Vec<String> {
    v["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["text"].as_str().unwrap().to_string())
        .collect()
}

fn new_ids(v: &serde_json::Value) -> Vec<String> {
    v["new_findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap().to_string())
        .collect()
}

const CUDNN_86: &str = r#"
use_templates = ["ubuntu2204", "driver-550", "gpu-rtx3090"]
[[library]]
path = "/usr/lib/x86_64-linux-gnu/libcudnn.so.8.6.0"
soname = "libcudnn.so.8"
links = ["libcudnn.so.8"]
[[ld_cache]]
soname = "libcudnn.so.8"
path = "/usr/lib/x86_64-linux-gnu/libcudnn.so.8"
"#;

#[test]
fn cudnn_upgraded_by_the_os() {
    if !have_cc() {
        eprintln!("SKIPPED: needs cc");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let a = build(dir.path(), "a", CUDNN_86);
    let b = build(dir.path(), "b", &CUDNN_86.replace("8.6.0", "8.9.2"));
    let (human, v) = diff(&a, &b, &[]);
    assert_eq!(human.status, 1, "{}", human.stderr);
    let t = texts(&v);
    assert!(
        t.iter()
            .any(|t| t == "cuDNN in /usr/lib/x86_64-linux-gnu: 8.6.0 → 8.9.2"),
        "{t:?}"
    );
    assert!(
        human.stdout.contains("L4 cuDNN & CUDA libraries"),
        "{}",
        human.stdout
    );
    assert!(human
        .stdout
        .contains("cuDNN in /usr/lib/x86_64-linux-gnu: 8.6.0 → 8.9.2"));
    // --ignore lets it drift.
    let (quiet, v) = diff(&a, &b, &["--ignore", "L4:*"]);
    assert_eq!(quiet.status, 0, "{}\n{v}", quiet.stdout);
    assert!(quiet.stdout.contains("No changes"), "{}", quiet.stdout);
}

const DRIVER_OLD: &str = r#"
use_templates = ["ubuntu2204", "gpu-rtx3090"]
[[file]]
path = "/proc/driver/nvidia/version"
text = "NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.104.05  Sat Aug 19 01:15:15 UTC 2023\n"
[[file]]
path = "/sys/module/nvidia/version"
text = "535.104.05\n"
[[library]]
path = "/usr/lib/x86_64-linux-gnu/libcuda.so.USERSPACE"
soname = "libcuda.so.1"
links = ["libcuda.so.1", "libcuda.so"]
[[library]]
path = "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.USERSPACE"
soname = "libnvidia-ml.so.1"
links = ["libnvidia-ml.so.1"]
[[ld_cache]]
soname = "libcuda.so.1"
path = "/usr/lib/x86_64-linux-gnu/libcuda.so.1"
[[ld_cache]]
soname = "libnvidia-ml.so.1"
path = "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1"
[[file]]
path = "/dev/nvidiactl"
mode = "666"
[[file]]
path = "/dev/nvidia0"
mode = "666"
[[file]]
path = "/dev/nvidia-uvm"
mode = "666"
"#;

#[test]
fn userspace_driver_upgraded_without_a_reboot() {
    if !have_cc() {
        eprintln!("SKIPPED: needs cc");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let a = build(
        dir.path(),
        "a",
        &DRIVER_OLD.replace("USERSPACE", "535.104.05"),
    );
    let b = build(
        dir.path(),
        "b",
        &DRIVER_OLD.replace("USERSPACE", "535.129.03"),
    );
    let (human, v) = diff(&a, &b, &[]);
    assert_eq!(human.status, 1);
    let t = texts(&v);
    assert!(
        t.iter()
            .any(|t| t == "userspace driver: 535.104.05 → 535.129.03"),
        "{t:?}"
    );
    assert!(
        new_ids(&v).contains(&"driver-userspace-mismatch".to_string()),
        "{v}"
    );
    let change = v["changes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["text"] == "userspace driver: 535.104.05 → 535.129.03")
        .unwrap();
    assert!(change["breaks"]
        .as_array()
        .unwrap()
        .iter()
        .any(|b| b == "driver-userspace-mismatch"));
    // A baseline from another gpuenv version: its findings are not trusted, the checks run again.
    let older = {
        let mut v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&a.snapshot).unwrap()).unwrap();
        v["gpuenv_version"] = "0.0.1-older".into();
        // A stored finding that re-running the checks does not give: it must not count.
        v["findings"] = serde_json::json!([{"id": "driver-userspace-mismatch",
            "severity": "error", "layer": "driver", "title": "stale", "fix": ""}]);
        let p = a.snapshot.with_file_name("older.json");
        std::fs::write(&p, v.to_string()).unwrap();
        p
    };
    let older = Side {
        root: FakeRoot {
            dir: tempfile::tempdir().unwrap(),
        },
        env: a.env.clone(),
        snapshot: older,
    };
    let (_, v2) = diff(&older, &b, &[]);
    assert_eq!(new_ids(&v2), new_ids(&v));
    // The same file claiming this gpuenv's version is trusted as written.
    let trusted = {
        let text = std::fs::read_to_string(&older.snapshot).unwrap();
        let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
        let mine: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&a.snapshot).unwrap()).unwrap();
        v["gpuenv_version"] = mine["gpuenv_version"].clone();
        std::fs::write(&older.snapshot, v.to_string()).unwrap();
        diff(&older, &b, &[]).1
    };
    assert!(!new_ids(&trusted).contains(&"driver-userspace-mismatch".to_string()));
    // The fix and how to stop it recurring (Ubuntu: hold the packages, blacklist them).
    assert!(
        human.stdout.contains("breaks: driver-userspace-mismatch"),
        "{}",
        human.stdout
    );
    assert!(human.stdout.contains("apt-mark hold"), "{}", human.stdout);
    assert!(human
        .stdout
        .contains("Unattended-Upgrade::Package-Blacklist"));

    // check --baseline on the upgraded machine: exit 1 with the diff; on the same one: 0.
    let baseline = a.snapshot.to_str().unwrap();
    let run = run_gpuenv(b.root.path(), &b.env, &["check", "--baseline", baseline]);
    assert_eq!(run.status, 1, "{}{}", run.stdout, run.stderr);
    assert!(run.stdout.contains("535.104.05 → 535.129.03"));
    let run = run_gpuenv(a.root.path(), &a.env, &["check", "--baseline", baseline]);
    assert_eq!(run.status, 0, "{}{}", run.stdout, run.stderr);
    let run = run_gpuenv(
        a.root.path(),
        &a.env,
        &["check", "--baseline", "/nonexistent"],
    );
    assert_eq!(run.status, 2);
}

const CONDA: &str = r#"
use_templates = ["debian12"]
[env]
PATH = "/home/user/miniconda3/bin:/usr/bin:/bin"
HOME = "/home/user"
[[python_env]]
prefix = "/home/user/miniconda3"
kind = "conda"
python = "3.11.5"
"#;

const CONDA_ENV: &str = r#"
[[python_env]]
prefix = "/home/user/miniconda3/envs/ml"
kind = "conda"
python = "3.11.5"
[[dist]]
env = "/home/user/miniconda3/envs/ml"
name = "numpy"
version = "1.26.4"
files = ["numpy/__init__.py"]
"#;

#[test]
fn new_conda_environment() {
    if !have_cc() {
        eprintln!("SKIPPED: needs cc");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let a = build(dir.path(), "a", CONDA);
    let b = build(dir.path(), "b", &format!("{CONDA}\n{CONDA_ENV}"));
    let (human, v) = diff(&a, &b, &[]);
    assert_eq!(human.status, 1);
    let changes = v["changes"].as_array().unwrap();
    // One change for the environment, not one per distribution in it.
    let env_changes: Vec<_> = changes
        .iter()
        .filter(|c| c["environment"] == "/home/user/miniconda3/envs/ml")
        .collect();
    assert_eq!(env_changes.len(), 1, "{changes:?}");
    assert_eq!(env_changes[0]["kind"], "added");
    assert!(
        env_changes[0]["text"]
            .as_str()
            .unwrap()
            .starts_with("Python environment ml (/home/user/miniconda3/envs/ml): new"),
        "{env_changes:?}"
    );
    assert!(human.stdout.contains("environment ml"), "{}", human.stdout);
}

const TORCH: &str = r#"
use_templates = ["debian12", "driver-550", "gpu-rtx3090"]
[env]
VIRTUAL_ENV = "/home/user/venvs/t21"
PATH = "/home/user/venvs/t21/bin:/usr/bin:/bin"
[[python_env]]
prefix = "/home/user/venvs/t21"
kind = "venv"
python = "3.11.2"
[[dist]]
env = "/home/user/venvs/t21"
name = "torch"
version = "2.1.0"
files = ["torch/__init__.py"]
[[file]]
path = "/home/user/venvs/t21/lib/python3.11/site-packages/torch/version.py"
text = "__version__ = '2.1.0+LOCAL'\ndebug = False\ncuda = CUDA\ngit_version = '7bcf7da3a268b435777fe87c7794c382f444e86d'\nhip = None\n"
"#;

#[test]
fn torch_replaced_by_a_cpu_build() {
    if !have_cc() {
        eprintln!("SKIPPED: needs cc");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let a = build(
        dir.path(),
        "a",
        &TORCH.replace("LOCAL", "cu121").replace("CUDA", "'12.1'"),
    );
    let b = build(
        dir.path(),
        "b",
        &TORCH.replace("LOCAL", "cpu").replace("CUDA", "None"),
    );
    let (human, v) = diff(&a, &b, &[]);
    assert_eq!(human.status, 1);
    let t = texts(&v);
    assert!(
        t.iter().any(
            |t| t.starts_with("torch build in t21: 2.1.0+cu121 (CUDA 12.1")
                && t.contains("→ 2.1.0+cpu (CPU-only build")
        ),
        "{t:?}"
    );
    assert!(new_ids(&v).contains(&"torch-cpu-only".to_string()), "{v}");
    assert!(
        human.stdout.contains("breaks: torch-cpu-only"),
        "{}",
        human.stdout
    );
    assert!(human.stdout.contains("pip freeze"), "{}", human.stdout);
}

#[test]
fn nothing_changed() {
    if !have_cc() {
        eprintln!("SKIPPED: needs cc");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let a = build(dir.path(), "a", CUDNN_86);
    // A second snapshot of the same machine.
    let again = dir.path().join("again.json");
    let run = run_gpuenv(
        a.root.path(),
        &a.env,
        &["snapshot", "-o", again.to_str().unwrap()],
    );
    assert_eq!(run.status, 0);
    let b = Side {
        root: FakeRoot {
            dir: tempfile::tempdir().unwrap(),
        },
        env: a.env.clone(),
        snapshot: again,
    };
    let (human, v) = diff(&a, &b, &[]);
    assert_eq!(human.status, 0, "{}", human.stdout);
    assert!(v["changes"].as_array().unwrap().is_empty());
    assert!(v["new_findings"].as_array().unwrap().is_empty());
    assert!(human.stdout.contains("No changes."));
    // `now` against the file: the same machine.
    let file = a.snapshot.to_str().unwrap();
    let run = run_gpuenv(a.root.path(), &a.env, &["diff", file, "now"]);
    assert_eq!(run.status, 0, "{}{}", run.stdout, run.stderr);
}

#[test]
fn unreadable_and_newer_snapshots_are_refused_clearly() {
    let dir = tempfile::tempdir().unwrap();
    let newer = dir.path().join("newer.json");
    std::fs::write(&newer, r#"{"schema": "gpuenv.snapshot/2", "facts": {}}"#).unwrap();
    let other = dir.path().join("other.json");
    std::fs::write(&other, r#"{"hello": 1}"#).unwrap();
    let env = BTreeMap::new();
    let run = run_gpuenv(dir.path(), &env, &["diff", newer.to_str().unwrap(), "now"]);
    assert_eq!(run.status, 2);
    assert!(run.stderr.contains("newer gpuenv"), "{}", run.stderr);
    let run = run_gpuenv(dir.path(), &env, &["diff", other.to_str().unwrap(), "now"]);
    assert_eq!(run.status, 2);
    assert!(
        run.stderr.contains("not a gpuenv snapshot"),
        "{}",
        run.stderr
    );
}

#[test]
fn doctor_and_snapshot_record_into_the_history() {
    if !have_cc() {
        eprintln!("SKIPPED: needs cc");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("state/history.sqlite");
    let db_arg = db.to_str().unwrap();
    let a = build(
        dir.path(),
        "a",
        &DRIVER_OLD.replace("USERSPACE", "535.104.05"),
    );
    // The same machine (host and root) twice: use one root, then upgrade it in place.
    let run = run_gpuenv(
        a.root.path(),
        &a.env,
        &["doctor", "--record", "--db", db_arg],
    );
    assert_eq!(run.status, 0, "{}", run.stderr);
    let lib = |root: &Path, v: &str| root.join(format!("usr/lib/x86_64-linux-gnu/libcuda.so.{v}"));
    let ml =
        |root: &Path, v: &str| root.join(format!("usr/lib/x86_64-linux-gnu/libnvidia-ml.so.{v}"));
    for (path, link) in [
        (lib(a.root.path(), "535.104.05"), lib(a.root.path(), "1")),
        (ml(a.root.path(), "535.104.05"), ml(a.root.path(), "1")),
    ] {
        let new = path.to_str().unwrap().replace("535.104.05", "535.129.03");
        std::fs::rename(&path, &new).unwrap();
        std::fs::remove_file(&link).unwrap();
        std::os::unix::fs::symlink(Path::new(&new).file_name().unwrap(), &link).unwrap();
    }
    let out = dir.path().join("s.json");
    let run = run_gpuenv(
        a.root.path(),
        &a.env,
        &[
            "snapshot",
            "--record",
            "--db",
            db_arg,
            "-o",
            out.to_str().unwrap(),
        ],
    );
    assert_eq!(run.status, 0, "{}", run.stderr);
    let run = run_gpuenv(
        a.root.path(),
        &a.env,
        &["history", "--db", db_arg, "--format", "json"],
    );
    assert_eq!(run.status, 0, "{}", run.stderr);
    let v: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let runs = v["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 2, "{v}");
    assert_eq!(runs[0]["command"], "doctor");
    let texts: Vec<&str> = runs[1]["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["text"].as_str().unwrap())
        .collect();
    assert!(
        texts.contains(&"userspace driver: 535.104.05 → 535.129.03"),
        "{texts:?}"
    );
    assert!(runs[1]["new_findings"]
        .as_array()
        .unwrap()
        .iter()
        .any(|f| f == "driver-userspace-mismatch"));
    let human = run_gpuenv(
        a.root.path(),
        &a.env,
        &["history", "--db", db_arg, "--since", "1d"],
    );
    assert!(
        human
            .stdout
            .contains("new findings: driver-userspace-mismatch"),
        "{}",
        human.stdout
    );
    // --keep 0s deletes every run first.
    let run = run_gpuenv(
        a.root.path(),
        &a.env,
        &["history", "--db", db_arg, "--keep", "0s"],
    );
    assert_eq!(run.status, 0, "{}", run.stderr);
    // A foreign file is refused (exit 2) and left as it was.
    let notes = dir.path().join("notes.txt");
    std::fs::write(&notes, "not a database\n").unwrap();
    let run = run_gpuenv(
        a.root.path(),
        &a.env,
        &["doctor", "--record", "--db", notes.to_str().unwrap()],
    );
    assert_eq!(run.status, 2);
    assert!(
        run.stderr.contains("not a gpuenv history database"),
        "{}",
        run.stderr
    );
    assert_eq!(std::fs::read_to_string(&notes).unwrap(), "not a database\n");
}

/// `schemas/snapshot.schema.json` validates a real snapshot (its `facts` reference the report
/// schema's definitions, merged in here since the validator is built without file resolution).
#[test]
fn snapshot_matches_its_schema() {
    if !have_cc() {
        eprintln!("SKIPPED: needs cc");
        return;
    }
    let schemas = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../schemas");
    let read = |name: &str| -> serde_json::Value {
        serde_json::from_str(&std::fs::read_to_string(schemas.join(name)).unwrap()).unwrap()
    };
    let report = read("report.schema.json");
    let mut schema = read("snapshot.schema.json");
    schema["$defs"] = report["$defs"].clone();
    let text = schema
        .to_string()
        .replace("report.schema.json#/$defs/", "#/$defs/");
    let schema: serde_json::Value = serde_json::from_str(&text).unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let side = build(
        dir.path(),
        "a",
        &DRIVER_OLD.replace("USERSPACE", "535.129.03"),
    );
    let snap: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&side.snapshot).unwrap()).unwrap();
    let errors: Vec<String> = validator
        .iter_errors(&snap)
        .map(|e| e.to_string())
        .collect();
    assert!(errors.is_empty(), "{errors:#?}");
}
