//! Unit tests of the merge: majorities, differing nodes, groups, error findings, and the reports
//! that are reported rather than used.

use super::*;

pub(crate) fn report(host: &str, driver: &str, torch: Option<&str>, errors: &[&str]) -> String {
    let envs = match torch {
        Some(t) => format!(
            r#"[{{"name":"ml","prefix":"/opt/ml","frameworks":{{"torch":{{"version":{{"value":"{t}","source":{{"kind":"file","detail":"x"}}}},"cuda":"12.1"}},"packages":{{"torchvision":"0.16.0"}}}}}}]"#
        ),
        None => "[]".to_string(),
    };
    let findings: Vec<String> = errors
        .iter()
        .map(|id| format!(r#"{{"id":"{id}","severity":"error","layer":"driver","title":"t","evidence":[],"fix":""}}"#))
        .collect();
    format!(
        r#"{{"schema":"gpuenv.report/1","timestamp":100,"findings":[{}],"facts":{{
        "os":{{"hostname":{{"value":"{host}","source":{{"kind":"file","detail":"/etc/hostname"}}}},
               "kernel_release":{{"value":"6.1.0","source":{{"kind":"file","detail":"k"}}}},
               "distribution":{{"value":{{"id":"debian","version_id":"12","pretty_name":"D"}},"source":{{"kind":"file","detail":"o"}}}}}},
        "driver":{{"userspace_version":{{"value":"{driver}","source":{{"kind":"file","detail":"d"}}}},
                   "kernel_module":{{"version":{{"value":"{driver}","source":{{"kind":"file","detail":"d"}}}},"flavor":null}}}},
        "gpus":{{"devices":[{{"pci_address":"0000:01:00.0","device_id":8704,"name":{{"value":"NVIDIA A100","source":{{"kind":"kb","detail":"g"}}}}}},
                           {{"pci_address":"0000:02:00.0","device_id":8704,"name":{{"value":"NVIDIA A100","source":{{"kind":"kb","detail":"g"}}}}}}]}},
        "cuda":{{"toolkits":[{{"version":{{"value":"12.4","source":{{"kind":"file","detail":"v"}}}}}}]}},
        "libraries":{{"cudnn":[{{"dir":"/usr/lib","major":9,"version":{{"value":"9.1.0","source":{{"kind":"file","detail":"h"}}}},"cuda_major":{{"value":12,"source":{{"kind":"elf","detail":"e"}}}}}}]}},
        "python":{{"environments":{envs}}}}}}}"#,
        findings.join(",")
    )
}

fn fleet(docs: &[(&str, String)]) -> FleetView {
    let mut f = Fleet::new();
    for (origin, d) in docs {
        f.add_document(origin, d.as_bytes());
    }
    f.finish()
}

#[test]
fn majority_differing_groups_findings() {
    let view = fleet(&[
        (
            "a.json",
            report("n1", "550.54.14", Some("2.1.0+cu121"), &[]),
        ),
        (
            "b.json",
            report("n2", "550.54.14", Some("2.1.0+cu121"), &[]),
        ),
        (
            "c.json",
            report(
                "n3",
                "535.161.07",
                Some("2.1.0+cu121"),
                &["driver-too-old-for-cuda"],
            ),
        ),
        ("d.json", report("n4", "550.54.14", None, &[])),
    ]);
    assert_eq!(view.nodes, 4);
    assert!(view.problems.is_empty(), "{:?}", view.problems);
    let driver = view.columns.iter().find(|c| c.name == "driver").unwrap();
    assert_eq!(driver.majority.as_deref(), Some("550.54.14"));
    assert_eq!(driver.majority_nodes, 3);
    assert_eq!(driver.differing, vec!["n3"]);
    let gpus = view.columns.iter().find(|c| c.name == "gpus").unwrap();
    assert_eq!(gpus.majority.as_deref(), Some("2× NVIDIA A100"));
    let cudnn = view.columns.iter().find(|c| c.name == "cudnn").unwrap();
    assert_eq!(cudnn.majority.as_deref(), Some("9.1.0 (CUDA 12)"));
    let env = view.columns.iter().find(|c| c.name == "env:ml").unwrap();
    assert_eq!(
        env.majority.as_deref(),
        Some("torch 2.1.0+cu121 (CUDA 12.1), torchvision 0.16.0")
    );
    assert_eq!(env.differing, vec!["n4"]);
    assert_eq!(view.groups.len(), 3);
    assert_eq!(view.groups[0].hosts, vec!["n1", "n2"]);
    assert_eq!(view.nodes_with_errors, 1);
    assert_eq!(view.error_findings[0].finding, "driver-too-old-for-cuda");
    assert_eq!(view.error_findings[0].hosts, vec!["n3"]);
    let n3 = view.rows.iter().find(|r| r.host == "n3").unwrap();
    let di = view
        .columns
        .iter()
        .position(|c| c.name == "driver")
        .unwrap();
    assert!(n3.differs[di]);
    assert!(view.has_trouble());
}

