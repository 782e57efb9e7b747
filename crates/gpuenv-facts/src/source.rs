//! Where a fact came from: a file, an environment variable, NVML, an ELF header, an override, the
//! knowledge base. Every fact gpuenv reports carries one, and `-v` prints it.

use std::fmt;

use serde::{Deserialize, Serialize};

/// The origin of one fact.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", content = "detail", rename_all = "kebab-case")]
pub enum Source {
    /// A file's contents (path inside the machine root).
    File(String),
    /// A file's or directory's name or presence, or where a symlink points.
    Path(String),
    /// An environment variable of the gpuenv process.
    Env(String),
    /// An NVML call (live root only).
    Nvml(String),
    /// A CUDA driver API call (live root only).
    DriverApi(String),
    /// An ELF header field of a file.
    Elf(String),
    /// A gpuenv override variable.
    Override(String),
    /// The knowledge base (which table and key).
    Kb(String),
    /// The gpuenv process itself (user ids).
    Process(String),
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Source::File(p) => write!(f, "file {p}"),
            Source::Path(p) => write!(f, "path {p}"),
            Source::Env(v) => write!(f, "environment variable {v}"),
            Source::Nvml(c) => write!(f, "NVML {c}"),
            Source::DriverApi(c) => write!(f, "CUDA driver API {c}"),
            Source::Elf(p) => write!(f, "ELF header of {p}"),
            Source::Override(v) => write!(f, "override {v}"),
            Source::Kb(k) => write!(f, "knowledge base {k}"),
            Source::Process(w) => write!(f, "process {w}"),
        }
    }
}

/// A value and where it came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sourced<T> {
    pub value: T,
    pub source: Source,
}

impl<T> Sourced<T> {
    pub fn new(value: T, source: Source) -> Sourced<T> {
        Sourced { value, source }
    }
}
