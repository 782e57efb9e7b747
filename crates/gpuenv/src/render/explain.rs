//! Renders an explanation (`gpuenv explain`): ranked causes with evidence and fixes for people,
//! or the `gpuenv.explain/1` JSON object.

use std::io::{self, Write};

use gpuenv_explain::{Diagnosis, Effect, Evidence, Explanation, ANSWER_FLOOR};
use serde::Serialize;

/// The JSON schema id of `gpuenv explain --format json`.
pub const EXPLAIN_SCHEMA: &str = "gpuenv.explain/1";

/// How many diagnoses are shown in full; the rest get one line.
const FULL: usize = 2;

#[derive(Serialize)]
struct ExplainJson<'a> {
    schema: &'static str,
    /// The top category when it is sure enough to be an answer, else null ("unknown").
    answer: Option<&'static str>,
    #[serde(flatten)]
    explanation: &'a Explanation,
}

pub fn json(out: &mut impl Write, explanation: &Explanation) -> io::Result<()> {
    let doc = ExplainJson {
        schema: EXPLAIN_SCHEMA,
        answer: explanation.top().map(|d| d.category.id()),
        explanation,
    };
    serde_json::to_writer_pretty(&mut *out, &doc)?;
    writeln!(out)
}

pub fn human(out: &mut impl Write, explanation: &Explanation, color: bool) -> io::Result<()> {
    let bold = |s: &str| {
        if color {
            format!("\u{1b}[1m{s}\u{1b}[0m")
        } else {
            s.to_string()
        }
    };
    let machine = if explanation.refined {
        "refined with this machine's facts"
    } else if !explanation.facts_not_used.is_empty() {
        "from the text alone: the log comes from another machine"
    } else {
        "from the text alone"
    };
    writeln!(
        out,
        "Read {} lines; recognised {} known message(s); {machine}.",
        explanation.lines,
        explanation.recognised.len()
    )?;
    if !explanation.facts_not_used.is_empty() {
        for reason in &explanation.facts_not_used {
            writeln!(out, "  • {reason}")?;
        }
        writeln!(
            out,
            "  To refine it, run gpuenv explain on that machine, or pass its \
             `gpuenv doctor --format json` report with --report."
        )?;
    }
    if explanation.top().is_none() {
        writeln!(out)?;
        writeln!(
            out,
            "{} no cause is likely enough to name (an unknown beats a guess).",
            bold("Unknown:")
        )?;
        for d in &explanation.diagnoses {
            writeln!(
                out,
                "  weak candidate: {} ({}, confidence {:.2}) from `{}`",
                d.category, d.layer, d.confidence, d.signature
            )?;
        }
        if explanation.recognised.is_empty() {
            writeln!(
                out,
                "  Nothing in the text matches the catalogue of GPU-stack errors."
            )?;
        }
        return Ok(());
    }
    for (i, d) in explanation.diagnoses.iter().enumerate() {
        writeln!(out)?;
        if i < FULL && d.confidence >= ANSWER_FLOOR {
            full(out, i + 1, d, &bold)?;
        } else {
            writeln!(
                out,
                "{}. {} ({}) — confidence {:.2} {}",
                i + 1,
                d.category,
                d.layer,
                d.confidence,
                d.level.as_str()
            )?;
        }
    }
    Ok(())
}

fn full(
    out: &mut impl Write,
    rank: usize,
    d: &Diagnosis,
    bold: &dyn Fn(&str) -> String,
) -> io::Result<()> {
    writeln!(
        out,
        "{}. {} ({}) — confidence {:.2} {}",
        rank,
        bold(d.category.id()),
        d.layer,
        d.confidence,
        d.level.as_str()
    )?;
    writeln!(out, "   {}", d.explanation)?;
    let logs: Vec<&Evidence> = d
        .evidence
        .iter()
        .filter(|e| matches!(e, Evidence::Log { .. }))
        .collect();
    if !logs.is_empty() {
        writeln!(out, "   In the log:")?;
        for e in logs {
            if let Evidence::Log { line, text } = e {
                writeln!(out, "     line {line}: {text}")?;
            }
        }
    }
    let facts: Vec<&Evidence> = d
        .evidence
        .iter()
        .filter(|e| matches!(e, Evidence::Fact(_)))
        .collect();
    if !facts.is_empty() {
        writeln!(out, "   On the machine:")?;
        for e in facts {
            if let Evidence::Fact(f) = e {
                let mark = match f.effect {
                    Effect::Confirms => "confirms:",
                    Effect::RulesOut => "rules out:",
                    Effect::Notes => "note:",
                };
                writeln!(out, "     {mark} {}", f.text)?;
            }
        }
    }
    writeln!(out, "   {} {}", bold("Fix:"), d.fix)?;
    if let Some(source) = d.sources.first() {
        writeln!(out, "   Seen in: {source}")?;
    }
    Ok(())
}
