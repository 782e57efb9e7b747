//! The history database against real SQLite files: recording and listing with the diff between
//! consecutive runs, retention, concurrent writers in separate processes, a writer killed with
//! SIGKILL mid-transaction, and foreign, corrupt and newer files refused without being touched.
//!
//! The child processes are this test binary itself, re-run with `GPUENV_HISTORY_CHILD` set.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use gpuenv_drift::Snapshot;
use gpuenv_facts::{Facts, Source, Sourced};
use gpuenv_history::{History, HistoryError, PAUSE_VARIABLE};
use gpuenv_kb::{Kb, Version};

fn snapshot(ts: u64, driver: &str) -> Snapshot {
    let mut facts = Facts {
        root: "/".into(),
        live: true,
        ..Facts::default()
    };
    facts.os.hostname = Some(Sourced::new(
        "node1".into(),
        Source::File("/etc/hostname".into()),
    ));
    facts.driver.userspace_version = Some(Sourced::new(
        driver.parse::<Version>().unwrap(),
        Source::Override("GPUENV_DRIVER_VERSION".into()),
    ));
    Snapshot::new(facts, &[], ts, "test", None)
}

/// When run as a child: record `GPUENV_HISTORY_N` runs into `GPUENV_HISTORY_CHILD`'s database.
#[test]
fn child_writer() {
    let Ok(db) = std::env::var("GPUENV_HISTORY_CHILD") else {
        return;
    };
    let n: u64 = std::env::var("GPUENV_HISTORY_N").unwrap().parse().unwrap();
    let base: u64 = std::env::var("GPUENV_HISTORY_BASE")
        .unwrap()
        .parse()
        .unwrap();
    let kb = Kb::builtin().unwrap();
    let mut h = History::open(Path::new(&db)).unwrap();
    for i in 0..n {
        h.record(&snapshot(base + i, "550.54.14"), "snapshot", &kb)
            .unwrap();
    }
}

fn child(db: &Path, n: u64, base: u64) -> Command {
    let mut c = Command::new(std::env::current_exe().unwrap());
    c.args([
        "--exact",
        "child_writer",
        "--nocapture",
        "--test-threads",
        "1",
    ])
    .env("GPUENV_HISTORY_CHILD", db)
    .env("GPUENV_HISTORY_N", n.to_string())
    .env("GPUENV_HISTORY_BASE", base.to_string())
    .stdout(Stdio::null());
    c
}

#[test]
fn records_and_lists_changes_between_runs() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("state/gpuenv/history.sqlite");
    let kb = Kb::builtin().unwrap();
    let mut h = History::open(&db).unwrap();
    h.record(&snapshot(1_000, "550.54.14"), "doctor", &kb)
        .unwrap();
    h.record(&snapshot(2_000, "550.54.14"), "doctor", &kb)
        .unwrap();
    h.record(&snapshot(3_000, "550.90.07"), "snapshot", &kb)
        .unwrap();
    let runs = h.runs(None, None).unwrap();
    assert_eq!(runs.len(), 3);
    assert!(runs[0].previous.is_none());
    assert!(runs[1].changes.is_empty());
    assert_eq!(runs[2].changes.len(), 1, "{:?}", runs[2].changes);
    assert_eq!(
        runs[2].changes[0].text,
        "userspace driver: 550.54.14 → 550.90.07"
    );
    assert_eq!(h.runs(Some(2_500), None).unwrap().len(), 1);
    // Retention.
    assert_eq!(h.prune(2_500).unwrap(), 2);
    assert_eq!(h.len().unwrap(), 1);
    drop(h);
    // Reopening keeps everything (schema already current).
    assert_eq!(History::open(&db).unwrap().len().unwrap(), 1);
}

#[test]
fn concurrent_writers_all_land() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("h.sqlite");
    let children: Vec<_> = (0..6)
        .map(|i| child(&db, 20, 10_000 * (i + 1)).spawn().unwrap())
        .collect();
    for mut c in children {
        assert!(c.wait().unwrap().success());
    }
    let h = History::open(&db).unwrap();
    assert_eq!(h.len().unwrap(), 120);
    assert_eq!(h.integrity().unwrap(), "ok");
}

#[test]
fn a_writer_killed_mid_transaction_leaves_the_database_consistent() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("h.sqlite");
    assert!(child(&db, 3, 1_000).status().unwrap().success());
    let mut victim = child(&db, 1, 5_000)
        .env(PAUSE_VARIABLE, "20000")
        .spawn()
        .unwrap();
    // Wait until the victim holds the write lock (its row written, not committed).
    let mut locked = false;
    for _ in 0..200 {
        std::thread::sleep(Duration::from_millis(25));
        let probe = rusqlite_probe(&db);
        if probe {
            locked = true;
            break;
        }
    }
    victim.kill().unwrap(); // SIGKILL
    victim.wait().unwrap();
    assert!(locked, "the victim never took the write lock");
    let kb = Kb::builtin().unwrap();
    let mut h = History::open(&db).unwrap();
    assert_eq!(h.integrity().unwrap(), "ok");
    assert_eq!(h.len().unwrap(), 3, "the killed run is not half there");
    h.record(&snapshot(9_000, "550.54.14"), "doctor", &kb)
        .unwrap();
    assert_eq!(h.len().unwrap(), 4);
}

