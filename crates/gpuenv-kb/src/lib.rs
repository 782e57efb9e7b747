//! gpuenv's knowledge base: what NVIDIA's documents say about which driver runs which CUDA, which
//! toolkit targets which GPU, and which cuDNN was built for which CUDA.
//!
//! The tables are TOML/TSV data files under `data/`, embedded at build time and parsed once. Every
//! row names its sources and says whether it is confirmed. A user can replace any table without
//! rebuilding (`Kb::with_override`), the framework tables included. This crate never touches the file system: an override arrives
//! as text.

pub mod dlopen;
pub mod frameworks;
pub mod gpu_code;
pub mod tables;
pub mod version;

use std::sync::OnceLock;

pub use tables::PtxIsaRow;
pub use tables::{
    BranchRow, CcRow, CudaMajorRow, CudnnLayoutRow, CudnnReleaseRow, DlopenRow, GpuRow, KbDocument,
    SourceRow, ToolkitRow,
};
pub use version::{ComputeCapability, CudaVersion, Version, VersionError};

const BUILTIN_DOCUMENTS: &[(&str, &str)] = &[
    ("kb.toml", include_str!("../data/kb.toml")),
    ("sources.toml", include_str!("../data/sources.toml")),
    (
        "channel_sources.toml",
        include_str!("../data/channel_sources.toml"),
    ),
    (
        "cuda_toolkits.toml",
        include_str!("../data/cuda_toolkits.toml"),
    ),
    ("cuda_majors.toml", include_str!("../data/cuda_majors.toml")),
    (
        "driver_branches.toml",
        include_str!("../data/driver_branches.toml"),
    ),
    (
        "compute_capabilities.toml",
        include_str!("../data/compute_capabilities.toml"),
    ),
    ("cudnn.toml", include_str!("../data/cudnn.toml")),
    ("dlopen.toml", include_str!("../data/dlopen.toml")),
    ("ptx_isa.toml", include_str!("../data/ptx_isa.toml")),
];

const BUILTIN_GPUS: &str = include_str!("../data/gpus.tsv");

/// The built-in knowledge base's date and source count without parsing its tables (for
/// `gpuenv --version`, which every run's argument parser builds).
pub fn builtin_summary() -> (String, usize) {
    let as_of = BUILTIN_DOCUMENTS
        .iter()
        .flat_map(|(_, text)| text.lines())
        .find_map(|l| l.strip_prefix("as_of = "))
        .map(|v| v.trim().trim_matches('"').to_string())
        .unwrap_or_default();
    let sources = BUILTIN_DOCUMENTS
        .iter()
        .flat_map(|(_, text)| text.lines())
        .filter(|l| l.trim() == "[[source]]")
        .count();
    (as_of, sources)
}

/// Why a knowledge-base document could not be used.
#[derive(Debug, thiserror::Error)]
pub enum KbError {
    #[error("cannot parse {name}")]
    Parse {
        name: String,
        #[source]
        source: Box<toml::de::Error>,
    },
    #[error("knowledge-base file {name}, line {line}: {message}")]
    Table {
        name: String,
        line: usize,
        message: String,
    },
    #[error("knowledge base: {0}")]
    Invalid(String),
}

/// The framework tables a document holds (their names), after checking that every top-level
/// name is a table one of the two document types knows: `KbDocument` and `FrameworksDocument`
/// each read their own tables from a document and leave the other's alone, so a misspelt table
/// name is caught here.
fn framework_tables_in(name: &str, text: &str) -> Result<Vec<String>, KbError> {
    let table: toml::Table = toml::from_str(text).map_err(|e| KbError::Parse {
        name: name.to_string(),
        source: Box::new(e),
    })?;
    let mut framework_tables = Vec::new();
    for key in table.keys() {
        if frameworks::TABLES.contains(&key.as_str()) {
            framework_tables.push(key.clone());
        } else if !tables::DOCUMENT_KEYS.contains(&key.as_str()) {
            return Err(KbError::Invalid(format!(
                "unknown table `{key}` in {name} (NVIDIA tables: {}; framework tables: {})",
                tables::DOCUMENT_KEYS.join(", "),
                frameworks::TABLES.join(", ")
            )));
        }
    }
    Ok(framework_tables)
}

