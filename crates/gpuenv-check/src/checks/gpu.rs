//! L2 checks: whether the installed driver branch supports each GPU, and GPU visibility.

use crate::context::Context;
use crate::finding::{Finding, Severity, GPUS_HIDDEN, GPU_DROPPED_BY_DRIVER};

/// `gpu-dropped-by-driver`: the driver branch is newer than the last one that supports the GPU's
/// generation (Kepler after R470; Maxwell, Pascal, Volta after R580), or older than the first
/// branch that knows the GPU (a Blackwell card needs the branch of CUDA 12.8, R570).
pub fn gpu_dropped_by_driver(cx: &Context, out: &mut Vec<Finding>) {
    let Some((driver, driver_source)) = cx.driver() else {
        return;
    };
    let branch = driver.major();
    for gpu in cx.gpus() {
        let Some(cc) = gpu.cc else { continue };
        let Some(row) = cx.kb.cc(cc) else { continue };
        if row.tegra {
            continue;
        }
        if let Some(last) = row.last_driver_branch {
            if branch > last {
                out.push(
                    Finding::new(
                        &GPU_DROPPED_BY_DRIVER,
                        Severity::Error,
                        format!(
                            "driver {driver} (R{branch}) no longer supports {}: {} GPUs end with R{last}",
                            gpu.label, row.architecture
                        ),
                    )
                    .evidence(format!("{}: compute capability {cc} ({})", gpu.label, gpu.cc_source))
                    .evidence(format!("driver {driver} ({driver_source})"))
                    .evidence(format!(
                        "knowledge base: compute capability {cc} ({}) is last supported by driver branch R{last} [{}]",
                        row.architecture,
                        row.sources.join(", ")
                    ))
                    .fix(format!(
                        "Install the R{last} legacy driver: {}\nand keep it from being upgraded: {}",
                        cx.install_driver_command(Some(last)),
                        cx.hold_driver_command()
                    )),
                );
                continue;
            }
        }
        if let Some(first_cuda) = row.first_cuda {
            let Some(first_branch) = cx.kb.first_branch_for_cuda(first_cuda) else {
                continue;
            };
            if branch < first_branch.branch {
                out.push(
                    Finding::new(
                        &GPU_DROPPED_BY_DRIVER,
                        Severity::Error,
                        format!(
                            "driver {driver} (R{branch}) is too old for {}: {} GPUs need R{} or newer",
                            gpu.label, row.architecture, first_branch.branch
                        ),
                    )
                    .evidence(format!("{}: compute capability {cc} ({})", gpu.label, gpu.cc_source))
                    .evidence(format!("driver {driver} ({driver_source})"))
                    .evidence(format!(
                        "knowledge base: compute capability {cc} first appears in CUDA {first_cuda}, \
                         whose first driver branch is R{} (derived from [{}] and [{}])",
                        first_branch.branch,
                        row.sources.join(", "),
                        first_branch.sources.join(", ")
                    ))
                    .fix(cx.install_driver_command(Some(first_branch.branch))),
                );
            }
        }
    }
}

/// `gpus-hidden`: `CUDA_VISIBLE_DEVICES` is empty, `-1`, or names GPUs that do not exist;
/// `NVIDIA_VISIBLE_DEVICES` is `none`/`void` in a container.
pub fn gpus_hidden(cx: &Context, out: &mut Vec<Finding>) {
    let f = cx.facts;
    let count = f.gpus.devices.len();
    if count == 0 {
        return;
    }
    if let Some(var) = &f.gpus.cuda_visible_devices {
        let value = var.value.trim();
        let uuids: Vec<&str> = f
            .gpus
            .devices
            .iter()
            .filter_map(|g| g.uuid.as_ref().map(|u| u.value.as_str()))
            .collect();
        let mut problems = Vec::new();
        if value.is_empty() {
            problems.push("it is empty, which hides every GPU".to_string());
        }
        for entry in value.split(',').map(str::trim).filter(|e| !e.is_empty()) {
            if let Ok(n) = entry.parse::<i64>() {
                if n < 0 {
                    problems.push(format!("'{entry}' hides every GPU from here on"));
                } else if n as usize >= count {
                    problems.push(format!(
                        "GPU index {entry} does not exist ({count} GPU(s): 0..{})",
                        count - 1
                    ));
                }
            } else if entry.starts_with("GPU-") {
                if !uuids.is_empty() && !uuids.iter().any(|u| u.starts_with(entry)) {
                    problems.push(format!("no GPU has UUID {entry}"));
                }
            } else if !entry.starts_with("MIG-") {
                problems.push(format!("'{entry}' is neither an index nor a GPU UUID"));
            }
        }
        if !problems.is_empty() {
            let mut finding = Finding::new(
                &GPUS_HIDDEN,
                Severity::Error,
                "CUDA_VISIBLE_DEVICES hides the GPUs from CUDA programs",
            )
            .evidence(format!(
                "CUDA_VISIBLE_DEVICES='{}' ({})",
                var.value, var.source
            ))
            .evidence(format!("{count} NVIDIA GPU(s) on the PCI bus"));
            for p in problems {
                finding = finding.evidence(p);
            }
            out.push(finding.fix(format!(
                "unset CUDA_VISIBLE_DEVICES   # or list real GPUs, e.g. export CUDA_VISIBLE_DEVICES={}",
                (0..count).map(|i| i.to_string()).collect::<Vec<_>>().join(",")
            )));
        }
    }
    if let Some(var) = &f.gpus.nvidia_visible_devices {
        let v = var.value.trim();
        if v == "none" || v == "void" || v.is_empty() {
            out.push(
                Finding::new(&GPUS_HIDDEN, Severity::Warning, "NVIDIA_VISIBLE_DEVICES gives this container no GPUs")
                    .evidence(format!("NVIDIA_VISIBLE_DEVICES='{}' ({})", var.value, var.source))
                    .fix("Start the container with NVIDIA_VISIBLE_DEVICES=all (or docker run --gpus all)."),
            );
        }
    }
}
