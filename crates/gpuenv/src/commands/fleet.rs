//! `gpuenv fleet PATH...`: reads many nodes' reports (files, directories, JSON lines on stdin),
//! merges them with `gpuenv-fleet` and renders the fleet view.
//!
//! Files are read and parsed on a few threads; each thread hands the merge only a small
//! `NodeSummary`, through a bounded channel, so memory stays proportional to the distinct values
//! however many (or however large) the reports are.

use std::io::{self, BufRead, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;

use anyhow::{bail, Result};

use gpuenv_fleet::{render, summarize, Fleet, NodeSummary, Rejection};

use crate::cli::{FleetArgs, Format, GlobalArgs};

/// A report bigger than this is not read (a doctor report is tens to hundreds of kilobytes).
const MAX_REPORT_BYTES: u64 = 64 << 20;
/// Directory recursion bound.
const MAX_DEPTH: usize = 16;

enum Outcome {
    Parsed(String, Result<NodeSummary, Rejection>),
    Unreadable(String, String),
}

pub fn run(global: &GlobalArgs, args: &FleetArgs) -> Result<ExitCode> {
    if global.format == Format::Prometheus {
        bail!("--format prometheus is for `gpuenv doctor`; fleet writes human, json, markdown or html");
    }
    let mut fleet = Fleet::new();
    let mut files = Vec::new();
    let mut stdin_used = false;
    for path in &args.paths {
        if path.as_os_str() == "-" {
            if !stdin_used {
                stdin_used = true;
                read_stream(&mut fleet, "stdin", io::stdin().lock());
            }
        } else if path.is_dir() {
            collect_dir(path, 0, &mut files, &mut fleet);
        } else {
            files.push(path.clone());
        }
    }
    let (lines, files): (Vec<PathBuf>, Vec<PathBuf>) = files
        .into_iter()
        .partition(|p| p.extension().is_some_and(|e| e == "jsonl"));
    merge_files(&mut fleet, &files);
    for path in &lines {
        let origin = path.display().to_string();
        match std::fs::File::open(path) {
            Ok(f) => read_stream(&mut fleet, &origin, io::BufReader::new(f)),
            Err(e) => fleet.problem(&origin, "unreadable", e.to_string()),
        }
    }
    if fleet.is_empty() && !stdin_used && files.is_empty() && lines.is_empty() {
        bail!("no reports found (looked for *.json and *.jsonl files)");
    }
    let view = fleet.finish();
    let mut buffer = Vec::new();
    match global.format {
        Format::Json => render::json(&mut buffer, &view)?,
        Format::Markdown => render::markdown(&mut buffer, &view)?,
        Format::Html => render::html(&mut buffer, &view)?,
        Format::Human | Format::Prometheus => render::human(&mut buffer, &view, 200)?,
    }
    match &args.output {
        Some(path) => crate::commands::output::write_atomically(path, &buffer)?,
        None => {
            let mut out = io::stdout().lock();
            out.write_all(&buffer)?;
            out.flush()?;
        }
    }
    Ok(if view.has_trouble() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// Every `*.json` / `*.jsonl` file under `dir`, sorted, skipping hidden files (temporary files of
/// an atomic write are hidden).
fn collect_dir(dir: &Path, depth: usize, files: &mut Vec<PathBuf>, fleet: &mut Fleet) {
    let origin = dir.display().to_string();
    if depth > MAX_DEPTH {
        fleet.problem(&origin, "unreadable", "directories nested too deep".into());
        return;
    }
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) => {
            fleet.problem(&origin, "unreadable", e.to_string());
            return;
        }
    };
    let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    for p in paths {
        let name = p.file_name().map(|n| n.to_string_lossy().into_owned());
        let Some(name) = name else { continue };
        if name.starts_with('.') {
            continue;
        }
        if p.is_dir() {
            collect_dir(&p, depth + 1, files, fleet);
        } else if name.ends_with(".json") || name.ends_with(".jsonl") {
            files.push(p);
        }
    }
}

/// Reads and parses the files on a few threads; merges on this one, in whatever order they come
/// (the merge does not depend on the order).
fn merge_files(fleet: &mut Fleet, files: &[PathBuf]) {
    let workers = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
        .clamp(1, 8)
        .min(files.len().max(1));
    let next = AtomicUsize::new(0);
    let (tx, rx) = mpsc::sync_channel::<Outcome>(256);
    std::thread::scope(|scope| {
        for _ in 0..workers {
            let tx = tx.clone();
            let next = &next;
            scope.spawn(move || loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(path) = files.get(i) else { break };
                for outcome in read_file(path) {
                    if tx.send(outcome).is_err() {
                        return;
                    }
                }
            });
        }
        drop(tx);
        for outcome in rx {
            match outcome {
                Outcome::Parsed(origin, result) => fleet.add_result(&origin, result),
                Outcome::Unreadable(origin, message) => {
                    fleet.problem(&origin, "unreadable", message)
                }
            }
        }
    });
}

