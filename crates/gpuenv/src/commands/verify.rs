//! `gpuenv verify`: prove the stack works by running a small GPU workload with the chosen
//! environment's own Python, opt-in. The child runs `verify/probe.py` (embedded, passed with `-c`)
//! in its own process group, with stdin closed and its output bounded; at the timeout the whole
//! group is killed, and it is killed after a normal exit too, so nothing is left running. A
//! failure goes through `gpuenv explain` with this machine's facts and is tied to doctor's
//! findings; the libraries the process mapped are compared with the loader model's prediction.

pub mod outcome;

use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitCode, Stdio};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use anyhow::{bail, Context as _, Result};
use serde::Serialize;

use gpuenv_check::{run_checks, Finding};
use gpuenv_explain::{Explainer, Explanation};
use gpuenv_facts::{Facts, PythonEnvironment};
use gpuenv_probe::python::{FullSelection, PythonOptions};
use gpuenv_probe::{probe_all_with, Environment, ProbeOptions, SystemRoot};

use crate::cli::{Format, GlobalArgs, VerifyArgs};
use crate::commands::{load_kb, use_color};
use crate::render;
use outcome::{LoadFinding, Status, Step};

/// The script the child runs.
pub const SCRIPT: &str = include_str!("verify/probe.py");

/// The JSON schema id of `gpuenv verify --format json`.
pub const VERIFY_SCHEMA: &str = "gpuenv.verify/1";

/// At most this much of the child's step lines is kept (the framework's own stdout is dropped).
const MAX_STDOUT: usize = 4 * 1024 * 1024;
/// At most this much of its stderr is kept (its tail: the error is at the end).
const MAX_STDERR: usize = 256 * 1024;

/// What `gpuenv verify` found.
#[derive(Debug, Serialize)]
pub struct VerifyReport {
    pub schema: &'static str,
    pub gpuenv_version: &'static str,
    pub environment: EnvironmentRef,
    pub framework: String,
    pub status: Status,
    /// The step that failed, or that was running when the run stopped.
    pub stopped_at: Option<String>,
    pub timeout_s: u64,
    pub duration_ms: f64,
    /// The child's exit status (128 + signal when killed by one); none when it timed out.
    pub exit_status: Option<i32>,
    pub steps: Vec<Step>,
    /// The last lines of the child's stderr.
    pub stderr_tail: String,
    /// The explanation's answer: its top category when sure enough, else null ("unknown").
    pub answer: Option<&'static str>,
    /// The failure explained with this machine's facts.
    pub explanation: Option<Explanation>,
    /// Doctor's findings that explain the failure, best first.
    pub explained_by: Vec<Finding>,
    /// Differences between the libraries the process mapped and the loader model's prediction.
    pub loading: Vec<LoadFinding>,
    /// The framework binary whose loading gpuenv predicted.
    pub predicted_for: Option<String>,
}

/// The environment verified.
#[derive(Debug, Serialize)]
pub struct EnvironmentRef {
    pub name: String,
    pub prefix: String,
    pub python: String,
}

