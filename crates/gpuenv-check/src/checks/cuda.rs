//! L3 checks: the driver against every CUDA toolkit and runtime, toolkits against the GPUs, and
//! the consistency of `/usr/local/cuda`, `nvcc`, `CUDA_HOME` and `LD_LIBRARY_PATH`.

use std::collections::BTreeMap;

use gpuenv_facts::LinkState;
use gpuenv_kb::{ArchSupport, CudaVersion, Version};

use crate::context::Context;
use crate::finding::{
    Finding, Rule, Severity, CUDA_HOME_INVALID, CUDA_LINK_MISMATCH, CUDA_VERSION_NUMBERS,
    DRIVER_TOO_OLD_FOR_CUDA, GPU_ARCH_UNSUPPORTED_BY_TOOLKIT, LIBRARY_PATH_MIXES_CUDA,
};

/// Every CUDA version on the machine (toolkits and system runtimes), with what carries it.
pub fn cuda_versions(cx: &Context) -> BTreeMap<CudaVersion, Vec<String>> {
    let mut out: BTreeMap<CudaVersion, Vec<String>> = BTreeMap::new();
    for t in &cx.facts.cuda.toolkits {
        if let Some(v) = &t.version {
            out.entry(v.value.cuda())
                .or_default()
                .push(format!("toolkit {} at {} ({})", v.value, t.root, v.source));
        }
    }
    for r in &cx.facts.cuda.runtimes {
        if let Some(v) = r.version.as_ref().filter(|v| v.parts().len() >= 2) {
            out.entry(v.cuda())
                .or_default()
                .push(format!("CUDA runtime {} ({})", r.path, v));
        }
    }
    out
}

/// `driver-too-old-for-cuda`: error when the driver is below the CUDA major's minor-version
/// compatibility minimum (or, before CUDA 11, below the toolkit's own minimum); warning when the
/// toolkit is newer than the driver's CUDA ceiling and runs only under minor-version compatibility.
pub fn driver_too_old_for_cuda(cx: &Context, out: &mut Vec<Finding>) {
    for (cuda, carriers) in cuda_versions(cx) {
        out.extend(driver_vs_cuda(
            cx,
            &DRIVER_TOO_OLD_FOR_CUDA,
            cuda,
            &carriers,
        ));
    }
}

