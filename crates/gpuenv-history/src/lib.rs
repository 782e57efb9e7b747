//! The run history: every `gpuenv doctor --record` / `gpuenv snapshot --record` stored in an
//! embedded SQLite database, with what changed since the same machine's previous run.
//!
//! Reliability: the database runs in WAL mode with a busy timeout, and every record is one
//! `BEGIN IMMEDIATE` transaction, so a cron job and a person recording at the same moment both
//! land and a process killed mid-write leaves the previous state. A file that is not SQLite, or
//! an SQLite database of another program (its `application_id` is not gpuenv's and it has
//! tables), or one written by a newer gpuenv (`user_version` above ours), is refused with a clear
//! error and never written to. The schema carries a version and migrations (`MIGRATIONS`).
//!
//! The diff against the previous run is computed when recording and stored, so `gpuenv history`
//! reads small rows only and never re-parses snapshots.

use std::path::{Path, PathBuf};
use std::time::Duration;

use gpuenv_check::Severity;
use gpuenv_drift::{diff, Change, Snapshot};
use gpuenv_kb::Kb;
use rusqlite::{params, Connection, OpenFlags, TransactionBehavior};
use serde::{Deserialize, Serialize};

/// `application_id` in the database header: "gpuH".
pub const APPLICATION_ID: i32 = 0x6770_7548;

/// The schema version this gpuenv writes (`PRAGMA user_version`).
pub const SCHEMA_VERSION: i32 = MIGRATIONS.len() as i32;

/// Migration `i` takes the schema from version `i` to `i + 1`.
const MIGRATIONS: &[&str] = &["
CREATE TABLE IF NOT EXISTS runs (
    id INTEGER PRIMARY KEY,
    timestamp INTEGER NOT NULL,
    machine TEXT NOT NULL,
    host TEXT,
    command TEXT NOT NULL,
    gpuenv_version TEXT NOT NULL,
    errors INTEGER NOT NULL,
    warnings INTEGER NOT NULL,
    findings TEXT NOT NULL,
    environments TEXT NOT NULL,
    previous INTEGER,
    changes TEXT NOT NULL,
    snapshot TEXT
);
CREATE INDEX IF NOT EXISTS runs_by_time ON runs(timestamp);
CREATE INDEX IF NOT EXISTS runs_by_machine ON runs(machine, timestamp);
"];

/// Test hook: sleep this many milliseconds inside the write transaction, after the row is
/// written and before it commits (the tests kill a writer there).
pub const PAUSE_VARIABLE: &str = "GPUENV_HISTORY_TEST_PAUSE_MS";

/// Why the history cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum HistoryError {
    #[error("{path}: not a gpuenv history database ({why}); gpuenv will not touch it — choose another file with --db")]
    Foreign { path: PathBuf, why: String },
    #[error("{path}: the database is corrupt ({why}); gpuenv will not overwrite it — move it aside to start a new history")]
    Corrupt { path: PathBuf, why: String },
    #[error("{path}: written by a newer gpuenv (schema version {found}, this gpuenv knows {SCHEMA_VERSION}); upgrade gpuenv")]
    Newer { path: PathBuf, found: i32 },
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: {source}")]
    Sqlite {
        path: PathBuf,
        source: rusqlite::Error,
    },
    #[error("stored JSON: {0}")]
    Json(#[from] serde_json::Error),
}

/// The default database: `$XDG_STATE_HOME/gpuenv/history.sqlite`, else
/// `$HOME/.local/state/gpuenv/history.sqlite`.
pub fn default_path(xdg_state_home: Option<&str>, home: Option<&str>) -> Option<PathBuf> {
    let base = match xdg_state_home.filter(|s| s.starts_with('/')) {
        Some(x) => PathBuf::from(x),
        None => Path::new(home.filter(|h| !h.is_empty())?).join(".local/state"),
    };
    Some(base.join("gpuenv").join("history.sqlite"))
}

/// One recorded run, as `gpuenv history` lists it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Run {
    pub id: i64,
    pub timestamp: u64,
    pub host: Option<String>,
    /// The machine root it observed.
    pub root: String,
    /// `doctor` or `snapshot`.
    pub command: String,
    pub gpuenv_version: String,
    pub errors: u32,
    pub warnings: u32,
    /// The finding ids of the run.
    pub findings: Vec<String>,
    /// The previous run of the same machine, when there was one.
    pub previous: Option<i64>,
    /// What changed since `previous`.
    pub changes: Vec<Change>,
    /// Findings that appeared since `previous`.
    pub new_findings: Vec<String>,
    /// Findings that went away since `previous`.
    pub resolved_findings: Vec<String>,
}

