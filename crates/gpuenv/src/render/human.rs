//! The human renderer: a summary line per layer (✓ ok, ! warning, ✗ error, - absent), then the
//! findings grouped by layer with evidence and fix, then (with `-v`) every fact and its source.
//! Readable without colour; colour only when asked or on a terminal without NO_COLOR.

use std::io::{self, Write};

use gpuenv_check::{Finding, Layer, LayerStatus, Severity};

use crate::render::facts;
use crate::report::Report;

/// How to render.
#[derive(Debug, Clone, Copy)]
pub struct Style {
    pub color: bool,
    pub verbose: bool,
}

fn paint(style: Style, code: &str, text: &str) -> String {
    if style.color {
        format!("\x1b[{code}m{text}\x1b[0m")
    } else {
        text.to_string()
    }
}

fn status_mark(style: Style, status: LayerStatus) -> String {
    match status {
        LayerStatus::Ok => paint(style, "32", "[✓]"),
        LayerStatus::Warning => paint(style, "33", "[!]"),
        LayerStatus::Error => paint(style, "31;1", "[✗]"),
        LayerStatus::Absent => paint(style, "2", "[-]"),
    }
}

fn severity_mark(style: Style, s: Severity) -> String {
    match s {
        Severity::Error => paint(style, "31;1", "✗ error"),
        Severity::Warning => paint(style, "33", "! warning"),
        Severity::Info => paint(style, "36", "i info"),
    }
}

pub fn render(out: &mut dyn Write, report: &Report, style: Style) -> io::Result<()> {
    let facts = report.facts;
    let where_ = if facts.live {
        "this machine".to_string()
    } else {
        format!("root {}", facts.root)
    };
    writeln!(out, "{} — {where_}", paint(style, "1", "gpuenv doctor"))?;
    writeln!(out)?;
    for s in report.summary {
        writeln!(
            out,
            "{} {} {}: {}",
            status_mark(style, s.status),
            s.layer.code(),
            s.layer.title(),
            s.text
        )?;
    }
    writeln!(out)?;
    let c = &report.counts;
    let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
    let verdict = if c.error > 0 {
        paint(style, "31;1", "Broken.")
    } else if c.warning > 0 {
        paint(style, "33", "Works, with warnings.")
    } else {
        paint(style, "32", "No problems found.")
    };
    writeln!(
        out,
        "{verdict} {}, {}, {}.",
        plural(c.error, "error"),
        plural(c.warning, "warning"),
        plural(c.info, "note")
    )?;
    for layer in Layer::ALL {
        let findings: Vec<&Finding> = report
            .findings
            .iter()
            .filter(|f| f.layer == layer)
            .collect();
        if findings.is_empty() {
            continue;
        }
        writeln!(out)?;
        writeln!(
            out,
            "{} {}",
            paint(style, "1", layer.code()),
            paint(style, "1", layer.title())
        )?;
        for f in findings {
            writeln!(
                out,
                "  {} [{}] {}",
                severity_mark(style, f.severity),
                f.id,
                f.title
            )?;
            for e in &f.evidence {
                writeln!(out, "      • {e}")?;
            }
            if !f.fix.is_empty() {
                writeln!(out, "    {}", paint(style, "1", "fix:"))?;
                for line in f.fix.lines() {
                    writeln!(out, "      {line}")?;
                }
            }
        }
    }
    if !facts.probe_errors.is_empty() {
        writeln!(out)?;
        writeln!(
            out,
            "{} could not be read (run with -v for details).",
            plural(facts.probe_errors.len(), "thing")
        )?;
    }
    if style.verbose {
        writeln!(out)?;
        writeln!(
            out,
            "{}",
            paint(style, "1", "Facts (with where each came from)")
        )?;
        facts::render(out, facts)?;
        writeln!(out)?;
        writeln!(
            out,
            "knowledge base: {} ({}, {} sources){}",
            report.knowledge_base.name,
            report.knowledge_base.as_of,
            report.knowledge_base.sources,
            if report.knowledge_base.overrides.is_empty() {
                String::new()
            } else {
                format!("; replaced: {}", report.knowledge_base.overrides.join(", "))
            }
        )?;
    } else if report.findings.is_empty() {
        writeln!(out, "Run with -v to see every fact and where it came from.")?;
    }
    Ok(())
}
