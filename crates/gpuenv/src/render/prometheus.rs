//! `gpuenv doctor --format prometheus`: the report in the Prometheus text exposition format
//! (version 0.0.4), for node_exporter's textfile collector and `gpuenv serve`'s `/metrics`.
//!
//! Series: `gpuenv_finding{id,severity,layer,environment}` (the number of such findings),
//! `gpuenv_findings{severity}`, info metrics with value 1 for the stack (`gpuenv_driver_info`,
//! `gpuenv_gpu_info` with dcgm-exporter's join labels `gpu`, `UUID`, `modelName`, `Hostname`,
//! `pci_bus_id`; `gpuenv_cuda_toolkit_info`, `gpuenv_cudnn_info`, `gpuenv_framework_info` per
//! environment), and the run's `gpuenv_run_timestamp_seconds` and `gpuenv_run_duration_seconds`.
//! Every label set is unique within a metric, as Prometheus requires.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::{self, Write};

use gpuenv_check::Severity;

use crate::report::Report;

/// Escapes a label value: backslash, double quote and newline.
fn esc(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\\' => o.push_str("\\\\"),
            '"' => o.push_str("\\\""),
            '\n' => o.push_str("\\n"),
            c => o.push(c),
        }
    }
    o
}

/// One metric family: HELP, TYPE and its samples (label sets are deduplicated by summing).
struct Family {
    name: &'static str,
    help: &'static str,
    samples: BTreeMap<String, f64>,
}

impl Family {
    fn new(name: &'static str, help: &'static str) -> Family {
        Family {
            name,
            help,
            samples: BTreeMap::new(),
        }
    }

    fn add(&mut self, labels: &[(&str, &str)], value: f64) {
        let mut key = String::new();
        for (i, (k, v)) in labels.iter().enumerate() {
            if i > 0 {
                key.push(',');
            }
            let _ = write!(key, "{k}=\"{}\"", esc(v));
        }
        *self.samples.entry(key).or_insert(0.0) += value;
    }

    fn write(&self, out: &mut dyn Write) -> io::Result<()> {
        if self.samples.is_empty() {
            return Ok(());
        }
        writeln!(out, "# HELP {} {}", self.name, self.help)?;
        writeln!(out, "# TYPE {} gauge", self.name)?;
        for (labels, value) in &self.samples {
            if labels.is_empty() {
                writeln!(out, "{} {}", self.name, value)?;
            } else {
                writeln!(out, "{}{{{labels}}} {}", self.name, value)?;
            }
        }
        Ok(())
    }
}

fn severity_name(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "info",
    }
}

/// `0000:01:00.0` (sysfs) as NVML and dcgm-exporter write it: `00000000:01:00.0`.
fn nvml_bus_id(sysfs: &str) -> String {
    match sysfs.split_once(':') {
        Some((domain, rest)) if domain.len() == 4 => {
            format!("0000{}:{}", domain.to_uppercase(), rest.to_uppercase())
        }
        _ => sysfs.to_uppercase(),
    }
}