pub fn run(global: &GlobalArgs, args: &VerifyArgs) -> Result<ExitCode> {
    if global.root != Path::new("/") {
        bail!("verify runs a workload on this machine; it cannot use --root");
    }
    let kb = load_kb(global)?;
    let root = SystemRoot::new(&global.root).context("the root file system")?;
    let env = Environment::from_process();
    let options = ProbeOptions {
        python: PythonOptions {
            extra: args
                .env
                .iter()
                .filter(|e| e.contains('/'))
                .cloned()
                .collect(),
            full: match &args.env {
                Some(e) => FullSelection::Named(vec![e.clone()]),
                None => FullSelection::Active,
            },
        },
    };
    let facts = probe_all_with(&root, &env, &kb, &options);
    let chosen = choose_environment(&facts, args.env.as_deref())?;
    let framework = match &args.framework {
        Some(f) => f.as_str().to_string(),
        None => detect_framework(chosen).with_context(|| {
            format!(
                "no torch, tensorflow or jax found in environment {} ({}); name one with --framework",
                chosen.name, chosen.prefix
            )
        })?,
    };
    let python = interpreter(&chosen.prefix).with_context(|| {
        format!(
            "environment {} has no bin/python3 or bin/python",
            chosen.prefix
        )
    })?;
    let timeout = Duration::from_secs(args.timeout.max(1));
    let started = Instant::now();
    let child = run_child(&python, &framework, timeout);
    let duration_ms = started.elapsed().as_secs_f64() * 1000.0;

    let steps = outcome::parse_steps(&child.stdout);
    let status = outcome::judge(&steps, child.timed_out, child.spawn_error.is_none());
    let stopped_at = outcome::stopped_at(&steps, status);
    let mut stderr_tail = child.stderr.clone();
    if let Some(e) = &child.spawn_error {
        stderr_tail = e.clone();
    }
    let (explanation, explained_by) = if status == Status::Passed || status == Status::TimedOut {
        (None, Vec::new())
    } else {
        let explainer = Explainer::builtin().context("the built-in signature catalogue")?;
        let text = outcome::error_text(&steps, &stderr_tail);
        let explanation = explainer.explain(text.as_bytes(), Some(&facts), Some(&kb));
        let findings = run_checks(&facts, &kb);
        let by = outcome::explaining_findings(&explanation, &findings, &chosen.prefix);
        (Some(explanation), by)
    };
    let binary = chosen
        .frameworks
        .binaries
        .iter()
        .find(|b| b.framework == framework);
    let mapped: Vec<String> = steps
        .iter()
        .find(|s| s.step == "libraries")
        .and_then(|s| s.detail.get("mapped"))
        .and_then(|m| m.as_array())
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    let ld_preload = steps
        .iter()
        .find(|s| s.step == "python")
        .and_then(|s| s.text("ld_preload"))
        .map(str::to_string);
    let loading = outcome::compare_loading(
        binary,
        &mapped,
        status == Status::Passed,
        ld_preload.as_deref(),
        explanation
            .as_ref()
            .map_or(&[][..], |e| e.values.libraries.as_slice()),
    );
    let report = VerifyReport {
        schema: VERIFY_SCHEMA,
        gpuenv_version: env!("CARGO_PKG_VERSION"),
        environment: EnvironmentRef {
            name: chosen.name.clone(),
            prefix: chosen.prefix.clone(),
            python: python.display().to_string(),
        },
        framework,
        status,
        stopped_at,
        timeout_s: timeout.as_secs(),
        duration_ms,
        exit_status: child.exit_status,
        steps,
        stderr_tail: last_lines(&stderr_tail, 40),
        answer: explanation
            .as_ref()
            .and_then(|e| e.top())
            .map(|d| d.category.id()),
        explanation,
        explained_by,
        loading,
        predicted_for: binary.map(|b| b.path.clone()),
    };
    let stdout = io::stdout();
    let mut out = stdout.lock();
    match global.format {
        Format::Json => render::verify::json(&mut out, &report)?,
        // Markdown and the other report formats are doctor's; verify has people's and JSON.
        _ => render::verify::human(&mut out, &report, use_color(global))?,
    }
    out.flush()?;
    Ok(if status == Status::Passed {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// The environment named by `--env` (a name or a prefix), else the active one, else the one
/// `python` on `PATH` belongs to.
fn choose_environment<'a>(facts: &'a Facts, wanted: Option<&str>) -> Result<&'a PythonEnvironment> {
    let envs = &facts.python.environments;
    if let Some(w) = wanted {
        let canonical = std::fs::canonicalize(w).ok();
        let found = envs.iter().find(|e| {
            e.name == w
                || e.prefix == w
                || e.prefix.trim_end_matches('/') == w.trim_end_matches('/')
                || canonical
                    .as_ref()
                    .is_some_and(|c| std::fs::canonicalize(&e.prefix).ok().as_ref() == Some(c))
        });
        return found.with_context(|| {
            format!("no Python environment {w} (a conda environment's name or a prefix)")
        });
    }
    if let Some(e) = envs.iter().find(|e| e.active) {
        return Ok(e);
    }
    let on_path = facts
        .python
        .python_on_path
        .as_ref()
        .and_then(|p| p.environment.as_deref());
    if let Some(e) = on_path.and_then(|p| envs.iter().find(|e| e.prefix == p)) {
        return Ok(e);
    }
    bail!("no active Python environment; name one with --env NAME|PATH")
}

/// The framework to verify when none is named: torch, then TensorFlow, then JAX.
fn detect_framework(e: &PythonEnvironment) -> Option<String> {
    let has = |key: &str| e.distributions.iter().any(|d| d.key == key);
    if e.frameworks.torch.is_some() || has("torch") {
        return Some("torch".into());
    }
    if e.frameworks.tensorflow.is_some() || has("tensorflow") || has("tensorflow-cpu") {
        return Some("tensorflow".into());
    }
    if has("jax") || e.frameworks.packages.contains_key("jax") {
        return Some("jax".into());
    }
    None
}

/// The environment's own interpreter (never gpuenv's or the one on `PATH`).
fn interpreter(prefix: &str) -> Option<PathBuf> {
    ["bin/python3", "bin/python"]
        .iter()
        .map(|b| Path::new(prefix).join(b))
        .find(|p| p.is_file())
}

/// The last `n` lines of `text`.
fn last_lines(text: &str, n: usize) -> String {
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(n)..].join("\n")
}

