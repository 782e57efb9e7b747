//! `gpuenv explain`: read an error (a file, stdin, `--text`, or the output of a command it runs),
//! get the facts of the machine (probe, a saved doctor report, or none), explain, render.

use std::io::{self, Read, Write};
use std::path::Path;
use std::process::{Command, ExitCode, Stdio};
use std::sync::{Arc, Mutex};

use anyhow::{anyhow, bail, Context as _, Result};

use gpuenv_explain::normalize::normalize;
use gpuenv_explain::{Explainer, Explanation};
use gpuenv_facts::Facts;
use gpuenv_kb::Kb;
use gpuenv_probe::{probe_all, Environment, SystemRoot};

use crate::cli::{ExplainArgs, Format, GlobalArgs};
use crate::commands::{load_kb, use_color};
use crate::render;

/// At most this much of an input is explained: its tail, where the error is.
const MAX_INPUT: usize = 64 * 1024 * 1024;

pub fn run(global: &GlobalArgs, args: &ExplainArgs) -> Result<ExitCode> {
    if !args.command.is_empty() {
        return run_command(global, args);
    }
    let explanation = explain(global, args, || read_input(args))?;
    let stdout = io::stdout();
    let mut out = stdout.lock();
    render_to(global, &mut out, &explanation)?;
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// The text to explain, from `--text`, `-` (stdin) or FILE.
fn read_input(args: &ExplainArgs) -> Result<Vec<u8>> {
    if let Some(text) = &args.text {
        return Ok(text.as_bytes().to_vec());
    }
    let Some(file) = &args.file else {
        bail!("give a FILE, `-` for stdin, --text TEXT, or `-- COMMAND ARGS...` to explain");
    };
    let bytes = if file.as_os_str() == "-" {
        let mut buf = Vec::new();
        io::stdin()
            .lock()
            .read_to_end(&mut buf)
            .context("cannot read stdin")?;
        buf
    } else {
        std::fs::read(file).with_context(|| format!("cannot read {}", file.display()))?
    };
    Ok(tail(bytes))
}

fn tail(mut bytes: Vec<u8>) -> Vec<u8> {
    if bytes.len() > MAX_INPUT {
        let cut = bytes.len() - MAX_INPUT;
        bytes.drain(..cut);
    }
    bytes
}

/// Explains the log `read` gives, with the facts the flags ask for. Reading and normalising the
/// log, building the catalogue's automaton, and loading the knowledge base and probing the
/// machine need nothing from one another, so they run side by side; only the automaton's pass
/// over the log waits, for the log and the automaton.
fn explain(
    global: &GlobalArgs,
    args: &ExplainArgs,
    read: impl FnOnce() -> Result<Vec<u8>>,
) -> Result<Explanation> {
    let report = args.report.as_deref().map(facts_from_report).transpose()?;
    let root = if report.is_none() && !args.no_probe {
        let root = SystemRoot::new(&global.root)
            .with_context(|| format!("--root {}", global.root.display()))?;
        Some(root)
    } else {
        None
    };
    let environment = Environment::from_process();
    let (scanned, explainer, machine) = std::thread::scope(|scope| {
        let explainer = scope.spawn(Explainer::builtin);
        let machine = scope.spawn(|| -> Result<(Kb, Option<Facts>)> {
            let kb = load_kb(global)?;
            let facts = root.as_ref().map(|root| probe_all(root, &environment, &kb));
            Ok((kb, facts))
        });
        let text = read().map(|bytes| normalize(&bytes));
        // On a terminal, a status line while the machine is probed and a large log is matched.
        let _progress = crate::progress::Progress::start("gpuenv: explaining…");
        let explainer = join(explainer);
        let scanned = match (&explainer, text) {
            (Ok(explainer), Ok(text)) => Ok(explainer.scan_text(text)),
            (_, Err(e)) => Err(e),
            // The explainer's own error is reported below.
            (Err(_), Ok(_)) => Err(anyhow!("no explainer")),
        };
        (scanned, explainer, join(machine))
    });
    let explainer = explainer.context("the built-in signature catalogue")?;
    let scanned = scanned?;
    let (kb, probed) = machine?;
    if let Some(facts) = report {
        return Ok(explainer.conclude(&scanned, Some(&facts), Some(&kb)));
    }
    let (Some(facts), Some(root)) = (probed, root) else {
        return Ok(explainer.conclude(&scanned, None, Some(&kb)));
    };
    // A log from another machine is explained from its text, not with this machine's facts.
    // `~/...` is the home directory of the user running gpuenv.
    let home = std::env::var("HOME").ok();
    let path_exists = |path: &str| match (path.strip_prefix("~/"), &home) {
        (Some(rest), Some(home)) => root.exists(&format!("{}/{rest}", home.trim_end_matches('/'))),
        (Some(_), None) => true,
        (None, _) => root.exists(path),
    };
    Ok(explainer.conclude_checked(&scanned, &facts, Some(&kb), &path_exists))
}

/// The result of a scoped thread; a panic in it goes on in this thread.
fn join<T>(handle: std::thread::ScopedJoinHandle<'_, T>) -> T {
    match handle.join() {
        Ok(value) => value,
        Err(panic) => std::panic::resume_unwind(panic),
    }
}

/// The `facts` of a saved `gpuenv doctor --format json` report.
fn facts_from_report(path: &Path) -> Result<Facts> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read report {}", path.display()))?;
    let mut report: serde_json::Value =
        serde_json::from_str(&text).with_context(|| format!("{} is not JSON", path.display()))?;
    if let Some(schema) = report.get("schema").and_then(serde_json::Value::as_str) {
        if schema != crate::report::REPORT_SCHEMA {
            anyhow::bail!(
                "{} is a `{schema}` report; this gpuenv reads `{}` (make it with this gpuenv's \
                 `gpuenv doctor --format json`)",
                path.display(),
                crate::report::REPORT_SCHEMA
            );
        }
    }
    let facts = report
        .get_mut("facts")
        .map(serde_json::Value::take)
        .with_context(|| {
            format!(
                "{} has no `facts` (is it `gpuenv doctor --format json`?)",
                path.display()
            )
        })?;
    serde_json::from_value(facts).with_context(|| {
        format!(
            "{}: `facts` do not match this gpuenv's facts",
            path.display()
        )
    })
}