/// The knowledge base: every table, parsed and sorted, with typed queries.
#[derive(Debug, Default)]
pub struct Kb {
    pub name: String,
    pub as_of: String,
    pub sources: Vec<SourceRow>,
    /// Sorted by version, oldest first.
    pub toolkits: Vec<ToolkitRow>,
    pub cuda_majors: Vec<CudaMajorRow>,
    /// Sorted by branch, oldest first.
    pub branches: Vec<BranchRow>,
    /// Sorted by compute capability.
    pub ccs: Vec<CcRow>,
    pub cudnn_releases: Vec<CudnnReleaseRow>,
    pub cudnn_layouts: Vec<CudnnLayoutRow>,
    /// Libraries opened at run time, not through `DT_NEEDED` (see [`DlopenRow`]).
    pub dlopen: Vec<DlopenRow>,
    /// PTX ISA version -> the CUDA release that introduced it, sorted by PTX ISA.
    pub ptx_isas: Vec<PtxIsaRow>,
    /// PyTorch, TensorFlow, JAX and DeepLabCut tables (`data/frameworks/`; built-in only).
    pub frameworks: frameworks::Frameworks,
    gpus_text: GpusText,
    gpus: OnceLock<Result<Vec<GpuRow>, String>>,
    /// Tables a `--kb` file replaced, with the file's name (empty for the built-in knowledge base).
    pub origins: Vec<(String, String)>,
}

#[derive(Debug, Default)]
enum GpusText {
    #[default]
    Builtin,
    Override(String),
}

/// How the driver's CUDA ceiling was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DriverCeiling {
    /// The branch is in the table.
    Known { max_cuda: CudaVersion, branch: u32 },
    /// The branch is newer than any the knowledge base knows; it supports at least `at_least`.
    NewerThanKb {
        at_least: CudaVersion,
        newest_known_branch: u32,
    },
    /// Older than every branch in the table.
    OlderThanKb,
}

/// Whether a toolkit can build code for a compute capability.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ArchSupport {
    Supported,
    /// The GPU is newer than the toolkit: it needs at least `first_cuda`.
    GpuTooNew {
        first_cuda: CudaVersion,
    },
    /// The toolkit dropped the GPU: `last_cuda` was the last one to target it.
    GpuDropped {
        last_cuda: CudaVersion,
    },
    /// The compute capability is not in the knowledge base.
    Unknown,
}

impl Kb {
    /// The knowledge base compiled into gpuenv.
    pub fn builtin() -> Result<Kb, KbError> {
        Kb::from_documents(None, None)
    }

    /// The built-in knowledge base with the tables of `text` (a user's `--kb FILE`) replacing the
    /// built-in tables of the same name. `gpus_tsv` likewise replaces the GPU table.
    pub fn with_override(name: &str, text: &str, gpus_tsv: Option<String>) -> Result<Kb, KbError> {
        Kb::from_documents(Some((name, text)), gpus_tsv)
    }

