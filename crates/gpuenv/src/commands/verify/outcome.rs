//! `gpuenv verify`'s pure part: the child's step lines parsed, the run judged (passed, failed at a
//! step, timed out in a step, crashed), the libraries the process mapped compared with the loader
//! model's prediction, and the explanation of a failure tied to doctor's findings. No I/O.

use std::collections::BTreeSet;

use gpuenv_check::{Finding, Severity};
use gpuenv_explain::{Category, Explanation};
use gpuenv_facts::FrameworkBinary;
use serde::{Deserialize, Serialize};

/// The prefix of every step line the script prints.
pub const MARK: &str = "@@gpuenv-verify@@ ";

/// The steps in the order the script runs them (matmul/conv/memory only with a GPU).
pub const ORDER: &[&str] = &[
    "python",
    "start",
    "import",
    "cuda",
    "matmul",
    "conv",
    "memory",
    "libraries",
    "done",
];

/// One step the child reported.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Step {
    pub step: String,
    pub ok: bool,
    /// The GPU (the framework's index) for per-device steps.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ms: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Everything else the step said (versions, devices, mapped libraries ...).
    #[serde(flatten)]
    pub detail: serde_json::Map<String, serde_json::Value>,
}

impl Step {
    /// A string field of `detail`.
    pub fn text(&self, key: &str) -> Option<&str> {
        self.detail.get(key).and_then(serde_json::Value::as_str)
    }
}

/// Parses the step lines out of the child's stdout; other lines (the framework's own prints) are
/// skipped, and so is a line that is not a step object.
pub fn parse_steps(stdout: &str) -> Vec<Step> {
    stdout
        .lines()
        .filter_map(|l| l.strip_prefix(MARK))
        .filter_map(|json| serde_json::from_str::<Step>(json).ok())
        .collect()
}

/// How the run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    /// Every step ran and succeeded.
    Passed,
    /// A step reported a failure.
    Failed,
    /// The timeout struck; the process group was killed.
    TimedOut,
    /// The process ended without finishing (a signal, `os._exit`, a crash in native code).
    Crashed,
    /// The interpreter could not be started.
    NotStarted,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Passed => "passed",
            Status::Failed => "failed",
            Status::TimedOut => "timed-out",
            Status::Crashed => "crashed",
            Status::NotStarted => "not-started",
        }
    }
}

/// The step that failed, or that was running when the run stopped: the first failed step, else
/// the step after the last one reported (`import` when the import never finished).
pub fn stopped_at(steps: &[Step], status: Status) -> Option<String> {
    if status == Status::Passed {
        return None;
    }
    // The steps reported before the script caught an exception (if it did).
    let before: Vec<&Step> = steps.iter().take_while(|s| s.step != "error").collect();
    if let Some(s) = before.iter().find(|s| !s.ok && s.step != "done") {
        return Some(s.step.clone());
    }
    let next = before
        .iter()
        .filter_map(|s| ORDER.iter().position(|o| *o == s.step))
        .max()
        .map_or(0, |i| i + 1);
    Some(ORDER.get(next).copied().unwrap_or("done").to_string())
}

/// Judges the run from its steps and how the process ended.
pub fn judge(steps: &[Step], timed_out: bool, started: bool) -> Status {
    if !started {
        return Status::NotStarted;
    }
    if timed_out {
        return Status::TimedOut;
    }
    let done = steps.iter().any(|s| s.step == "done");
    if steps.iter().any(|s| !s.ok) {
        return Status::Failed;
    }
    if done {
        Status::Passed
    } else {
        Status::Crashed
    }
}

/// The error text to explain: every failed step's error, then the tail of stderr.
pub fn error_text(steps: &[Step], stderr: &str) -> String {
    let mut text = String::new();
    for s in steps.iter().filter(|s| !s.ok) {
        if let Some(e) = &s.error {
            text.push_str(e);
            text.push('\n');
        }
    }
    text.push_str(stderr);
    text
}

/// A difference between what the process mapped and what the loader model predicted, or another
/// observation of the run itself.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LoadFinding {
    /// `loaded-elsewhere`, `loaded-though-predicted-missing`, `loaded-unpredicted`,
    /// `predicted-not-loaded`, `missing-as-predicted`.
    pub id: &'static str,
    pub severity: Severity,
    pub title: String,
    pub evidence: Vec<String>,
}