fn render_to(global: &GlobalArgs, out: &mut impl Write, explanation: &Explanation) -> Result<()> {
    match global.format {
        Format::Json => render::explain::json(out, explanation)?,
        Format::Human | Format::Markdown | Format::Prometheus | Format::Html => {
            render::explain::human(out, explanation, use_color(global))?
        }
    }
    Ok(())
}

/// `gpuenv explain -- COMMAND ARGS...`: run it, pass its output through, keep its status, and
/// explain its output on stderr when it fails.
fn run_command(global: &GlobalArgs, args: &ExplainArgs) -> Result<ExitCode> {
    let (program, rest) = match args.command.split_first() {
        Some(split) => split,
        None => bail!("no command given after `--`"),
    };
    let mut child = Command::new(program)
        .args(rest)
        .stdin(Stdio::inherit())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .with_context(|| format!("cannot run `{program}`"))?;
    let captured = Arc::new(Mutex::new(Vec::new()));
    let mut threads = Vec::new();
    if let Some(stdout) = child.stdout.take() {
        let buf = Arc::clone(&captured);
        threads.push(std::thread::spawn(move || tee(stdout, io::stdout(), &buf)));
    }
    if let Some(stderr) = child.stderr.take() {
        let buf = Arc::clone(&captured);
        threads.push(std::thread::spawn(move || tee(stderr, io::stderr(), &buf)));
    }
    let status = child
        .wait()
        .with_context(|| format!("waiting for `{program}`"))?;
    for t in threads {
        // A copy thread that panicked loses only pass-through output.
        let _ = t.join();
    }
    let code = exit_code_of(&status);
    if code != 0 {
        let output = match captured.lock() {
            Ok(buf) => buf.clone(),
            Err(poisoned) => poisoned.into_inner().clone(),
        };
        let explanation = explain(global, args, || Ok(output))?;
        let stderr = io::stderr();
        let mut err = stderr.lock();
        writeln!(err)?;
        writeln!(
            err,
            "gpuenv explain: `{program}` failed (exit status {code})"
        )?;
        render_to(global, &mut err, &explanation)?;
        err.flush()?;
    }
    Ok(ExitCode::from(
        u8::try_from(code.clamp(0, 255)).unwrap_or(1),
    ))
}

/// Copies `from` to `to` chunk by chunk, keeping the last `MAX_INPUT` bytes in `buf`.
fn tee(mut from: impl Read, mut to: impl Write, buf: &Mutex<Vec<u8>>) {
    let mut chunk = [0u8; 16 * 1024];
    loop {
        let n = match from.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(_) => break,
        };
        let data = &chunk[..n];
        // The user still sees the output if our own stdout went away.
        let _ = to.write_all(data).and_then(|()| to.flush());
        if let Ok(mut b) = buf.lock() {
            b.extend_from_slice(data);
            if b.len() > MAX_INPUT + MAX_INPUT / 4 {
                let cut = b.len() - MAX_INPUT;
                b.drain(..cut);
            }
        }
    }
}

/// The shell's view of an exit status: the code, or 128 + the signal.
fn exit_code_of(status: &std::process::ExitStatus) -> i32 {
    if let Some(code) = status.code() {
        return code;
    }
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = status.signal() {
            return 128 + signal;
        }
    }
    1
}
