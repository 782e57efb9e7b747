//! `gpuenv fleet` and `gpuenv doctor --format prometheus` end to end: real doctor reports of fake
//! machines (the scenario harness) merged from a directory, JSON lines on stdin and `.jsonl`
//! files; bad reports reported, not fatal; the HTML page rendered by a real headless Chromium
//! (screenshot, and the filter run by the page's own script); the Prometheus text written
//! atomically and checked by promtool; the recipes' rule file, rule tests, Slurm script and
//! Kubernetes manifest.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use support::{run_gpuenv, FakeRoot, Scenario};

fn gpuenv() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_gpuenv"));
    c.env("GPUENV_NO_NVML", "1").env("NO_COLOR", "1");
    c
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A doctor report (JSON) of one scenario's fake machine.
fn report_of(scenario: &str) -> serde_json::Value {
    let s = Scenario::load(&support::scenarios_dir().join(format!("{scenario}.toml")));
    let root = FakeRoot::build(&s);
    let mut args = vec!["doctor", "--format", "json"];
    args.extend(s.args.iter().map(String::as_str));
    let run = run_gpuenv(root.path(), &s.env, &args);
    assert!(run.status <= 1, "{}", run.stderr);
    serde_json::from_str(&run.stdout).unwrap()
}

fn with_host(report: &serde_json::Value, host: &str) -> String {
    let mut r = report.clone();
    r["facts"]["os"]["hostname"]["value"] = serde_json::Value::String(host.into());
    serde_json::to_string(&r).unwrap()
}

/// A directory of nine nodes' reports: six healthy, two after a driver upgrade without reboot,
/// one with torch in a venv; plus a malformed file, another schema, a duplicate host and a
/// hidden temporary file that must be ignored.
fn fleet_dir() -> tempfile::TempDir {
    let healthy = report_of("healthy-rtx3090-cuda124");
    let upgraded = report_of("driver-userspace-mismatch-after-upgrade");
    let dir = tempfile::tempdir().unwrap();
    for i in 1..=6 {
        fs::write(
            dir.path().join(format!("gpu{i:02}.json")),
            with_host(&healthy, &format!("gpu{i:02}")),
        )
        .unwrap();
    }
    for i in 7..=8 {
        fs::write(
            dir.path().join(format!("gpu{i:02}.json")),
            with_host(&upgraded, &format!("gpu{i:02}")),
        )
        .unwrap();
    }
    fs::create_dir(dir.path().join("rack2")).unwrap();
    fs::write(
        dir.path().join("rack2/gpu09.json"),
        with_host(&healthy, "gpu09"),
    )
    .unwrap();
    fs::write(
        dir.path().join("rack2/gpu03-again.json"),
        with_host(&healthy, "gpu03"),
    )
    .unwrap();
    fs::write(
        dir.path().join("broken.json"),
        "{\"schema\": \"gpuenv.report/1\", \"facts\": ",
    )
    .unwrap();
    fs::write(
        dir.path().join("future.json"),
        "{\"schema\": \"gpuenv.report/9\", \"facts\": {}}",
    )
    .unwrap();
    fs::write(dir.path().join(".gpu10.json.123.tmp"), "partial").unwrap();
    fs::write(dir.path().join("notes.txt"), "not a report").unwrap();
    dir
}

