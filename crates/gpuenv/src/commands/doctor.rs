//! `gpuenv doctor`: probe every layer, run every check, render the report.

use std::io::{self, Write};
use std::process::ExitCode;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use anyhow::{Context as _, Result};

use gpuenv_check::{run_checks, summarize, Context, Finding, LayerSummary, Severity};
use gpuenv_facts::Facts;
use gpuenv_kb::Kb;
use gpuenv_probe::python::{FullSelection, PythonOptions};
use gpuenv_probe::{probe_all_with, Environment, ProbeOptions, SystemRoot};

use crate::cli::{DoctorArgs, Format, GlobalArgs};
use crate::commands::{load_kb, use_color};
use crate::render;
use crate::report::{Counts, KbInfo, Report, REPORT_SCHEMA};

/// One doctor run's results: what `gpuenv doctor` renders and `gpuenv serve` caches.
pub(crate) struct Probed {
    started: Instant,
    /// Seconds since the Unix epoch when the run started.
    pub timestamp: u64,
    kb: Kb,
    pub facts: Facts,
    pub findings: Vec<Finding>,
    summary: Vec<LayerSummary>,
}

impl Probed {
    /// Probes the machine root as the doctor arguments say and runs every check.
    pub fn run(global: &GlobalArgs, args: &DoctorArgs, show_progress: bool) -> Result<Probed> {
        let started = Instant::now();
        let timestamp = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or(0);
        let kb = load_kb(global)?;
        let root = SystemRoot::new(&global.root)
            .with_context(|| format!("--root {}", global.root.display()))?;
        let env = Environment::from_process();
        let options = ProbeOptions {
            python: PythonOptions {
                extra: args.python.clone(),
                full: if args.all_envs {
                    FullSelection::All
                } else if !args.env.is_empty() {
                    FullSelection::Named(args.env.clone())
                } else {
                    FullSelection::Active
                },
            },
        };
        let progress =
            show_progress.then(|| crate::progress::Progress::start("gpuenv: reading the machine…"));
        let facts = probe_all_with(&root, &env, &kb, &options);
        if let Some(progress) = progress {
            progress.finish();
        }
        let findings = run_checks(&facts, &kb);
        let summary = summarize(&Context::new(&facts, &kb), &findings);
        Ok(Probed {
            started,
            timestamp,
            kb,
            facts,
            findings,
            summary,
        })
    }

    /// The report to render; its duration runs until this call.
    pub fn report(&self) -> Report<'_> {
        Report {
            schema: REPORT_SCHEMA,
            gpuenv_version: env!("CARGO_PKG_VERSION"),
            knowledge_base: KbInfo::of(&self.kb),
            timestamp: self.timestamp,
            duration_ms: self.started.elapsed().as_secs_f64() * 1000.0,
            summary: &self.summary,
            counts: Counts::of(&self.findings),
            findings: &self.findings,
            facts: &self.facts,
        }
    }
}

pub fn run(global: &GlobalArgs, args: &DoctorArgs) -> Result<ExitCode> {
    let probed = Probed::run(global, args, true)?;
    let report = probed.report();
    let (facts, findings, timestamp) = (&probed.facts, &probed.findings, probed.timestamp);
    let stdout = io::stdout();
    // With `-o FILE` the report is rendered into memory and written atomically afterwards.
    let mut buffer: Vec<u8> = Vec::new();
    let mut locked;
    let mut out: &mut dyn Write = if args.output.is_some() || args.redact {
        &mut buffer
    } else {
        locked = stdout.lock();
        &mut locked
    };
    match global.format {
        Format::Json => render::json::render(&mut out, &report)?,
        Format::Markdown => render::markdown::render(&mut out, &report)?,
        Format::Prometheus => render::prometheus::render(&mut out, &report)?,
        Format::Html => anyhow::bail!("--format html is for `gpuenv fleet`"),
        Format::Human => {
            let style = render::human::Style {
                color: use_color(global),
                verbose: global.verbose,
            };
            render::human::render(&mut out, &report, style)?;
        }
    }
    out.flush()?;
    if args.redact {
        buffer = render::redact::redact_output(&buffer, global.format, &global.root)?;
        if args.output.is_none() {
            let mut stdout = stdout.lock();
            stdout.write_all(&buffer)?;
            stdout.flush()?;
        }
    }
    if let Some(path) = &args.output {
        crate::commands::output::write_atomically(path, &buffer)?;
    }
    if args.record {
        crate::commands::drift::record(
            global,
            args.db.as_deref(),
            facts,
            findings,
            timestamp,
            "doctor",
        )?;
    }
    let broken = findings.iter().any(|f| f.severity == Severity::Error);
    Ok(if broken {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