    fn from_documents(user: Option<(&str, &str)>, gpus_tsv: Option<String>) -> Result<Kb, KbError> {
        let parse = |name: &str, text: &str| -> Result<KbDocument, KbError> {
            toml::from_str(text).map_err(|e| KbError::Parse {
                name: name.to_string(),
                source: Box::new(e),
            })
        };
        let mut kb = Kb::default();
        for (name, text) in BUILTIN_DOCUMENTS {
            let doc = parse(name, text)?;
            kb.merge(name, doc, false);
        }
        // A user's file may hold NVIDIA tables and framework tables side by side.
        let mut user_frameworks = None;
        if let Some((name, text)) = user {
            let replaced = framework_tables_in(name, text)?;
            kb.merge(name, parse(name, text)?, true);
            let doc: frameworks::FrameworksDocument =
                toml::from_str(text).map_err(|e| KbError::Parse {
                    name: name.to_string(),
                    source: Box::new(e),
                })?;
            for table in &replaced {
                kb.origins.push((table.clone(), name.to_string()));
            }
            user_frameworks = Some((doc, replaced));
        }
        if let Some(text) = gpus_tsv {
            // Parse eagerly so a bad file is reported at start-up, not mid-run.
            parse_gpus_tsv("gpus override", &text)?;
            kb.gpus_text = GpusText::Override(text);
            kb.origins.push(("gpu".into(), "override".into()));
        }
        kb.toolkits.sort_by(|a, b| a.version.cmp(&b.version));
        kb.branches.sort_by_key(|b| b.branch);
        kb.ccs.sort_by_key(|c| c.cc);
        kb.cuda_majors.sort_by_key(|c| c.major);
        kb.cudnn_releases.sort_by(|a, b| a.first.cmp(&b.first));
        kb.ptx_isas.sort_by_key(|r| r.ptx_isa);
        kb.validate()?;
        kb.frameworks = frameworks::Frameworks::load(&kb.sources, user_frameworks)?;
        Ok(kb)
    }

    fn merge(&mut self, name: &str, doc: KbDocument, is_override: bool) {
        let mut replaced = |table: &str| {
            if is_override {
                self.origins.push((table.to_string(), name.to_string()));
            }
        };
        if doc.source.is_some() {
            replaced("source");
        }
        if doc.toolkit.is_some() {
            replaced("toolkit");
        }
        if doc.cuda_major.is_some() {
            replaced("cuda_major");
        }
        if doc.branch.is_some() {
            replaced("branch");
        }
        if doc.cc.is_some() {
            replaced("cc");
        }
        if doc.release.is_some() {
            replaced("release");
        }
        if doc.layout.is_some() {
            replaced("layout");
        }
        if doc.dlopen.is_some() {
            replaced("dlopen");
        }
        if doc.ptx_isa.is_some() {
            replaced("ptx_isa");
        }
        if let Some(n) = doc.name {
            self.name = n;
        }
        if let Some(a) = doc.as_of {
            self.as_of = a;
        }
        if let Some(rows) = doc.source {
            // Sources accumulate: an override may cite new ones and still use the built-in ones.
            self.sources.extend(rows);
        }
        if let Some(rows) = doc.toolkit {
            self.toolkits = rows;
        }
        if let Some(rows) = doc.cuda_major {
            self.cuda_majors = rows;
        }
        if let Some(rows) = doc.branch {
            self.branches = rows;
        }
        if let Some(rows) = doc.cc {
            self.ccs = rows;
        }
        if let Some(rows) = doc.release {
            self.cudnn_releases = rows;
        }
        if let Some(rows) = doc.layout {
            self.cudnn_layouts = rows;
        }
        if let Some(rows) = doc.dlopen {
            self.dlopen = rows;
        }
        if let Some(rows) = doc.ptx_isa {
            self.ptx_isas = rows;
        }
    }

