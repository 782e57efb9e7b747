//! `gpuenv ldd FILE`: which file the dynamic loader would load for every library `FILE` needs
//! (and for the knowledge base's dlopen edges), and why — simulated from files, never executed.

use std::io::{self, Write};
use std::path::Path;
use std::process::ExitCode;

use anyhow::{Context as _, Result};
use gpuenv_probe::loader::simulate;
use gpuenv_probe::{Environment, SystemRoot};

use crate::cli::{Format, GlobalArgs};
use crate::commands::load_kb;
use crate::render;

pub fn run(global: &GlobalArgs, file: &Path) -> Result<ExitCode> {
    let kb = load_kb(global)?;
    let root = SystemRoot::new(&global.root)
        .with_context(|| format!("--root {}", global.root.display()))?;
    let path = path_in_root(&root, file)?;
    let env = Environment::from_process();
    let sim = simulate(&root, &env, Some(&kb), &path)?;
    let stdout = io::stdout();
    let mut out = stdout.lock();
    match global.format {
        Format::Json => render::ldd::json(&mut out, &root, &sim)?,
        Format::Human | Format::Markdown | Format::Prometheus | Format::Html => {
            render::ldd::human(&mut out, &sim, global.verbose)?
        }
    }
    out.flush()?;
    Ok(if sim.missing().is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// `FILE` as a path inside the root: on the live root a relative path is taken from the current
/// directory; under `--root` it is taken from the root's `/`.
fn path_in_root(root: &SystemRoot, file: &Path) -> Result<String> {
    let text = file
        .to_str()
        .with_context(|| format!("{}: the path is not UTF-8", file.display()))?;
    if text.starts_with('/') {
        return Ok(text.to_string());
    }
    if root.is_live() {
        let cwd = std::env::current_dir().context("cannot read the current directory")?;
        let cwd = cwd
            .to_str()
            .context("the current directory is not UTF-8")?
            .to_string();
        return Ok(format!("{}/{}", cwd.trim_end_matches('/'), text));
    }
    Ok(format!("/{text}"))
}