/// What the child did.
#[derive(Debug, Default)]
struct ChildRun {
    stdout: String,
    stderr: String,
    exit_status: Option<i32>,
    timed_out: bool,
    spawn_error: Option<String>,
}

/// Runs the script with `python` in a new process group; kills the group at the timeout and
/// after the leader exits.
fn run_child(python: &Path, framework: &str, timeout: Duration) -> ChildRun {
    use std::os::unix::process::CommandExt;
    let spawned = Command::new(python)
        .arg("-u")
        .arg("-c")
        .arg(SCRIPT)
        .arg(framework)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .spawn();
    let mut child = match spawned {
        Ok(c) => c,
        Err(e) => {
            return ChildRun {
                spawn_error: Some(format!("cannot run {}: {e}", python.display())),
                ..ChildRun::default()
            }
        }
    };
    let stdout = Arc::new(Mutex::new(Vec::new()));
    let stderr = Arc::new(Mutex::new(Vec::new()));
    let mut readers: Vec<JoinHandle<()>> = Vec::new();
    if let Some(out) = child.stdout.take() {
        let buf = Arc::clone(&stdout);
        readers.push(std::thread::spawn(move || {
            keep_steps(out, &buf, MAX_STDOUT)
        }));
    }
    if let Some(err) = child.stderr.take() {
        let buf = Arc::clone(&stderr);
        readers.push(std::thread::spawn(move || keep_tail(err, &buf, MAX_STDERR)));
    }
    let deadline = Instant::now() + timeout;
    let mut run = ChildRun::default();
    loop {
        match child.try_wait() {
            Ok(Some(status)) => {
                run.exit_status = Some(exit_code_of(&status));
                break;
            }
            Ok(None) if Instant::now() >= deadline => {
                run.timed_out = true;
                break;
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(20)),
            Err(_) => break,
        }
    }
    // The group: the interpreter and anything it started (workers, a hung helper).
    kill_group(&mut child);
    for r in readers {
        // A reader that panicked loses only output.
        let _ = r.join();
    }
    run.stdout = take_text(&stdout);
    run.stderr = take_text(&stderr);
    run
}

/// Kills the child's process group and reaps the leader.
fn kill_group(child: &mut Child) {
    if let Some(pid) = i32::try_from(child.id())
        .ok()
        .and_then(rustix::process::Pid::from_raw)
    {
        // ESRCH (the group is gone already) is the good case.
        let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
    }
    let _ = child.kill();
    let _ = child.wait();
}

/// Reads `from` to its end, keeping its last `max` bytes.
fn keep_tail(mut from: impl Read, buf: &Mutex<Vec<u8>>, max: usize) {
    let mut chunk = [0u8; 16 * 1024];
    loop {
        let n = match from.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(_) => break,
        };
        if let Ok(mut b) = buf.lock() {
            b.extend_from_slice(&chunk[..n]);
            if b.len() > max + max / 4 {
                let cut = b.len() - max;
                b.drain(..cut);
            }
        }
    }
}

