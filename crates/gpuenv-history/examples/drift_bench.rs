//! Benchmark for issue 7's speed targets (run by `bench/drift.sh`): the diff of two snapshots of
//! a machine with 30 Python environments (parse both files and diff, < 50 ms), and `history` over
//! a year of daily records (< 100 ms). Synthetic but realistic: 30 environments of 250
//! distributions each (torch, conda records), a day's drift of a few packages.
//!
//! `cargo run --release -p gpuenv-history --example drift_bench [DIR]` (DIR keeps the files).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;
use std::time::Instant;

use gpuenv_drift::{diff, Snapshot};
use gpuenv_facts::{
    CondaPackage, Facts, FrameworkFacts, PythonDistribution, PythonEnvironment, Source, Sourced,
    TorchBuild,
};
use gpuenv_history::History;
use gpuenv_kb::Kb;

fn machine(day: u64) -> Facts {
    let mut f = Facts {
        root: "/".into(),
        live: true,
        ..Facts::default()
    };
    f.os.hostname = Some(Sourced::new(
        "node1".into(),
        Source::File("/etc/hostname".into()),
    ));
    let driver = if day < 200 { "550.54.14" } else { "550.90.07" };
    f.driver.userspace_version = Some(Sourced::new(
        driver.parse().unwrap(),
        Source::File("/usr/lib/x86_64-linux-gnu/libcuda.so.1".into()),
    ));
    for e in 0..30 {
        let prefix = format!("/home/user/miniconda3/envs/env{e}");
        let distributions = (0..250)
            .map(|i| {
                // A few packages move every week.
                let bump = if i < 3 { day / 7 } else { 0 };
                PythonDistribution {
                    name: format!("package-{i}"),
                    key: format!("package-{i}"),
                    version: format!("1.{i}.{bump}"),
                    metadata_dir: format!(
                        "{prefix}/lib/python3.11/site-packages/package_{i}-1.{i}.{bump}.dist-info"
                    ),
                    installer: Some("pip".into()),
                    requires_dist: vec!["numpy>=1.22".into(), "typing-extensions".into()],
                    requires_python: Some(">=3.9".into()),
                    top_level: vec![format!("package_{i}")],
                    direct_url: None,
                }
            })
            .collect();
        let conda_packages = (0..40)
            .map(|i| CondaPackage {
                name: format!("lib{i}"),
                version: "1.0".into(),
                build: "h1234_0".into(),
                channel: Some("conda-forge".into()),
                record: format!("{prefix}/conda-meta/lib{i}-1.0-h1234_0.json"),
            })
            .collect();
        f.python.environments.push(PythonEnvironment {
            name: format!("env{e}"),
            prefix: prefix.clone(),
            kind: "conda".into(),
            found_via: vec!["conda environments.txt".into()],
            active: e == 0,
            full: true,
            python_version: Some(Sourced::new(
                "3.11.5".parse().unwrap(),
                Source::Path(prefix.clone()),
            )),
            base_home: None,
            site_packages: vec![format!("{prefix}/lib/python3.11/site-packages")],
            distributions,
            conda_packages,
            frameworks: FrameworkFacts {
                torch: Some(TorchBuild {
                    version: Sourced::new(
                        "2.1.0+cu121".into(),
                        Source::File(format!("{prefix}/torch/version.py")),
                    ),
                    cuda: Some("12.1".into()),
                    hip: None,
                    cuda_pins: Default::default(),
                    cuda_libraries: "wheels".into(),
                    site_packages: format!("{prefix}/lib/python3.11/site-packages"),
                }),
                ..FrameworkFacts::default()
            },
            file_conflicts: vec![],
            cuda_libraries: vec![],
            errors: vec![],
        });
    }
    f
}

