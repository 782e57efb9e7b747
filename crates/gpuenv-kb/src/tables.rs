//! The row types of the knowledge-base tables, exactly as the TOML data files spell them.
//! Every row carries `sources` (ids defined in `sources.toml`) and a `confirmed` flag.

use serde::Deserialize;

use crate::version::{ComputeCapability, CudaVersion, Version};

/// One document of knowledge-base data. The built-in tables are several such documents; a user's
/// `--kb FILE` is one more, and every table it contains replaces the built-in table of that name.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KbDocument {
    pub name: Option<String>,
    pub as_of: Option<String>,
    #[serde(default)]
    pub source: Option<Vec<SourceRow>>,
    #[serde(default)]
    pub toolkit: Option<Vec<ToolkitRow>>,
    #[serde(default)]
    pub cuda_major: Option<Vec<CudaMajorRow>>,
    #[serde(default)]
    pub branch: Option<Vec<BranchRow>>,
    #[serde(default)]
    pub cc: Option<Vec<CcRow>>,
    #[serde(default)]
    pub release: Option<Vec<CudnnReleaseRow>>,
    #[serde(default)]
    pub layout: Option<Vec<CudnnLayoutRow>>,
}

/// Where a fact in the knowledge base comes from.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SourceRow {
    pub id: String,
    pub description: String,
    #[serde(default)]
    pub source: Option<String>,
    #[serde(default)]
    pub confirmed: Option<bool>,
}

/// A CUDA toolkit release and the minimum Linux driver its release notes name.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToolkitRow {
    pub version: Version,
    pub release: String,
    /// The release notes' "Toolkit Driver Version" (Linux x86_64); absent when not confirmed.
    pub min_driver: Option<Version>,
    /// Only the branch is known (unconfirmed rows).
    pub min_driver_branch: Option<u32>,
    /// The driver the runfile bundled, where the release notes' value was not seen.
    pub bundled_driver: Option<Version>,
    pub confirmed: bool,
    pub sources: Vec<String>,
    #[serde(default)]
    pub note: String,
}

/// Per CUDA major: the driver needed for minor-version compatibility.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CudaMajorRow {
    pub major: u32,
    pub mvc_min_driver: Version,
    pub confirmed: bool,
    pub sources: Vec<String>,
    #[serde(default)]
    pub note: String,
}

/// A driver branch and the newest CUDA version it fully supports.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BranchRow {
    pub branch: u32,
    pub max_cuda: CudaVersion,
    pub confirmed: bool,
    pub sources: Vec<String>,
    #[serde(default)]
    pub note: String,
}

/// A compute capability: architecture, toolkit range, last driver branch.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CcRow {
    pub cc: ComputeCapability,
    pub architecture: String,
    /// First toolkit that targets it; `None` means before CUDA 10.0.
    pub first_cuda: Option<CudaVersion>,
    /// Last toolkit that targets it; `None` means still current.
    pub last_cuda: Option<CudaVersion>,
    /// Last desktop/data-center driver branch that supports it; `None` means still supported.
    pub last_driver_branch: Option<u32>,
    #[serde(default)]
    pub tegra: bool,
    pub products: String,
    pub confirmed: bool,
    pub sources: Vec<String>,
    #[serde(default)]
    pub note: String,
}

/// A range of cuDNN releases with the CUDA majors NVIDIA built them for.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CudnnReleaseRow {
    pub first: Version,
    pub last: Version,
    pub cuda_majors: Vec<u32>,
    pub min_cc: ComputeCapability,
    pub confirmed: bool,
    pub sources: Vec<String>,
    #[serde(default)]
    pub note: String,
}

/// The shared libraries and version header of one cuDNN major.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CudnnLayoutRow {
    pub major: u32,
    pub shim: String,
    pub sublibraries: Vec<String>,
    pub version_header: String,
    pub version_multiplier: u32,
    pub confirmed: bool,
    pub sources: Vec<String>,
}

/// A GPU known by its PCI device id (vendor 0x10de), from `gpus.tsv`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GpuRow {
    pub device_id: u16,
    pub chip: String,
    pub cc: Option<ComputeCapability>,
    pub name: String,
    /// The legacy driver branch that last supports it, per the driver's own list (e.g. `470.xx`).
    pub legacy_branch: Option<String>,
    pub sources: Vec<String>,
}
