//! `gpuenv plan`'s human output: the choice, why, the constraints and what each excluded, the
//! options for a broken environment, the commands, the verification, and what is not covered.

use std::io::{self, Write};

use gpuenv_check::plan::Plan;

pub fn render(out: &mut dyn Write, p: &Plan) -> io::Result<()> {
    let t = &p.target;
    let gpus: Vec<String> = t.gpus.iter().map(|g| g.label.clone()).collect();
    writeln!(out, "Plan for {}", p.framework.name())?;
    writeln!(
        out,
        "  GPUs:   {}",
        if gpus.is_empty() {
            "none".into()
        } else {
            gpus.join("; ")
        }
    )?;
    match &t.driver {
        Some(d) => writeln!(
            out,
            "  driver: {}{} ({})",
            d.version,
            d.ceiling
                .map(|c| format!(", CUDA <= {c}"))
                .unwrap_or_default(),
            d.source
        )?,
        None => writeln!(out, "  driver: none given")?,
    }
    match &t.python {
        Some(py) => writeln!(out, "  Python: {py} ({})", t.python_from)?,
        None => writeln!(out, "  Python: any")?,
    }
    if let Some(e) = &t.environment {
        writeln!(
            out,
            "  environment: {} ({}, {}){}",
            e.name,
            e.kind,
            e.prefix,
            e.torch
                .as_ref()
                .map(|v| format!(", torch {v}"))
                .unwrap_or_default()
        )?;
    }
    writeln!(out)?;
    if !p.broken.is_empty() {
        writeln!(out, "The environment is broken (gpuenv doctor):")?;
        for b in &p.broken {
            writeln!(out, "  - {b}")?;
        }
        writeln!(out)?;
    }
    match &p.choice {
        Some(c) => {
            let companions: Vec<String> = c
                .companions
                .iter()
                .map(|x| format!("{} {}", x.name, x.version))
                .collect();
            writeln!(
                out,
                "Choice: {} {}{}{}{}",
                c.framework,
                c.version,
                c.variant
                    .as_ref()
                    .map(|v| format!("+{v}"))
                    .unwrap_or_default(),
                if companions.is_empty() {
                    String::new()
                } else {
                    format!(", {}", companions.join(", "))
                },
                if c.confirmed {
                    ""
                } else {
                    "  (rests on UNCONFIRMED rows)"
                }
            )?;
            if let Some(cu) = c.cuda {
                writeln!(
                    out,
                    "  CUDA {cu}{}",
                    c.cudnn
                        .as_ref()
                        .map(|d| format!(", cuDNN {d}"))
                        .unwrap_or_default()
                )?;
            }
            if let Some(py) = &c.python {
                writeln!(out, "  Python {py}")?;
            }
            for w in &c.why {
                writeln!(out, "  - {w}")?;
            }
        }
        None => writeln!(out, "Nothing fits.")?,
    }
    if let Some(n) = &p.nothing_fits {
        writeln!(out, "  {}", n.reason)?;
        for need in &n.needs {
            writeln!(out, "  - {need}")?;
        }
    }
    writeln!(out)?;
    writeln!(out, "Constraints:")?;
    for c in &p.constraints {
        writeln!(out, "  [{}] {}", c.kind, c.rule)?;
        for e in &c.excluded {
            writeln!(out, "      excluded: {e}")?;
        }
    }
    if !p.alternatives.is_empty() {
        writeln!(out)?;
        writeln!(out, "Alternatives:")?;
        for a in &p.alternatives {
            writeln!(out, "  - {a}")?;
        }
    }
    if !p.options.is_empty() {
        writeln!(out)?;
        writeln!(out, "Options, smallest change first:")?;
        for (i, o) in p.options.iter().enumerate() {
            writeln!(out, "  {}. {} — cost: {}", i + 1, o.title, o.cost)?;
            for c in &o.commands {
                writeln!(out, "       {c}")?;
            }
        }
    }
    if let Some(set) = p.commands.first() {
        writeln!(out)?;
        writeln!(out, "Commands ({:?}; --manager for others):", set.manager)?;
        for c in &set.commands {
            writeln!(out, "  {c}")?;
        }
        for n in &set.notes {
            writeln!(out, "  # {n}")?;
        }
        writeln!(out)?;
        writeln!(out, "Verify:")?;
        writeln!(out, "  {}", p.verify)?;
        writeln!(out, "  gpuenv doctor")?;
    }
    if !p.not_covered.is_empty() {
        writeln!(out)?;
        writeln!(out, "Not covered by the knowledge base:")?;
        for n in &p.not_covered {
            writeln!(out, "  - {n}")?;
        }
    }
    Ok(())
}