fn main() {
    let dir = std::env::args()
        .nth(1)
        .map(PathBuf::from)
        .unwrap_or_else(std::env::temp_dir);
    std::fs::create_dir_all(&dir).unwrap();
    let kb = Kb::builtin().unwrap();
    let day = 86_400;
    let base = 1_735_689_600; // 2025-01-01
                              // Two snapshots, files on disk, as `gpuenv diff a.json b.json` reads them.
                              // As `gpuenv snapshot` writes them: the findings of the moment and the knowledge base.
    let snap = |facts: Facts, ts: u64| {
        let findings = gpuenv_check::run_checks(&facts, &kb);
        Snapshot::new(facts, &findings, ts, env!("CARGO_PKG_VERSION"), Some(&kb))
    };
    let a = snap(machine(0), base);
    let b = snap(machine(210), base + 210 * day);
    let (pa, pb) = (
        dir.join("bench-a.snapshot.json"),
        dir.join("bench-b.snapshot.json"),
    );
    std::fs::write(&pa, serde_json::to_vec(&a).unwrap()).unwrap();
    std::fs::write(&pb, serde_json::to_vec(&b).unwrap()).unwrap();
    let size = std::fs::metadata(&pa).unwrap().len();
    let mut best = f64::MAX;
    let mut changes = 0;
    for _ in 0..5 {
        let t = Instant::now();
        let (ta, tb) = (
            std::fs::read_to_string(&pa).unwrap(),
            std::fs::read_to_string(&pb).unwrap(),
        );
        let (a, b) = gpuenv_drift::parse_pair(&ta, &tb);
        let (a, b) = (a.unwrap(), b.unwrap());
        let d = diff(&a, &b, ("a", "b"), &kb, &[]);
        changes = d.changes.len();
        best = best.min(t.elapsed().as_secs_f64() * 1000.0);
    }
    let t = Instant::now();
    let a = Snapshot::parse(&std::fs::read_to_string(&pa).unwrap()).unwrap();
    let parse_ms = t.elapsed().as_secs_f64() * 1000.0;
    let t = Instant::now();
    let _ = gpuenv_check::run_checks(&a.facts, &kb);
    let checks_ms = t.elapsed().as_secs_f64() * 1000.0;
    let t = Instant::now();
    let _ = gpuenv_drift::items(&a.facts);
    let items_ms = t.elapsed().as_secs_f64() * 1000.0;
    println!("  (one snapshot: items {items_ms:.1} ms)");
    println!("  (one snapshot: parse {parse_ms:.1} ms, checks {checks_ms:.1} ms)");
    println!("diff: 30 environments x 250 distributions, {size} bytes per snapshot, {changes} changes: {best:.1} ms (read, parse, diff; best of 5; target < 50 ms)");

    // Files from another gpuenv version: the checks run again on both sides.
    let mut best_rerun = f64::MAX;
    for _ in 0..5 {
        let (ta, tb) = (
            std::fs::read_to_string(&pa).unwrap(),
            std::fs::read_to_string(&pb).unwrap(),
        );
        let t = Instant::now();
        let (a, b) = gpuenv_drift::parse_pair(&ta, &tb);
        let (mut a, mut b) = (a.unwrap(), b.unwrap());
        a.gpuenv_version = "0.0.0".into();
        b.gpuenv_version = "0.0.0".into();
        let _ = diff(&a, &b, ("a", "b"), &kb, &[]);
        best_rerun = best_rerun.min(t.elapsed().as_secs_f64() * 1000.0);
    }
    println!("diff of snapshots from another gpuenv version (checks re-run on both sides): {best_rerun:.1} ms");

    // A year of daily records.
    let db = dir.join("bench-history.sqlite");
    let _ = std::fs::remove_file(&db);
    let _ = std::fs::remove_file(dir.join("bench-history.sqlite-wal"));
    let _ = std::fs::remove_file(dir.join("bench-history.sqlite-shm"));
    let mut h = History::open(&db).unwrap();
    let t = Instant::now();
    for d in 0..365 {
        let s = snap(machine(d), base + d * day);
        h.record(&s, "snapshot", &kb).unwrap();
    }
    let record_ms = t.elapsed().as_secs_f64() * 1000.0 / 365.0;
    drop(h);
    let db_size = std::fs::metadata(&db).unwrap().len();
    let mut best = f64::MAX;
    let mut listed = 0;
    for _ in 0..5 {
        let t = Instant::now();
        let h = History::open(&db).unwrap();
        let runs = h.runs(None, None).unwrap();
        listed = runs.len();
        best = best.min(t.elapsed().as_secs_f64() * 1000.0);
    }
    println!("history: {listed} daily runs ({db_size} bytes): {best:.1} ms (open, list, changes; best of 5; target < 100 ms); recording {record_ms:.1} ms per run");
    println!("files: {} {} {}", pa.display(), pb.display(), db.display());
}