/// The library's name without its version (`libcudnn_ops_infer.so.8` -> `libcudnn_ops_infer`).
fn stem(name: &str) -> &str {
    let base = name.rsplit('/').next().unwrap_or(name);
    base.split(".so").next().unwrap_or(base)
}

/// Compares the CUDA libraries the process mapped (`/proc/self/maps`, real paths) with the loader
/// model's prediction for the framework binary. `complete`: the workload ran to the end (so a
/// predicted library not mapped is worth a note). `ld_preload`: the child's `LD_PRELOAD`.
/// `failed_on`: the libraries the error names (a failed import's "cannot open shared object
/// file"); those the model predicted missing confirm it.
pub fn compare_loading(
    predicted: Option<&FrameworkBinary>,
    mapped: &[String],
    complete: bool,
    ld_preload: Option<&str>,
    failed_on: &[String],
) -> Vec<LoadFinding> {
    let mut out = Vec::new();
    let Some(binary) = predicted else {
        return out;
    };
    let confirmed: Vec<&str> = binary
        .missing
        .iter()
        .filter(|m| failed_on.iter().any(|f| f == &m.name))
        .map(|m| m.name.as_str())
        .collect();
    if !confirmed.is_empty() {
        out.push(LoadFinding {
            id: "missing-as-predicted",
            severity: Severity::Info,
            title: format!(
                "the process failed on {}, which gpuenv's loader model predicted missing",
                confirmed.join(", ")
            ),
            evidence: binary
                .missing
                .iter()
                .filter(|m| confirmed.contains(&m.name.as_str()))
                .map(|m| {
                    format!(
                        "{} for {}: found nowhere ({} places tried)",
                        m.name,
                        m.requested_by,
                        m.tried.len()
                    )
                })
                .collect(),
        });
    }
    let preload_note = ld_preload
        .filter(|p| !p.is_empty())
        .map(|p| format!("the process ran with LD_PRELOAD={p}"));
    let mut unpredicted = Vec::new();
    for path in mapped {
        let key = stem(path);
        let same: Vec<_> = binary
            .libraries
            .iter()
            .filter(|l| stem(&l.name) == key)
            .collect();
        if same.is_empty() {
            if let Some(m) = binary.missing.iter().find(|m| stem(&m.name) == key) {
                let mut evidence = vec![
                    format!("the process mapped {path}"),
                    format!(
                        "the loader model found {} nowhere for {} ({} places tried)",
                        m.name,
                        m.requested_by,
                        m.tried.len()
                    ),
                ];
                evidence.extend(preload_note.clone());
                out.push(LoadFinding {
                    id: "loaded-though-predicted-missing",
                    severity: Severity::Warning,
                    title: format!(
                        "{} was loaded although gpuenv predicted it missing (LD_PRELOAD, a dlopen with a full path, or a gap in the loader model)",
                        m.name
                    ),
                    evidence,
                });
            } else {
                unpredicted.push(path.clone());
            }
            continue;
        }
        if same.iter().any(|l| &l.real_path == path || &l.path == path) {
            continue;
        }
        let mut evidence = vec![format!("the process mapped {path}")];
        for l in &same {
            evidence.push(format!(
                "gpuenv predicted {} -> {} (found by {})",
                l.name, l.real_path, l.found_by
            ));
        }
        evidence.extend(preload_note.clone());
        out.push(LoadFinding {
            id: "loaded-elsewhere",
            severity: Severity::Warning,
            title: format!(
                "{key} was loaded from {path}, not from where gpuenv predicted (LD_PRELOAD, a dlopen with a full path, or a gap in the loader model)"
            ),
            evidence,
        });
    }
    if !unpredicted.is_empty() {
        let mut evidence: Vec<String> = unpredicted
            .iter()
            .map(|p| format!("the process mapped {p}"))
            .collect();
        evidence.extend(preload_note.clone());
        out.push(LoadFinding {
            id: "loaded-unpredicted",
            severity: Severity::Info,
            title: format!(
                "{} CUDA librar{} loaded that the loader model does not predict for {}",
                unpredicted.len(),
                if unpredicted.len() == 1 {
                    "y was"
                } else {
                    "ies were"
                },
                binary.path
            ),
            evidence,
        });
    }
    if complete {
        let mapped_stems: BTreeSet<&str> = mapped.iter().map(|p| stem(p)).collect();
        let never: Vec<String> = binary
            .libraries
            .iter()
            .filter(|l| !mapped_stems.contains(stem(&l.name)))
            .map(|l| l.name.clone())
            .collect();
        if !never.is_empty() {
            out.push(LoadFinding {
                id: "predicted-not-loaded",
                severity: Severity::Info,
                title: format!(
                    "{} predicted librar{} not loaded by this workload (loaded lazily by other operations, or not at all)",
                    never.len(),
                    if never.len() == 1 { "y was" } else { "ies were" }
                ),
                evidence: vec![never.join(", ")],
            });
        }
    }
    out
}

