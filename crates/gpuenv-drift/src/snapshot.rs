//! The snapshot file: `gpuenv.snapshot/1`, the facts of one observation plus its findings, time
//! and host. A saved doctor report (`gpuenv.report/1`) is read as a snapshot too.

use gpuenv_check::{Finding, Layer, Severity};
use gpuenv_facts::Facts;
use gpuenv_kb::Kb;
use serde::{Deserialize, Serialize};

/// The schema id every snapshot carries; bumped only when a field changes meaning.
pub const SNAPSHOT_SCHEMA: &str = "gpuenv.snapshot/1";

/// The machine's stack as observed at one moment.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Snapshot {
    /// `gpuenv.snapshot/1`.
    pub schema: String,
    /// The gpuenv that took it.
    pub gpuenv_version: String,
    /// Seconds since the Unix epoch.
    pub timestamp: u64,
    /// The host name, when known.
    pub host: Option<String>,
    /// The findings at that moment. A diff re-runs the checks on a side unless this gpuenv
    /// version with this knowledge base wrote it (then they are the same by construction).
    pub findings: Vec<SnapshotFinding>,
    /// The knowledge base the findings were judged with (name, date, sources, overrides).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub knowledge_base: Option<String>,
    /// Every fact doctor observed, per layer and per environment.
    pub facts: Facts,
}

/// A finding as a snapshot records it: enough to list, not the evidence.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SnapshotFinding {
    pub id: String,
    pub severity: Severity,
    pub layer: Layer,
    #[serde(default)]
    pub environment: Option<String>,
    pub title: String,
    /// The fix, as doctor prints it.
    #[serde(default)]
    pub fix: String,
}

impl From<&Finding> for SnapshotFinding {
    fn from(f: &Finding) -> SnapshotFinding {
        SnapshotFinding {
            id: f.id.clone(),
            severity: f.severity,
            layer: f.layer,
            environment: f.environment.clone(),
            title: f.title.clone(),
            fix: f.fix.clone(),
        }
    }
}

impl SnapshotFinding {
    /// Back to a finding (without its evidence).
    pub fn to_finding(&self) -> Finding {
        Finding {
            id: self.id.clone(),
            severity: self.severity,
            layer: self.layer,
            title: self.title.clone(),
            evidence: Vec::new(),
            fix: self.fix.clone(),
            environment: self.environment.clone(),
        }
    }
}

/// What identifies a knowledge base's judgement: its name, date, source count and overrides.
pub fn kb_identity(kb: &Kb) -> String {
    let overrides: Vec<String> = kb
        .origins
        .iter()
        .map(|(t, o)| format!("{t}: {o}"))
        .collect();
    format!(
        "{} {} ({} sources){}",
        kb.name,
        kb.as_of,
        kb.source_count(),
        if overrides.is_empty() {
            String::new()
        } else {
            format!(" with {}", overrides.join(", "))
        }
    )
}

/// Why a file is not a snapshot this gpuenv can read.
#[derive(Debug, thiserror::Error)]
pub enum SnapshotError {
    #[error("not JSON: {0}")]
    Json(#[from] serde_json::Error),
    #[error(
        "not a gpuenv snapshot (no \"schema\" field naming gpuenv.snapshot/N or gpuenv.report/N)"
    )]
    NotASnapshot,
    #[error("written by a newer gpuenv (schema {0}); this gpuenv reads gpuenv.snapshot/1 and gpuenv.report/1 — upgrade gpuenv to compare it")]
    Newer(String),
    #[error("schema {schema}: {message}")]
    Invalid { schema: String, message: String },
}

impl Snapshot {
    /// A snapshot of `facts` with the findings the checks gave for them (judged with `kb`, when
    /// known).
    pub fn new(
        facts: Facts,
        findings: &[Finding],
        timestamp: u64,
        gpuenv_version: &str,
        kb: Option<&Kb>,
    ) -> Snapshot {
        let host = facts.os.hostname.as_ref().map(|h| h.value.clone());
        Snapshot {
            schema: SNAPSHOT_SCHEMA.to_string(),
            gpuenv_version: gpuenv_version.to_string(),
            timestamp,
            host,
            findings: findings.iter().map(SnapshotFinding::from).collect(),
            knowledge_base: kb.map(kb_identity),
            facts,
        }
    }

    /// The stored findings, when this gpuenv with `kb` wrote them (checks are pure functions of
    /// facts and knowledge base, so running them again would give the same); else `None`.
    pub fn trusted_findings(&self, kb: &Kb) -> Option<Vec<Finding>> {
        let same = self.gpuenv_version == env!("CARGO_PKG_VERSION")
            && self.knowledge_base.as_deref() == Some(kb_identity(kb).as_str());
        same.then(|| {
            self.findings
                .iter()
                .map(SnapshotFinding::to_finding)
                .collect()
        })
    }

    /// Reads a snapshot (or a doctor JSON report) from its text. Older files whose facts lack
    /// fields added since read with those fields empty; a newer schema is refused by name.
    pub fn parse(text: &str) -> Result<Snapshot, SnapshotError> {
        // Only the schema first (the rest is skipped, not built), then the type it names.
        #[derive(Deserialize)]
        struct Head {
            schema: Option<String>,
        }
        let head: Head = serde_json::from_str(text)?;
        let schema = head.schema.ok_or(SnapshotError::NotASnapshot)?;
        let (kind, version) = schema.split_once('/').ok_or(SnapshotError::NotASnapshot)?;
        let version: u32 = version.parse().map_err(|_| SnapshotError::NotASnapshot)?;
        let invalid = |e: serde_json::Error| SnapshotError::Invalid {
            schema: schema.clone(),
            message: e.to_string(),
        };
        match (kind, version) {
            ("gpuenv.snapshot", 1) => serde_json::from_str(text).map_err(invalid),
            ("gpuenv.report", 1) => {
                #[derive(Deserialize)]
                struct ReportView {
                    gpuenv_version: String,
                    timestamp: u64,
                    findings: Vec<Finding>,
                    facts: Facts,
                }
                let r: ReportView = serde_json::from_str(text).map_err(invalid)?;
                let mut s =
                    Snapshot::new(r.facts, &r.findings, r.timestamp, &r.gpuenv_version, None);
                s.schema = schema;
                Ok(s)
            }
            ("gpuenv.snapshot" | "gpuenv.report", _) => Err(SnapshotError::Newer(schema)),
            _ => Err(SnapshotError::NotASnapshot),
        }
    }
}

/// Parses two snapshots at once (on two threads): parsing is most of a diff's cost.
pub fn parse_pair(
    a: &str,
    b: &str,
) -> (
    Result<Snapshot, SnapshotError>,
    Result<Snapshot, SnapshotError>,
) {
    std::thread::scope(|scope| {
        let other = scope.spawn(|| Snapshot::parse(b));
        let here = Snapshot::parse(a);
        let there = other.join().unwrap_or_else(|_| Snapshot::parse(b));
        (here, there)
    })
}