    /// Checks that every row cites known sources and that keys are unique.
    fn validate(&self) -> Result<(), KbError> {
        let known = |id: &str| self.sources.iter().any(|s| s.id == id);
        let mut cited: Vec<(&str, &Vec<String>)> = Vec::new();
        cited.extend(self.toolkits.iter().map(|r| ("toolkit", &r.sources)));
        cited.extend(self.cuda_majors.iter().map(|r| ("cuda_major", &r.sources)));
        cited.extend(self.branches.iter().map(|r| ("branch", &r.sources)));
        cited.extend(self.ccs.iter().map(|r| ("cc", &r.sources)));
        cited.extend(self.cudnn_releases.iter().map(|r| ("release", &r.sources)));
        cited.extend(self.cudnn_layouts.iter().map(|r| ("layout", &r.sources)));
        cited.extend(self.dlopen.iter().map(|r| ("dlopen", &r.sources)));
        cited.extend(self.ptx_isas.iter().map(|r| ("ptx_isa", &r.sources)));
        for (table, ids) in cited {
            if ids.is_empty() {
                return Err(KbError::Invalid(format!("a {table} row has no source")));
            }
            for id in ids {
                if !known(id) {
                    return Err(KbError::Invalid(format!(
                        "a {table} row cites unknown source {id:?}"
                    )));
                }
            }
        }
        for pair in self.toolkits.windows(2) {
            if pair[0].version == pair[1].version {
                return Err(KbError::Invalid(format!(
                    "toolkit {} listed twice",
                    pair[0].version
                )));
            }
        }
        for pair in self.branches.windows(2) {
            if pair[0].branch == pair[1].branch {
                return Err(KbError::Invalid(format!(
                    "branch {} listed twice",
                    pair[0].branch
                )));
            }
        }
        for pair in self.ptx_isas.windows(2) {
            if pair[0].ptx_isa == pair[1].ptx_isa {
                return Err(KbError::Invalid(format!(
                    "PTX ISA {} listed twice",
                    pair[0].ptx_isa
                )));
            }
        }
        for pair in self.ccs.windows(2) {
            if pair[0].cc == pair[1].cc {
                return Err(KbError::Invalid(format!("cc {} listed twice", pair[0].cc)));
            }
        }
        Ok(())
    }

    /// A source's description.
    pub fn source(&self, id: &str) -> Option<&SourceRow> {
        self.sources.iter().find(|s| s.id == id)
    }

    /// The number of distinct sources the tables cite.
    pub fn source_count(&self) -> usize {
        self.sources.len()
    }

    /// The toolkit row for a toolkit version: the exact release, else the newest release of the
    /// same `major.minor` that is not newer than `version`, else that minor's first release.
    pub fn toolkit(&self, version: &Version) -> Option<&ToolkitRow> {
        let same_minor = |r: &&ToolkitRow| r.version.cuda() == version.cuda();
        self.toolkits
            .iter()
            .filter(same_minor)
            .rfind(|r| r.version <= *version)
            .or_else(|| self.toolkits.iter().find(same_minor))
    }

    /// The minimum driver of a CUDA `major.minor`: its first (GA) release's confirmed minimum.
    pub fn min_driver_for_cuda(&self, cuda: CudaVersion) -> Option<&ToolkitRow> {
        self.toolkits
            .iter()
            .filter(|r| r.version.cuda() == cuda && r.min_driver.is_some())
            .min_by(|a, b| a.version.cmp(&b.version))
    }

    /// The minor-version-compatibility minimum of a CUDA major (11, 12, 13).
    pub fn mvc_min_driver(&self, major: u32) -> Option<&CudaMajorRow> {
        self.cuda_majors.iter().find(|r| r.major == major)
    }

    /// The newest CUDA version a driver fully supports (nvidia-smi's "CUDA Version").
    pub fn max_cuda_for_driver(&self, driver: &Version) -> DriverCeiling {
        let branch = driver.major();
        match self.branches.iter().rfind(|b| b.branch <= branch) {
            None => DriverCeiling::OlderThanKb,
            Some(row) => {
                let newest = self.branches.last().map(|b| b.branch).unwrap_or(0);
                if branch > newest {
                    DriverCeiling::NewerThanKb {
                        at_least: row.max_cuda,
                        newest_known_branch: newest,
                    }
                } else {
                    DriverCeiling::Known {
                        max_cuda: row.max_cuda,
                        branch: row.branch,
                    }
                }
            }
        }
    }

    /// The branch row whose max CUDA first reaches `cuda` (the oldest branch that fully supports it).
    pub fn first_branch_for_cuda(&self, cuda: CudaVersion) -> Option<&BranchRow> {
        self.branches.iter().find(|b| b.max_cuda >= cuda)
    }

    /// The newest CUDA version the knowledge base knows a toolkit of.
    pub fn newest_toolkit(&self) -> Option<&ToolkitRow> {
        self.toolkits.last()
    }

    /// Facts about a compute capability.
    pub fn cc(&self, cc: ComputeCapability) -> Option<&CcRow> {
        self.ccs.iter().find(|r| r.cc == cc)
    }

