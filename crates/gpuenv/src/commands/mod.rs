//! One module per subcommand. Each takes the resolved global settings and returns the exit code.

pub mod archs;
pub mod completions;
pub mod doctor;
pub mod drift;
pub mod env;
pub mod explain;
pub mod fleet;
pub mod kb;
pub mod ldd;
pub mod output;
pub mod plan;
pub mod rules;
pub mod serve;
pub mod verify;

use anyhow::{Context as _, Result};
use gpuenv_kb::Kb;

use crate::cli::GlobalArgs;

/// The knowledge base: built in, or with a user's `--kb` file's tables replacing the built-in ones.
pub fn load_kb(global: &GlobalArgs) -> Result<Kb> {
    match &global.kb {
        None => Ok(Kb::builtin()?),
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("cannot read knowledge-base file {}", path.display()))?;
            let name = path.display().to_string();
            Kb::with_override(&name, &text, None).with_context(|| format!("--kb {name}"))
        }
    }
}

/// Whether to colour human output: asked for, or on a terminal without NO_COLOR.
pub fn use_color(global: &GlobalArgs) -> bool {
    use std::io::IsTerminal;
    match global.color {
        crate::cli::ColorChoice::Always => true,
        crate::cli::ColorChoice::Never => false,
        crate::cli::ColorChoice::Auto => {
            std::env::var_os("NO_COLOR").is_none() && std::io::stdout().is_terminal()
        }
    }
}
