//! `gpuenv doctor --format markdown`: a report to paste into an issue tracker (GitHub, GitLab):
//! the verdict, the per-layer summary table, the findings with evidence and fix, and every fact
//! with its source in a collapsed `<details>` block. Text from the machine is escaped so it
//! cannot break the table or open HTML.

use std::io::{self, Write};

use gpuenv_check::{LayerStatus, Severity};

use crate::render::facts;
use crate::report::Report;

/// Escapes text for a Markdown table cell or paragraph: no HTML, no table breaks.
fn cell(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('|', "\\|")
        .replace(['\n', '\r'], " ")
}

/// A code span that survives backticks in the text.
fn code(s: &str) -> String {
    let s = s.replace(['\n', '\r'], " ");
    let mut fence = String::from("`");
    while s.contains(fence.as_str()) {
        fence.push('`');
    }
    let pad = if s.starts_with('`') || s.ends_with('`') {
        " "
    } else {
        ""
    };
    format!("{fence}{pad}{s}{pad}{fence}")
}

/// A fenced block whose fence is longer than any backtick run inside.
fn fenced(s: &str, lang: &str) -> String {
    let mut fence = String::from("```");
    while s.contains(fence.as_str()) {
        fence.push('`');
    }
    format!("{fence}{lang}\n{}\n{fence}\n", s.trim_end())
}

pub fn render(out: &mut dyn Write, report: &Report) -> io::Result<()> {
    let facts = report.facts;
    let c = &report.counts;
    let where_ = if facts.live {
        "this machine".to_string()
    } else {
        format!("root {}", code(&facts.root))
    };
    writeln!(out, "### gpuenv doctor — {where_}")?;
    writeln!(out)?;
    let verdict = if c.error > 0 {
        "**Broken.**"
    } else if c.warning > 0 {
        "**Works, with warnings.**"
    } else {
        "**No problems found.**"
    };
    writeln!(
        out,
        "{verdict} {} error(s), {} warning(s), {} note(s). gpuenv {}, knowledge base {} ({} sources).",
        c.error,
        c.warning,
        c.info,
        report.gpuenv_version,
        cell(&report.knowledge_base.as_of),
        report.knowledge_base.sources
    )?;
    writeln!(out)?;
    writeln!(out, "| | layer | status |")?;
    writeln!(out, "|---|---|---|")?;
    for s in report.summary {
        let mark = match s.status {
            LayerStatus::Ok => "✅",
            LayerStatus::Warning => "⚠️",
            LayerStatus::Error => "❌",
            LayerStatus::Absent => "➖",
        };
        writeln!(
            out,
            "| {mark} | {} {} | {} |",
            s.layer.code(),
            cell(s.layer.title()),
            cell(&s.text)
        )?;
    }
    if !report.findings.is_empty() {
        writeln!(out)?;
        writeln!(out, "#### Findings")?;
        for f in report.findings {
            let sev = match f.severity {
                Severity::Error => "❌ error",
                Severity::Warning => "⚠️ warning",
                Severity::Info => "ℹ️ info",
            };
            writeln!(out)?;
            writeln!(
                out,
                "- **{sev}** {} {} — {}",
                f.layer.code(),
                code(&f.id),
                cell(&f.title)
            )?;
            if let Some(env) = &f.environment {
                writeln!(out, "  - environment: {}", code(env))?;
            }
            for e in &f.evidence {
                writeln!(out, "  - {}", cell(e))?;
            }
            if !f.fix.is_empty() {
                writeln!(out)?;
                writeln!(out, "  Fix:")?;
                writeln!(out)?;
                for line in fenced(&f.fix, "text").lines() {
                    writeln!(out, "  {line}")?;
                }
            }
        }
    }
    let mut facts_text = Vec::new();
    facts::render(&mut facts_text, facts)?;
    if !facts.probe_errors.is_empty() {
        writeln!(out)?;
        writeln!(
            out,
            "{} thing(s) could not be read (listed with the facts).",
            facts.probe_errors.len()
        )?;
    }
    writeln!(out)?;
    writeln!(
        out,
        "<details><summary>Facts (with where each came from)</summary>"
    )?;
    writeln!(out)?;
    write!(
        out,
        "{}",
        fenced(&String::from_utf8_lossy(&facts_text), "text")
    )?;
    writeln!(out)?;
    writeln!(out, "</details>")?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_and_code_spans_are_escaped() {
        assert_eq!(cell("a|b<script>\nc"), "a\\|b&lt;script&gt; c");
        assert_eq!(code("x`y"), "``x`y``");
        assert_eq!(code("`x"), "`` `x ``");
        assert!(fenced("```\nrm -rf", "sh").starts_with("````sh\n"));
    }
}
