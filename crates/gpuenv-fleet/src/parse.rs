//! One report document → one `NodeSummary`: the few fields the fleet view needs, read with serde
//! views that skip everything else (a report's facts can be hundreds of kilobytes; the summary is a
//! few short strings). Accepts `gpuenv.report/1` and `gpuenv.snapshot/1` documents.

use std::collections::BTreeMap;

use serde::Deserialize;

/// The schemas the fleet view understands.
pub const ACCEPTED_SCHEMAS: &[&str] = &["gpuenv.report/1", "gpuenv.snapshot/1"];

/// The fixed columns, in display order; environment columns (`env:NAME`) follow them.
pub const FIXED_COLUMNS: &[&str] = &["os", "kernel", "driver", "gpus", "cuda", "cudnn"];

/// Why a document could not be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Rejection {
    /// Not JSON, or JSON without the report's shape.
    Malformed(String),
    /// A gpuenv document of a schema this version does not read (or not a gpuenv document).
    OtherSchema(String),
}

/// What one node's report says, reduced to the fleet's columns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeSummary {
    /// The node's host name (`facts.os.hostname`), or the origin when the report has none.
    pub host: String,
    /// Seconds since the epoch when the node's report was made.
    pub timestamp: u64,
    /// `(column, value)`: the fixed columns always, `env:NAME` for environments with frameworks.
    pub cells: Vec<(String, String)>,
    /// Error findings: `id` or `id (environment)`.
    pub error_findings: Vec<String>,
    pub errors: u32,
    pub warnings: u32,
}

#[derive(Deserialize)]
struct Doc {
    schema: Option<String>,
    #[serde(default)]
    timestamp: u64,
    /// A snapshot's host name (reports have it in the facts only).
    #[serde(default)]
    host: Option<String>,
    #[serde(default)]
    findings: Vec<FindingView>,
    facts: Option<FactsView>,
}

#[derive(Deserialize)]
struct FindingView {
    id: String,
    severity: String,
    #[serde(default)]
    environment: Option<String>,
}

