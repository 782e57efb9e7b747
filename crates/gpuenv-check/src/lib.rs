//! gpuenv's checks: pure functions of (`Facts`, `Kb`) that name every broken version contract,
//! with evidence and the exact fix, plus the per-layer summary doctor prints first. This crate
//! never touches the file system or the process environment; a check is tested with hand-built
//! facts, and end to end with fake machine roots.

pub mod checks;
pub mod context;
pub mod finding;
pub mod plan;
pub mod rule_docs;
pub mod summary;

use gpuenv_facts::Facts;
use gpuenv_kb::Kb;

pub use context::Context;
pub use finding::{rule, Finding, Layer, Rule, Severity, RULES};
pub use rule_docs::{rule_doc, rule_docs, RuleDoc};
pub use summary::{summarize, LayerStatus, LayerSummary};

/// Runs every check; findings come sorted by layer, then most severe first.
pub fn run_checks(facts: &Facts, kb: &Kb) -> Vec<Finding> {
    let cx = Context::new(facts, kb);
    let mut out = Vec::new();
    for check in checks::ALL {
        check(&cx, &mut out);
    }
    out.sort_by(|a, b| a.layer.cmp(&b.layer).then(b.severity.cmp(&a.severity)));
    out
}

#[cfg(test)]
mod tests;