fn read_file(path: &Path) -> Vec<Outcome> {
    let origin = path.display().to_string();
    let bytes = match std::fs::File::open(path).and_then(|f| {
        let size = f
            .metadata()
            .map(|m| m.len())
            .unwrap_or(0)
            .min(MAX_REPORT_BYTES);
        let mut buf = Vec::with_capacity(usize::try_from(size).unwrap_or(0) + 1);
        f.take(MAX_REPORT_BYTES + 1).read_to_end(&mut buf)?;
        Ok(buf)
    }) {
        Ok(b) if b.len() as u64 > MAX_REPORT_BYTES => {
            return vec![Outcome::Unreadable(
                origin,
                format!("larger than {} MiB", MAX_REPORT_BYTES >> 20),
            )]
        }
        Ok(b) => b,
        Err(e) => return vec![Outcome::Unreadable(origin, e.to_string())],
    };
    let r = summarize(&origin, &bytes);
    vec![Outcome::Parsed(origin, r)]
}

/// JSON lines: one report per line, named `NAME:LINE`. This thread reads the lines; a few workers
/// parse them; one merges. Channels are bounded, so a fast reader never runs ahead of the parsers.
fn read_stream(fleet: &mut Fleet, name: &str, mut input: impl BufRead) {
    let workers = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
        .clamp(1, 8);
    let (line_tx, line_rx) = mpsc::sync_channel::<(String, Vec<u8>)>(64);
    let line_rx = std::sync::Mutex::new(line_rx);
    let (out_tx, out_rx) = mpsc::sync_channel::<Outcome>(256);
    std::thread::scope(|scope| {
        for _ in 0..workers {
            let (line_rx, out_tx) = (&line_rx, out_tx.clone());
            scope.spawn(move || loop {
                let next = match line_rx.lock() {
                    Ok(rx) => rx.recv(),
                    Err(_) => return,
                };
                let Ok((origin, line)) = next else { return };
                let result = summarize(&origin, &line);
                if out_tx.send(Outcome::Parsed(origin, result)).is_err() {
                    return;
                }
            });
        }
        scope.spawn(move || {
            for outcome in out_rx {
                match outcome {
                    Outcome::Parsed(origin, result) => fleet.add_result(&origin, result),
                    Outcome::Unreadable(origin, message) => {
                        fleet.problem(&origin, "unreadable", message)
                    }
                }
            }
        });
        let mut n = 0usize;
        loop {
            n += 1;
            let origin = format!("{name}:{n}");
            let mut line = Vec::new();
            match (&mut input)
                .take(MAX_REPORT_BYTES + 1)
                .read_until(b'\n', &mut line)
            {
                Ok(0) => break,
                Ok(_) if line.len() as u64 > MAX_REPORT_BYTES && !line.ends_with(b"\n") => {
                    let message = format!("line longer than {} MiB", MAX_REPORT_BYTES >> 20);
                    if out_tx.send(Outcome::Unreadable(origin, message)).is_err() {
                        break;
                    }
                    if skip_line(&mut input).is_err() {
                        break;
                    }
                }
                Ok(_) => {
                    if line.iter().all(u8::is_ascii_whitespace) {
                        continue;
                    }
                    if line_tx.send((origin, line)).is_err() {
                        break;
                    }
                }
                Err(e) => {
                    let _ = out_tx.send(Outcome::Unreadable(origin, e.to_string()));
                    break;
                }
            }
        }
        drop(line_tx);
        drop(out_tx);
    });
}

/// Skips to the end of the current line without keeping it.
fn skip_line(input: &mut impl BufRead) -> io::Result<()> {
    loop {
        let buf = input.fill_buf()?;
        if buf.is_empty() {
            return Ok(());
        }
        match buf.iter().position(|&b| b == b'\n') {
            Some(i) => {
                input.consume(i + 1);
                return Ok(());
            }
            None => {
                let n = buf.len();
                input.consume(n);
            }
        }
    }
}