#[derive(Deserialize)]
struct Sourced<T> {
    value: T,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct FactsView {
    os: OsView,
    driver: DriverView,
    gpus: GpusView,
    cuda: CudaView,
    libraries: LibrariesView,
    python: PythonView,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct OsView {
    hostname: Option<Sourced<String>>,
    kernel_release: Option<Sourced<String>>,
    distribution: Option<Sourced<DistributionView>>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct DistributionView {
    id: String,
    version_id: String,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct DriverView {
    kernel_module: Option<KernelModuleView>,
    userspace_version: Option<Sourced<String>>,
    nvml: Option<NvmlView>,
}

#[derive(Deserialize)]
struct KernelModuleView {
    version: Sourced<String>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct NvmlView {
    gpus: Vec<NvmlGpuView>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct NvmlGpuView {
    name: Option<String>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct GpusView {
    devices: Vec<GpuView>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct GpuView {
    device_id: u16,
    name: Option<Sourced<String>>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct CudaView {
    toolkits: Vec<ToolkitView>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct ToolkitView {
    version: Option<Sourced<String>>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct LibrariesView {
    cudnn: Vec<CudnnView>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct CudnnView {
    major: u32,
    version: Option<Sourced<String>>,
    cuda_major: Option<Sourced<u32>>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct PythonView {
    environments: Vec<EnvironmentView>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct EnvironmentView {
    name: String,
    frameworks: FrameworksView,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct FrameworksView {
    torch: Option<TorchView>,
    tensorflow: Option<TensorflowView>,
    packages: BTreeMap<String, String>,
}

#[derive(Deserialize)]
struct TorchView {
    version: Sourced<String>,
    #[serde(default)]
    cuda: Option<String>,
}

#[derive(Deserialize)]
struct TensorflowView {
    version: String,
    #[serde(default)]
    cuda_version: Option<String>,
}

/// Reads one JSON document (a doctor report or a snapshot). The host name comes from the facts,
/// else a snapshot's `host`, else `origin` (a file, `stdin:3`).
pub fn summarize(origin: &str, bytes: &[u8]) -> Result<NodeSummary, Rejection> {
    // One pass for the common case; a document that does not fit the view is read again for its
    // schema only, so that another schema version is told apart from a malformed document.
    #[derive(Deserialize)]
    struct SchemaOnly {
        schema: Option<serde_json::Value>,
    }
    let doc: Result<Doc, _> = serde_json::from_slice(bytes);
    let schema = match &doc {
        Ok(d) => d.schema.clone().map(serde_json::Value::String),
        Err(_) => serde_json::from_slice::<SchemaOnly>(bytes)
            .ok()
            .and_then(|s| s.schema),
    };
    match schema {
        Some(serde_json::Value::String(s)) if ACCEPTED_SCHEMAS.contains(&s.as_str()) => {}
        Some(serde_json::Value::String(s)) => return Err(Rejection::OtherSchema(s)),
        _ => {
            return Err(Rejection::Malformed(match doc {
                Err(e) => e.to_string(),
                Ok(_) => "no \"schema\" field: not a gpuenv report".to_string(),
            }))
        }
    }
    let doc = doc.map_err(|e| Rejection::Malformed(e.to_string()))?;
    let Some(facts) = doc.facts else {
        return Err(Rejection::Malformed("no \"facts\" object".to_string()));
    };
    let origin = match doc.host.as_deref() {
        Some(h) if !h.is_empty() => h,
        _ => origin,
    };
    Ok(summary_of(origin, doc.timestamp, &doc.findings, facts))
}

fn summary_of(
    origin: &str,
    timestamp: u64,
    findings: &[FindingView],
    facts: FactsView,
) -> NodeSummary {
    let host = facts
        .os
        .hostname
        .map(|h| h.value)
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| origin.to_string());
    let mut cells = Vec::with_capacity(FIXED_COLUMNS.len() + 2);
    let os = facts
        .os
        .distribution
        .map(|d| {
            format!("{} {}", d.value.id, d.value.version_id)
                .trim()
                .to_string()
        })
        .unwrap_or_default();
    cells.push(("os".to_string(), os));
    let kernel = facts.os.kernel_release.map(|k| k.value).unwrap_or_default();
    cells.push(("kernel".to_string(), kernel));
    cells.push(("driver".to_string(), driver_cell(&facts.driver)));
    cells.push(("gpus".to_string(), gpus_cell(&facts.gpus, &facts.driver)));
    let mut toolkits: Vec<String> = facts
        .cuda
        .toolkits
        .into_iter()
        .map(|t| t.version.map(|v| v.value).unwrap_or_else(|| "?".into()))
        .collect();
    toolkits.sort();
    toolkits.dedup();
    cells.push(("cuda".to_string(), toolkits.join(", ")));
    let mut cudnn: Vec<String> = facts
        .libraries
        .cudnn
        .into_iter()
        .map(|c| {
            let version = c
                .version
                .map(|v| v.value)
                .unwrap_or_else(|| c.major.to_string());
            match c.cuda_major {
                Some(m) => format!("{version} (CUDA {})", m.value),
                None => version,
            }
        })
        .collect();
    cudnn.sort();
    cudnn.dedup();
    cells.push(("cudnn".to_string(), cudnn.join(", ")));
    let mut envs: BTreeMap<String, String> = BTreeMap::new();
    for env in facts.python.environments {
        let value = frameworks_cell(&env.frameworks);
        if value.is_empty() {
            continue;
        }
        // Two environments of one name on one node: keep both values, in a stable order.
        let slot = envs.entry(format!("env:{}", env.name)).or_default();
        if !slot.is_empty() {
            slot.push_str(" | ");
        }
        slot.push_str(&value);
    }
    cells.extend(envs);
    let mut error_findings = Vec::new();
    let (mut errors, mut warnings) = (0u32, 0u32);
    for f in findings {
        match f.severity.as_str() {
            "error" => {
                errors += 1;
                error_findings.push(match &f.environment {
                    Some(e) => format!("{} ({e})", f.id),
                    None => f.id.clone(),
                });
            }
            "warning" => warnings += 1,
            _ => {}
        }
    }
    error_findings.sort();
    error_findings.dedup();
    NodeSummary {
        host,
        timestamp,
        cells,
        error_findings,
        errors,
        warnings,
    }
}

fn driver_cell(d: &DriverView) -> String {
    let user = d.userspace_version.as_ref().map(|v| v.value.as_str());
    let kernel = d.kernel_module.as_ref().map(|k| k.version.value.as_str());
    match (user, kernel) {
        (Some(u), Some(k)) if u == k => u.to_string(),
        (Some(u), Some(k)) => format!("{u} (kernel module {k})"),
        (Some(u), None) => format!("{u} (no kernel module)"),
        (None, Some(k)) => format!("kernel module {k}, no userspace"),
        (None, None) => String::new(),
    }
}

fn gpus_cell(g: &GpusView, d: &DriverView) -> String {
    let mut names: Vec<String> = g
        .devices
        .iter()
        .map(|dev| match &dev.name {
            Some(n) => n.value.clone(),
            None => format!("10de:{:04x}", dev.device_id),
        })
        .collect();
    if names.is_empty() {
        if let Some(nvml) = &d.nvml {
            names = nvml
                .gpus
                .iter()
                .map(|g| g.name.clone().unwrap_or_else(|| "GPU".into()))
                .collect();
        }
    }
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    for n in names {
        *counts.entry(n).or_default() += 1;
    }
    counts
        .into_iter()
        .map(|(name, n)| format!("{n}× {name}"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn frameworks_cell(f: &FrameworksView) -> String {
    let mut parts = Vec::new();
    if let Some(t) = &f.torch {
        match &t.cuda {
            Some(c) => parts.push(format!("torch {} (CUDA {c})", t.version.value)),
            None => parts.push(format!("torch {}", t.version.value)),
        }
    }
    if let Some(t) = &f.tensorflow {
        match &t.cuda_version {
            Some(c) => parts.push(format!("tensorflow {} (CUDA {c})", t.version)),
            None => parts.push(format!("tensorflow {}", t.version)),
        }
    }
    for (name, version) in &f.packages {
        if name == "torch" || name == "tensorflow" {
            continue;
        }
        parts.push(format!("{name} {version}"));
    }
    parts.join(", ")
}
