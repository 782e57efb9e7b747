//! Drift: what changed in a machine's GPU stack between two observations, and which version
//! contracts the change broke.
//!
//! A [`Snapshot`] is the machine's [`Facts`](gpuenv_facts::Facts) as observed, with the findings
//! of that moment, a timestamp and the host, as versioned JSON (`gpuenv.snapshot/1`).
//! [`diff`] compares two snapshots' facts item by item — per layer and per Python environment —
//! and runs the checks on both sides: a finding present after and not before is a contract the
//! changes broke, and is attributed to the changes that can have caused it. Everything here is
//! pure (no file system, no clock): the CLI reads and writes the files, `gpuenv-history` stores
//! the runs.
//!
//! Why a crate of its own rather than a module of `gpuenv-check`: checks judge *one* machine and
//! must stay a catalogue of rules; drift compares *two* and calls the whole check run on each, so
//! it sits above `gpuenv-check`. The history store (SQLite) and the CLI both need it.

mod diff;
mod glob;
mod items;
mod prevent;
mod snapshot;

pub use diff::{diff, grouped, Change, ChangeKind, Diff, DiffFinding, Side, DIFF_SCHEMA};
pub use glob::glob_match;
pub use items::{items, Item};
pub use prevent::prevention;
pub use snapshot::{
    kb_identity, parse_pair, Snapshot, SnapshotError, SnapshotFinding, SNAPSHOT_SCHEMA,
};