    /// Whether toolkit `cuda` can build code for `cc`.
    pub fn arch_support(&self, cc: ComputeCapability, cuda: CudaVersion) -> ArchSupport {
        let Some(row) = self.cc(cc) else {
            return ArchSupport::Unknown;
        };
        if let Some(first) = row.first_cuda {
            if cuda < first {
                return ArchSupport::GpuTooNew { first_cuda: first };
            }
        }
        if let Some(last) = row.last_cuda {
            if cuda > last {
                return ArchSupport::GpuDropped { last_cuda: last };
            }
        }
        ArchSupport::Supported
    }

    /// The cuDNN release range that contains `version`.
    pub fn cudnn_release(&self, version: &Version) -> Option<&CudnnReleaseRow> {
        self.cudnn_releases
            .iter()
            .find(|r| r.first <= *version && *version <= r.last)
    }

    /// The library layout of a cuDNN major.
    pub fn cudnn_layout(&self, major: u32) -> Option<&CudnnLayoutRow> {
        self.cudnn_layouts.iter().find(|r| r.major == major)
    }

    /// Every GPU row (parsed on first use).
    pub fn gpus(&self) -> Result<&[GpuRow], KbError> {
        let parsed = self.gpus.get_or_init(|| {
            let text = match &self.gpus_text {
                GpusText::Builtin => BUILTIN_GPUS,
                GpusText::Override(t) => t.as_str(),
            };
            parse_gpus_tsv("gpus.tsv", text).map_err(|e| e.to_string())
        });
        match parsed {
            Ok(rows) => Ok(rows),
            Err(message) => Err(KbError::Invalid(message.clone())),
        }
    }

    /// The GPU with this PCI device id (vendor 0x10de).
    pub fn gpu_by_pci_id(&self, device_id: u16) -> Option<&GpuRow> {
        let rows = self.gpus().ok()?;
        rows.binary_search_by_key(&device_id, |r| r.device_id)
            .ok()
            .and_then(|i| rows.get(i))
    }
}

const GPUS_TSV_HEADER: &str = "device_id\tchip\tcompute_capability\tname\tlegacy_branch\tsources";

/// Parses `gpus.tsv`: `#` comments, one header line, then tab-separated rows sorted by device id.
pub fn parse_gpus_tsv(name: &str, text: &str) -> Result<Vec<GpuRow>, KbError> {
    let mut rows = Vec::new();
    let mut header_seen = false;
    for (index, line) in text.lines().enumerate() {
        let line_no = index + 1;
        let err = |message: String| KbError::Table {
            name: name.to_string(),
            line: line_no,
            message,
        };
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        if !header_seen {
            if line != GPUS_TSV_HEADER {
                return Err(err(format!("expected the header line {GPUS_TSV_HEADER:?}")));
            }
            header_seen = true;
            continue;
        }
        let fields: Vec<&str> = line.split('\t').collect();
        if fields.len() != 6 {
            return Err(err(format!("expected 6 fields, found {}", fields.len())));
        }
        let device_id = u16::from_str_radix(fields[0], 16)
            .map_err(|_| err(format!("bad device id {:?}", fields[0])))?;
        let cc = if fields[2].is_empty() {
            None
        } else {
            Some(
                fields[2]
                    .parse::<ComputeCapability>()
                    .map_err(|e| err(e.to_string()))?,
            )
        };
        let sources: Vec<String> = fields[5]
            .split(';')
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .collect();
        if sources.is_empty() {
            return Err(err("row has no source".into()));
        }
        rows.push(GpuRow {
            device_id,
            chip: fields[1].to_string(),
            cc,
            name: fields[3].to_string(),
            legacy_branch: (!fields[4].is_empty()).then(|| fields[4].to_string()),
            sources,
        });
    }
    if !header_seen {
        return Err(KbError::Table {
            name: name.to_string(),
            line: 0,
            message: "no header line".into(),
        });
    }
    rows.sort_by_key(|r| r.device_id);
    rows.dedup_by_key(|r| r.device_id);
    Ok(rows)
}

#[cfg(test)]
mod tests;
