//! The small value types of the framework tables: a build variant (`cu121`, `cpu`, `rocm6.2`), a
//! version requirement (`==2.1.0`, `>=9.3.0.75,<10.0`), a range of Python minors and a compiled GPU
//! architecture flag (`sm_86`, `compute_120`).
//!
//! `VersionReq` understands the part of PEP 440 the knowledge base's own data uses (numeric release
//! versions, an optional `+local` label on `==`, the operators `==`, `!=`, `>=`, `<=`, `>`, `<`, `~=`).
//! It is not a general PEP 440 implementation: reading an environment's metadata is the probes' job.

use std::cmp::Ordering;
use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer};

use crate::version::{ComputeCapability, CudaVersion, Version, VersionError};

/// Why a framework-table value could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SpecError {
    #[error("not a build variant (cuNNN, cpu, xpu, rocmX.Y): {0:?}")]
    Variant(String),
    #[error("not a version requirement: {0:?}")]
    Requirement(String),
    #[error("not an architecture flag (sm_NN, compute_NN): {0:?}")]
    ArchFlag(String),
    #[error(transparent)]
    Version(#[from] VersionError),
}

/// What a framework build targets, as PyTorch's local version tags and download indexes name it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum BuildVariant {
    /// `cuNNN`: built with CUDA N.N (`cu121` is CUDA 12.1, `cu92` is CUDA 9.2).
    Cuda(CudaVersion),
    Cpu,
    Xpu,
    /// `rocmX.Y[.Z]`, kept as written.
    Rocm(String),
}

impl BuildVariant {
    /// The CUDA version of a CUDA variant.
    pub fn cuda(&self) -> Option<CudaVersion> {
        match self {
            BuildVariant::Cuda(v) => Some(*v),
            _ => None,
        }
    }
}

impl FromStr for BuildVariant {
    type Err = SpecError;

    fn from_str(text: &str) -> Result<BuildVariant, SpecError> {
        let t = text.trim();
        let err = || SpecError::Variant(text.to_string());
        match t {
            "cpu" => return Ok(BuildVariant::Cpu),
            "xpu" => return Ok(BuildVariant::Xpu),
            _ => {}
        }
        if let Some(rest) = t.strip_prefix("rocm") {
            rest.parse::<Version>().map_err(|_| err())?;
            return Ok(BuildVariant::Rocm(rest.to_string()));
        }
        let digits = t.strip_prefix("cu").ok_or_else(err)?;
        if digits.len() < 2 || digits.len() > 4 || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return Err(err());
        }
        let (major, minor) = digits.split_at(digits.len() - 1);
        Ok(BuildVariant::Cuda(CudaVersion::new(
            major.parse().map_err(|_| err())?,
            minor.parse().map_err(|_| err())?,
        )))
    }
}

impl fmt::Display for BuildVariant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BuildVariant::Cuda(v) => write!(f, "cu{}{}", v.major, v.minor),
            BuildVariant::Cpu => f.write_str("cpu"),
            BuildVariant::Xpu => f.write_str("xpu"),
            BuildVariant::Rocm(v) => write!(f, "rocm{v}"),
        }
    }
}

impl<'de> Deserialize<'de> for BuildVariant {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<BuildVariant, D::Error> {
        let text = String::deserialize(d)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

/// A comparison operator of a version requirement.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReqOp {
    Eq,
    Ne,
    Ge,
    Le,
    Gt,
    Lt,
    /// `~=`: compatible release.
    Compatible,
}

impl ReqOp {
    fn as_str(self) -> &'static str {
        match self {
            ReqOp::Eq => "==",
            ReqOp::Ne => "!=",
            ReqOp::Ge => ">=",
            ReqOp::Le => "<=",
            ReqOp::Gt => ">",
            ReqOp::Lt => "<",
            ReqOp::Compatible => "~=",
        }
    }
}

/// One clause of a requirement: `>=9.3.0.75`, `==2.0.0+cu117`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReqClause {
    pub op: ReqOp,
    pub version: Version,
    /// The local label of an `==` clause (`cu117` in `==2.0.0+cu117`).
    pub local: Option<String>,
}

impl ReqClause {
    fn matches(&self, version: &Version, local: Option<&str>) -> bool {
        match self.op {
            ReqOp::Eq => {
                *version == self.version
                    && match &self.local {
                        // PEP 440: a specifier without a local label ignores the candidate's.
                        None => true,
                        Some(want) => local == Some(want.as_str()),
                    }
            }
            ReqOp::Ne => *version != self.version,
            ReqOp::Ge => *version >= self.version,
            ReqOp::Le => *version <= self.version,
            ReqOp::Gt => *version > self.version,
            ReqOp::Lt => *version < self.version,
            ReqOp::Compatible => {
                let parts = self.version.parts();
                let prefix = &parts[..parts.len().saturating_sub(1)];
                let candidate = version.parts();
                *version >= self.version
                    && prefix
                        .iter()
                        .enumerate()
                        .all(|(i, p)| candidate.get(i).copied().unwrap_or(0) == *p)
            }
        }
    }
}

