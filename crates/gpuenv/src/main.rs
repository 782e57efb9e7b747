//! The gpuenv binary: parses the command line and dispatches to a subcommand. All logic lives in
//! the library crates; `commands/` holds one thin module per subcommand.

mod cli;
mod commands;
mod progress;
mod render;
mod report;

use std::process::ExitCode;

use anyhow::Result;
use clap::Parser;

use cli::{Cli, Command};

/// `gpuenv --version`: the program's and the knowledge base's versions.
fn version_text() -> String {
    let (as_of, sources) = gpuenv_kb::builtin_summary();
    format!(
        "{} (knowledge base {as_of}, {sources} sources)",
        env!("CARGO_PKG_VERSION")
    )
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => code,
        Err(err) => {
            // A reader that went away (`gpuenv | head`) is not an error worth a message.
            let broken_pipe = err
                .chain()
                .filter_map(|e| e.downcast_ref::<std::io::Error>())
                .any(|e| e.kind() == std::io::ErrorKind::BrokenPipe);
            if broken_pipe {
                return ExitCode::SUCCESS;
            }
            eprintln!("gpuenv: error: {err:#}");
            ExitCode::from(2)
        }
    }
}

fn run(cli: Cli) -> Result<ExitCode> {
    match cli
        .command
        .unwrap_or(Command::Doctor(cli::DoctorArgs::default()))
    {
        Command::Doctor(args) => commands::doctor::run(&cli.global, &args),
        Command::Env => {
            commands::env::run()?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Archs(args) => commands::archs::run(&cli.global, &args),
        Command::Ldd(args) => commands::ldd::run(&cli.global, &args.file),
        Command::Explain(args) => commands::explain::run(&cli.global, &args),
        Command::Plan(args) => commands::plan::run(&cli.global, &args),
        Command::Snapshot(args) => commands::drift::snapshot(&cli.global, &args),
        Command::Diff(args) => commands::drift::diff(&cli.global, &args),
        Command::Check(args) => commands::drift::check(&cli.global, &args),
        Command::History(args) => commands::drift::history(&cli.global, &args),
        Command::Fleet(args) => commands::fleet::run(&cli.global, &args),
        Command::Serve(args) => commands::serve::run(&cli.global, &args),
        Command::Verify(args) => commands::verify::run(&cli.global, &args),
        Command::Rules(args) => commands::rules::run(&cli.global, &args),
        Command::Completions(args) => commands::completions::completions(args.shell),
        Command::Man => commands::completions::man(),
        Command::Kb => {
            commands::kb::run(&commands::load_kb(&cli.global)?)?;
            Ok(ExitCode::SUCCESS)
        }
    }
}