/// Whether another process holds the database's write lock (an immediate transaction is busy).
fn rusqlite_probe(db: &Path) -> bool {
    let Ok(conn) = rusqlite::Connection::open(db) else {
        return false;
    };
    conn.busy_timeout(Duration::from_millis(0)).unwrap();
    conn.execute_batch("BEGIN IMMEDIATE; ROLLBACK;").is_err()
}

#[test]
fn foreign_corrupt_and_newer_files_are_refused_and_left_alone() {
    let dir = tempfile::tempdir().unwrap();
    // Not SQLite at all.
    let text = dir.path().join("notes.txt");
    std::fs::write(&text, "my precious notes\n").unwrap();
    let err = History::open(&text).err().unwrap();
    assert!(matches!(err, HistoryError::Foreign { .. }), "{err}");
    assert!(err.to_string().contains("not a gpuenv history database"));
    assert_eq!(
        std::fs::read_to_string(&text).unwrap(),
        "my precious notes\n"
    );

    // Another program's SQLite database.
    let other = dir.path().join("other.sqlite");
    {
        let c = rusqlite::Connection::open(&other).unwrap();
        c.execute_batch("CREATE TABLE t(x); INSERT INTO t VALUES (1);")
            .unwrap();
    }
    let before = std::fs::read(&other).unwrap();
    let err = History::open(&other).err().unwrap();
    assert!(matches!(err, HistoryError::Foreign { .. }), "{err}");
    assert_eq!(std::fs::read(&other).unwrap(), before);
    assert!(!dir.path().join("other.sqlite-wal").exists());

    // A corrupt file: SQLite's header, then garbage.
    let corrupt = dir.path().join("corrupt.sqlite");
    let mut bytes = b"SQLite format 3\0".to_vec();
    bytes.extend(std::iter::repeat_n(0xAB, 4096));
    std::fs::write(&corrupt, &bytes).unwrap();
    let err = History::open(&corrupt).err().unwrap();
    assert!(
        matches!(
            err,
            HistoryError::Corrupt { .. } | HistoryError::Foreign { .. }
        ),
        "{err}"
    );
    assert_eq!(std::fs::read(&corrupt).unwrap(), bytes);

    // A newer gpuenv's history.
    let newer = dir.path().join("newer.sqlite");
    drop(History::open(&newer).unwrap());
    {
        let c = rusqlite::Connection::open(&newer).unwrap();
        c.execute_batch("PRAGMA user_version = 99").unwrap();
    }
    let err = History::open(&newer).err().unwrap();
    assert!(
        matches!(err, HistoryError::Newer { found: 99, .. }),
        "{err}"
    );
}

#[test]
fn default_path_follows_xdg() {
    use gpuenv_history::default_path;
    assert_eq!(
        default_path(Some("/x/state"), Some("/home/u")).unwrap(),
        Path::new("/x/state/gpuenv/history.sqlite")
    );
    assert_eq!(
        default_path(None, Some("/home/u")).unwrap(),
        Path::new("/home/u/.local/state/gpuenv/history.sqlite")
    );
    assert_eq!(
        default_path(Some("relative"), Some("/home/u")).unwrap(),
        Path::new("/home/u/.local/state/gpuenv/history.sqlite")
    );
    assert!(default_path(None, None).is_none());
    assert_eq!(gpuenv_history::parse_age("7d"), Some(7 * 86_400));
    assert_eq!(gpuenv_history::parse_age("12h"), Some(12 * 3600));
    assert_eq!(gpuenv_history::parse_age("x"), None);
}

/// `--env NAME`: only the changes of that environment, and only the runs where it changed.
#[test]
fn runs_filtered_by_environment() {
    use gpuenv_facts::{PythonDistribution, PythonEnvironment};
    let env = |name: &str, numpy: &str| PythonEnvironment {
        name: name.into(),
        prefix: format!("/home/u/envs/{name}"),
        kind: "venv".into(),
        found_via: vec![],
        active: false,
        full: true,
        python_version: None,
        base_home: None,
        site_packages: vec![],
        distributions: vec![PythonDistribution {
            name: "numpy".into(),
            key: "numpy".into(),
            version: numpy.into(),
            metadata_dir: String::new(),
            installer: None,
            requires_dist: vec![],
            requires_python: None,
            top_level: vec![],
            direct_url: None,
        }],
        conda_packages: vec![],
        frameworks: Default::default(),
        file_conflicts: vec![],
        cuda_libraries: vec![],
        errors: vec![],
    };
    let snap = |ts: u64, ml: &str, web: &str| {
        let mut s = snapshot(ts, "550.54.14");
        s.facts.python.environments = vec![env("ml", ml), env("web", web)];
        s
    };
    let dir = tempfile::tempdir().unwrap();
    let kb = Kb::builtin().unwrap();
    let mut h = History::open(&dir.path().join("h.sqlite")).unwrap();
    h.record(&snap(1, "1.26.0", "1.26.0"), "doctor", &kb)
        .unwrap();
    h.record(&snap(2, "1.26.4", "1.26.0"), "doctor", &kb)
        .unwrap();
    h.record(&snap(3, "1.26.4", "2.0.0"), "doctor", &kb)
        .unwrap();
    let ml = h.runs(None, Some("ml")).unwrap();
    assert_eq!(ml.len(), 1);
    assert_eq!(ml[0].timestamp, 2);
    assert_eq!(ml[0].changes[0].text, "numpy in ml: 1.26.0 → 1.26.4");
    let web = h.runs(None, Some("/home/u/envs/web")).unwrap();
    assert_eq!(web.len(), 1);
    assert_eq!(web[0].timestamp, 3);
}
