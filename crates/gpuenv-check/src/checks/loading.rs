//! L4 checks on how frameworks really load their CUDA libraries (from doctor's loader simulation
//! of each framework binary): libraries nobody finds, and libraries taken from outside the
//! environment in place of the copy the framework shipped with.

use gpuenv_facts::{FrameworkBinary, PythonEnvironment};

use crate::checks::python::pip_of;
use crate::context::Context;
use crate::finding::{Finding, Severity, LIBRARY_MISSING, LIBRARY_SHADOWED};

/// The pip distribution (prefix) that ships a CUDA library in its `nvidia/...` directory.
fn wheel_for(library: &str) -> Option<&'static str> {
    const WHEELS: &[(&str, &str)] = &[
        ("libcudnn", "nvidia-cudnn-cu"),
        ("libcublas", "nvidia-cublas"),
        ("libcudart", "nvidia-cuda-runtime"),
        ("libnccl", "nvidia-nccl-cu"),
        ("libcufft", "nvidia-cufft"),
        ("libcurand", "nvidia-curand"),
        ("libcusolver", "nvidia-cusolver"),
        ("libcusparseLt", "nvidia-cusparselt-cu"),
        ("libcusparse", "nvidia-cusparse"),
        ("libnvrtc", "nvidia-cuda-nvrtc"),
        ("libnvJitLink", "nvidia-nvjitlink"),
        ("libcupti", "nvidia-cuda-cupti"),
        ("libnvToolsExt", "nvidia-nvtx"),
        ("libnvshmem", "nvidia-nvshmem-cu"),
        ("libcufile", "nvidia-cufile"),
    ];
    WHEELS
        .iter()
        .find(|(lib, _)| library.starts_with(lib))
        .map(|(_, w)| *w)
}

/// The pinned requirement (`nvidia-cudnn-cu12==8.9.2.26`) torch has for a library's wheel.
fn torch_pin(e: &PythonEnvironment, library: &str) -> Option<String> {
    let wheel = wheel_for(library)?;
    let torch = e.frameworks.torch.as_ref()?;
    torch
        .cuda_pins
        .iter()
        .find(|(name, _)| name.starts_with(wheel))
        .map(|(name, spec)| format!("{name}{spec}"))
}

/// The version of the environment's wheel that ships a library (`nvidia-cudnn-cu12` 8.9.4.25).
fn wheel_version(e: &PythonEnvironment, library: &str) -> Option<String> {
    let wheel = wheel_for(library)?;
    e.distributions
        .iter()
        .find(|d| d.key.starts_with(wheel))
        .map(|d| d.version.clone())
}

/// `8.9.4.25` -> `8.9`.
fn major_minor(version: &str) -> String {
    version.split('.').take(2).collect::<Vec<_>>().join(".")
}

fn inside(e: &PythonEnvironment, path: &str) -> bool {
    path.starts_with(&format!("{}/", e.prefix.trim_end_matches('/')))
}

fn binaries<'a>(
    cx: &Context<'a>,
) -> impl Iterator<Item = (&'a PythonEnvironment, &'a FrameworkBinary)> + 'a {
    cx.full_environments()
        .flat_map(|e| e.frameworks.binaries.iter().map(move |b| (e, b)))
}

/// `library-missing`: a CUDA library a framework binary needs (DT_NEEDED, or loaded by the
/// framework by name) is found nowhere the loader looks: "libcudnn.so.9: cannot open shared
/// object file". The driver's `libcuda.so.1` is left to the driver checks.
pub fn library_missing(cx: &Context, out: &mut Vec<Finding>) {
    for (e, b) in binaries(cx) {
        let missing: Vec<_> = b
            .missing
            .iter()
            .filter(|m| !m.name.starts_with("libcuda.so"))
            .collect();
        let Some(first) = missing.first() else {
            continue;
        };
        let names: Vec<&str> = missing.iter().map(|m| m.name.as_str()).collect();
        let mut f = Finding::new(
            &LIBRARY_MISSING,
            Severity::Error,
            format!(
                "{} needs {}, which the loader finds nowhere (environment {})",
                b.framework,
                names.join(", "),
                e.name
            ),
        )
        .in_environment(&e.prefix);
        for m in &missing {
            let how = if m.dlopen {
                "loads (dlopen, knowledge base)"
            } else {
                "needs (DT_NEEDED)"
            };
            f = f.evidence(format!("{} {how} {}", m.requested_by, m.name));
            if let Some(err) = &m.error {
                f = f.evidence(format!("the loader stops at {} with: {err}", m.name));
            }
        }
        for t in first.tried.iter().take(8) {
            f = f.evidence(format!("for {}: tried {t}", first.name));
        }
        if first.tried.len() > 8 {
            f = f.evidence(format!("... and {} more places", first.tried.len() - 8));
        }
        f = f.evidence(format!(
            "importing {} fails with \"{}: cannot open shared object file: No such file or directory\"",
            b.framework, first.name
        ));
        let mut pins: Vec<String> = missing
            .iter()
            .filter_map(|m| torch_pin(e, &m.name))
            .collect();
        pins.sort();
        pins.dedup();
        let fix = if pins.is_empty() {
            let wheels: Vec<&str> = missing.iter().filter_map(|m| wheel_for(&m.name)).collect();
            if wheels.is_empty() {
                format!("{} install --force-reinstall {}", pip_of(e), b.framework)
            } else {
                format!(
                    "{} install --force-reinstall {}   # brings its {}* wheels back",
                    pip_of(e),
                    b.framework,
                    wheels.first().copied().unwrap_or("nvidia-")
                )
            }
        } else {
            let quoted: Vec<String> = pins.iter().map(|p| format!("'{p}'")).collect();
            format!("{} install {}", pip_of(e), quoted.join(" "))
        };
        out.push(f.fix(fix));
    }
}

