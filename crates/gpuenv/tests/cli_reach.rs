//! The parts of gpuenv that reach users where they are: `gpuenv rules` (and docs/rules/ kept up to
//! date), completions and the man page, `--version`, `doctor --format markdown`, `--redact` on
//! hostile values, no secret in any output format, silence when piped, and the error paths (bad
//! flag, missing file, unreadable root, a report of the wrong schema, a full disk): exit 2, a
//! message that names the problem, nothing half-written.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_gpuenv")
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Runs gpuenv with exactly these environment variables (plus a minimal PATH).
fn run_env(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(bin());
    cmd.args(args)
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .env("GPUENV_NO_NVML", "1")
        .stdin(Stdio::null());
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().unwrap()
}

fn run(args: &[&str]) -> Output {
    run_env(args, &[])
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// A small fake machine root: an OS, one NVIDIA GPU on the PCI bus, nothing installed.
fn fake_root() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let r = dir.path();
    fs::create_dir_all(r.join("etc")).unwrap();
    fs::write(
        r.join("etc/os-release"),
        "ID=debian\nVERSION_ID=\"12\"\nPRETTY_NAME=\"Debian 12\"\n",
    )
    .unwrap();
    fs::write(r.join("etc/hostname"), "imagehost-7731\n").unwrap();
    let dev = r.join("sys/bus/pci/devices/0000:01:00.0");
    fs::create_dir_all(&dev).unwrap();
    fs::write(dev.join("vendor"), "0x10de\n").unwrap();
    fs::write(dev.join("device"), "0x2204\n").unwrap();
    fs::write(dev.join("class"), "0x030000\n").unwrap();
    dir
}

// ---------------------------------------------------------------------------------------------
// rules, docs/rules, completions, man, --version

