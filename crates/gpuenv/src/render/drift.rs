//! Human output of `gpuenv diff`, `check --baseline` and `history`: changes grouped by layer and
//! environment, the contracts they broke with fix and prevention, and the run list.

use std::io::{self, Write};

use gpuenv_check::Severity;
use gpuenv_drift::{grouped, Change, ChangeKind, Diff};
use gpuenv_history::Run;

/// `2026-11-30 03:00 UTC` from seconds since the epoch (no time-zone database needed).
pub fn utc(ts: u64) -> String {
    let days = (ts / 86_400) as i64;
    let secs = ts % 86_400;
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02} UTC",
        secs / 3600,
        (secs % 3600) / 60
    )
}

fn mark(c: &Change) -> char {
    match c.kind {
        ChangeKind::Added => '+',
        ChangeKind::Removed => '-',
        ChangeKind::Changed => '~',
    }
}

fn paint(color: bool, code: &str, text: &str) -> String {
    if color {
        format!("\x1b[{code}m{text}\x1b[0m")
    } else {
        text.to_string()
    }
}

/// The diff in words.
pub fn diff(out: &mut dyn Write, d: &Diff, color: bool) -> io::Result<()> {
    let host = |h: &Option<String>| h.as_deref().map_or(String::new(), |h| format!(", {h}"));
    writeln!(
        out,
        "{} ({}{}) → {} ({}{})",
        d.before.label,
        utc(d.before.timestamp),
        host(&d.before.host),
        d.after.label,
        utc(d.after.timestamp),
        host(&d.after.host)
    )?;
    if d.is_empty() {
        let ignored = if d.ignored > 0 {
            format!(" ({} ignored)", d.ignored)
        } else {
            String::new()
        };
        writeln!(out, "No changes{ignored}.")?;
        return Ok(());
    }
    for ((layer, env), changes) in grouped(&d.changes) {
        writeln!(out)?;
        let title = format!("{} {}", layer.code(), layer.title());
        let heading = match (
            &env,
            changes.first().and_then(|c| c.environment_name.clone()),
        ) {
            (Some(prefix), Some(name)) => format!("{title} — environment {name} ({prefix})"),
            (Some(prefix), None) => format!("{title} — environment {prefix}"),
            _ => title,
        };
        writeln!(out, "{}", paint(color, "1", &heading))?;
        for c in changes {
            writeln!(out, "  {} {}", mark(c), c.text)?;
            if !c.breaks.is_empty() {
                let text = format!("breaks: {}", c.breaks.join(", "));
                writeln!(out, "      {}", paint(color, "31", &text))?;
            }
        }
    }
    if !d.new_findings.is_empty() {
        writeln!(out)?;
        writeln!(
            out,
            "{}",
            paint(
                color,
                "1",
                "Contracts broken since the first side (findings new in the second):"
            )
        )?;
        for f in &d.new_findings {
            let sev = match f.severity {
                Severity::Error => paint(color, "31", "error"),
                Severity::Warning => paint(color, "33", "warning"),
                Severity::Info => "info".to_string(),
            };
            let env = f
                .environment
                .as_deref()
                .map_or(String::new(), |e| format!(" [{e}]"));
            writeln!(out, "  {sev} {}{env}: {}", f.id, f.title)?;
            for line in f.fix.lines().filter(|l| !l.trim().is_empty()) {
                writeln!(out, "      fix: {line}")?;
            }
            if let Some(p) = &f.prevent {
                for line in p.lines() {
                    writeln!(out, "      stop it recurring: {line}")?;
                }
            }
        }
    }
    if !d.resolved_findings.is_empty() {
        writeln!(out)?;
        writeln!(out, "Resolved (findings gone in the second):")?;
        for f in &d.resolved_findings {
            writeln!(out, "  {}: {}", f.id, f.title)?;
        }
    }
    writeln!(out)?;
    writeln!(
        out,
        "{} change(s), {} new finding(s){}",
        d.changes.len(),
        d.new_findings.len(),
        if d.ignored > 0 {
            format!(", {} ignored", d.ignored)
        } else {
            String::new()
        }
    )
}

/// The run list, each with what changed since the machine's previous run.
pub fn history(out: &mut dyn Write, runs: &[Run], pruned: usize) -> io::Result<()> {
    if pruned > 0 {
        writeln!(out, "Deleted {pruned} run(s) older than --keep.")?;
    }
    if runs.is_empty() {
        writeln!(out, "No runs recorded in that range.")?;
        return Ok(());
    }
    for r in runs {
        let host = r.host.as_deref().unwrap_or("?");
        let root = if r.root == "/" {
            String::new()
        } else {
            format!(" (root {})", r.root)
        };
        writeln!(
            out,
            "#{} {} {host}{root} {}: {} error(s), {} warning(s)",
            r.id,
            utc(r.timestamp),
            r.command,
            r.errors,
            r.warnings
        )?;
        if r.previous.is_none() {
            writeln!(out, "    first run of this machine")?;
        } else if r.changes.is_empty() && r.new_findings.is_empty() {
            writeln!(out, "    no change")?;
        }
        for c in &r.changes {
            writeln!(out, "    {} {}", mark(c), c.text)?;
        }
        if !r.new_findings.is_empty() {
            writeln!(out, "    new findings: {}", r.new_findings.join(", "))?;
        }
        if !r.resolved_findings.is_empty() {
            writeln!(out, "    resolved: {}", r.resolved_findings.join(", "))?;
        }
    }
    Ok(())
}
