//! The fleet view: many nodes' `gpuenv doctor` reports merged into one picture — each node's stack
//! in one row, the majority value of every column and the nodes that differ, the nodes with error
//! findings, groups of nodes with an identical stack, and the reports that could not be used.
//!
//! Pure: no file system, no clock. The CLI reads the files (on several threads) and hands each
//! document's bytes to [`summarize`]; [`Fleet::add`] folds the small [`NodeSummary`] into the merge,
//! whose state is one row of interned ids per node plus one copy of every distinct value, so memory
//! grows with the distinct values, never with the size of the reports. [`Fleet::finish`] gives the
//! serializable [`FleetView`] the renderers (`render`) print.

mod parse;
pub mod render;

use std::collections::HashMap;

use serde::Serialize;

pub use parse::{summarize, NodeSummary, Rejection, ACCEPTED_SCHEMAS, FIXED_COLUMNS};

/// The schema of `gpuenv fleet --format json`.
pub const FLEET_SCHEMA: &str = "gpuenv.fleet/1";

/// Every distinct string once; ids are indexes.
#[derive(Debug, Default)]
struct Interner {
    ids: HashMap<Box<str>, u32>,
    strings: Vec<Box<str>>,
}

impl Interner {
    fn intern(&mut self, s: &str) -> u32 {
        if let Some(&id) = self.ids.get(s) {
            return id;
        }
        let id = u32::try_from(self.strings.len()).unwrap_or(u32::MAX);
        self.strings.push(s.into());
        self.ids.insert(s.into(), id);
        id
    }

    fn get(&self, id: u32) -> &str {
        self.strings.get(id as usize).map_or("", |s| s)
    }
}

#[derive(Debug)]
struct Row {
    host: u32,
    origin: u32,
    timestamp: u64,
    /// `(column id, value id)`, sorted by column id.
    cells: Vec<(u32, u32)>,
    error_findings: Vec<u32>,
    errors: u32,
    warnings: u32,
}

/// The merge in progress.
#[derive(Debug, Default)]
pub struct Fleet {
    strings: Interner,
    rows: Vec<Row>,
    by_host: HashMap<u32, usize>,
    problems: Vec<Problem>,
}

/// A report that was not used, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Problem {
    /// The file (or `stdin:LINE`) it came from.
    pub origin: String,
    /// `unreadable`, `malformed`, `other-schema` or `duplicate-host`.
    pub kind: &'static str,
    pub message: String,
}

impl Fleet {
    pub fn new() -> Fleet {
        Fleet::default()
    }

    /// Reads one document and adds it (or records why it cannot be used).
    pub fn add_document(&mut self, origin: &str, bytes: &[u8]) {
        let result = summarize(origin, bytes);
        self.add_result(origin, result);
    }

    /// Adds what [`summarize`] returned for one document.
    pub fn add_result(&mut self, origin: &str, result: Result<NodeSummary, Rejection>) {
        match result {
            Ok(summary) => self.add(origin, &summary),
            Err(Rejection::Malformed(m)) => self.problem(origin, "malformed", m),
            Err(Rejection::OtherSchema(s)) => self.problem(
                origin,
                "other-schema",
                format!(
                    "schema {s:?}; this gpuenv reads {}",
                    ACCEPTED_SCHEMAS.join(", ")
                ),
            ),
        }
    }

    /// Records a report that could not be read at all.
    pub fn problem(&mut self, origin: &str, kind: &'static str, message: String) {
        self.problems.push(Problem {
            origin: origin.to_string(),
            kind,
            message,
        });
    }

    /// Adds one node. A second report for a host already seen keeps the newer one (by timestamp;
    /// on a tie the one whose origin sorts first) and records the other as a `duplicate-host` problem.
    pub fn add(&mut self, origin: &str, summary: &NodeSummary) {
        let host = self.strings.intern(&summary.host);
        let origin_id = self.strings.intern(origin);
        let mut cells: Vec<(u32, u32)> = summary
            .cells
            .iter()
            .map(|(c, v)| (self.strings.intern(c), self.strings.intern(v)))
            .collect();
        cells.sort_unstable();
        let row = Row {
            host,
            origin: origin_id,
            timestamp: summary.timestamp,
            cells,
            error_findings: summary
                .error_findings
                .iter()
                .map(|f| self.strings.intern(f))
                .collect(),
            errors: summary.errors,
            warnings: summary.warnings,
        };
        match self.by_host.get(&host) {
            Some(&i) => {
                let Some(old) = self.rows.get_mut(i) else {
                    return;
                };
                // Deterministic whatever the order of arrival: newer wins, then the smaller origin.
                let newer = row.timestamp > old.timestamp
                    || (row.timestamp == old.timestamp
                        && self.strings.get(origin_id) < self.strings.get(old.origin));
                let (kept, dropped) = if newer {
                    let dropped = old.origin;
                    *old = row;
                    (origin_id, dropped)
                } else {
                    (old.origin, origin_id)
                };
                let message = format!(
                    "host {} has another report, {} (newer or first); this one is not used",
                    summary.host,
                    self.strings.get(kept)
                );
                let dropped = self.strings.get(dropped).to_string();
                self.problem(&dropped, "duplicate-host", message);
            }
            None => {
                self.by_host.insert(host, self.rows.len());
                self.rows.push(row);
            }
        }
    }

