//! The report contract: `gpuenv doctor --format json` prints one `Report`, versioned by its
//! `schema` field and documented by `schemas/report.schema.json`. It changes only by adding fields
//! or by a new schema version; the fleet view and other tools read it.

use serde::Serialize;

use gpuenv_check::{Finding, LayerSummary, Severity};
use gpuenv_facts::Facts;
use gpuenv_kb::Kb;

pub const REPORT_SCHEMA: &str = "gpuenv.report/1";

#[derive(Debug, Serialize)]
pub struct Report<'a> {
    pub schema: &'static str,
    pub gpuenv_version: &'static str,
    pub knowledge_base: KbInfo,
    /// Seconds since the Unix epoch when the run started.
    pub timestamp: u64,
    pub duration_ms: f64,
    pub summary: &'a [LayerSummary],
    pub counts: Counts,
    pub findings: &'a [Finding],
    pub facts: &'a Facts,
}

#[derive(Debug, Serialize)]
pub struct KbInfo {
    pub name: String,
    pub as_of: String,
    pub sources: usize,
    /// Tables replaced by a `--kb` file, and the file's name.
    pub overrides: Vec<String>,
}

impl KbInfo {
    pub fn of(kb: &Kb) -> KbInfo {
        KbInfo {
            name: kb.name.clone(),
            as_of: kb.as_of.clone(),
            sources: kb.source_count(),
            overrides: kb
                .origins
                .iter()
                .map(|(table, origin)| format!("{table}: {origin}"))
                .collect(),
        }
    }
}

#[derive(Debug, Default, Serialize)]
pub struct Counts {
    pub error: usize,
    pub warning: usize,
    pub info: usize,
}

impl Counts {
    pub fn of(findings: &[Finding]) -> Counts {
        let mut c = Counts::default();
        for f in findings {
            match f.severity {
                Severity::Error => c.error += 1,
                Severity::Warning => c.warning += 1,
                Severity::Info => c.info += 1,
            }
        }
        c
    }
}