#[test]
fn fleet_merges_a_directory_and_reports_bad_reports() {
    if !support::have_cc() {
        eprintln!("SKIPPED: no C compiler for the scenario fixtures");
        return;
    }
    let dir = fleet_dir();
    let out = gpuenv()
        .args(["fleet", "--format", "json"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["schema"], "gpuenv.fleet/1");
    let schema: serde_json::Value = serde_json::from_str(
        &fs::read_to_string(repo().join("schemas/fleet.schema.json")).unwrap(),
    )
    .unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let errors: Vec<String> = validator
        .iter_errors(&v)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect();
    assert!(
        errors.is_empty(),
        "fleet JSON vs schemas/fleet.schema.json: {errors:#?}"
    );
    assert_eq!(v["nodes"], 9);
    let col = |name: &str| {
        v["columns"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["name"] == name)
            .unwrap()
            .clone()
    };
    let driver = col("driver");
    assert_eq!(driver["majority"], "550.54.14");
    assert_eq!(driver["majority_nodes"], 7);
    assert_eq!(driver["differing"], serde_json::json!(["gpu07", "gpu08"]));
    assert_eq!(col("gpus")["majority"], "1× NVIDIA GeForce RTX 3090");
    let problems: Vec<(String, String)> = v["problems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            let origin = p["origin"].as_str().unwrap();
            let name = Path::new(origin)
                .file_name()
                .unwrap()
                .to_string_lossy()
                .into_owned();
            (name, p["kind"].as_str().unwrap().to_string())
        })
        .collect();
    assert_eq!(
        problems,
        vec![
            ("broken.json".to_string(), "malformed".to_string()),
            ("future.json".to_string(), "other-schema".to_string()),
            ("gpu03-again.json".to_string(), "duplicate-host".to_string()),
        ],
        "{}",
        v["problems"]
    );
    // Both nodes after the upgrade have the mismatch as an error finding, and form one group.
    let finding = &v["error_findings"][0];
    assert_eq!(finding["finding"], "driver-userspace-mismatch");
    assert_eq!(finding["hosts"], serde_json::json!(["gpu07", "gpu08"]));
    assert_eq!(v["groups"][0]["nodes"], 7);
    assert_eq!(
        v["groups"][1]["hosts"],
        serde_json::json!(["gpu07", "gpu08"])
    );

    // Human and markdown say the same.
    let human = gpuenv().arg("fleet").arg(dir.path()).output().unwrap();
    let text = String::from_utf8(human.stdout).unwrap();
    assert!(
        text.contains("9 nodes, 2 distinct stacks, 2 with error findings, 3 reports not used"),
        "{text}"
    );
    assert!(
        text.contains("driver-userspace-mismatch on 2 node(s): gpu07, gpu08"),
        "{text}"
    );
    let md = gpuenv()
        .args(["fleet", "--format", "markdown"])
        .arg(dir.path())
        .output()
        .unwrap();
    let md = String::from_utf8(md.stdout).unwrap();
    assert!(
        md.contains("| driver | 550.54.14 | 7/9 | gpu07, gpu08 |"),
        "{md}"
    );
}

#[test]
fn fleet_reads_json_lines_from_stdin_and_jsonl_files() {
    if !support::have_cc() {
        eprintln!("SKIPPED: no C compiler for the scenario fixtures");
        return;
    }
    let healthy = report_of("healthy-rtx3090-cuda124");
    let mut lines = String::new();
    for i in 0..5 {
        lines.push_str(&with_host(&healthy, &format!("n{i}")));
        lines.push('\n');
    }
    lines.push_str("garbage\n\n");
    let mut child = gpuenv()
        .args(["fleet", "--format", "json", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(lines.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["nodes"], 5);
    assert_eq!(v["problems"][0]["origin"], "stdin:6");
    assert_eq!(v["problems"][0]["kind"], "malformed");

    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("all.jsonl"), &lines).unwrap();
    let out = gpuenv()
        .args(["fleet", "--format", "json"])
        .arg(dir.path().join("all.jsonl"))
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["nodes"], 5);
    assert!(v["problems"][0]["origin"]
        .as_str()
        .unwrap()
        .ends_with("all.jsonl:6"));
}