/// The driver judged against one CUDA version that `carriers` (toolkits, runtimes, a framework
/// build) need: an error below the major's minor-version-compatibility minimum (before CUDA 11,
/// below the release's own minimum), a warning when it runs only under minor-version
/// compatibility, nothing when the driver supports it fully. Shared by `driver-too-old-for-cuda`
/// and `framework-needs-newer-driver`, so both apply the same semantics.
pub fn driver_vs_cuda(
    cx: &Context,
    rule: &Rule,
    cuda: CudaVersion,
    carriers: &[String],
) -> Option<Finding> {
    let (driver, driver_source) = cx.driver()?;
    let ceiling = cx.driver_ceiling();
    let ceiling_text = ceiling
        .as_ref()
        .map(|c| c.0.to_string())
        .unwrap_or_else(|| "?".into());
    // The GPU whose support ends with the oldest driver branch: no newer driver runs it.
    let last_branch = cx
        .gpus()
        .into_iter()
        .filter_map(|g| {
            let row = cx.kb.cc(g.cc?)?;
            if row.tegra {
                return None;
            }
            row.last_driver_branch.map(|b| (b, g.label))
        })
        .min_by_key(|(b, _)| *b);
    let full_min = cx
        .kb
        .min_driver_for_cuda(cuda)
        .and_then(|r| r.min_driver.clone().map(|d| (d, r)));
    let full_min_text = full_min.as_ref().map(|(d, r)| {
        format!(
            "CUDA {cuda} needs driver >= {d} for full support [{}]",
            r.sources.join(", ")
        )
    });
    let upgrade = |min: &Version| {
        if let Some((last, label)) = last_branch.as_ref().filter(|(b, _)| min.major() > *b) {
            return format!(
                "Do not upgrade the driver: {label} is supported only up to driver branch R{last}.\n\
                 Use a CUDA release that this driver supports (CUDA <= {ceiling_text}) for this GPU."
            );
        }
        format!(
            "Upgrade the driver to {min} or newer: {}\n\
             or use a CUDA release that this driver supports (CUDA <= {ceiling_text})",
            cx.install_driver_command(Some(min.major())),
        )
    };
    let base = |severity, title: String| {
        let mut f = Finding::new(rule, severity, title);
        for c in carriers {
            f = f.evidence(c.clone());
        }
        f.evidence(format!("driver {driver} ({driver_source})"))
    };
    if cuda.major >= 11 {
        let Some(mvc) = cx.kb.mvc_min_driver(cuda.major) else {
            // A CUDA major the knowledge base does not know (kb-unknown-version says so). Its
            // minimum driver is unknown, but a driver whose known ceiling is an older major
            // cannot run it: that much is a fact, not a guess.
            let (max, how) = ceiling
                .as_ref()
                .filter(|_| cx.driver_ceiling_is_confirmed())?;
            if max.major >= cuda.major {
                return None;
            }
            return Some(
                base(
                    Severity::Error,
                    format!("driver {driver} is too old for CUDA {cuda}: it supports CUDA <= {max}, an older major"),
                )
                .evidence(format!("the driver supports CUDA up to {max} ({how})"))
                .evidence(format!(
                    "the knowledge base does not know CUDA {}.x's minimum driver; any driver for it is newer than this one",
                    cuda.major
                ))
                .fix(format!(
                    "Install a driver released for CUDA {}.x (see NVIDIA's release notes), or use CUDA <= {max}.",
                    cuda.major
                )),
            );
        };
        if *driver < mvc.mvc_min_driver {
            let mut f = base(
                Severity::Error,
                format!(
                    "driver {driver} is too old for CUDA {cuda}: every CUDA {}.x needs driver >= {}",
                    cuda.major, mvc.mvc_min_driver
                ),
            )
            .evidence(format!(
                "knowledge base: CUDA {}.x minor-version compatibility needs driver >= {} [{}]",
                cuda.major,
                mvc.mvc_min_driver,
                mvc.sources.join(", ")
            ));
            if let Some(t) = &full_min_text {
                f = f.evidence(t.clone());
            }
            f = f.evidence("programs fail with \"CUDA driver version is insufficient for CUDA runtime version\"");
            let min = full_min
                .as_ref()
                .map(|(d, _)| d.clone())
                .unwrap_or_else(|| mvc.mvc_min_driver.clone());
            return Some(f.fix(upgrade(&min)));
        }
        let (max, how) = ceiling.as_ref()?;
        if cuda <= *max || cx.driver_ceiling_is_lower_bound() {
            return None;
        }
        let mut f = base(
            Severity::Warning,
            format!("CUDA {cuda} runs on driver {driver} (CUDA <= {max}) only under minor-version compatibility"),
        )
        .evidence(format!("the driver supports CUDA up to {max} ({how})"));
        if let Some(t) = &full_min_text {
            f = f.evidence(t.clone());
        }
        f = f.evidence(
            "under minor-version compatibility newer PTX cannot be JIT-compiled (\"the provided PTX was \
             compiled with an unsupported toolchain\") and some APIs return cudaErrorCallRequiresNewerDriver",
        );
        let min = full_min
            .as_ref()
            .map(|(d, _)| d.clone())
            .unwrap_or_else(|| mvc.mvc_min_driver.clone());
        return Some(f.fix(upgrade(&min)));
    }
    let (min, row) = full_min.as_ref()?;
    if driver >= min {
        return None;
    }
    Some(
        base(
            Severity::Error,
            format!("driver {driver} is too old for CUDA {cuda}, which needs driver >= {min}"),
        )
        .evidence(format!(
            "knowledge base: CUDA {} ({}) needs driver >= {min}; before CUDA 11 there is no minor-version compatibility [{}]",
            row.version,
            row.release,
            row.sources.join(", ")
        ))
        .fix(upgrade(min)),
    )
}