/// A version requirement: clauses that must all hold (`>=9.3.0.75,<10.0`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VersionReq {
    pub clauses: Vec<ReqClause>,
}

impl VersionReq {
    /// Whether `version` (with its local label, if the caller has one) satisfies every clause.
    pub fn matches(&self, version: &Version, local: Option<&str>) -> bool {
        self.clauses.iter().all(|c| c.matches(version, local))
    }

    /// The version of a single `==` clause (an exact pin).
    pub fn exact(&self) -> Option<&Version> {
        match self.clauses.as_slice() {
            [only] if only.op == ReqOp::Eq => Some(&only.version),
            _ => None,
        }
    }

    /// The lowest version allowed by a `>=` or `==` clause, if any.
    pub fn lower_bound(&self) -> Option<&Version> {
        self.clauses
            .iter()
            .filter(|c| matches!(c.op, ReqOp::Ge | ReqOp::Eq | ReqOp::Compatible))
            .map(|c| &c.version)
            .max()
    }
}

impl FromStr for VersionReq {
    type Err = SpecError;

    fn from_str(text: &str) -> Result<VersionReq, SpecError> {
        let err = || SpecError::Requirement(text.to_string());
        let mut clauses = Vec::new();
        for piece in text.split(',') {
            let piece = piece.trim();
            let ops = [
                ("~=", ReqOp::Compatible),
                ("==", ReqOp::Eq),
                ("!=", ReqOp::Ne),
                (">=", ReqOp::Ge),
                ("<=", ReqOp::Le),
                (">", ReqOp::Gt),
                ("<", ReqOp::Lt),
            ];
            let Some((op, rest)) = ops
                .iter()
                .find_map(|(prefix, op)| piece.strip_prefix(prefix).map(|rest| (*op, rest)))
            else {
                return Err(err());
            };
            if rest.starts_with('=') {
                return Err(err());
            }
            let (public, local) = match rest.split_once('+') {
                Some((public, local)) => (public, Some(local.trim().to_string())),
                None => (rest, None),
            };
            if local.is_some() && op != ReqOp::Eq {
                return Err(err());
            }
            if local.as_deref() == Some("") {
                return Err(err());
            }
            let version: Version = public.parse().map_err(|_| err())?;
            if op == ReqOp::Compatible && version.parts().len() < 2 {
                return Err(err());
            }
            clauses.push(ReqClause { op, version, local });
        }
        Ok(VersionReq { clauses })
    }
}

impl fmt::Display for VersionReq {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, c) in self.clauses.iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            write!(f, "{}{}", c.op.as_str(), c.version)?;
            if let Some(local) = &c.local {
                write!(f, "+{local}")?;
            }
        }
        Ok(())
    }
}

impl<'de> Deserialize<'de> for VersionReq {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<VersionReq, D::Error> {
        let text = String::deserialize(d)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

/// An inclusive range of Python minors (`3.8`..=`3.11`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PythonRange {
    pub min: Version,
    pub max: Version,
}

impl PythonRange {
    /// Whether a Python version (`3.11` or `3.11.4`) is inside the range; only major.minor count.
    pub fn contains(&self, python: &Version) -> bool {
        let key = |v: &Version| (v.major(), v.minor());
        key(&self.min) <= key(python) && key(python) <= key(&self.max)
    }

    /// How `python` relates to the range: below it, inside it or above it.
    pub fn compare(&self, python: &Version) -> Ordering {
        let key = |v: &Version| (v.major(), v.minor());
        if key(python) < key(&self.min) {
            Ordering::Less
        } else if key(python) > key(&self.max) {
            Ordering::Greater
        } else {
            Ordering::Equal
        }
    }
}

impl fmt::Display for PythonRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}-{}", self.min, self.max)
    }
}

/// One entry of a build's compiled-architecture list: `sm_86` (SASS) or `compute_120` (PTX).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ArchFlag {
    pub cc: ComputeCapability,
    pub ptx: bool,
}

impl FromStr for ArchFlag {
    type Err = SpecError;

    fn from_str(text: &str) -> Result<ArchFlag, SpecError> {
        let t = text.trim();
        let ptx = if t.starts_with("sm_") {
            false
        } else if t.starts_with("compute_") {
            true
        } else {
            return Err(SpecError::ArchFlag(text.to_string()));
        };
        let cc: ComputeCapability = t
            .parse()
            .map_err(|_| SpecError::ArchFlag(text.to_string()))?;
        Ok(ArchFlag { cc, ptx })
    }
}

impl fmt::Display for ArchFlag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let prefix = if self.ptx { "compute" } else { "sm" };
        write!(f, "{prefix}_{}{}", self.cc.major, self.cc.minor)
    }
}

impl<'de> Deserialize<'de> for ArchFlag {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<ArchFlag, D::Error> {
        let text = String::deserialize(d)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}
