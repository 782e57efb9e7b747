//! The diff of two snapshots: changed items grouped by layer and environment, and the findings
//! present after and not before, each attributed to the changes that can have caused it.

use std::collections::{BTreeMap, BTreeSet};

use gpuenv_check::{run_checks, Finding, Layer, Severity};
use gpuenv_kb::Kb;
use serde::{Deserialize, Serialize};

use crate::items::{items, Item};
use crate::prevent::prevention;
use crate::snapshot::Snapshot;

/// The schema id of `gpuenv diff --format json`.
pub const DIFF_SCHEMA: &str = "gpuenv.diff/1";

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ChangeKind {
    Added,
    Removed,
    Changed,
}

/// One thing that differs between the two sides.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Change {
    /// The stable key (`L4:cudnn:8:/usr/lib/x86_64-linux-gnu`); `--ignore` patterns match it.
    pub key: String,
    pub layer: Layer,
    /// The Python environment's prefix, for L5 changes.
    pub environment: Option<String>,
    /// That environment's short name (`ml`).
    #[serde(default)]
    pub environment_name: Option<String>,
    pub kind: ChangeKind,
    pub subject: String,
    pub before: Option<String>,
    pub after: Option<String>,
    /// The change in words: "cuDNN in /usr/lib/x86_64-linux-gnu: 8.6.0 → 8.9.2".
    pub text: String,
    /// Ids of the new findings this change can have caused.
    pub breaks: Vec<String>,
}

/// A finding present on one side only.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct DiffFinding {
    pub id: String,
    pub severity: Severity,
    pub layer: Layer,
    pub environment: Option<String>,
    pub title: String,
    pub fix: String,
    /// How to keep the change that caused it from happening again, when there is a way.
    pub prevent: Option<String>,
}

/// Which observation a side is.
#[derive(Debug, Clone, Serialize)]
pub struct Side {
    /// The file name, or `now`.
    pub label: String,
    pub timestamp: u64,
    pub host: Option<String>,
    pub schema: String,
}

/// `gpuenv diff A B`.
#[derive(Debug, Clone, Serialize)]
pub struct Diff {
    pub schema: &'static str,
    pub before: Side,
    pub after: Side,
    /// Sorted by layer, then environment, then key.
    pub changes: Vec<Change>,
    /// Findings after and not before: the contracts the changes broke.
    pub new_findings: Vec<DiffFinding>,
    /// Findings before and not after.
    pub resolved_findings: Vec<DiffFinding>,
    /// Changes left out by `--ignore` patterns.
    pub ignored: usize,
}

impl Diff {
    /// Nothing that matters changed (after `--ignore`).
    pub fn is_empty(&self) -> bool {
        self.changes.is_empty() && self.new_findings.is_empty()
    }
}

/// Compares two snapshots; `ignore` globs drop changes whose key, subject or environment match
/// (and new findings whose id matches). The checks run on both sides' facts with `kb`, so the
/// findings compared are the current gpuenv's judgement, not what an older one said (a side this
/// gpuenv wrote with this `kb` carries exactly those findings already, and they are used).
pub fn diff(a: &Snapshot, b: &Snapshot, labels: (&str, &str), kb: &Kb, ignore: &[String]) -> Diff {
    // The checks on each side are most of the cost; both sides run at once.
    let ((ia, fa), (ib, fb)) = std::thread::scope(|scope| {
        let judge = |s: &Snapshot| {
            s.trusted_findings(kb)
                .unwrap_or_else(|| run_checks(&s.facts, kb))
        };
        let other = scope.spawn(move || (items(&b.facts), judge(b)));
        let here = (items(&a.facts), judge(a));
        let there = other.join().unwrap_or_else(|_| (items(&b.facts), judge(b)));
        (here, there)
    });
    let matches = |s: &str| ignore.iter().any(|p| crate::glob_match(p, s));
    let mut ignored = 0;
    let mut changes = Vec::new();
    let keys: BTreeSet<&String> = ia.keys().chain(ib.keys()).collect();
    // An environment created or removed is one change, not one per distribution.
    let env_key = |prefix: &str| format!("L5:{prefix}:env");
    // An environment's contents compare only when both sides read it in full.
    let full = |s: &Snapshot| -> BTreeSet<String> {
        (s.facts.python.environments.iter())
            .filter(|e| e.full)
            .map(|e| e.prefix.clone())
            .collect()
    };
    let (full_a, full_b) = (full(a), full(b));
    for key in keys {
        let (x, y) = (ia.get(key), ib.get(key));
        if let Some(env) = x.or(y).and_then(|i| i.environment.as_deref()) {
            let both = ia.contains_key(&env_key(env)) && ib.contains_key(&env_key(env));
            if both && key != &env_key(env) && !(full_a.contains(env) && full_b.contains(env)) {
                continue;
            }
        }
        let change = match (x, y) {
            (Some(x), Some(y)) if x.value == y.value && x.identity == y.identity => continue,
            (Some(x), Some(y)) => changed(key, x, y),
            (None, Some(y)) => {
                if let Some(env) = &y.environment {
                    if key != &env_key(env) && !ia.contains_key(&env_key(env)) {
                        continue;
                    }
                }
                one_sided(key, y, ChangeKind::Added)
            }
            (Some(x), None) => {
                if let Some(env) = &x.environment {
                    if key != &env_key(env) && !ib.contains_key(&env_key(env)) {
                        continue;
                    }
                }
                one_sided(key, x, ChangeKind::Removed)
            }
            (None, None) => continue,
        };
        let env_hit = change.environment.as_deref().is_some_and(matches);
        if matches(&change.key) || matches(&change.subject) || env_hit {
            ignored += 1;
            continue;
        }
        changes.push(change);
    }
    let names: BTreeMap<&str, &str> = (a.facts.python.environments.iter())
        .chain(&b.facts.python.environments)
        .map(|e| (e.prefix.as_str(), e.name.as_str()))
        .collect();
    for c in &mut changes {
        c.environment_name = (c.environment.as_deref())
            .and_then(|p| names.get(p))
            .map(|n| n.to_string());
    }
    changes
        .sort_by(|x, y| (x.layer, &x.environment, &x.key).cmp(&(y.layer, &y.environment, &y.key)));

    let ident = |f: &Finding| (f.id.clone(), f.environment.clone());
    let had: BTreeSet<_> = fa.iter().map(ident).collect();
    let has: BTreeSet<_> = fb.iter().map(ident).collect();
    let family = b
        .facts
        .os
        .distribution
        .as_ref()
        .map(|d| d.value.id.clone())
        .unwrap_or_default();
    let mut new_findings = Vec::new();
    let mut seen = BTreeSet::new();
    for f in fb.iter().filter(|f| !had.contains(&ident(f))) {
        if matches(&f.id) || !seen.insert(ident(f)) {
            continue;
        }
        let causes = attribute(f, &mut changes);
        let prevent = prevention(&causes, &family);
        new_findings.push(summary(f, prevent));
    }
    let mut resolved_findings = Vec::new();
    let mut seen = BTreeSet::new();
    for f in fa.iter().filter(|f| !has.contains(&ident(f))) {
        if seen.insert(ident(f)) {
            resolved_findings.push(summary(f, None));
        }
    }
    Diff {
        schema: DIFF_SCHEMA,
        before: side(a, labels.0),
        after: side(b, labels.1),
        changes,
        new_findings,
        resolved_findings,
        ignored,
    }
}