#[test]
fn bad_reports_are_reported_not_fatal() {
    let view = fleet(&[
        ("good.json", report("n1", "550.54.14", None, &[])),
        ("junk.json", "{not json".to_string()),
        ("empty.json", String::new()),
        (
            "other.json",
            r#"{"schema":"gpuenv.report/2","facts":{}}"#.to_string(),
        ),
        ("noschema.json", r#"{"facts":{}}"#.to_string()),
        (
            "nofacts.json",
            r#"{"schema":"gpuenv.report/1"}"#.to_string(),
        ),
        (
            "wrongtype.json",
            r#"{"schema":"gpuenv.report/1","facts":{"os":5}}"#.to_string(),
        ),
        ("dup.json", report("n1", "535.161.07", None, &[])),
    ]);
    assert_eq!(view.nodes, 1);
    let kinds: Vec<(&str, &str)> = view
        .problems
        .iter()
        .map(|p| (p.origin.as_str(), p.kind))
        .collect();
    assert_eq!(
        kinds,
        vec![
            ("empty.json", "malformed"),
            ("good.json", "duplicate-host"),
            ("junk.json", "malformed"),
            ("nofacts.json", "malformed"),
            ("noschema.json", "malformed"),
            ("other.json", "other-schema"),
            ("wrongtype.json", "malformed"),
        ]
    );
    // Same timestamp: the report whose origin sorts first is kept.
    assert_eq!(view.rows[0].origin, "dup.json");
    assert_eq!(view.rows[0].cells[2].as_deref(), Some("535.161.07"));
}

#[test]
fn newer_duplicate_replaces_older() {
    let old = report("n1", "535.161.07", None, &[]);
    let new =
        report("n1", "550.54.14", None, &[]).replace("\"timestamp\":100", "\"timestamp\":200");
    let view = fleet(&[("old.json", old), ("new.json", new)]);
    assert_eq!(view.rows[0].origin, "new.json");
    assert_eq!(view.problems[0].origin, "old.json");
}

#[test]
fn memory_grows_with_distinct_values_not_reports() {
    let mut f = Fleet::new();
    for i in 0..2000 {
        let doc = report(
            &format!("node{i:05}"),
            "550.54.14",
            Some("2.1.0+cu121"),
            &[],
        );
        f.add_document(&format!("r{i}.json"), doc.as_bytes());
    }
    // Per node: its host name and origin; everything else is shared.
    let shared = f.distinct_values() - 2 * 2000;
    assert!(shared < 20, "{shared}");
}

#[test]
fn renderers_mark_differences_and_escape() {
    let view = fleet(&[
        ("a.json", report("n1", "550.54.14", None, &[])),
        ("b.json", report("n2", "550.54.14", None, &[])),
        (
            "c.json",
            report("<n3>", "535.161.07", None, &["driver-missing"]),
        ),
    ]);
    let mut out = Vec::new();
    render::human(&mut out, &view, 100).unwrap();
    let text = String::from_utf8(out).unwrap();
    assert!(text.contains("535.161.07* "), "{text}");
    assert!(text.contains("differs: 535.161.07 on <n3>"), "{text}");
    let mut out = Vec::new();
    render::markdown(&mut out, &view).unwrap();
    let text = String::from_utf8(out).unwrap();
    assert!(text.contains("**535.161.07**"), "{text}");
    let mut out = Vec::new();
    render::html(&mut out, &view).unwrap();
    let text = String::from_utf8(out).unwrap();
    assert!(text.contains("&lt;n3&gt;") && !text.contains("<n3>"));
    assert!(text.contains("<td class=\"differs\">535.161.07</td>"));
    assert!(!text.contains("http://") && !text.contains("https://") && !text.contains(" src="));
    let mut out = Vec::new();
    render::json(&mut out, &view).unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(v["schema"], "gpuenv.fleet/1");
}

#[test]
fn snapshots_are_read_and_name_their_host() {
    let snapshot = r#"{"schema":"gpuenv.snapshot/1","gpuenv_version":"0.1.0","timestamp":5,"host":"snap1",
        "findings":[{"id":"driver-missing","severity":"error","layer":"driver","title":"t"}],
        "facts":{"driver":{"userspace_version":{"value":"550.54.14","source":{"kind":"file","detail":"x"}}}}}"#;
    let view = fleet(&[("s.json", snapshot.to_string())]);
    assert!(view.problems.is_empty(), "{:?}", view.problems);
    assert_eq!(view.rows[0].host, "snap1");
    assert_eq!(view.rows[0].error_findings, vec!["driver-missing"]);
    assert_eq!(
        view.rows[0].cells[2].as_deref(),
        Some("550.54.14 (no kernel module)")
    );
}