/// The HTML page in a real browser: Debian's chromium, headless, no network. The screenshot is
/// kept in the target directory (`fleet-screenshot.png`) for a human to look at.
#[test]
fn fleet_html_renders_and_filters_in_headless_chromium() {
    if !support::have_cc() {
        eprintln!("SKIPPED: no C compiler for the scenario fixtures");
        return;
    }
    let Some(chromium) = ["chromium", "chromium-browser", "google-chrome"]
        .iter()
        .find(|c| {
            Command::new(c)
                .arg("--version")
                .output()
                .is_ok_and(|o| o.status.success())
        })
    else {
        eprintln!("SKIPPED: no chromium (.ci/install-system-packages installs Debian's)");
        return;
    };
    let dir = fleet_dir();
    let page = dir.path().join("fleet.html");
    let out = gpuenv()
        .args(["fleet", "--format", "html", "-o"])
        .arg(&page)
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let html = fs::read_to_string(&page).unwrap();
    assert!(
        !html.contains("http://") && !html.contains("https://"),
        "the page must not load anything"
    );

    let shot = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("fleet-screenshot.png");
    let _ = fs::remove_file(&shot);
    let browser = |extra: &[String], url: String| {
        let profile = tempfile::tempdir().unwrap();
        let out = Command::new(chromium)
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
                "--hide-scrollbars",
            ])
            .arg(format!("--user-data-dir={}", profile.path().display()))
            .args(extra)
            .arg(url)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let url = format!("file://{}", page.display());
    browser(
        &[
            "--window-size=1400,900".into(),
            format!("--screenshot={}", shot.display()),
        ],
        url.clone(),
    );
    let png = fs::read(&shot).unwrap();
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    let width = u32::from_be_bytes(png[16..20].try_into().unwrap());
    let height = u32::from_be_bytes(png[20..24].try_into().unwrap());
    assert_eq!((width, height), (1400, 900));
    // A blank page compresses to almost nothing; the matrix and tables do not.
    assert!(
        png.len() > 20_000,
        "screenshot is {} bytes: blank?",
        png.len()
    );

    // The page's own script applies the filter from the fragment: only the two differing nodes stay.
    let dom = browser(
        &["--dump-dom".into(), "--virtual-time-budget=2000".into()],
        format!("{url}#differs"),
    );
    assert!(dom.contains("id=\"shown\" class=\"count\">2<"), "{dom}");
    let visible: Vec<&str> = dom
        .split("<tr ")
        .filter(|r| r.contains("data-host=") && !r.contains("display: none"))
        .map(|r| {
            r.split("data-host=\"")
                .nth(1)
                .unwrap()
                .split('"')
                .next()
                .unwrap()
        })
        .collect();
    assert_eq!(visible, vec!["gpu07", "gpu08"]);
    let dom = browser(
        &["--dump-dom".into(), "--virtual-time-budget=2000".into()],
        format!("{url}#q=gpu0"),
    );
    assert!(dom.contains("id=\"shown\" class=\"count\">9<"), "{dom}");
    let dom = browser(
        &["--dump-dom".into(), "--virtual-time-budget=2000".into()],
        format!("{url}#q=gpu09"),
    );
    assert!(dom.contains("id=\"shown\" class=\"count\">1<"), "{dom}");
}

fn promtool() -> Option<&'static str> {
    Command::new("promtool")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
        .then_some("promtool")
}

