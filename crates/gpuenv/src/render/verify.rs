//! Renders `gpuenv verify`: each step ✓ / ✗ with its figure, how the run ended, the explanation
//! of a failure and the doctor finding behind it, and the loading differences; or the
//! `gpuenv.verify/1` JSON object.

use std::io::{self, Write};

use gpuenv_check::Severity;

use crate::commands::verify::outcome::{Status, Step};
use crate::commands::verify::VerifyReport;

pub fn json(out: &mut impl Write, report: &VerifyReport) -> io::Result<()> {
    serde_json::to_writer_pretty(&mut *out, report)?;
    writeln!(out)
}

fn mib(bytes: u64) -> String {
    format!("{:.0} MiB", bytes as f64 / (1024.0 * 1024.0))
}

/// One line for a successful or failed step.
fn describe(s: &Step) -> String {
    let d = &s.detail;
    let device = s.device.map(|i| format!(" on GPU {i}")).unwrap_or_default();
    let ms = s.ms.map(|m| format!(" in {m:.1} ms")).unwrap_or_default();
    match s.step.as_str() {
        "python" => format!(
            "Python {} ({})",
            s.text("version").unwrap_or("?"),
            s.text("executable").unwrap_or("?")
        ),
        "import" => format!(
            "import{}{ms}",
            s.text("version")
                .map(|v| format!(" (version {v})"))
                .unwrap_or_default()
        ),
        "cuda" => {
            let count = d.get("device_count").and_then(|v| v.as_u64()).unwrap_or(0);
            let mut line = format!("CUDA: {count} GPU(s) visible");
            if let Some(c) = s.text("cuda") {
                line.push_str(&format!(", CUDA {c}"));
            }
            if let Some(c) = d.get("cudnn").filter(|v| !v.is_null()) {
                line.push_str(&format!(", cuDNN {}", c.to_string().trim_matches('"')));
            }
            if let Some(devices) = d.get("devices").and_then(|v| v.as_array()) {
                for dev in devices {
                    let name = dev.get("name").and_then(|v| v.as_str()).unwrap_or("?");
                    let cc = dev
                        .get("cc")
                        .map(|v| v.to_string().trim_matches('"').to_string())
                        .unwrap_or_default();
                    line.push_str(&format!("; {name} (CC {cc})"));
                }
            }
            line
        }
        "matmul" => {
            let tflops = d
                .get("tflops")
                .and_then(|v| v.as_f64())
                .map(|t| format!(", {t:.1} TFLOP/s"))
                .unwrap_or_default();
            format!("4096×4096 fp32 matrix product{device}{ms}{tflops}")
        }
        "conv" => format!("cuDNN 3×3 convolution (32×64×56×56){device}{ms}"),
        "memory" => {
            let peaks: Vec<String> = d
                .get("devices")
                .and_then(|v| v.as_array())
                .map(|a| {
                    a.iter()
                        .map(|p| {
                            let dev = p.get("device").and_then(|v| v.as_u64()).unwrap_or(0);
                            let bytes = p.get("peak_bytes").and_then(|v| v.as_u64()).unwrap_or(0);
                            format!("GPU {dev} {}", mib(bytes))
                        })
                        .collect()
                })
                .unwrap_or_default();
            format!("peak memory: {}", peaks.join(", "))
        }
        "libraries" => {
            let n = d
                .get("mapped")
                .and_then(|v| v.as_array())
                .map_or(0, Vec::len);
            format!(
                "{n} CUDA librar{} mapped (/proc/self/maps)",
                if n == 1 { "y" } else { "ies" }
            )
        }
        "error" => "the script stopped on an exception".to_string(),
        other => other.to_string(),
    }
}

