//! The row types of the knowledge-base tables, exactly as the TOML data files spell them.
//! Every row carries `sources` (ids defined in `sources.toml`) and a `confirmed` flag.

use serde::Deserialize;

use crate::version::{ComputeCapability, CudaVersion, Version};

/// One document of knowledge-base data. The built-in tables are several such documents; a user's
/// `--kb FILE` is one more, and every table it contains replaces the built-in table of that name.
/// A user's file may also hold framework tables, which this type leaves alone: unknown table
/// names are caught before it is read (`framework_tables_in` in lib.rs; a test checks the
/// built-in documents), the rows themselves deny unknown fields.
#[derive(Debug, Default, Deserialize)]
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
    #[serde(default)]
    pub dlopen: Option<Vec<DlopenRow>>,
    #[serde(default)]
    pub ptx_isa: Option<Vec<PtxIsaRow>>,
}

/// The keys a `KbDocument` knows (a user's file is split on them: `Kb::with_override`).
pub const DOCUMENT_KEYS: &[&str] = &[
    "name",
    "as_of",
    "source",
    "toolkit",
    "cuda_major",
    "branch",
    "cc",
    "release",
    "layout",
    "dlopen",
    "ptx_isa",
];

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

/// A library that a program opens at run time with `dlopen` (or Python's `ctypes.CDLL`) rather than
/// through `DT_NEEDED`, so `ldd` never shows it. `gpuenv ldd` follows these edges.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DlopenRow {
    /// A short stable name for the edge (`cudart-driver`).
    pub id: String,
    /// A glob (`*`, `?`, `[0-9]`) matched against the file name or SONAME of the object that opens.
    pub library: String,
    /// For Python packages that preload from their own site-packages: the directory of `library`
    /// relative to site-packages (`torch/lib`; globs allowed per component). `{site}` in `opens`
    /// is that site-packages directory. Absent for plain `dlopen` by name.
    #[serde(default)]
    pub site_dir: Option<String>,
    /// What is opened, in order: bare names are searched as a `dlopen` from `library` would be (its
    /// RPATH chain, `LD_LIBRARY_PATH`, its RUNPATH, the cache, the default directories); paths
    /// (`{site}/nvidia/cudnn/lib/libcudnn.so.*[0-9]`) are opened directly, the last component
    /// being a glob whose first match (sorted) is taken. A path that matches nothing is skipped.
    pub opens: Vec<String>,
    /// Why, in a few words (shown as `[dlopen: why]`).
    pub why: String,
    pub confirmed: bool,
    pub sources: Vec<String>,
    #[serde(default)]
    pub note: String,
}

/// A PTX ISA version and the CUDA toolkit release that introduced it: a driver JIT-compiles that
/// PTX only when it supports at least that CUDA version.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PtxIsaRow {
    /// The PTX ISA version (`major.minor`, as in the PTX `.version` directive).
    pub ptx_isa: CudaVersion,
    /// The first CUDA toolkit that emits it.
    pub cuda: CudaVersion,
    pub confirmed: bool,
    pub sources: Vec<String>,
    #[serde(default)]
    pub note: String,
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