/// Reads `from` to its end (so the child never blocks on a full pipe), keeping only the step
/// lines, up to `max` bytes of them: the framework's own output on stdout, however much, costs
/// nothing, and a step line longer than `MAX_LINE` is dropped.
fn keep_steps(mut from: impl Read, buf: &Mutex<Vec<u8>>, max: usize) {
    let mut chunk = [0u8; 16 * 1024];
    let mut collector = StepLines::new(max);
    loop {
        let n = match from.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(_) => break,
        };
        collector.push(&chunk[..n]);
        if let Ok(mut b) = buf.lock() {
            b.append(&mut collector.kept);
        }
    }
    collector.finish();
    if let Ok(mut b) = buf.lock() {
        b.append(&mut collector.kept);
    }
}

/// The longest step line kept.
const MAX_LINE: usize = 1024 * 1024;

/// Splits a byte stream into lines and keeps those that start with the step mark.
struct StepLines {
    line: Vec<u8>,
    overlong: bool,
    budget: usize,
    kept: Vec<u8>,
}

impl StepLines {
    fn new(budget: usize) -> StepLines {
        StepLines {
            line: Vec::new(),
            overlong: false,
            budget,
            kept: Vec::new(),
        }
    }

    fn push(&mut self, mut data: &[u8]) {
        while !data.is_empty() {
            let (part, rest, ended) = match data.iter().position(|&b| b == b'\n') {
                Some(i) => (&data[..i], &data[i + 1..], true),
                None => (data, &data[data.len()..], false),
            };
            if !self.overlong {
                if self.line.len() + part.len() > MAX_LINE {
                    self.overlong = true;
                    self.line.clear();
                } else {
                    self.line.extend_from_slice(part);
                }
            }
            if ended {
                self.end_line();
            }
            data = rest;
        }
    }

    fn end_line(&mut self) {
        let keep = !self.overlong
            && self.line.starts_with(outcome::MARK.as_bytes())
            && self.line.len() < self.budget;
        if keep {
            self.budget -= self.line.len() + 1;
            self.kept.append(&mut self.line);
            self.kept.push(b'\n');
        }
        self.line.clear();
        self.overlong = false;
    }

    /// The last line, when the stream ended without a newline.
    fn finish(&mut self) {
        if !self.line.is_empty() {
            self.end_line();
        }
    }
}

fn take_text(buf: &Mutex<Vec<u8>>) -> String {
    match buf.lock() {
        Ok(b) => String::from_utf8_lossy(&b).into_owned(),
        Err(poisoned) => String::from_utf8_lossy(&poisoned.into_inner()).into_owned(),
    }
}

/// The shell's view of an exit status: the code, or 128 + the signal.
fn exit_code_of(status: &std::process::ExitStatus) -> i32 {
    use std::os::unix::process::ExitStatusExt;
    status
        .code()
        .or_else(|| status.signal().map(|s| 128 + s))
        .unwrap_or(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_script_marks_its_steps_as_the_parser_expects() {
        assert!(SCRIPT.contains(&format!("MARK = \"{}\"", outcome::MARK)));
        for step in outcome::ORDER {
            assert!(
                SCRIPT.contains(&format!("\"{step}\"")),
                "the script never reports {step}"
            );
        }
    }

    #[test]
    fn only_step_lines_are_kept_within_the_budget() {
        let mut c = StepLines::new(200);
        let mark = outcome::MARK;
        c.push(b"noise\n");
        c.push(format!("{mark}{{\"step\":\"python\"").as_bytes());
        c.push(b",\"ok\":true}\nmore noise");
        c.push(&vec![b'x'; MAX_LINE + 10]);
        c.push(format!("\n{mark}{}\n", "y".repeat(300)).as_bytes());
        c.push(format!("{mark}{{}}").as_bytes());
        c.finish();
        let kept = String::from_utf8(c.kept).unwrap_or_default();
        assert_eq!(
            kept,
            format!("{mark}{{\"step\":\"python\",\"ok\":true}}\n{mark}{{}}\n")
        );
    }

    #[test]
    fn last_lines_keeps_the_tail() {
        assert_eq!(last_lines("a\nb\nc", 2), "b\nc");
        assert_eq!(last_lines("", 2), "");
    }
}