#[test]
fn rules_lists_every_check_and_category_and_prints_each_page() {
    let out = run(&["rules"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let list = text(&out.stdout);
    let json = run(&["rules", "--format", "json"]);
    assert!(json.status.success());
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    let checks = v["checks"].as_array().unwrap();
    let categories = v["categories"].as_array().unwrap();
    assert!(checks.len() >= 38, "{}", checks.len());
    assert_eq!(categories.len(), 22);
    for item in checks.iter().chain(categories) {
        let id = item["id"].as_str().unwrap();
        assert!(list.contains(id), "{id} missing from `gpuenv rules`");
        let page = run(&["rules", id]);
        assert!(page.status.success(), "gpuenv rules {id}");
        let page = text(&page.stdout);
        assert!(page.starts_with(&format!("# `{id}`")), "{page}");
        assert!(page.contains("## Fix"), "{id} has no fix:\n{page}");
    }
    for check in checks {
        for field in ["explanation", "trigger", "fix"] {
            assert!(
                !check[field].as_str().unwrap().is_empty(),
                "{} has no {field}",
                check["id"]
            );
        }
    }
}

#[test]
fn rules_with_an_unknown_id_says_so() {
    let out = run(&["rules", "no-such-rule"]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(
        err.contains("no-such-rule") && err.contains("gpuenv rules"),
        "{err}"
    );
    assert!(out.stdout.is_empty());
}

/// docs/rules/ is `gpuenv rules --write-docs`; regenerate with
/// `cargo run -p gpuenv -- rules --write-docs docs/rules`.
#[test]
fn docs_rules_are_up_to_date() {
    let tmp = tempfile::tempdir().unwrap();
    let out = run(&["rules", "--write-docs", tmp.path().to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let read = |dir: &Path| -> BTreeMap<String, String> {
        fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "md"))
            .map(|p| {
                (
                    p.file_name().unwrap().to_string_lossy().into_owned(),
                    fs::read_to_string(&p).unwrap(),
                )
            })
            .collect()
    };
    let want = read(tmp.path());
    let have = read(&repo().join("docs/rules"));
    let stale: Vec<&String> = want
        .keys()
        .chain(have.keys())
        .filter(|k| want.get(*k) != have.get(*k))
        .collect();
    assert!(
        stale.is_empty(),
        "docs/rules is out of date ({stale:?}); run `cargo run -p gpuenv -- rules --write-docs docs/rules`"
    );
}

#[test]
fn completions_and_man_page_come_from_the_cli() {
    for (shell, marker) in [
        ("bash", "complete -F"),
        ("zsh", "#compdef gpuenv"),
        ("fish", "complete -c gpuenv"),
    ] {
        let out = run(&["completions", shell]);
        assert!(out.status.success(), "{shell}");
        let s = text(&out.stdout);
        assert!(s.contains(marker), "{shell}: {s}");
        for sub in ["doctor", "rules", "explain"] {
            assert!(s.contains(sub), "{shell} completion lacks {sub}");
        }
    }
    let bad = run(&["completions", "powershell-9"]);
    assert_eq!(bad.status.code(), Some(2));
    let man = run(&["man"]);
    assert!(man.status.success());
    let man = text(&man.stdout);
    assert!(man.contains(".TH gpuenv"), "{man}");
    assert!(
        man.contains("doctor") && man.contains("\\-\\-root"),
        "{man}"
    );
}

#[test]
fn version_names_the_knowledge_base() {
    let out = run(&["--version"]);
    assert!(out.status.success());
    let v = text(&out.stdout);
    assert!(v.contains("knowledge base") && v.contains("sources"), "{v}");
}

// ---------------------------------------------------------------------------------------------
// markdown, redaction, secrets

#[test]
fn markdown_report_has_table_findings_and_collapsed_facts() {
    let root = fake_root();
    let out = run(&[
        "doctor",
        "--format",
        "markdown",
        "--root",
        root.path().to_str().unwrap(),
    ]);
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "{}",
        text(&out.stderr)
    );
    let md = text(&out.stdout);
    assert!(md.starts_with("### gpuenv doctor"), "{md}");
    assert!(md.contains("| | layer | status |\n|---|---|---|\n"), "{md}");
    assert!(
        md.contains("#### Findings") && md.contains("`driver-missing`"),
        "{md}"
    );
    assert!(md.contains("<details><summary>Facts"), "{md}");
    assert!(md.trim_end().ends_with("</details>"), "{md}");
}

/// Secret-looking values gpuenv has no business with, in variables it does not read.
const SECRETS: &[(&str, &str)] = &[
    ("GITHUB_TOKEN", "ghp_Zq1w2e3r4t5y6u7i8o9p0aSdFgHjKlZxCvBn"),
    (
        "AWS_SECRET_ACCESS_KEY",
        "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    ),
    ("HF_TOKEN", "hf_QwErTyUiOpAsDfGhJkLzXcVbNm123456"),
    (
        "PIP_INDEX_URL",
        "https://alice:pipPassw0rd99@pypi.corp.example/simple",
    ),
    (
        "DATABASE_URL",
        "postgres://app:dbPassw0rd77@db.corp.example/app",
    ),
];

fn all_formats(root: &Path, extra: &[&str], env: &[(&str, &str)]) -> Vec<(String, String)> {
    let root = root.to_str().unwrap();
    let mut outs = Vec::new();
    for format in [
        vec!["--format", "human"],
        vec!["--format", "human", "-v"],
        vec!["--format", "json"],
        vec!["--format", "markdown"],
    ] {
        let mut args = vec!["doctor", "--root", root];
        args.extend(format.iter().copied());
        args.extend(extra.iter().copied());
        let out = run_env(&args, env);
        assert!(
            matches!(out.status.code(), Some(0 | 1)),
            "{}",
            text(&out.stderr)
        );
        outs.push((format.join(" "), text(&out.stdout) + &text(&out.stderr)));
    }
    outs
}

#[test]
fn no_secret_appears_in_any_format_even_unredacted() {
    let root = fake_root();
    let mut env: Vec<(&str, &str)> = SECRETS.to_vec();
    env.push(("CUDA_HOME", "/opt/cuda"));
    for (format, out) in all_formats(root.path(), &[], &env) {
        for (name, value) in SECRETS {
            assert!(
                !out.contains(value),
                "{format}: {name}'s value leaked:\n{out}"
            );
        }
        if format.contains("-v") || format.contains("json") {
            assert!(
                out.contains("/opt/cuda"),
                "{format}: declared variables are still shown"
            );
        }
    }
}

#[test]
fn redact_replaces_home_user_host_and_secrets_in_every_format() {
    let root = fake_root();
    let home = "/home/zed.o'brien";
    let ld = format!(
        "{home}/cuda/lib64:/srv/token=tokVal123456:https://bob:hunter22pass@mirror.example/lib:/opt/ghp_Zq1w2e3r4t5y6u7i8o9p0aSdFgHjKlZxCvBn"
    );
    let cuda_home = format!("{home}/cuda");
    let mut env: Vec<(&str, &str)> = SECRETS.to_vec();
    env.extend([
        ("HOME", home),
        ("USER", "zed.o'brien"),
        ("HOSTNAME", "gpu-node-4711.corp.example"),
        ("LD_LIBRARY_PATH", ld.as_str()),
        ("CUDA_HOME", cuda_home.as_str()),
        ("CUDA_VISIBLE_DEVICES", "gpu-node-4711"),
        ("MY_SERVICE_TOKEN", "/opt/plainlookingvalue"),
        ("QT_QPA_PLATFORM_PLUGIN_PATH", "/opt/plainlookingvalue/qt"),
    ]);
    for (format, out) in all_formats(root.path(), &["--redact"], &env) {
        for needle in [
            "zed.o'brien",
            "zed.o\\u0027brien",
            "hunter22pass",
            "tokVal123456",
            "ghp_Zq1w2e3r4t5y",
            "gpu-node-4711",
            "imagehost-7731",
            "plainlookingvalue",
        ] {
            assert!(
                !out.contains(needle),
                "{format}: {needle} survived --redact:\n{out}"
            );
        }
        if format.contains("-v") || format.contains("json") {
            assert!(
                out.contains("~/cuda"),
                "{format}: the home directory becomes ~\n{out}"
            );
            assert!(out.contains("<host>"), "{format}\n{out}");
        }
        if format.contains("json") {
            let v: serde_json::Value = serde_json::from_str(&out).expect("still JSON");
            assert_eq!(v["schema"], "gpuenv.report/1");
        }
    }
}

// ---------------------------------------------------------------------------------------------
// progress and errors

#[test]
fn piped_output_has_no_progress_or_escape_codes() {
    let root = fake_root();
    let out = run(&["doctor", "--root", root.path().to_str().unwrap()]);
    assert!(
        !text(&out.stderr).contains('\x1b'),
        "{:?}",
        text(&out.stderr)
    );
    assert!(!text(&out.stdout).contains('\x1b'));
}

fn assert_usage_error(out: &Output, words: &[&str]) {
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    let err = text(&out.stderr);
    for w in words {
        assert!(err.contains(w), "{w:?} not in: {err}");
    }
    assert!(
        out.stdout.is_empty(),
        "half-written output: {}",
        text(&out.stdout)
    );
}

#[test]
fn a_bad_flag_is_a_usage_error() {
    assert_usage_error(
        &run(&["doctor", "--frobnicate"]),
        &["--frobnicate", "Usage"],
    );
    assert_usage_error(&run(&["--format", "yaml"]), &["yaml", "possible values"]);
}

#[test]
fn a_missing_file_is_named() {
    assert_usage_error(
        &run(&["ldd", "/nonexistent/libx.so"]),
        &["/nonexistent/libx.so"],
    );
    assert_usage_error(
        &run(&["archs", "/nonexistent/liby.so"]),
        &["/nonexistent/liby.so"],
    );
    assert_usage_error(
        &run(&["explain", "--no-probe", "/nonexistent/log.txt"]),
        &["/nonexistent/log.txt"],
    );
    assert_usage_error(
        &run(&["--kb", "/nonexistent/kb.toml", "doctor"]),
        &["/nonexistent/kb.toml"],
    );
}

#[test]
fn a_missing_or_unreadable_root_is_named() {
    assert_usage_error(
        &run(&["doctor", "--root", "/nonexistent/root"]),
        &["/nonexistent/root"],
    );
    let file = tempfile::NamedTempFile::new().unwrap();
    let path = file.path().to_str().unwrap();
    assert_usage_error(&run(&["doctor", "--root", path]), &[path]);
    // A directory this user may not read (root reads everything, so only as another user).
    let root = fake_root();
    let locked = root.path().join("locked");
    fs::create_dir(&locked).unwrap();
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(&locked, fs::Permissions::from_mode(0o000)).unwrap();
    if fs::read_dir(&locked).is_err() {
        let path = locked.to_str().unwrap();
        assert_usage_error(&run(&["doctor", "--root", path]), &[path]);
    }
    fs::set_permissions(&locked, fs::Permissions::from_mode(0o755)).unwrap();
}

#[test]
fn a_report_of_the_wrong_schema_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let wrong = dir.path().join("wrong.json");
    fs::write(&wrong, r#"{"schema": "gpuenv.report/99", "facts": {}}"#).unwrap();
    let w = wrong.to_str().unwrap();
    assert_usage_error(
        &run(&["explain", "--report", w, "--text", "CUDA error"]),
        &[w, "gpuenv.report/99", "gpuenv.report/1"],
    );
    let other = dir.path().join("other.json");
    fs::write(&other, r#"{"hello": 1}"#).unwrap();
    let o = other.to_str().unwrap();
    assert_usage_error(
        &run(&["explain", "--report", o, "--text", "CUDA error"]),
        &[o, "gpuenv doctor --format json"],
    );
    let junk = dir.path().join("junk.json");
    fs::write(&junk, "\u{0}\u{1}not json").unwrap();
    let j = junk.to_str().unwrap();
    assert_usage_error(
        &run(&["explain", "--report", j, "--text", "CUDA error"]),
        &[j, "not JSON"],
    );
}

#[test]
fn a_full_disk_is_an_error_not_a_silent_truncation() {
    if !Path::new("/dev/full").exists() {
        return;
    }
    for args in [
        vec!["doctor", "--root", "/nonexistent-but-unused"],
        vec!["rules"],
        vec!["man"],
    ] {
        let root = fake_root();
        let mut args = args;
        if args[0] == "doctor" {
            args[2] = root.path().to_str().unwrap();
        }
        let out = Command::new(bin())
            .args(&args)
            .env("GPUENV_NO_NVML", "1")
            .stdout(
                fs::OpenOptions::new()
                    .write(true)
                    .open("/dev/full")
                    .unwrap(),
            )
            .stderr(Stdio::piped())
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(2),
            "{args:?}: {}",
            text(&out.stderr)
        );
        assert!(
            text(&out.stderr).contains("No space left on device"),
            "{args:?}: {}",
            text(&out.stderr)
        );
    }
}

#[test]
fn write_docs_into_an_unwritable_place_fails_cleanly() {
    let file = tempfile::NamedTempFile::new().unwrap();
    let target = file.path().join("docs");
    let out = run(&["rules", "--write-docs", target.to_str().unwrap()]);
    assert_usage_error(&out, &["cannot create"]);
}

#[test]
fn direct_url_credentials_never_reach_the_facts() {
    use gpuenv_probe::python::strip_url_credentials as strip;
    assert_eq!(
        strip("git+https://ghp_Zq1w2e3r4t5y6u7i8o9p0aSdFgHjKlZxCvBn@github.com/o/r"),
        "git+https://github.com/o/r"
    );
    assert_eq!(
        strip("https://alice:pw@pypi.example/x.whl?a=b@c"),
        "https://pypi.example/x.whl?a=b@c"
    );
    assert_eq!(
        strip("ssh://git@github.com/o/r"),
        "ssh://git@github.com/o/r"
    );
    assert_eq!(strip("https://${TOKEN}@h/x"), "https://${TOKEN}@h/x");
    assert_eq!(strip("file:///home/a/pkg"), "file:///home/a/pkg");
    assert_eq!(strip("not a url @ all"), "not a url @ all");
}