/// `library-shadowed`: a framework loads a CUDA library from outside its environment (through
/// `LD_LIBRARY_PATH`, the cache or a default directory) although its environment has its own copy,
/// and the versions differ — the classic "old cuDNN in /usr/local/cuda-11.2/lib64 wins over the
/// wheel's"; or, with the environment's copy missing, an outside copy of another version fills in.
pub fn library_shadowed(cx: &Context, out: &mut Vec<Finding>) {
    for (e, b) in binaries(cx) {
        for lib in b.libraries.iter().filter(|l| {
            !l.name.starts_with("libcuda.so") && !inside(e, &l.real_path) && !inside(e, &l.path)
        }) {
            let own = lib.shadowed.iter().find(|s| inside(e, &s.path));
            let pin = torch_pin(e, &lib.name);
            let pinned_version = pin
                .as_deref()
                .and_then(|p| p.split("==").nth(1))
                .map(str::trim);
            let own_version = own.and_then(|s| {
                s.version
                    .clone()
                    .filter(|v| v.contains('.'))
                    .or_else(|| wheel_version(e, &lib.name))
            });
            let differs = match (own_version.as_deref(), lib.version.as_deref()) {
                (Some(a), Some(b)) => major_minor(a) != major_minor(b),
                _ => own.is_some_and(|s| s.version_differs),
            };
            let (severity, title, detail) = match own {
                Some(s) if differs => (
                    Severity::Error,
                    format!("{} takes {} from {} instead of its environment's copy (environment {})", b.framework, lib.name, lib.real_path, e.name),
                    format!(
                        "the environment's copy {} (version {}) is found later, by {}",
                        s.path,
                        own_version.as_deref().unwrap_or("?"),
                        s.found_by
                    ),
                ),
                Some(_) => continue,
                None => match (pinned_version, lib.version.as_deref()) {
                    (Some(want), Some(have)) if !have.starts_with(want) && !want.starts_with(have) => (
                        Severity::Warning,
                        format!("{} fills in {} from outside its environment, version {have} instead of the pinned {want}", b.framework, lib.name),
                        format!("torch pins {} but that wheel's copy is not installed", pin.clone().unwrap_or_default()),
                    ),
                    _ => continue,
                },
            };
            let mut f = Finding::new(&LIBRARY_SHADOWED, severity, title)
                .in_environment(&e.prefix)
                .evidence(format!(
                    "{} -> {} (version {}) found by {}",
                    lib.path,
                    lib.real_path,
                    lib.version.as_deref().unwrap_or("?"),
                    lib.found_by
                ))
                .evidence(detail);
            if lib.found_by == "LD_LIBRARY_PATH" {
                f = f.evidence(
                    "LD_LIBRARY_PATH comes before the binary's DT_RUNPATH (glibc's order)",
                );
            }
            let fix = if lib.found_by == "LD_LIBRARY_PATH" {
                format!(
                    "Take {} out of LD_LIBRARY_PATH for this environment (frameworks from pip or conda bring their own CUDA libraries)",
                    lib.path.rsplit_once('/').map(|x| x.0).unwrap_or(&lib.path)
                )
            } else {
                match &pin {
                    Some(p) => format!("{} install '{p}'", pip_of(e)),
                    None => format!("{} install --force-reinstall {}", pip_of(e), b.framework),
                }
            };
            out.push(f.fix(fix));
        }
    }
}