pub fn human(out: &mut impl Write, r: &VerifyReport, color: bool) -> io::Result<()> {
    let paint = |code: &str, s: &str| {
        if color {
            format!("\u{1b}[{code}m{s}\u{1b}[0m")
        } else {
            s.to_string()
        }
    };
    writeln!(
        out,
        "gpuenv verify: {} in environment {} ({}), with {}",
        r.framework, r.environment.name, r.environment.prefix, r.environment.python
    )?;
    writeln!(out)?;
    for s in r
        .steps
        .iter()
        .filter(|s| s.step != "start" && s.step != "done")
    {
        let mark = if s.ok {
            paint("32", "✓")
        } else {
            paint("31", "✗")
        };
        let what = match (s.step.as_str(), &r.stopped_at) {
            ("error", Some(step)) => format!("{step} failed"),
            _ => describe(s),
        };
        writeln!(out, "  {mark} {what}")?;
        if !s.ok {
            if let Some(e) = &s.error {
                let lines: Vec<&str> = e.lines().filter(|l| !l.trim().is_empty()).collect();
                for l in &lines[lines.len().saturating_sub(3)..] {
                    writeln!(out, "      {}", l.trim())?;
                }
            }
        }
    }
    if let Some(step) = &r.stopped_at {
        let what = match r.status {
            Status::TimedOut => format!(
                "{step} did not finish within {} s{}; the process group was killed",
                r.timeout_s,
                if step == "import" {
                    " (a hung import)"
                } else {
                    ""
                }
            ),
            Status::Crashed => format!(
                "the process ended during {step} (exit status {})",
                r.exit_status.map_or("?".to_string(), |c| c.to_string())
            ),
            Status::NotStarted => {
                format!("the interpreter could not be started: {}", r.stderr_tail)
            }
            // A failed step is shown in its place above.
            _ => String::new(),
        };
        if !what.is_empty() {
            writeln!(out, "  {} {what}", paint("31", "✗"))?;
        }
    }
    writeln!(out)?;
    let verdict = match r.status {
        Status::Passed => paint("32", "PASSED"),
        _ => paint("31", &r.status.as_str().to_uppercase()),
    };
    writeln!(out, "Result: {verdict} ({:.1} s)", r.duration_ms / 1000.0)?;
    if let Some(e) = &r.explanation {
        writeln!(out)?;
        match e.top() {
            Some(top) => {
                writeln!(
                    out,
                    "Why: {} ({}, confidence {:.2})",
                    top.category, top.layer, top.confidence
                )?;
                writeln!(out, "   {}", top.explanation)?;
                writeln!(out, "   Fix: {}", top.fix)?;
            }
            None => writeln!(
                out,
                "Why: unknown (the error matches no known GPU-stack failure well enough)"
            )?,
        }
    }
    if let Some(f) = r.explained_by.first() {
        writeln!(out)?;
        writeln!(
            out,
            "Doctor's finding that explains it: {} — {}",
            f.id, f.title
        )?;
        for ev in f.evidence.iter().take(6) {
            writeln!(out, "   - {ev}")?;
        }
        if !f.fix.is_empty() {
            writeln!(out, "   Fix: {}", f.fix)?;
        }
        for other in r.explained_by.iter().skip(1).take(3) {
            writeln!(out, "   also: {} — {}", other.id, other.title)?;
        }
    } else if r.explanation.is_some() {
        writeln!(out)?;
        writeln!(out, "No doctor finding explains it (run `gpuenv doctor`).")?;
    }
    if !r.loading.is_empty() {
        writeln!(out)?;
        writeln!(
            out,
            "Loading, compared with gpuenv's prediction for {}:",
            r.predicted_for.as_deref().unwrap_or("?")
        )?;
        for f in &r.loading {
            let sev = match f.severity {
                Severity::Error => paint("31", "error"),
                Severity::Warning => paint("33", "warning"),
                Severity::Info => "info".to_string(),
            };
            writeln!(out, "  {sev} [{}] {}", f.id, f.title)?;
            for ev in f.evidence.iter().take(6) {
                writeln!(out, "     - {ev}")?;
            }
        }
    }
    Ok(())
}
