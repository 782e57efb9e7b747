//! The gpuenv binary: parses the command line, builds the knowledge base and the machine root,
//! runs the probes and checks, and renders the report. All logic lives in the library crates.

mod cli;
mod render;
mod report;

use std::io::{self, IsTerminal, Write};
use std::process::ExitCode;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use anyhow::{Context as _, Result};
use clap::Parser;

use cli::{Cli, ColorChoice, Command, Format, GlobalArgs};
use gpuenv_check::{run_checks, summarize, Context, Severity};
use gpuenv_kb::Kb;
use gpuenv_probe::{probe_all, Environment, SystemRoot, VarKind, VARIABLES};
use report::{Counts, KbInfo, Report, REPORT_SCHEMA};

/// `gpuenv --version`: the program's and the knowledge base's versions.
fn version_text() -> String {
    match Kb::builtin() {
        Ok(kb) => format!(
            "{} (knowledge base {}, {} sources)",
            env!("CARGO_PKG_VERSION"),
            kb.as_of,
            kb.source_count()
        ),
        Err(e) => format!(
            "{} (knowledge base failed to load: {e})",
            env!("CARGO_PKG_VERSION")
        ),
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => code,
        Err(err) => {
            eprintln!("gpuenv: error: {err:#}");
            ExitCode::from(2)
        }
    }
}

fn load_kb(global: &GlobalArgs) -> Result<Kb> {
    match &global.kb {
        None => Ok(Kb::builtin()?),
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("cannot read knowledge-base file {}", path.display()))?;
            let name = path.display().to_string();
            Kb::with_override(&name, &text, None)
                .with_context(|| format!("knowledge-base file {name}"))
        }
    }
}

fn run(cli: Cli) -> Result<ExitCode> {
    match cli.command.unwrap_or(Command::Doctor) {
        Command::Doctor => doctor(&cli.global),
        Command::Env => {
            print_env_vars()?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Kb => {
            print_kb(&load_kb(&cli.global)?)?;
            Ok(ExitCode::SUCCESS)
        }
    }
}

fn doctor(global: &GlobalArgs) -> Result<ExitCode> {
    let started = Instant::now();
    let timestamp = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let kb = load_kb(global)?;
    let root = SystemRoot::new(&global.root)
        .with_context(|| format!("--root {}", global.root.display()))?;
    let env = Environment::from_process();
    let facts = probe_all(&root, &env, &kb);
    let findings = run_checks(&facts, &kb);
    let summary = summarize(&Context::new(&facts, &kb), &findings);
    let report = Report {
        schema: REPORT_SCHEMA,
        gpuenv_version: env!("CARGO_PKG_VERSION"),
        knowledge_base: KbInfo::of(&kb),
        timestamp,
        duration_ms: started.elapsed().as_secs_f64() * 1000.0,
        summary: &summary,
        counts: Counts::of(&findings),
        findings: &findings,
        facts: &facts,
    };
    let stdout = io::stdout();
    let mut out = stdout.lock();
    match global.format {
        Format::Json => render::json::render(&mut out, &report)?,
        Format::Human => {
            let color = match global.color {
                ColorChoice::Always => true,
                ColorChoice::Never => false,
                ColorChoice::Auto => {
                    std::env::var_os("NO_COLOR").is_none() && io::stdout().is_terminal()
                }
            };
            let style = render::human::Style {
                color,
                verbose: global.verbose,
            };
            render::human::render(&mut out, &report, style)?;
        }
    }
    out.flush()?;
    let broken = findings.iter().any(|f| f.severity == Severity::Error);
    Ok(if broken {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

fn print_env_vars() -> io::Result<()> {
    let mut out = io::stdout().lock();
    for (kind, title) in [
        (
            VarKind::Inspected,
            "Variables of the CUDA stack that gpuenv inspects",
        ),
        (
            VarKind::Override,
            "Overrides, for facts that cannot be read (CI, containers, planning)",
        ),
        (VarKind::Setting, "gpuenv settings"),
    ] {
        writeln!(out, "{title}:")?;
        for v in VARIABLES.iter().filter(|v| v.kind == kind) {
            writeln!(out, "  {:<28} {}", v.name, v.doc)?;
        }
        writeln!(out)?;
    }
    Ok(())
}

fn print_kb(kb: &Kb) -> io::Result<()> {
    let mut out = io::stdout().lock();
    writeln!(out, "{} (as of {})", kb.name, kb.as_of)?;
    let gpus = kb.gpus().map(|g| g.len()).unwrap_or(0);
    writeln!(
        out,
        "tables: {} toolkits, {} driver branches, {} CUDA majors, {} compute capabilities, {} cuDNN release ranges, {} GPUs",
        kb.toolkits.len(),
        kb.branches.len(),
        kb.cuda_majors.len(),
        kb.ccs.len(),
        kb.cudnn_releases.len(),
        gpus
    )?;
    for (table, origin) in &kb.origins {
        writeln!(out, "table {table} replaced by {origin}")?;
    }
    writeln!(out, "\nsources ({}):", kb.source_count())?;
    for s in &kb.sources {
        writeln!(out, "  {:<20} {}", s.id, s.description)?;
    }
    Ok(())
}
