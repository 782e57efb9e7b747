//! Scenario tests: every `tests/scenarios/*.toml` is a machine; the real gpuenv binary runs
//! against it with `--root`, its findings are compared with the scenario's `[expect]`, and its
//! human output is snapshotted (insta) so output changes are reviewed.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::collections::BTreeSet;
use std::fs;

use support::{have_cc, run_gpuenv, scenarios_dir, FakeRoot, Scenario};

fn scenario_files() -> Vec<std::path::PathBuf> {
    let mut files: Vec<_> = fs::read_dir(scenarios_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    files.sort();
    files
}

fn finding_ids(json: &str) -> BTreeSet<String> {
    let v: serde_json::Value = serde_json::from_str(json).unwrap_or_else(|e| {
        panic!(
            "JSON report: {e}
{json}"
        )
    });
    support::finding_ids(&v).into_iter().collect()
}

#[test]
fn scenarios_match_their_expectations() {
    if !have_cc() {
        eprintln!(
            "SKIPPED: scenario tests need the system C compiler (cc) to build real ELF fixtures"
        );
        return;
    }
    let mut failures = Vec::new();
    for path in scenario_files() {
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        let scenario = Scenario::load(&path);
        let root = FakeRoot::build(&scenario);
        let extra: Vec<&str> = scenario.args.iter().map(String::as_str).collect();
        let json_args: Vec<&str> = ["doctor", "--format", "json"]
            .into_iter()
            .chain(extra.iter().copied())
            .collect();
        let json = run_gpuenv(root.path(), &scenario.env, &json_args);
        // GPUENV_SCENARIO_DUMP=<name> prints that scenario's JSON report, for debugging.
        if std::env::var("GPUENV_SCENARIO_DUMP").is_ok_and(|d| d == name) {
            eprintln!("{}", json.stdout);
        }
        let ids = finding_ids(&json.stdout);
        for id in &scenario.expect.fires {
            if !ids.contains(id) {
                failures.push(format!("{name}: expected {id} to fire; findings: {ids:?}"));
            }
        }
        for id in &scenario.expect.silent {
            if ids.contains(id) {
                failures.push(format!(
                    "{name}: expected {id} to stay silent; findings: {ids:?}"
                ));
            }
        }
        if json.status != scenario.expect.exit {
            failures.push(format!(
                "{name}: exit status {} (expected {}); stderr: {}",
                json.status, scenario.expect.exit, json.stderr
            ));
        }
        let human_args: Vec<&str> = ["doctor", "--color", "never"]
            .into_iter()
            .chain(extra.iter().copied())
            .collect();
        let human = run_gpuenv(root.path(), &scenario.env, &human_args);
        let text = human
            .stdout
            .replace(&root.path().display().to_string(), "<root>");
        for needle in &scenario.expect.output_contains {
            if !text.contains(needle.as_str()) {
                failures.push(format!("{name}: output lacks {needle:?}"));
            }
        }
        insta::with_settings!({ snapshot_suffix => name.clone(), description => scenario.description.clone(), omit_expression => true }, {
            insta::assert_snapshot!("doctor", text);
        });
    }
    assert!(
        failures.is_empty(),
        "scenario failures:\n{}",
        failures.join("\n")
    );
}

/// Every check has a scenario where it fires and one where it must stay silent.
#[test]
fn every_check_is_covered_both_ways() {
    let mut fires = BTreeSet::new();
    let mut silent = BTreeSet::new();
    for path in scenario_files() {
        let s = Scenario::load(&path);
        fires.extend(s.expect.fires);
        silent.extend(s.expect.silent);
    }
    let mut missing = Vec::new();
    for rule in gpuenv_check::RULES {
        if !fires.contains(rule.id) {
            missing.push(format!("{}: no scenario where it fires", rule.id));
        }
        if !silent.contains(rule.id) {
            missing.push(format!(
                "{}: no scenario where it must stay silent",
                rule.id
            ));
        }
    }
    assert!(missing.is_empty(), "{}", missing.join("\n"));
}
