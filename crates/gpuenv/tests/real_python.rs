//! Real parts for L5: environments made by the real installers (`.ci/make-real-python-envs`: a
//! `python -m venv` with real wheels installed by pip, including both OpenCV flavours and a
//! torchvision without its torch, and a `uv venv`). gpuenv must report exactly what `pip list`
//! reports, find what `pip check` finds, and see the two OpenCV wheels overwrite `cv2/`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

fn envs_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/real-envs")
}

fn ready(name: &str) -> Option<PathBuf> {
    let dir = envs_dir().join(name);
    dir.join(".complete")
        .exists()
        .then(|| dir.canonicalize().unwrap())
}

fn normalize(name: &str) -> String {
    name.to_ascii_lowercase().replace(['_', '.'], "-")
}

fn doctor(envs: &[&Path]) -> serde_json::Value {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_gpuenv"));
    cmd.args(["doctor", "--format", "json", "--all-envs"])
        .env("GPUENV_NO_NVML", "1");
    for e in envs {
        cmd.arg("--python").arg(e);
    }
    let out = cmd.output().unwrap();
    serde_json::from_slice(&out.stdout).unwrap()
}

fn environment<'a>(report: &'a serde_json::Value, prefix: &Path) -> &'a serde_json::Value {
    report["facts"]["python"]["environments"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| Path::new(e["prefix"].as_str().unwrap()) == prefix)
        .unwrap_or_else(|| panic!("environment {} reported", prefix.display()))
}