#[test]
fn doctor_prometheus_is_written_atomically_and_lints_clean() {
    if !support::have_cc() {
        eprintln!("SKIPPED: no C compiler for the scenario fixtures");
        return;
    }
    let s = Scenario::load(&support::scenarios_dir().join("healthy-rtx3090-cuda124.toml"));
    let root = FakeRoot::build(&s);
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("gpuenv.prom");
    let target = file.to_string_lossy().into_owned();
    let run = run_gpuenv(
        root.path(),
        &s.env,
        &["doctor", "--format", "prometheus", "-o", &target],
    );
    assert_eq!(run.status, 0, "{}", run.stderr);
    assert!(run.stdout.is_empty());
    let names: Vec<String> = fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        names,
        vec!["gpuenv.prom"],
        "no temporary file is left behind"
    );
    let text = fs::read_to_string(&file).unwrap();
    for want in [
        "gpuenv_finding{id=\"cuda-version-numbers\",severity=\"info\",layer=\"cuda\",environment=\"\"} 1",
        "gpuenv_findings{severity=\"error\"} 0",
        "gpuenv_driver_info{version=\"550.54.14\",kernel_module_version=\"550.54.14\"",
        "modelName=\"NVIDIA GeForce RTX 3090\"",
        "pci_bus_id=\"00000000:01:00.0\"",
        "gpuenv_cuda_toolkit_info{version=\"12.4.1\"",
        "gpuenv_run_timestamp_seconds ",
        "gpuenv_run_duration_seconds ",
    ] {
        assert!(text.contains(want), "missing {want:?} in\n{text}");
    }
    assert!(text.contains("Hostname=\""), "{text}");
    // Every sample line: name{labels} value.
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let value = line.rsplit(' ').next().unwrap();
        assert!(value.parse::<f64>().is_ok(), "{line}");
        assert!(line.starts_with("gpuenv_"), "{line}");
    }
    if let Some(promtool) = promtool() {
        let mut child = Command::new(promtool)
            .args(["check", "metrics"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(text.as_bytes())
            .unwrap();
        let out = child.wait_with_output().unwrap();
        // The one lint accepted: dcgm-exporter's join labels (UUID, modelName, Hostname) are
        // camelCase, and joining with them is the point of gpuenv_gpu_info.
        let complaints: Vec<String> = String::from_utf8_lossy(&out.stdout)
            .lines()
            .chain(String::from_utf8_lossy(&out.stderr).lines())
            .filter(|l| !l.trim().is_empty())
            .filter(|l| {
                !l.contains(
                    "gpuenv_gpu_info label names should be written in 'snake_case' not 'camelCase'",
                )
            })
            .map(str::to_string)
            .collect();
        assert!(
            complaints.is_empty(),
            "promtool check metrics: {complaints:#?}"
        );
    } else {
        eprintln!("SKIPPED (promtool part): Debian's prometheus is not installed");
    }
}

#[test]
fn alert_rules_pass_promtool() {
    let Some(promtool) = promtool() else {
        eprintln!("SKIPPED: promtool (Debian's prometheus) is not installed");
        return;
    };
    let dir = repo().join("recipes/prometheus");
    for args in [
        vec!["check", "rules", "gpuenv-alerts.yml"],
        vec!["test", "rules", "gpuenv-alerts.test.yml"],
        vec!["check", "config", "prometheus.yml"],
    ] {
        let out = Command::new(promtool)
            .args(&args)
            .current_dir(&dir)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "promtool {args:?}:\n{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// The Slurm recipe with a stand-in `srun` that runs the task once per node of a fake
/// allocation, each with its own `SLURMD_NODENAME` and its own fake machine (`--root`).
#[test]
fn slurm_script_collects_one_report_per_node_then_merges() {
    if !support::have_cc() {
        eprintln!("SKIPPED: no C compiler for the scenario fixtures");
        return;
    }
    let s = Scenario::load(&support::scenarios_dir().join("healthy-rtx3090-cuda124.toml"));
    let root = FakeRoot::build(&s);
    let work = tempfile::tempdir().unwrap();
    let srun = work.path().join("srun");
    // Like `srun --nodes=N --ntasks-per-node=1 CMD...`: CMD once per node, in parallel.
    fs::write(
        &srun,
        "#!/usr/bin/env bash\nset -eu\nn=1\nwhile [ \"${1#-}\" != \"$1\" ]; do case $1 in --nodes=*) n=${1#--nodes=};; esac; shift; done\n\
         pids=()\nfor i in $(seq 1 \"$n\"); do SLURMD_NODENAME=node$i \"$@\" & pids+=($!); done\n\
         rc=0\nfor p in \"${pids[@]}\"; do wait \"$p\" || rc=$?; done\nexit $rc\n",
    )
    .unwrap();
    // Each fake node reports its own host name (the same machine otherwise).
    let wrapper = work.path().join("gpuenv-node");
    fs::write(
        &wrapper,
        format!(
            r#"#!/usr/bin/env bash
if [ "$1" = doctor ]; then
  rc=0
  "{bin}" --root "{root}" "$@" || rc=$?
  out="${{@: -1}}"
  python3 -c 'import json,sys; p=sys.argv[1]; r=json.load(open(p)); r["facts"]["os"]["hostname"]["value"]=sys.argv[2]; json.dump(r,open(p,"w"))' "$out" "$SLURMD_NODENAME"
  exit $rc
fi
exec "{bin}" "$@"
"#,
            bin = env!("CARGO_BIN_EXE_gpuenv"),
            root = root.path().display()
        ),
    )
    .unwrap();
    for f in [&srun, &wrapper] {
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(f, fs::Permissions::from_mode(0o755)).unwrap();
    }
    let reports = work.path().join("reports");
    let out = Command::new("bash")
        .arg(repo().join("recipes/slurm/gpuenv-fleet.sbatch"))
        .arg(&reports)
        .env("SRUN", &srun)
        .env("GPUENV", &wrapper)
        .env("GPUENV_NO_NVML", "1")
        .env("SLURM_JOB_NUM_NODES", "4")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for i in 1..=4 {
        assert!(reports.join(format!("reports/node{i}.json")).is_file());
    }
    let v: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(reports.join("fleet.json")).unwrap()).unwrap();
    assert_eq!(v["nodes"], 4, "{v}");
    assert_eq!(v["groups"].as_array().unwrap().len(), 1);
    assert!(reports.join("fleet.html").is_file());
    assert!(stdout.contains("4 nodes, 1 distinct stacks"), "{stdout}");
}

/// The DaemonSet manifest: parsed (PyYAML when present) and checked for what the recipe promises:
/// read-only host mounts of /proc, /sys, /dev, /etc, /usr, /opt under /host, `serve --root /host`.
#[test]
fn kubernetes_manifest_mounts_the_host_read_only() {
    let manifest = repo().join("recipes/kubernetes/gpuenv-daemonset.yaml");
    let script = r#"
import sys, yaml
docs = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d]
ds = [d for d in docs if d["kind"] == "DaemonSet"][0]
assert ds["apiVersion"] == "apps/v1"
spec = ds["spec"]["template"]["spec"]
c = spec["containers"][0]
assert c["args"][:3] == ["serve", "--root", "/host"], c["args"]
assert "0.0.0.0:9835" in c["args"]
mounts = {m["mountPath"]: m for m in c["volumeMounts"]}
for p in ["/proc", "/sys", "/dev", "/etc", "/usr", "/opt"]:
    m = mounts["/host" + p]
    assert m.get("readOnly") is True, m
vols = {v["name"]: v for v in spec["volumes"]}
for m in c["volumeMounts"]:
    assert m["readOnly"] is True
    assert "hostPath" in vols[m["name"]]
assert ds["spec"]["selector"]["matchLabels"].items() <= ds["spec"]["template"]["metadata"]["labels"].items()
print("ok")
"#;
    let out = Command::new("python3")
        .arg("-c")
        .arg(script)
        .arg(&manifest)
        .output();
    match out {
        Ok(o) if String::from_utf8_lossy(&o.stderr).contains("No module named 'yaml'") => {
            eprintln!("SKIPPED: PyYAML is not installed");
        }
        Ok(o) => assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr)),
        Err(_) => eprintln!("SKIPPED: no python3"),
    }
}