#[derive(Serialize, Deserialize, Default)]
struct StoredDiff {
    changes: Vec<Change>,
    new_findings: Vec<String>,
    resolved_findings: Vec<String>,
}

/// An open history database.
pub struct History {
    conn: Connection,
    path: PathBuf,
}

impl History {
    /// Opens (creating when absent, with its directory) and migrates the database at `path`.
    pub fn open(path: &Path) -> Result<History, HistoryError> {
        let p = path.to_path_buf();
        let io = |source| HistoryError::Io {
            path: p.clone(),
            source,
        };
        match std::fs::metadata(path) {
            Ok(meta) => {
                if !meta.is_file() {
                    return Err(HistoryError::Foreign {
                        path: p,
                        why: "not a regular file".into(),
                    });
                }
                if meta.len() > 0 {
                    let mut head = [0u8; 16];
                    use std::io::Read;
                    let mut f = std::fs::File::open(path).map_err(io)?;
                    let n = f.read(&mut head).map_err(io)?;
                    if n < 16 || &head != b"SQLite format 3\0" {
                        return Err(HistoryError::Foreign {
                            path: p,
                            why: "not an SQLite database".into(),
                        });
                    }
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
                    std::fs::create_dir_all(dir).map_err(io)?;
                }
            }
            Err(e) => return Err(io(e)),
        }
        let sql = |source| HistoryError::Sqlite {
            path: p.clone(),
            source,
        };
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
            | OpenFlags::SQLITE_OPEN_CREATE
            | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let conn = Connection::open_with_flags(path, flags).map_err(sql)?;
        conn.busy_timeout(Duration::from_secs(30)).map_err(sql)?;
        let mut h = History { conn, path: p };
        h.check_identity()?;
        h.enable_wal()?;
        h.migrate()?;
        Ok(h)
    }

    fn corrupt_or(&self, e: rusqlite::Error) -> HistoryError {
        let text = e.to_string();
        if text.contains("malformed") || text.contains("not a database") || text.contains("corrupt")
        {
            HistoryError::Corrupt {
                path: self.path.clone(),
                why: text,
            }
        } else {
            HistoryError::Sqlite {
                path: self.path.clone(),
                source: e,
            }
        }
    }

    /// Refuses a database that belongs to another program or a newer gpuenv; reads only.
    fn check_identity(&self) -> Result<(), HistoryError> {
        // One read transaction: another process may be creating the schema meanwhile, and the
        // id, the tables and the version must be read from the same state of the file.
        let tx = self
            .conn
            .unchecked_transaction()
            .map_err(|e| self.corrupt_or(e))?;
        let app: i32 = tx
            .query_row("PRAGMA application_id", [], |r| r.get(0))
            .map_err(|e| self.corrupt_or(e))?;
        let tables: i64 = tx
            .query_row("SELECT count(*) FROM sqlite_master", [], |r| r.get(0))
            .map_err(|e| self.corrupt_or(e))?;
        if app != APPLICATION_ID && !(app == 0 && tables == 0) {
            return Err(HistoryError::Foreign {
                path: self.path.clone(),
                why: format!(
                    "an SQLite database of another program: application_id {app:#x}, {tables} schema objects"
                ),
            });
        }
        let version: i32 = tx
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .map_err(|e| self.corrupt_or(e))?;
        drop(tx);
        if version > SCHEMA_VERSION {
            return Err(HistoryError::Newer {
                path: self.path.clone(),
                found: version,
            });
        }
        Ok(())
    }

    fn enable_wal(&self) -> Result<(), HistoryError> {
        // Switching to WAL needs a moment alone with the file; another process doing the same
        // answers busy, which the loop waits out.
        for attempt in 0..200 {
            match self
                .conn
                .query_row("PRAGMA journal_mode=WAL", [], |r| r.get::<_, String>(0))
            {
                Ok(_) => break,
                Err(e) if attempt < 199 && is_busy(&e) => {
                    std::thread::sleep(Duration::from_millis(25))
                }
                Err(e) => return Err(self.corrupt_or(e)),
            }
        }
        self.conn
            .execute_batch("PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON;")
            .map_err(|e| self.corrupt_or(e))
    }