/// Marks on each change that can have caused `f` that it breaks `f`; returns the layers and
/// environments of those changes. A finding about an environment is caused by that
/// environment's changes, else by changes on its own layer, else by any lower layer's.
fn attribute(f: &Finding, changes: &mut [Change]) -> Vec<Layer> {
    let in_env = |c: &Change| f.environment.is_some() && c.environment == f.environment;
    let same_layer = |c: &Change| c.layer == f.layer && c.environment.is_none();
    let lower = |c: &Change| c.layer < f.layer && c.environment.is_none();
    let mut hits: Vec<usize> = (0..changes.len())
        .filter(|&i| in_env(&changes[i]))
        .collect();
    if hits.is_empty() {
        hits = (0..changes.len())
            .filter(|&i| same_layer(&changes[i]))
            .collect();
    }
    if hits.is_empty() {
        hits = (0..changes.len()).filter(|&i| lower(&changes[i])).collect();
    }
    let mut layers = Vec::new();
    for i in hits {
        if let Some(c) = changes.get_mut(i) {
            if !c.breaks.contains(&f.id) {
                c.breaks.push(f.id.clone());
            }
            if !layers.contains(&c.layer) {
                layers.push(c.layer);
            }
        }
    }
    layers
}

fn summary(f: &Finding, prevent: Option<String>) -> DiffFinding {
    DiffFinding {
        id: f.id.clone(),
        severity: f.severity,
        layer: f.layer,
        environment: f.environment.clone(),
        title: f.title.clone(),
        fix: f.fix.clone(),
        prevent,
    }
}

fn side(s: &Snapshot, label: &str) -> Side {
    Side {
        label: label.to_string(),
        timestamp: s.timestamp,
        host: s.host.clone(),
        schema: s.schema.clone(),
    }
}

fn changed(key: &str, x: &Item, y: &Item) -> Change {
    let (before, after, text) = if x.value == y.value {
        let i = |i: &Item| i.identity.clone().unwrap_or_else(|| "unknown".into());
        (
            i(x),
            i(y),
            format!(
                "{}: {} (same version, a different file: {} → {})",
                y.subject,
                y.value,
                i(x),
                i(y)
            ),
        )
    } else {
        (
            x.value.clone(),
            y.value.clone(),
            format!("{}: {} → {}", y.subject, x.value, y.value),
        )
    };
    Change {
        key: key.to_string(),
        layer: y.layer,
        environment: y.environment.clone(),
        environment_name: None,
        kind: ChangeKind::Changed,
        subject: y.subject.clone(),
        before: Some(before),
        after: Some(after),
        text,
        breaks: Vec::new(),
    }
}

fn one_sided(key: &str, i: &Item, kind: ChangeKind) -> Change {
    let word = if kind == ChangeKind::Added {
        "new"
    } else {
        "gone"
    };
    let text = format!("{}: {word} ({})", i.subject, i.value);
    let (before, after) = if kind == ChangeKind::Added {
        (None, Some(i.value.clone()))
    } else {
        (Some(i.value.clone()), None)
    };
    Change {
        key: key.to_string(),
        layer: i.layer,
        environment: i.environment.clone(),
        environment_name: None,
        kind,
        subject: i.subject.clone(),
        before,
        after,
        text,
        breaks: Vec::new(),
    }
}

/// Changes grouped for display: by layer, then environment (system-wide first).
pub fn grouped(changes: &[Change]) -> BTreeMap<(Layer, Option<String>), Vec<&Change>> {
    let mut out: BTreeMap<(Layer, Option<String>), Vec<&Change>> = BTreeMap::new();
    for c in changes {
        out.entry((c.layer, c.environment.clone()))
            .or_default()
            .push(c);
    }
    out
}
