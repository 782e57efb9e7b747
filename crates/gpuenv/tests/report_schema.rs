//! The JSON report validates against `schemas/report.schema.json`, on a fake root with findings
//! in every layer and on this machine's real root.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::collections::BTreeMap;
use std::path::Path;

use support::{have_cc, run_gpuenv, FakeRoot, Scenario};

fn validator() -> jsonschema::Validator {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../schemas/report.schema.json");
    let schema: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    jsonschema::validator_for(&schema).expect("the schema itself is valid")
}

fn assert_valid(json: &str) {
    let value: serde_json::Value = serde_json::from_str(json).expect("doctor prints JSON");
    let v = validator();
    let errors: Vec<String> = v
        .iter_errors(&value)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(
        errors.is_empty(),
        "report does not match the schema:\n{}",
        errors.join("\n")
    );
}

#[test]
fn report_of_a_broken_fake_machine_matches_the_schema() {
    if !have_cc() {
        eprintln!("SKIPPED: needs the system C compiler (cc) to build ELF fixtures");
        return;
    }
    let dir = support::scenarios_dir();
    let mut checked = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "toml") {
            continue;
        }
        let s = Scenario::load(&path);
        let root = FakeRoot::build(&s);
        let run = run_gpuenv(root.path(), &s.env, &["doctor", "--format", "json"]);
        assert_valid(&run.stdout);
        checked += 1;
    }
    assert!(checked > 0);
}

#[test]
fn report_of_the_real_root_matches_the_schema() {
    let run = run_gpuenv(
        Path::new("/"),
        &BTreeMap::new(),
        &["doctor", "--format", "json"],
    );
    assert!(
        run.status == 0 || run.status == 1,
        "exit {}: {}",
        run.status,
        run.stderr
    );
    assert_valid(&run.stdout);
}

#[test]
fn schema_rejects_a_report_missing_findings() {
    let bad = r#"{"schema": "gpuenv.report/1", "gpuenv_version": "0", "facts": {}}"#;
    let value: serde_json::Value = serde_json::from_str(bad).unwrap();
    assert!(!validator().is_valid(&value));
}