/// The doctor checks whose findings can explain a failure of this category.
pub fn checks_for(category: Category) -> &'static [&'static str] {
    match category {
        Category::DriverMissing => &[
            "driver-missing",
            "kernel-module-not-loaded",
            "nouveau-loaded",
            "secure-boot-blocks-module",
            "device-nodes",
        ],
        Category::DriverKernelUserspaceMismatch => &["driver-userspace-mismatch"],
        Category::DriverTooOldForRuntime => {
            &["framework-needs-newer-driver", "driver-too-old-for-cuda"]
        }
        Category::GpuArchUnsupportedByBuild => &[
            "framework-lacks-gpu-arch",
            "gpu-arch-unsupported-by-toolkit",
            "gpu-dropped-by-driver",
        ],
        Category::CpuOnlyBuild => &["torch-cpu-only", "tensorflow-cpu-only", "jax-cpu-only"],
        Category::CudnnMissing | Category::CudaRuntimeLibMissing => &[
            "library-missing",
            "cudnn-broken-link",
            "library-shadowed",
            "requirement-unsatisfied",
        ],
        Category::CudnnVersionMismatch => &[
            "framework-cudnn-mismatch",
            "cudnn-cuda-mismatch",
            "cudnn-mixed-sublibraries",
            "cudnn-multiple-versions",
            "library-shadowed",
        ],
        Category::LibraryPathShadowing => &[
            "library-shadowed",
            "library-path-mixes-cuda",
            "cuda-link-mismatch",
        ],
        Category::MultipleInstallsConflict => &[
            "duplicate-distribution",
            "module-clobbered",
            "conda-pip-mixed",
            "cudnn-multiple-versions",
        ],
        Category::PythonEnvMismatch => &["interpreter-mismatch", "python-unsupported"],
        Category::PackageConflict => &[
            "requirement-unsatisfied",
            "companion-version-mismatch",
            "numpy-abi-mismatch",
        ],
        Category::EnvVarMisconfiguration => &["gpus-hidden", "cuda-home-invalid"],
        Category::Wsl => &["wsl-linux-driver"],
        Category::PermissionsDeviceNodes | Category::ContainerRuntime => {
            &["device-nodes", "driver-missing"]
        }
        Category::HardwareOrDriverState => &["kernel-module-not-loaded", "gpu-dropped-by-driver"],
        _ => &[],
    }
}

