//! `gpuenv completions SHELL` and `gpuenv man`: generated from the clap definition, so they
//! cannot drift from the command line.

use std::io::{self, Write};
use std::process::ExitCode;

use anyhow::Result;
use clap::CommandFactory;
use clap_complete::Shell;

use crate::cli::{Cli, CompletionShell};

/// The completion script for `shell`, as bytes.
pub fn completion_script(shell: CompletionShell) -> Vec<u8> {
    let shell = match shell {
        CompletionShell::Bash => Shell::Bash,
        CompletionShell::Zsh => Shell::Zsh,
        CompletionShell::Fish => Shell::Fish,
    };
    let mut buf = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "gpuenv", &mut buf);
    buf
}

/// The man page (roff), as bytes.
pub fn man_page() -> io::Result<Vec<u8>> {
    let mut buf = Vec::new();
    clap_mangen::Man::new(Cli::command()).render(&mut buf)?;
    Ok(buf)
}

pub fn completions(shell: CompletionShell) -> Result<ExitCode> {
    write_all(&completion_script(shell))
}

pub fn man() -> Result<ExitCode> {
    write_all(&man_page()?)
}

/// Writes the whole text at once (it is generated in memory first, so an error writing it is
/// the only way to get a partial script).
fn write_all(bytes: &[u8]) -> Result<ExitCode> {
    let mut out = io::stdout().lock();
    out.write_all(bytes)?;
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}