    fn migrate(&mut self) -> Result<(), HistoryError> {
        let path = self.path.clone();
        let sql = |source| HistoryError::Sqlite {
            path: path.clone(),
            source,
        };
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(sql)?;
        // Read again inside the lock: another process may have migrated meanwhile.
        let version: i32 = tx
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .map_err(sql)?;
        if version > SCHEMA_VERSION {
            return Err(HistoryError::Newer {
                path,
                found: version,
            });
        }
        if version == SCHEMA_VERSION {
            return Ok(());
        }
        for (i, step) in MIGRATIONS.iter().enumerate().skip(version.max(0) as usize) {
            tx.execute_batch(step).map_err(sql)?;
            tx.execute_batch(&format!("PRAGMA user_version = {}", i + 1))
                .map_err(sql)?;
        }
        tx.execute_batch(&format!("PRAGMA application_id = {APPLICATION_ID}"))
            .map_err(sql)?;
        tx.commit().map_err(sql)
    }

    /// Stores one run: the snapshot and its diff against the same machine's previous run.
    pub fn record(&mut self, snap: &Snapshot, command: &str, kb: &Kb) -> Result<i64, HistoryError> {
        let path = self.path.clone();
        let sql = |source| HistoryError::Sqlite {
            path: path.clone(),
            source,
        };
        let machine = machine_key(snap);
        let json = serde_json::to_string(snap)?;
        let errors = count(snap, Severity::Error);
        let warnings = count(snap, Severity::Warning);
        let findings: Vec<&str> = snap.findings.iter().map(|f| f.id.as_str()).collect();
        let envs: Vec<(&str, &str)> = (snap.facts.python.environments.iter())
            .map(|e| (e.name.as_str(), e.prefix.as_str()))
            .collect();
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(|e| self_corrupt(&path, e))?;
        let previous: Option<(i64, Option<String>)> = tx
            .query_row(
                "SELECT id, snapshot FROM runs WHERE machine = ?1 AND timestamp <= ?2
                 ORDER BY timestamp DESC, id DESC LIMIT 1",
                params![machine, snap.timestamp as i64],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .map(Some)
            .or_else(|e| match e {
                rusqlite::Error::QueryReturnedNoRows => Ok(None),
                e => Err(e),
            })
            .map_err(|e| self_corrupt(&path, e))?;
        let mut stored = StoredDiff::default();
        let mut previous_id = None;
        if let Some((id, text)) = previous {
            previous_id = Some(id);
            // A stored snapshot that no longer parses (a future schema) gives no diff, not an error.
            if let Some(Ok(before)) = text.as_deref().map(Snapshot::parse) {
                let d = diff(&before, snap, ("previous", "this run"), kb, &[]);
                stored.new_findings = d.new_findings.iter().map(|f| f.id.clone()).collect();
                stored.resolved_findings =
                    d.resolved_findings.iter().map(|f| f.id.clone()).collect();
                stored.changes = d.changes;
            }
        }
        tx.execute(
            "INSERT INTO runs (timestamp, machine, host, command, gpuenv_version, errors, warnings,
                               findings, environments, previous, changes, snapshot)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
            params![
                snap.timestamp as i64,
                machine,
                snap.host,
                command,
                snap.gpuenv_version,
                errors,
                warnings,
                serde_json::to_string(&findings)?,
                serde_json::to_string(&envs)?,
                previous_id,
                serde_json::to_string(&stored)?,
                json,
            ],
        )
        .map_err(sql)?;
        let id = tx.last_insert_rowid();
        // Only the machine's latest snapshot is kept whole (the next record diffs against it);
        // older runs keep their diff. A year of daily multi-megabyte snapshots would be gigabytes.
        tx.execute(
            "UPDATE runs SET snapshot = NULL WHERE machine = ?1 AND id <> ?2 AND snapshot IS NOT NULL",
            params![machine, id],
        )
        .map_err(sql)?;
        if let Some(ms) = std::env::var(PAUSE_VARIABLE)
            .ok()
            .and_then(|v| v.parse::<u64>().ok())
        {
            std::thread::sleep(Duration::from_millis(ms));
        }
        tx.commit().map_err(sql)?;
        Ok(id)
    }