/// Doctor's findings that explain the failure, best first: of the checks tied to the
/// explanation's answer (or, without one, to any diagnosis), for this environment or the machine;
/// findings that name a library the error names come first.
pub fn explaining_findings(
    explanation: &Explanation,
    findings: &[Finding],
    prefix: &str,
) -> Vec<Finding> {
    let categories: Vec<Category> = match explanation.top() {
        Some(top) => vec![top.category],
        None => explanation.diagnoses.iter().map(|d| d.category).collect(),
    };
    let mut ids: Vec<&str> = Vec::new();
    for c in categories {
        for id in checks_for(c) {
            if !ids.contains(id) {
                ids.push(id);
            }
        }
    }
    let libraries: Vec<&str> = explanation
        .values
        .libraries
        .iter()
        .map(|l| stem(l))
        .collect();
    let mentions = |f: &Finding| {
        libraries
            .iter()
            .any(|l| f.title.contains(l) || f.evidence.iter().any(|e| e.contains(l)))
    };
    let mut out: Vec<(usize, bool, &Finding)> = findings
        .iter()
        .filter(|f| f.environment.as_deref().is_none_or(|e| e == prefix))
        .filter_map(|f| {
            ids.iter()
                .position(|id| *id == f.id)
                .map(|rank| (rank, mentions(f), f))
        })
        .collect();
    out.sort_by(|a, b| {
        b.1.cmp(&a.1)
            .then(b.2.severity.cmp(&a.2.severity))
            .then(a.0.cmp(&b.0))
    });
    out.into_iter().map(|(_, _, f)| f.clone()).collect()
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use gpuenv_facts::{MissingLibrary, ResolvedLibrary};

    fn step(line: &str) -> Step {
        parse_steps(&format!("{MARK}{line}\n")).remove(0)
    }

    fn binary() -> FrameworkBinary {
        FrameworkBinary {
            framework: "torch".into(),
            path: "/e/site/torch/lib/libtorch_cuda.so".into(),
            libraries: vec![ResolvedLibrary {
                name: "libcudart.so.12".into(),
                path: "/e/site/nvidia/cuda_runtime/lib/libcudart.so.12".into(),
                real_path: "/e/site/nvidia/cuda_runtime/lib/libcudart.so.12".into(),
                found_by: "rpath of libtorch_cuda.so".into(),
                version: None,
                dlopen: false,
                shadowed: vec![],
            }],
            missing: vec![MissingLibrary {
                name: "libcudnn.so.9".into(),
                requested_by: "libtorch_cuda.so".into(),
                dlopen: true,
                tried: vec!["a".into(), "b".into()],
                error: None,
            }],
            gpu_code: vec![],
            gpu_code_source: None,
            error: None,
        }
    }

    #[test]
    fn steps_are_parsed_and_noise_skipped() {
        let out = format!(
            "hello\n{MARK}{{\"step\":\"import\",\"ok\":true,\"version\":\"2.1\",\"ms\":5.0}}\n{MARK}not json\n"
        );
        let steps = parse_steps(&out);
        assert_eq!(steps.len(), 1);
        assert_eq!(steps[0].text("version"), Some("2.1"));
        assert_eq!(steps[0].ms, Some(5.0));
    }

    #[test]
    fn the_stopping_step_is_named() {
        let started = vec![
            step(r#"{"step":"python","ok":true}"#),
            step(r#"{"step":"start","ok":true}"#),
        ];
        assert_eq!(judge(&started, true, true), Status::TimedOut);
        assert_eq!(
            stopped_at(&started, Status::TimedOut).as_deref(),
            Some("import")
        );
        let mut failed = started.clone();
        failed.push(step(r#"{"step":"error","ok":false,"error":"OSError: x"}"#));
        assert_eq!(judge(&failed, false, true), Status::Failed);
        assert_eq!(
            stopped_at(&failed, Status::Failed).as_deref(),
            Some("import")
        );
        assert_eq!(judge(&started, false, true), Status::Crashed);
        let mut cuda = started.clone();
        cuda.push(step(r#"{"step":"import","ok":true}"#));
        cuda.push(step(r#"{"step":"cuda","ok":false,"error":"no"}"#));
        assert_eq!(stopped_at(&cuda, Status::Failed).as_deref(), Some("cuda"));
        assert_eq!(judge(&[], false, false), Status::NotStarted);
    }

    #[test]
    fn loading_differences_are_findings() {
        let b = binary();
        let same = compare_loading(
            Some(&b),
            &["/e/site/nvidia/cuda_runtime/lib/libcudart.so.12".into()],
            false,
            None,
            &[],
        );
        assert!(same.is_empty(), "{same:?}");
        let elsewhere = compare_loading(
            Some(&b),
            &[
                "/usr/local/cuda/lib64/libcudart.so.12.4.127".into(),
                "/opt/x/libcudnn.so.9.1.0".into(),
                "/usr/lib/libnccl.so.2".into(),
            ],
            true,
            Some("/opt/x/libcudnn.so.9.1.0"),
            &[],
        );
        let ids: Vec<&str> = elsewhere.iter().map(|f| f.id).collect();
        assert_eq!(
            ids,
            [
                "loaded-elsewhere",
                "loaded-though-predicted-missing",
                "loaded-unpredicted"
            ]
        );
        assert!(elsewhere[1]
            .evidence
            .iter()
            .any(|e| e.contains("LD_PRELOAD")));
        let lazy = compare_loading(Some(&b), &[], true, None, &[]);
        assert_eq!(lazy[0].id, "predicted-not-loaded");
        let confirmed = compare_loading(Some(&b), &[], false, None, &["libcudnn.so.9".into()]);
        assert_eq!(confirmed[0].id, "missing-as-predicted");
    }

    #[test]
    fn every_category_names_real_checks() {
        for c in gpuenv_explain::category::ALL {
            for id in checks_for(c) {
                assert!(
                    gpuenv_check::RULES.iter().any(|r| r.id == *id),
                    "{id} is not a check"
                );
            }
        }
    }
}
