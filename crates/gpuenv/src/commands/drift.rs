//! `gpuenv snapshot`, `diff`, `check --baseline` and `history`, and the `--record` of doctor and
//! snapshot: probe as doctor does, save or compare `gpuenv.snapshot/1` files, store runs in the
//! history database. The comparison is `gpuenv_drift::diff`; the store is `gpuenv_history`.

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{SystemTime, UNIX_EPOCH};

use anyhow::{bail, Context as _, Result};

use gpuenv_check::{run_checks, Finding};
use gpuenv_drift::{Diff, Snapshot};
use gpuenv_facts::Facts;
use gpuenv_history::{default_path, parse_age, History};
use gpuenv_kb::Kb;
use gpuenv_probe::python::{FullSelection, PythonOptions};
use gpuenv_probe::{probe_all_with, Environment, ProbeOptions, SystemRoot};

use crate::cli::{CheckArgs, DiffArgs, Format, GlobalArgs, HistoryArgs, SnapshotArgs};
use crate::commands::{load_kb, use_color};
use crate::render;

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

/// Probes the machine (or --root) with every environment read in full, unless `env` names some.
fn probe(global: &GlobalArgs, kb: &Kb, python: &[String], env: &[String]) -> Result<Snapshot> {
    let root = SystemRoot::new(&global.root)
        .with_context(|| format!("--root {}", global.root.display()))?;
    let options = ProbeOptions {
        python: PythonOptions {
            extra: python.to_vec(),
            full: if env.is_empty() {
                FullSelection::All
            } else {
                FullSelection::Named(env.to_vec())
            },
        },
    };
    let facts = probe_all_with(&root, &Environment::from_process(), kb, &options);
    let findings = run_checks(&facts, kb);
    Ok(Snapshot::new(
        facts,
        &findings,
        now(),
        env!("CARGO_PKG_VERSION"),
        Some(kb),
    ))
}

/// The history database: `--db`, else the XDG state directory.
fn db_path(db: Option<&Path>) -> Result<PathBuf> {
    if let Some(p) = db {
        return Ok(p.to_path_buf());
    }
    let xdg = std::env::var("XDG_STATE_HOME").ok();
    let home = std::env::var("HOME").ok();
    default_path(xdg.as_deref(), home.as_deref())
        .context("no history database: HOME and XDG_STATE_HOME are unset; give --db PATH")
}

/// Stores a run (doctor's or snapshot's) in the history database.
pub fn record(
    global: &GlobalArgs,
    db: Option<&Path>,
    facts: &Facts,
    findings: &[Finding],
    timestamp: u64,
    command: &str,
) -> Result<()> {
    let kb = load_kb(global)?;
    let snap = Snapshot::new(
        facts.clone(),
        findings,
        timestamp,
        env!("CARGO_PKG_VERSION"),
        Some(&kb),
    );
    record_snapshot(&kb, db, &snap, command)
}

fn record_snapshot(kb: &Kb, db: Option<&Path>, snap: &Snapshot, command: &str) -> Result<()> {
    let path = db_path(db)?;
    let mut history = History::open(&path)?;
    history
        .record(snap, command, kb)
        .with_context(|| format!("recording into {}", path.display()))?;
    Ok(())
}

/// `gpuenv snapshot`.
pub fn snapshot(global: &GlobalArgs, args: &SnapshotArgs) -> Result<ExitCode> {
    let kb = load_kb(global)?;
    let snap = probe(global, &kb, &args.python, &args.env)?;
    let mut text = serde_json::to_vec_pretty(&snap)?;
    text.push(b'\n');
    match &args.output {
        Some(path) if path.as_os_str() != "-" => {
            crate::commands::output::write_atomically(path, &text)?
        }
        _ => {
            let mut out = io::stdout().lock();
            out.write_all(&text)?;
            out.flush()?;
        }
    }
    if args.record {
        record_snapshot(&kb, args.db.as_deref(), &snap, "snapshot")?;
    }
    Ok(ExitCode::SUCCESS)
}