    /// How many nodes were added.
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// How many distinct strings the merge holds.
    pub fn distinct_values(&self) -> usize {
        self.strings.strings.len()
    }

    /// The merged view.
    pub fn finish(mut self) -> FleetView {
        self.problems
            .sort_by(|a, b| a.origin.cmp(&b.origin).then(a.kind.cmp(b.kind)));
        let s = &self.strings;
        // Columns: the fixed ones first, then environments by name.
        let mut column_ids: Vec<u32> = Vec::new();
        for name in FIXED_COLUMNS {
            if let Some(&id) = s.ids.get(*name) {
                column_ids.push(id);
            }
        }
        let mut env_columns: Vec<u32> = self
            .rows
            .iter()
            .flat_map(|r| r.cells.iter().map(|&(c, _)| c))
            .filter(|&c| s.get(c).starts_with("env:"))
            .collect();
        env_columns.sort_unstable_by(|a, b| s.get(*a).cmp(s.get(*b)));
        env_columns.dedup();
        column_ids.extend(env_columns);

        let mut order: Vec<usize> = (0..self.rows.len()).collect();
        order.sort_by(|&a, &b| {
            let (ra, rb) = (&self.rows[a], &self.rows[b]);
            s.get(ra.host).cmp(s.get(rb.host))
        });
        let cell = |row: &Row, col: u32| -> Option<u32> {
            row.cells
                .binary_search_by_key(&col, |&(c, _)| c)
                .ok()
                .and_then(|i| row.cells.get(i))
                .map(|&(_, v)| v)
        };

        let mut columns = Vec::with_capacity(column_ids.len());
        let mut majority_ids = Vec::with_capacity(column_ids.len());
        for &col in &column_ids {
            let mut counts: HashMap<Option<u32>, usize> = HashMap::new();
            for row in &self.rows {
                *counts.entry(cell(row, col)).or_default() += 1;
            }
            let mut ranked: Vec<(Option<u32>, usize)> = counts.into_iter().collect();
            ranked.sort_by(|a, b| {
                b.1.cmp(&a.1)
                    .then_with(|| value_text(s, a.0).cmp(value_text(s, b.0)))
            });
            let (majority, majority_nodes) = ranked.first().copied().unwrap_or((None, 0));
            majority_ids.push(majority);
            let differing = order
                .iter()
                .filter(|&&i| cell(&self.rows[i], col) != majority)
                .map(|&i| s.get(self.rows[i].host).to_string())
                .collect();
            columns.push(ColumnView {
                name: s.get(col).to_string(),
                majority: majority.map(|v| s.get(v).to_string()),
                majority_nodes,
                distinct: ranked.len(),
                values: ranked
                    .iter()
                    .map(|&(v, n)| ValueCount {
                        value: v.map(|v| s.get(v).to_string()),
                        nodes: n,
                    })
                    .collect(),
                differing,
            });
        }

        let mut groups_map: HashMap<Vec<Option<u32>>, Vec<usize>> = HashMap::new();
        let mut rows = Vec::with_capacity(self.rows.len());
        for &i in &order {
            let row = &self.rows[i];
            let key: Vec<Option<u32>> = column_ids.iter().map(|&c| cell(row, c)).collect();
            let differs = key.iter().zip(&majority_ids).map(|(v, m)| v != m).collect();
            rows.push(RowView {
                host: s.get(row.host).to_string(),
                origin: s.get(row.origin).to_string(),
                timestamp: row.timestamp,
                cells: key
                    .iter()
                    .map(|v| v.map(|v| s.get(v).to_string()))
                    .collect(),
                differs,
                errors: row.errors,
                warnings: row.warnings,
                error_findings: row
                    .error_findings
                    .iter()
                    .map(|&f| s.get(f).to_string())
                    .collect(),
                group: 0,
            });
            groups_map.entry(key).or_default().push(rows.len() - 1);
        }
        let mut groups: Vec<Vec<usize>> = groups_map.into_values().collect();
        groups.sort_by(|a, b| b.len().cmp(&a.len()).then_with(|| a.cmp(b)));
        let mut group_views = Vec::with_capacity(groups.len());
        for (g, members) in groups.iter().enumerate() {
            for &m in members {
                if let Some(r) = rows.get_mut(m) {
                    r.group = g + 1;
                }
            }
            group_views.push(GroupView {
                group: g + 1,
                nodes: members.len(),
                hosts: members
                    .iter()
                    .filter_map(|&m| rows.get(m).map(|r| r.host.clone()))
                    .collect(),
            });
        }

        let mut by_finding: HashMap<&str, Vec<String>> = HashMap::new();
        for r in &rows {
            for f in &r.error_findings {
                by_finding.entry(f).or_default().push(r.host.clone());
            }
        }
        let mut findings: Vec<FindingNodes> = by_finding
            .into_iter()
            .map(|(f, hosts)| FindingNodes {
                finding: f.to_string(),
                nodes: hosts.len(),
                hosts,
            })
            .collect();
        findings.sort_by(|a, b| b.nodes.cmp(&a.nodes).then(a.finding.cmp(&b.finding)));

        FleetView {
            schema: FLEET_SCHEMA,
            nodes: rows.len(),
            nodes_with_errors: rows.iter().filter(|r| r.errors > 0).count(),
            columns,
            rows,
            groups: group_views,
            error_findings: findings,
            problems: self.problems,
        }
    }
}