/// `gpu-arch-unsupported-by-toolkit`: a toolkit that cannot build code for a GPU here (Kepler with
/// CUDA 12, Pascal with CUDA 13, Blackwell with CUDA <= 12.6).
pub fn gpu_arch_unsupported_by_toolkit(cx: &Context, out: &mut Vec<Finding>) {
    let gpus = cx.gpus();
    for t in &cx.facts.cuda.toolkits {
        let Some(v) = &t.version else { continue };
        let cuda = v.value.cuda();
        for gpu in &gpus {
            let Some(cc) = gpu.cc else { continue };
            let arch = cx.kb.cc(cc).map(|r| r.architecture.as_str()).unwrap_or("?");
            let sources = cx
                .kb
                .cc(cc)
                .map(|r| r.sources.join(", "))
                .unwrap_or_default();
            let (title, fix) = match cx.kb.arch_support(cc, cuda) {
                ArchSupport::GpuTooNew { first_cuda } => (
                    format!("CUDA {cuda} cannot build for {} ({arch}, {}): it needs CUDA {first_cuda} or newer", gpu.label, cc.sm()),
                    format!("Install CUDA {first_cuda} or newer (and a driver that supports it) for this GPU."),
                ),
                ArchSupport::GpuDropped { last_cuda } => (
                    format!("CUDA {cuda} dropped {} ({arch}, {}): CUDA {last_cuda} was the last to support it", gpu.label, cc.sm()),
                    format!("Use CUDA {last_cuda} (and frameworks built with it) for this GPU."),
                ),
                ArchSupport::Supported | ArchSupport::Unknown => continue,
            };
            out.push(
                Finding::new(&GPU_ARCH_UNSUPPORTED_BY_TOOLKIT, Severity::Error, title)
                    .evidence(format!("toolkit {} at {} ({})", v.value, t.root, v.source))
                    .evidence(format!("{}: compute capability {cc} ({})", gpu.label, gpu.cc_source))
                    .evidence(format!("knowledge base: compute capability {cc} toolkit range [{sources}]"))
                    .evidence("code built with it fails with \"no kernel image is available for execution on the device\"")
                    .fix(fix),
            );
        }
    }
}

/// `cuda-link-mismatch`: `/usr/local/cuda`, the first `nvcc` on `PATH` and `CUDA_HOME` resolve to
/// different toolkits, so builds mix one toolkit's compiler with another's headers and libraries.
pub fn cuda_link_mismatch(cx: &Context, out: &mut Vec<Finding>) {
    let f = &cx.facts.cuda;
    let version_of = |real: &str| {
        f.toolkits
            .iter()
            .find(|t| t.real_root == real)
            .and_then(|t| t.version.as_ref())
            .map(|v| format!("CUDA {}", v.value))
            .unwrap_or_else(|| "unknown version".into())
    };
    let mut pointers: Vec<(String, String)> = Vec::new();
    if let Some(l) = f
        .usr_local_cuda
        .as_ref()
        .filter(|l| l.state == LinkState::Ok)
    {
        if let Some(r) = &l.resolved {
            pointers.push(("/usr/local/cuda".into(), r.clone()));
        }
    }
    if let Some(n) = &f.nvcc_on_path {
        if let Some(tk) = &n.toolkit_root {
            let real = f
                .toolkits
                .iter()
                .find(|t| &t.root == tk || &t.real_root == tk)
                .map(|t| t.real_root.clone());
            pointers.push((
                format!("nvcc on PATH ({})", n.path),
                real.unwrap_or_else(|| tk.clone()),
            ));
        }
    }
    for var in [&f.cuda_home, &f.cuda_path].into_iter().flatten() {
        if let (Some(r), true) = (&var.resolved, var.is_toolkit) {
            pointers.push((format!("{}={}", var.variable, var.value), r.clone()));
        }
    }
    let mut distinct: Vec<&str> = pointers.iter().map(|(_, r)| r.as_str()).collect();
    distinct.sort();
    distinct.dedup();
    if distinct.len() < 2 {
        return;
    }
    let mut finding = Finding::new(
        &CUDA_LINK_MISMATCH,
        Severity::Warning,
        format!(
            "{} different CUDA toolkits are selected by /usr/local/cuda, PATH and CUDA_HOME",
            distinct.len()
        ),
    );
    for (what, real) in &pointers {
        finding = finding.evidence(format!("{what} -> {real} ({})", version_of(real)));
    }
    let target = pointers.first().map(|(_, r)| r.clone()).unwrap_or_default();
    out.push(finding.fix(format!(
        "Pick one toolkit and point everything at it, e.g.:\n\
         export CUDA_HOME={target}\nexport PATH={target}/bin:$PATH\n\
         sudo ln -sfn {target} /usr/local/cuda   # or: sudo update-alternatives --config cuda"
    )));
}

