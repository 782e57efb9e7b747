//! The flutter-doctor-like summary: one line per layer with a status and the key versions.
//! Derived from facts and findings only, so every renderer and the JSON report agree.

use serde::{Deserialize, Serialize};

use gpuenv_facts::Facts;

use crate::context::Context;
use crate::finding::{Finding, Layer, Severity};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LayerStatus {
    Ok,
    Warning,
    Error,
    /// Nothing of this layer is on the machine (no GPU, no toolkit).
    Absent,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LayerSummary {
    pub layer: Layer,
    pub status: LayerStatus,
    /// One line: the key versions of the layer.
    pub text: String,
    /// For L5 lines: the environment's prefix (one line per environment).
    #[serde(default)]
    pub environment: Option<String>,
}

fn status(findings: &[Finding], layer: Layer, present: bool) -> LayerStatus {
    let worst = findings
        .iter()
        .filter(|f| f.layer == layer)
        .map(|f| f.severity)
        .max();
    match worst {
        Some(Severity::Error) => LayerStatus::Error,
        Some(Severity::Warning) => LayerStatus::Warning,
        _ if !present => LayerStatus::Absent,
        _ => LayerStatus::Ok,
    }
}

/// The summary lines for layers L0..L4.
pub fn summarize(cx: &Context, findings: &[Finding]) -> Vec<LayerSummary> {
    let f: &Facts = cx.facts;
    let mut out = Vec::new();

    let mut os = Vec::new();
    if let Some(d) = &f.os.distribution {
        os.push(if d.value.pretty_name.is_empty() {
            d.value.id.clone()
        } else {
            d.value.pretty_name.clone()
        });
    }
    if let Some(k) = &f.os.kernel_release {
        os.push(format!("kernel {}", k.value));
    }
    if let Some(c) = &f.os.container {
        os.push(format!("in a {} container", c.value));
    }
    if f.os.wsl.is_some() {
        os.push("WSL2".into());
    }
    out.push(LayerSummary {
        layer: Layer::Os,
        status: status(findings, Layer::Os, true),
        text: os.join(", "),
        environment: None,
    });

    let mut drv = Vec::new();
    // Under WSL2 the driver is Windows': no Linux module, and a libcuda without a version in its name.
    let wsl_libcuda =
        f.os.wsl
            .as_ref()
            .and_then(|w| w.value.windows_libcuda.clone());
    match (&f.driver.kernel_module, &wsl_libcuda) {
        (Some(m), _) => drv.push(format!("kernel module {}", m.version.value)),
        (None, Some(_)) => drv.push("the Windows driver (WSL2)".into()),
        (None, None) => drv.push("no kernel module loaded".into()),
    }
    match (&f.driver.userspace_version, &wsl_libcuda) {
        (Some(v), _) => drv.push(format!("userspace {}", v.value)),
        (None, Some(path)) => drv.push(format!("userspace {path}")),
        (None, None) => drv.push("no userspace driver".into()),
    }
    if let Some((max, _)) = cx.driver_ceiling() {
        if cx.driver_ceiling_is_lower_bound() {
            drv.push(format!("supports at least CUDA {max}"));
        } else {
            drv.push(format!("supports CUDA <= {max}"));
        }
    }
    let driver_present = f.driver.kernel_module.is_some()
        || f.driver.userspace_version.is_some()
        || wsl_libcuda.is_some();
    out.push(LayerSummary {
        layer: Layer::Driver,
        status: status(findings, Layer::Driver, driver_present),
        text: drv.join(", "),
        environment: None,
    });

    let gpus = cx.gpus();
    let gpu_text = if gpus.is_empty() {
        "no NVIDIA GPU found".to_string()
    } else {
        gpus.iter()
            .map(|g| match g.cc {
                Some(cc) => format!("{} sm_{}{}", g.label, cc.major, cc.minor),
                None => g.label.clone(),
            })
            .collect::<Vec<_>>()
            .join("; ")
    };
    out.push(LayerSummary {
        layer: Layer::Gpu,
        status: status(findings, Layer::Gpu, !gpus.is_empty()),
        text: gpu_text,
        environment: None,
    });

    let mut cuda = Vec::new();
    for t in &f.cuda.toolkits {
        let v = t
            .version
            .as_ref()
            .map(|v| v.value.to_string())
            .unwrap_or_else(|| "?".into());
        cuda.push(format!("toolkit {v} ({})", t.root));
    }
    if cuda.is_empty() {
        cuda.push("no CUDA toolkit".into());
    }
    let runtimes = f
        .cuda
        .runtimes
        .iter()
        .filter(|r| !r.reachable_via.is_empty())
        .count();
    if runtimes > 0 {
        cuda.push(format!("{runtimes} system CUDA runtime(s)"));
    }
    out.push(LayerSummary {
        layer: Layer::Cuda,
        status: status(
            findings,
            Layer::Cuda,
            !f.cuda.toolkits.is_empty() || runtimes > 0,
        ),
        text: cuda.join(", "),
        environment: None,
    });

    let mut libs: Vec<String> = f
        .libraries
        .cudnn
        .iter()
        .map(|i| {
            let v = i
                .version
                .as_ref()
                .map(|v| v.value.to_string())
                .unwrap_or_else(|| format!("{}.x", i.major));
            format!("cuDNN {v} ({})", i.dir)
        })
        .collect();
    if libs.is_empty() {
        libs.push("no system cuDNN".into());
    }
    // The cuDNN an environment holds itself (a pip wheel's nvidia/cudnn/lib, a conda env's lib):
    // its frameworks load it, the system loader does not.
    let mut own = Vec::new();
    for env in &f.python.environments {
        let mut versions: Vec<&str> = Vec::new();
        for path in &env.cuda_libraries {
            let name = path.rsplit('/').next().unwrap_or(path);
            let Some(version) = name.strip_prefix("libcudnn.so.") else {
                continue;
            };
            let major = version.split('.').next().unwrap_or(version);
            // Keep the fullest version of each major (`9.1.0` over `9`).
            match versions
                .iter_mut()
                .find(|v| v.split('.').next() == Some(major))
            {
                Some(v) if v.len() < version.len() => *v = version,
                Some(_) => {}
                None => versions.push(version),
            }
        }
        for v in versions {
            let shown = if v.contains('.') {
                v.to_string()
            } else {
                format!("{v}.x")
            };
            own.push(format!("cuDNN {shown} in environment {}", env.name));
        }
    }
    let mut text = libs.join(", ");
    if !own.is_empty() {
        text = format!("{text}; {}", own.join(", "));
    }
    out.push(LayerSummary {
        layer: Layer::Libraries,
        status: status(findings, Layer::Libraries, !f.libraries.cudnn.is_empty()),
        text,
        environment: None,
    });
    out.extend(python_lines(f, findings));
    out
}

/// One L5 line per Python environment: how it was found, its Python, its key frameworks.
fn python_lines(f: &Facts, findings: &[Finding]) -> Vec<LayerSummary> {
    let envs = &f.python.environments;
    if envs.is_empty() {
        return vec![LayerSummary {
            layer: Layer::Python,
            status: LayerStatus::Absent,
            text: "no Python environment found".into(),
            environment: None,
        }];
    }
    envs.iter()
        .map(|e| {
            let mut parts = Vec::new();
            let mut tags = vec![e.kind.clone()];
            if e.active {
                tags.insert(0, "active".into());
            }
            if let Some(v) = &e.python_version {
                tags.push(format!("Python {}", v.value));
            }
            let mut head = format!("{} ({})", e.name, tags.join(", "));
            if !e.full {
                head.push_str(" [listed]");
            }
            parts.push(head);
            if let Some(t) = &e.frameworks.torch {
                let build = match (&t.cuda, &t.hip) {
                    (Some(c), _) => format!("CUDA {c}"),
                    (None, Some(h)) => format!("ROCm/HIP {h}"),
                    (None, None) => "CPU-only".into(),
                };
                parts.push(format!("torch {} ({build})", t.version.value));
            }
            if let Some(tf) = &e.frameworks.tensorflow {
                let build = match (tf.is_cuda_build, &tf.cuda_version) {
                    (Some(true), Some(c)) => format!("CUDA {c}"),
                    (Some(false), _) => "CPU-only".into(),
                    _ => "?".into(),
                };
                parts.push(format!("tensorflow {} ({build})", tf.version));
            }
            for (k, v) in &e.frameworks.packages {
                if matches!(
                    k.as_str(),
                    "torch" | "tensorflow" | "numpy" | "pyside6" | "pyqt5" | "pyqt6" | "napari"
                ) || k.starts_with("opencv")
                {
                    continue;
                }
                parts.push(format!("{k} {v}"));
            }
            let mine: Vec<&Finding> = findings
                .iter()
                .filter(|x| x.environment.as_deref() == Some(e.prefix.as_str()))
                .collect();
            let status = match mine.iter().map(|x| x.severity).max() {
                Some(Severity::Error) => LayerStatus::Error,
                Some(Severity::Warning) => LayerStatus::Warning,
                _ => LayerStatus::Ok,
            };
            LayerSummary {
                layer: Layer::Python,
                status,
                text: parts.join(", "),
                environment: Some(e.prefix.clone()),
            }
        })
        .collect()
}