fn value_text(s: &Interner, v: Option<u32>) -> &str {
    v.map_or("", |v| s.get(v))
}

/// `gpuenv fleet --format json` (`gpuenv.fleet/1`).
#[derive(Debug, Clone, Serialize)]
pub struct FleetView {
    pub schema: &'static str,
    pub nodes: usize,
    pub nodes_with_errors: usize,
    /// The node × layer matrix's columns: `os`, `kernel`, `driver`, `gpus`, `cuda`, `cudnn`, then
    /// `env:NAME` for each Python environment (by name) that has a framework on some node.
    pub columns: Vec<ColumnView>,
    /// One per node, sorted by host; `cells` line up with `columns`.
    pub rows: Vec<RowView>,
    /// Nodes with an identical stack (every cell equal), largest group first.
    pub groups: Vec<GroupView>,
    /// Each error finding and the nodes that have it, most widespread first.
    pub error_findings: Vec<FindingNodes>,
    /// Reports that were not used: unreadable, malformed, another schema, a duplicate host.
    pub problems: Vec<Problem>,
}

#[derive(Debug, Clone, Serialize)]
pub struct ColumnView {
    pub name: String,
    /// The most common value (`null`: most nodes have none, e.g. no such environment).
    pub majority: Option<String>,
    pub majority_nodes: usize,
    pub distinct: usize,
    /// Every value with its node count, most common first.
    pub values: Vec<ValueCount>,
    /// Hosts whose value is not the majority's.
    pub differing: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct ValueCount {
    pub value: Option<String>,
    pub nodes: usize,
}

#[derive(Debug, Clone, Serialize)]
pub struct RowView {
    pub host: String,
    pub origin: String,
    pub timestamp: u64,
    pub cells: Vec<Option<String>>,
    /// Per cell: whether it differs from the column's majority.
    pub differs: Vec<bool>,
    pub errors: u32,
    pub warnings: u32,
    pub error_findings: Vec<String>,
    /// The stack group (1 = the largest).
    pub group: usize,
}

#[derive(Debug, Clone, Serialize)]
pub struct GroupView {
    pub group: usize,
    pub nodes: usize,
    pub hosts: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct FindingNodes {
    /// The finding id, with its environment in parentheses for L5–L6 findings.
    pub finding: String,
    pub nodes: usize,
    pub hosts: Vec<String>,
}

impl FleetView {
    /// Whether any node has an error finding or any report could not be used.
    pub fn has_trouble(&self) -> bool {
        self.nodes_with_errors > 0 || !self.problems.is_empty()
    }
}

#[cfg(test)]
mod tests;