/// Reads one side of a diff: a file, or `now` (this machine, or --root, probed).
fn side(global: &GlobalArgs, kb: &Kb, what: &str) -> Result<Snapshot> {
    if what == "now" {
        return probe(global, kb, &[], &[]);
    }
    let text = std::fs::read_to_string(what).with_context(|| format!("cannot read {what}"))?;
    Snapshot::parse(&text).with_context(|| what.to_string())
}

fn show(global: &GlobalArgs, d: &Diff) -> Result<()> {
    let mut out = io::stdout().lock();
    match global.format {
        Format::Json => {
            serde_json::to_writer_pretty(&mut out, d)?;
            writeln!(out)?;
        }
        Format::Human => render::drift::diff(&mut out, d, use_color(global))?,
        other => bail!("--format {other:?} is not available for this command (human or json)"),
    }
    out.flush()?;
    Ok(())
}

/// `gpuenv diff A B`.
pub fn diff(global: &GlobalArgs, args: &DiffArgs) -> Result<ExitCode> {
    let kb = load_kb(global)?;
    let (a, b) = if args.a != "now" && args.b != "now" {
        // Both files: read, then parse on two threads.
        let read = |p: &str| std::fs::read_to_string(p).with_context(|| format!("cannot read {p}"));
        let (ta, tb) = (read(&args.a)?, read(&args.b)?);
        let (a, b) = gpuenv_drift::parse_pair(&ta, &tb);
        (
            a.with_context(|| args.a.clone())?,
            b.with_context(|| args.b.clone())?,
        )
    } else {
        (side(global, &kb, &args.a)?, side(global, &kb, &args.b)?)
    };
    let d = gpuenv_drift::diff(&a, &b, (&args.a, &args.b), &kb, &args.ignore);
    show(global, &d)?;
    Ok(if d.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// `gpuenv check --baseline FILE`.
pub fn check(global: &GlobalArgs, args: &CheckArgs) -> Result<ExitCode> {
    let kb = load_kb(global)?;
    let label = args.baseline.display().to_string();
    let text = std::fs::read_to_string(&args.baseline)
        .with_context(|| format!("cannot read the baseline {label}"))?;
    let a = Snapshot::parse(&text).with_context(|| format!("baseline {label}"))?;
    let b = probe(global, &kb, &[], &[])?;
    let d = gpuenv_drift::diff(&a, &b, (&label, "now"), &kb, &args.ignore);
    show(global, &d)?;
    Ok(if d.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// `gpuenv history`.
pub fn history(global: &GlobalArgs, args: &HistoryArgs) -> Result<ExitCode> {
    let age = |what: &str, text: &str| {
        parse_age(text).with_context(|| format!("--{what} {text}: give an age like 7d, 12h, 2w"))
    };
    let path = db_path(args.db.as_deref())?;
    if !path.exists() {
        bail!(
            "{}: no history yet — record runs with `gpuenv doctor --record` or `gpuenv snapshot --record`",
            path.display()
        );
    }
    let mut h = History::open(&path)?;
    let mut pruned = 0;
    if let Some(keep) = &args.keep {
        pruned = h.prune(now().saturating_sub(age("keep", keep)?))?;
    }
    let since = match &args.since {
        Some(s) => Some(now().saturating_sub(age("since", s)?)),
        None => None,
    };
    let runs = h.runs(since, args.env.as_deref())?;
    let mut out = io::stdout().lock();
    match global.format {
        Format::Json => {
            serde_json::to_writer_pretty(
                &mut out,
                &serde_json::json!({
                    "schema": "gpuenv.history/1",
                    "database": path.display().to_string(),
                    "pruned": pruned,
                    "runs": runs,
                }),
            )?;
            writeln!(out)?;
        }
        Format::Human => render::drift::history(&mut out, &runs, pruned)?,
        other => bail!("--format {other:?} is not available for this command (human or json)"),
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}