fn reported_dists(env: &serde_json::Value) -> BTreeSet<(String, String)> {
    env["distributions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["key"].as_str().unwrap().to_string(),
                d["version"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn list_json(cmd: &mut Command) -> BTreeSet<(String, String)> {
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    v.as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                normalize(d["name"].as_str().unwrap()),
                d["version"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn real_pip_venv_matches_pip_list_and_pip_check() {
    let Some(venv) = ready("venv-pip") else {
        eprintln!("SKIPPED: run .ci/make-real-python-envs first (CI does)");
        return;
    };
    let report = doctor(&[&venv]);
    let env = environment(&report, &venv);
    assert_eq!(env["kind"], "venv");
    assert_eq!(env["full"], true);
    let python = venv.join("bin/python");
    let pip_list = list_json(Command::new(&python).args([
        "-m",
        "pip",
        "list",
        "--format",
        "json",
        "--disable-pip-version-check",
    ]));
    assert_eq!(
        reported_dists(env),
        pip_list,
        "gpuenv's distributions are pip list's"
    );

    // What `pip check` complains about, gpuenv's requirement-unsatisfied says too.
    let check = Command::new(&python)
        .args(["-m", "pip", "check", "--disable-pip-version-check"])
        .output()
        .unwrap();
    let check_text = String::from_utf8_lossy(&check.stdout);
    let findings = report["findings"].as_array().unwrap();
    let unsatisfied: Vec<&str> = findings
        .iter()
        .filter(|f| {
            f["id"] == "requirement-unsatisfied"
                && Path::new(f["environment"].as_str().unwrap_or("")) == venv
        })
        .flat_map(|f| {
            f["evidence"]
                .as_array()
                .unwrap()
                .iter()
                .map(|e| e.as_str().unwrap())
        })
        .collect();
    let mut compared = 0;
    for line in check_text.lines().filter(|l| l.contains(" requires ")) {
        // "torchvision 0.16.0 requires torch, which is not installed."
        let (who, rest) = line.split_once(" requires ").unwrap();
        let wanted = rest.split([',', ' ']).next().unwrap();
        assert!(
            unsatisfied
                .iter()
                .any(|e| e.starts_with(who) && e.contains(&format!("requires {wanted}"))),
            "pip check says {line:?}; gpuenv says {unsatisfied:?}"
        );
        compared += 1;
    }
    assert!(
        compared >= 3,
        "pip check found the missing torch, pillow and requests: {check_text}"
    );

    // Both OpenCV wheels wrote cv2/: their real RECORDs list the same files with other hashes.
    let clobbered = findings
        .iter()
        .find(|f| f["id"] == "module-clobbered")
        .unwrap_or_else(|| panic!("module-clobbered fires: {findings:#?}"));
    assert!(
        clobbered["title"]
            .as_str()
            .unwrap()
            .contains("opencv-python and opencv-python-headless"),
        "{clobbered:#}"
    );
    assert!(clobbered["title"].as_str().unwrap().contains("`cv2`"));
    // numpy, torchvision and nvidia-* share no files: no other conflict.
    assert_eq!(
        env["file_conflicts"].as_array().unwrap().len(),
        1,
        "{:#}",
        env["file_conflicts"]
    );
}

#[test]
fn real_uv_venv_is_a_second_layout() {
    let Some(venv) = ready("venv-uv") else {
        eprintln!("SKIPPED: run .ci/make-real-python-envs first (CI does)");
        return;
    };
    let uv = envs_dir().join("uv-tool/bin/uv");
    let report = doctor(&[&venv]);
    let env = environment(&report, &venv);
    assert_eq!(env["kind"], "uv-venv");
    let cfg = std::fs::read_to_string(venv.join("pyvenv.cfg")).unwrap();
    let version = cfg
        .lines()
        .find_map(|l| l.strip_prefix("version_info = "))
        .unwrap()
        .trim();
    assert_eq!(env["python_version"]["value"], version);
    let uv_list = list_json(
        Command::new(uv)
            .args(["pip", "list", "--format", "json", "--python"])
            .arg(venv.join("bin/python")),
    );
    assert_eq!(
        reported_dists(env),
        uv_list,
        "gpuenv's distributions are uv pip list's"
    );
    let numpy = env["distributions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["key"] == "numpy")
        .unwrap();
    assert_eq!(numpy["installer"], "uv", "uv writes INSTALLER = uv");
}

/// The real nvidia-cuda-runtime-cu12 wheel puts libcudart.so.12 in the environment's
/// site-packages/nvidia/cuda_runtime/lib: doctor lists exactly the libraries that are there, and
/// `explain`, run with that environment active, names the directory when a program cannot open
/// libcudart.so.12 (installed, only not where the system loader looks).
#[test]
fn real_wheel_libraries_are_listed_and_explain_names_their_directory() {
    let Some(venv) = ready("venv-pip") else {
        eprintln!("SKIPPED: run .ci/make-real-python-envs first (CI does)");
        return;
    };
    let report = doctor(&[&venv]);
    let env = environment(&report, &venv);
    let reported: BTreeSet<String> = env["cuda_libraries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_str().unwrap().to_string())
        .collect();
    let mut on_disk = BTreeSet::new();
    for site in env["site_packages"].as_array().unwrap() {
        let nvidia = Path::new(site.as_str().unwrap()).join("nvidia");
        for package in std::fs::read_dir(&nvidia).into_iter().flatten().flatten() {
            for file in std::fs::read_dir(package.path().join("lib"))
                .into_iter()
                .flatten()
                .flatten()
            {
                let name = file.file_name().to_string_lossy().to_string();
                if name.starts_with("lib") && name.contains(".so") {
                    on_disk.insert(file.path().to_string_lossy().to_string());
                }
            }
        }
    }
    assert!(
        on_disk
            .iter()
            .any(|p| p.ends_with("nvidia/cuda_runtime/lib/libcudart.so.12")),
        "{on_disk:?}"
    );
    assert_eq!(reported, on_disk);
    // `doctor -v` shows them with the environment.
    let out = Command::new(env!("CARGO_BIN_EXE_gpuenv"))
        .args(["doctor", "-v", "--all-envs", "--python"])
        .arg(&venv)
        .env("GPUENV_NO_NVML", "1")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.lines().any(|l| l.contains("own CUDA libraries in")
            && l.contains("nvidia/cuda_runtime/lib")
            && l.contains("libcudart.so.12")),
        "{text}"
    );

    // A system copy of libcudart.so.12 the loader reaches would make the variable moot.
    let system_has_it = report["facts"]["cuda"]["runtimes"]
        .as_array()
        .unwrap()
        .iter()
        .any(|r| {
            r["soname"].as_str() == Some("libcudart.so.12")
                && !r["reachable_via"].as_array().unwrap().is_empty()
        });
    if system_has_it {
        eprintln!("SKIPPED (explain part): this machine's loader reaches a libcudart.so.12");
        return;
    }
    let mut path = venv.join("bin").into_os_string();
    path.push(":");
    path.push(std::env::var_os("PATH").unwrap_or_default());
    let out = Command::new(env!("CARGO_BIN_EXE_gpuenv"))
        .args([
            "explain",
            "--format",
            "json",
            "--text",
            "OSError: libcudart.so.12: cannot open shared object file: No such file or directory",
        ])
        .env("VIRTUAL_ENV", &venv)
        .env("PATH", path)
        .env("GPUENV_NO_NVML", "1")
        .output()
        .unwrap();
    let x: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let top = &x["diagnoses"][0];
    assert_eq!(top["category"], "env-var-misconfiguration", "{x:#}");
    let evidence = top["evidence"].to_string();
    assert!(
        evidence.contains("nvidia/cuda_runtime/lib") && evidence.contains("library-unreachable"),
        "{evidence}"
    );
}