/// The Slurm recipe under a real Slurm: `.ci/start-slurm` starts slurmctld and slurmd on loopback
/// (one node: Debian's Slurm is built without multiple-slurmd support) and exports SLURM_CONF.
/// `sbatch --wait` runs the script, whose `srun` runs doctor on the node, then fleet.
#[test]
fn real_slurm_runs_the_recipe() {
    let idle = Command::new("sinfo")
        .args(["-h", "-o", "%T"])
        .output()
        .is_ok_and(|o| o.status.success() && String::from_utf8_lossy(&o.stdout).contains("idle"));
    if !idle {
        eprintln!(
            "SKIPPED: no idle Slurm node (.ci/test starts one with .ci/start-slurm when root)"
        );
        return;
    }
    let work = tempfile::tempdir().unwrap();
    // slurmd runs the job as the submitting user, in a directory it can read.
    let out_dir = work.path().join("out");
    let log = work.path().join("job-%j.log");
    let out = Command::new("timeout")
        .arg("300")
        .arg("sbatch")
        .arg("--wait")
        .arg("--nodes=1")
        .arg(format!("--output={}", log.display()))
        .arg(repo().join("recipes/slurm/gpuenv-fleet.sbatch"))
        .arg(&out_dir)
        .env("GPUENV", env!("CARGO_BIN_EXE_gpuenv"))
        .env("GPUENV_NO_NVML", "1")
        .output()
        .unwrap();
    let logs: String = fs::read_dir(work.path())
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().starts_with("job-"))
        .map(|e| fs::read_to_string(e.path()).unwrap_or_default())
        .collect();
    // 0, or 1 when this machine itself has an error finding (the CI machine has no GPU).
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "sbatch: {}{}\n{logs}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let reports: Vec<_> = fs::read_dir(out_dir.join("reports")).unwrap().collect();
    assert_eq!(reports.len(), 1, "{logs}");
    let v: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(out_dir.join("fleet.json")).unwrap()).unwrap();
    assert_eq!(v["nodes"], 1, "{v}");
    assert!(v["problems"].as_array().unwrap().is_empty(), "{v}");
    assert!(logs.contains("gpuenv fleet: 1 nodes"), "{logs}");
}