pub fn render(out: &mut dyn Write, report: &Report<'_>) -> io::Result<()> {
    let facts = report.facts;
    let hostname = facts
        .os
        .hostname
        .as_ref()
        .map(|h| h.value.as_str())
        .unwrap_or("");

    let mut info = Family::new(
        "gpuenv_info",
        "The gpuenv that made this report and its knowledge base (value 1).",
    );
    info.add(
        &[
            ("version", report.gpuenv_version),
            ("knowledge_base", &report.knowledge_base.as_of),
            ("hostname", hostname),
            ("root", &facts.root),
        ],
        1.0,
    );
    let mut timestamp = Family::new(
        "gpuenv_run_timestamp_seconds",
        "When the doctor run behind these metrics started (Unix time).",
    );
    timestamp.add(&[], report.timestamp as f64);
    let mut duration = Family::new(
        "gpuenv_run_duration_seconds",
        "How long the doctor run behind these metrics took.",
    );
    duration.add(&[], report.duration_ms / 1000.0);

    let mut counts = Family::new(
        "gpuenv_findings",
        "Findings by severity (error means the stack is broken).",
    );
    for s in ["error", "warning", "info"] {
        counts.add(&[("severity", s)], 0.0);
    }
    let mut finding = Family::new(
        "gpuenv_finding",
        "Findings by check id, severity, layer and Python environment (the number of findings).",
    );
    for f in report.findings {
        let layer = serde_json::to_value(f.layer)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default();
        let severity = severity_name(f.severity);
        counts.add(&[("severity", severity)], 1.0);
        finding.add(
            &[
                ("id", &f.id),
                ("severity", severity),
                ("layer", &layer),
                ("environment", f.environment.as_deref().unwrap_or("")),
            ],
            1.0,
        );
    }

    let mut driver = Family::new(
        "gpuenv_driver_info",
        "The NVIDIA driver: userspace version, loaded kernel module version and flavour, the CUDA version the driver supports (value 1).",
    );
    let user = facts
        .driver
        .userspace_version
        .as_ref()
        .map(|v| v.value.to_string());
    let kernel = facts
        .driver
        .kernel_module
        .as_ref()
        .map(|k| k.version.value.to_string());
    let flavor = facts
        .driver
        .kernel_module
        .as_ref()
        .and_then(|k| k.flavor.clone());
    let cuda = facts
        .driver
        .cuda_driver_version
        .as_ref()
        .map(|v| v.value.to_string());
    if user.is_some() || kernel.is_some() {
        driver.add(
            &[
                ("version", user.as_deref().unwrap_or("")),
                ("kernel_module_version", kernel.as_deref().unwrap_or("")),
                ("flavor", flavor.as_deref().unwrap_or("")),
                ("cuda_version", cuda.as_deref().unwrap_or("")),
                ("Hostname", hostname),
            ],
            1.0,
        );
    }

    let mut gpu = Family::new(
        "gpuenv_gpu_info",
        "Each NVIDIA GPU, labelled to join dcgm-exporter's metrics (gpu, UUID, modelName, Hostname, pci_bus_id) (value 1).",
    );
    let nvml_gpus = facts
        .driver
        .nvml
        .as_ref()
        .map(|n| n.gpus.as_slice())
        .unwrap_or(&[]);
    if nvml_gpus.is_empty() {
        let mut devices: Vec<_> = facts.gpus.devices.iter().collect();
        devices.sort_by(|a, b| a.pci_address.cmp(&b.pci_address));
        for (i, d) in devices.iter().enumerate() {
            let index = i.to_string();
            let name = d.name.as_ref().map(|n| n.value.clone()).unwrap_or_default();
            let uuid = d.uuid.as_ref().map(|u| u.value.clone()).unwrap_or_default();
            let cc =
                d.cc.as_ref()
                    .map(|c| c.value.to_string())
                    .unwrap_or_default();
            let bound = d
                .bound_driver
                .as_ref()
                .map(|b| b.value.clone())
                .unwrap_or_default();
            gpu.add(
                &[
                    ("gpu", &index),
                    ("UUID", &uuid),
                    ("modelName", &name),
                    ("Hostname", hostname),
                    ("pci_bus_id", &nvml_bus_id(&d.pci_address)),
                    ("compute_capability", &cc),
                    ("bound_driver", &bound),
                ],
                1.0,
            );
        }
    } else {
        for g in nvml_gpus {
            let index = g.index.to_string();
            let cc = g.cc.map(|c| c.to_string()).unwrap_or_default();
            gpu.add(
                &[
                    ("gpu", &index),
                    ("UUID", g.uuid.as_deref().unwrap_or("")),
                    ("modelName", g.name.as_deref().unwrap_or("")),
                    ("Hostname", hostname),
                    ("pci_bus_id", g.pci_bus_id.as_deref().unwrap_or("")),
                    ("compute_capability", &cc),
                    ("bound_driver", "nvidia"),
                ],
                1.0,
            );
        }
    }

    let mut toolkit = Family::new(
        "gpuenv_cuda_toolkit_info",
        "Each CUDA toolkit on disk (value 1).",
    );
    for t in &facts.cuda.toolkits {
        let version = t
            .version
            .as_ref()
            .map(|v| v.value.to_string())
            .unwrap_or_default();
        toolkit.add(
            &[
                ("version", &version),
                ("root", &t.root),
                ("layout", &t.layout),
            ],
            1.0,
        );
    }
    let mut cudnn = Family::new(
        "gpuenv_cudnn_info",
        "Each cuDNN install, with the CUDA major it was built for (value 1).",
    );
    for c in &facts.libraries.cudnn {
        let version = c
            .version
            .as_ref()
            .map(|v| v.value.to_string())
            .unwrap_or_else(|| c.major.to_string());
        let cuda_major = c
            .cuda_major
            .as_ref()
            .map(|m| m.value.to_string())
            .unwrap_or_default();
        let selected = if c.loader_selected { "true" } else { "false" };
        cudnn.add(
            &[
                ("version", &version),
                ("cuda_major", &cuda_major),
                ("dir", &c.dir),
                ("loader_selected", selected),
            ],
            1.0,
        );
    }
    let mut framework = Family::new(
        "gpuenv_framework_info",
        "Each framework build per Python environment (prefix), with the CUDA version it was built for (value 1).",
    );
    for env in &facts.python.environments {
        let fw = &env.frameworks;
        let mut add = |name: &str, version: &str, cuda: &str| {
            framework.add(
                &[
                    ("environment", &env.prefix),
                    ("environment_name", &env.name),
                    ("framework", name),
                    ("version", version),
                    ("cuda", cuda),
                ],
                1.0,
            );
        };
        if let Some(t) = &fw.torch {
            add("torch", &t.version.value, t.cuda.as_deref().unwrap_or(""));
        }
        if let Some(t) = &fw.tensorflow {
            add(
                "tensorflow",
                &t.version,
                t.cuda_version.as_deref().unwrap_or(""),
            );
        }
        for (name, version) in &fw.packages {
            if name != "torch" && name != "tensorflow" {
                add(name, version, "");
            }
        }
    }

    for family in [
        &info, &timestamp, &duration, &counts, &finding, &driver, &gpu, &toolkit, &cudnn,
        &framework,
    ] {
        family.write(out)?;
    }
    Ok(())
}