/// `cuda-home-invalid`: `CUDA_HOME` / `CUDA_PATH` points nowhere, or at something that is not a
/// toolkit (often its `bin/` or `lib64/`).
pub fn cuda_home_invalid(cx: &Context, out: &mut Vec<Finding>) {
    let f = &cx.facts.cuda;
    for var in [&f.cuda_home, &f.cuda_path].into_iter().flatten() {
        if var.is_toolkit {
            continue;
        }
        let why = match var.state {
            LinkState::Missing => "does not exist".to_string(),
            LinkState::Dangling => "is a dangling symlink".to_string(),
            LinkState::Loop => "is a symlink loop".to_string(),
            LinkState::Ok => format!(
                "is not a CUDA toolkit (no bin/nvcc, version.json or include/cuda.h in {})",
                var.resolved.as_deref().unwrap_or(&var.value)
            ),
        };
        let suggestion = f
            .toolkits
            .iter()
            .filter(|t| t.layout == "nvidia")
            .max_by(|a, b| {
                let va = a.version.as_ref().map(|v| v.value.clone());
                let vb = b.version.as_ref().map(|v| v.value.clone());
                va.cmp(&vb)
            })
            .map(|t| t.root.clone());
        let fix = match suggestion {
            Some(t) => format!("export {}={t}", var.variable),
            None => format!("unset {}   # or set it to the root of a CUDA toolkit (the directory holding bin/nvcc)", var.variable),
        };
        out.push(
            Finding::new(
                &CUDA_HOME_INVALID,
                Severity::Warning,
                format!("{}={} {why}", var.variable, var.value),
            )
            .evidence(format!("{}={} (environment variable {})", var.variable, var.value, var.variable))
            .evidence("build tools (PyTorch C++/CUDA extensions, CuPy, TensorFlow builds) take nvcc and headers from it")
            .fix(fix),
        );
    }
}