    /// The runs since `since` (seconds since the epoch), oldest first; with `env`, only the
    /// changes of that environment (name or prefix), and only runs where it changed.
    pub fn runs(&self, since: Option<u64>, env: Option<&str>) -> Result<Vec<Run>, HistoryError> {
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT id, timestamp, host, machine, command, gpuenv_version, errors, warnings,
                        findings, previous, changes
                 FROM runs WHERE timestamp >= ?1 ORDER BY timestamp, id",
            )
            .map_err(|e| self.corrupt_or(e))?;
        let rows = stmt
            .query_map(params![since.unwrap_or(0) as i64], |r| {
                Ok((
                    r.get::<_, i64>(0)?,
                    r.get::<_, i64>(1)?,
                    r.get::<_, Option<String>>(2)?,
                    r.get::<_, String>(3)?,
                    r.get::<_, String>(4)?,
                    r.get::<_, String>(5)?,
                    r.get::<_, u32>(6)?,
                    r.get::<_, u32>(7)?,
                    r.get::<_, String>(8)?,
                    r.get::<_, Option<i64>>(9)?,
                    r.get::<_, String>(10)?,
                ))
            })
            .map_err(|e| self.corrupt_or(e))?;
        let mut out = Vec::new();
        for row in rows {
            let (
                id,
                ts,
                host,
                machine,
                command,
                version,
                errors,
                warnings,
                findings,
                previous,
                changes,
            ) = row.map_err(|e| self.corrupt_or(e))?;
            let mut stored: StoredDiff = serde_json::from_str(&changes)?;
            if let Some(env) = env {
                stored.changes.retain(|c| {
                    c.environment.as_deref() == Some(env)
                        || c.environment_name.as_deref() == Some(env)
                });
                if stored.changes.is_empty() {
                    continue;
                }
            }
            let root = machine
                .split_once('\u{1f}')
                .map_or(machine.clone(), |(_, r)| r.to_string());
            out.push(Run {
                id,
                timestamp: ts.max(0) as u64,
                host,
                root,
                command,
                gpuenv_version: version,
                errors,
                warnings,
                findings: serde_json::from_str(&findings)?,
                previous,
                changes: stored.changes,
                new_findings: stored.new_findings,
                resolved_findings: stored.resolved_findings,
            });
        }
        Ok(out)
    }

    /// Deletes the runs older than `before` (seconds since the epoch); returns how many.
    pub fn prune(&mut self, before: u64) -> Result<usize, HistoryError> {
        self.conn
            .execute(
                "DELETE FROM runs WHERE timestamp < ?1",
                params![before as i64],
            )
            .map_err(|e| self.corrupt_or(e))
    }

    /// `PRAGMA integrity_check`: `ok`, or what is wrong (the tests use it).
    pub fn integrity(&self) -> Result<String, HistoryError> {
        self.conn
            .query_row("PRAGMA integrity_check", [], |r| r.get(0))
            .map_err(|e| self.corrupt_or(e))
    }

    /// The number of runs stored.
    pub fn len(&self) -> Result<usize, HistoryError> {
        self.conn
            .query_row("SELECT count(*) FROM runs", [], |r| r.get::<_, i64>(0))
            .map(|n| n.max(0) as usize)
            .map_err(|e| self.corrupt_or(e))
    }

    /// Whether no run is stored.
    pub fn is_empty(&self) -> Result<bool, HistoryError> {
        self.len().map(|n| n == 0)
    }
}

fn self_corrupt(path: &Path, e: rusqlite::Error) -> HistoryError {
    HistoryError::Sqlite {
        path: path.to_path_buf(),
        source: e,
    }
}

fn is_busy(e: &rusqlite::Error) -> bool {
    matches!(
        e.sqlite_error_code(),
        Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked)
    )
}

/// Runs of one machine are compared with each other: its host name and the root observed.
fn machine_key(s: &Snapshot) -> String {
    format!("{}\u{1f}{}", s.host.as_deref().unwrap_or(""), s.facts.root)
}

fn count(s: &Snapshot, severity: Severity) -> u32 {
    s.findings.iter().filter(|f| f.severity == severity).count() as u32
}

/// Parses `7d`, `12h`, `30m`, `90d`, `2w` into seconds.
pub fn parse_age(text: &str) -> Option<u64> {
    let t = text.trim();
    let split = t.find(|c: char| !c.is_ascii_digit())?;
    let (n, unit) = t.split_at(split);
    let n: u64 = n.parse().ok()?;
    let mult = match unit {
        "s" => 1,
        "m" | "min" => 60,
        "h" => 3600,
        "d" => 86_400,
        "w" => 7 * 86_400,
        "y" => 365 * 86_400,
        _ => return None,
    };
    n.checked_mul(mult)
}