/// `library-path-mixes-cuda`: `LD_LIBRARY_PATH` holds library directories of more than one CUDA
/// version; whichever comes first wins for each library, so one process mixes two CUDAs.
pub fn library_path_mixes_cuda(cx: &Context, out: &mut Vec<Finding>) {
    let f = cx.facts;
    let mut versions: BTreeMap<CudaVersion, Vec<String>> = BTreeMap::new();
    for entry in &f.env.ld_library_path {
        let toolkit = f
            .cuda
            .toolkits
            .iter()
            .filter(|t| t.layout == "nvidia")
            .find(|t| {
                [t.root.as_str(), t.real_root.as_str()]
                    .iter()
                    .any(|r| entry == r || entry.starts_with(&format!("{r}/")))
            });
        let version = toolkit
            .and_then(|t| t.version.as_ref().map(|v| v.value.cuda()))
            .or_else(|| {
                f.cuda
                    .runtimes
                    .iter()
                    .filter(|r| r.dir.trim_end_matches('/') == entry.trim_end_matches('/'))
                    .find_map(|r| {
                        r.version
                            .as_ref()
                            .filter(|v| v.parts().len() >= 2)
                            .map(|v| v.cuda())
                    })
            });
        if let Some(v) = version {
            versions.entry(v).or_default().push(entry.clone());
        }
    }
    if versions.len() < 2 {
        return;
    }
    let mut finding = Finding::new(
        &LIBRARY_PATH_MIXES_CUDA,
        Severity::Warning,
        format!(
            "LD_LIBRARY_PATH mixes CUDA {}",
            versions
                .keys()
                .map(|v| v.to_string())
                .collect::<Vec<_>>()
                .join(" and ")
        ),
    )
    .evidence(format!(
        "LD_LIBRARY_PATH={} (environment variable LD_LIBRARY_PATH)",
        f.env.ld_library_path.join(":")
    ));
    for (v, entries) in &versions {
        finding = finding.evidence(format!("CUDA {v}: {}", entries.join(", ")));
    }
    let keep = f
        .cuda
        .usr_local_cuda
        .as_ref()
        .and_then(|l| l.resolved.clone())
        .unwrap_or_else(|| {
            versions
                .values()
                .next()
                .and_then(|e| e.first().cloned())
                .unwrap_or_default()
        });
    out.push(finding.fix(format!(
        "Keep one CUDA's directories in LD_LIBRARY_PATH, e.g. export LD_LIBRARY_PATH={keep}/lib64\n\
         (pip/conda frameworks bring their own CUDA libraries and need none of them)"
    )));
}

/// `cuda-version-numbers` (info): nvidia-smi's "CUDA Version" is the newest CUDA the driver
/// supports; nvcc's is the toolkit's. Says what this machine's pair means.
pub fn cuda_version_numbers(cx: &Context, out: &mut Vec<Finding>) {
    let Some((max, how)) = cx.driver_ceiling() else {
        return;
    };
    let toolkits: Vec<_> = cx
        .facts
        .cuda
        .toolkits
        .iter()
        .filter_map(|t| t.version.as_ref().map(|v| (t, v)))
        .collect();
    if toolkits.is_empty() {
        return;
    }
    let lower_bound = cx.driver_ceiling_is_lower_bound();
    let (said, supports) = if lower_bound {
        (format!("{max} or newer"), format!("at least CUDA {max}"))
    } else {
        (max.to_string(), format!("CUDA <= {max}"))
    };
    let mut finding = Finding::new(
        &CUDA_VERSION_NUMBERS,
        Severity::Info,
        format!("nvidia-smi would say \"CUDA Version: {said}\": the newest CUDA this driver supports, not an installed CUDA"),
    )
    .evidence(format!("driver supports {supports} ({how})"));
    let mut all_fine = true;
    for (t, v) in toolkits {
        let c = v.value.cuda();
        let verdict = if c <= max {
            "fine: the driver supports it fully".to_string()
        } else if lower_bound {
            // A branch newer than the knowledge base may well support it: not judged.
            "perhaps newer than the driver supports: the knowledge base does not know this driver branch (see kb-unknown-version)".to_string()
        } else if c.major >= 11 && cx.kb.mvc_min_driver(c.major).is_none() {
            all_fine = false;
            format!(
                "newer than the driver supports; the knowledge base does not know CUDA {}.x (see kb-unknown-version)",
                c.major
            )
        } else {
            all_fine = false;
            "newer than the driver supports (see driver-too-old-for-cuda)".to_string()
        };
        finding = finding.evidence(format!(
            "nvcc --version would say release {c} (toolkit at {}): {verdict}",
            t.root
        ));
    }
    let fix = if all_fine {
        "Nothing to do: a toolkit at or below the driver's CUDA version is supported.".to_string()
    } else {
        "Upgrade the driver, or install a toolkit no newer than the driver's CUDA version."
            .to_string()
    };
    out.push(finding.fix(fix));
}
