//! L5–L6 checks on framework builds (PyTorch, TensorFlow, JAX) and on applications
//! (DeepLabCut): CPU-only builds on GPU machines, the driver each build's CUDA needs, the GPU
//! architectures each build carries, the cuDNN it pins, companions, supported Pythons, NumPy ABI.
//! Facts come from the builds' own files; expectations from the knowledge base's framework tables.

use std::str::FromStr;

use gpuenv_facts::{PythonDistribution, PythonEnvironment, TorchBuild};
use gpuenv_kb::frameworks::spec::BuildVariant;
use gpuenv_kb::{ComputeCapability, CudaVersion, Version};

use crate::checks::cuda::driver_vs_cuda;
use crate::checks::python::pip_of;
use crate::context::Context;
use crate::finding::{
    Finding, Severity, APPLICATION_BACKEND_MISSING, COMPANION_VERSION_MISMATCH,
    FRAMEWORK_CUDNN_MISMATCH, FRAMEWORK_LACKS_GPU_ARCH, FRAMEWORK_NEEDS_NEWER_DRIVER, JAX_CPU_ONLY,
    NUMPY_ABI_MISMATCH, PYTHON_UNSUPPORTED, TENSORFLOW_CPU_ONLY, TORCH_CPU_ONLY,
};

/// `2.1.0+cu121` -> (`2.1.0` as a version, `Some("cu121")`).
fn split_local(version: &str) -> (Option<Version>, Option<&str>) {
    let (public, local) = match version.split_once('+') {
        Some((p, l)) => (p, Some(l)),
        None => (version, None),
    };
    (public.parse().ok(), local)
}

fn dist<'e>(e: &'e PythonEnvironment, key: &str) -> Option<&'e PythonDistribution> {
    e.distributions.iter().find(|d| d.key == key)
}

/// The torch build variant: its local tag, else the PyPI default of its release.
fn torch_variant_name(cx: &Context, torch: &TorchBuild) -> Option<String> {
    let (public, local) = split_local(&torch.version.value);
    if let Some(l) = local {
        return Some(l.to_string());
    }
    let release = cx.kb.frameworks.torch_release(&public?)?;
    Some(release.pypi_default.to_string())
}

/// The best `cuNNN` variant of a torch release this machine's driver supports fully.
fn best_cuda_variant(cx: &Context, torch: &Version) -> Option<String> {
    let release = cx.kb.frameworks.torch_release(torch)?;
    let ceiling = cx.driver_ceiling().map(|c| c.0);
    release
        .variants
        .iter()
        .filter_map(|v| match v {
            BuildVariant::Cuda(c) => Some(*c),
            _ => None,
        })
        .filter(|c| ceiling.is_none_or(|max| *c <= max))
        .max()
        .map(|c| format!("cu{}{}", c.major, c.minor))
}

fn torch_reinstall(e: &PythonEnvironment, version: &str, variant: Option<&str>) -> String {
    match variant {
        Some(v) => format!(
            "{} install --force-reinstall 'torch=={version}' --index-url https://download.pytorch.org/whl/{v}   # reinstall torchvision/torchaudio from the same index",
            pip_of(e)
        ),
        None => format!("{} install --force-reinstall 'torch=={version}'", pip_of(e)),
    }
}

/// `torch-cpu-only`, `tensorflow-cpu-only`, `jax-cpu-only`: a build without CUDA where an NVIDIA
/// GPU exists — `torch.cuda.is_available()` is False and everything runs on the CPU.
pub fn cpu_only_builds(cx: &Context, out: &mut Vec<Finding>) {
    if !cx.has_nvidia_gpu() {
        return;
    }
    for e in cx.full_environments() {
        if let Some(t) = &e.frameworks.torch {
            if t.cuda.is_none() && t.hip.is_none() {
                let (public, _) = split_local(&t.version.value);
                let variant = public.as_ref().and_then(|p| best_cuda_variant(cx, p));
                let version = public
                    .map(|p| p.to_string())
                    .unwrap_or_else(|| t.version.value.clone());
                out.push(
                    Finding::new(&TORCH_CPU_ONLY, Severity::Error, format!("torch {} in environment {} is a CPU-only build", t.version.value, e.name))
                        .in_environment(&e.prefix)
                        .evidence(format!("torch/version.py says cuda = None ({})", t.version.source))
                        .evidence("torch.cuda.is_available() returns False on this machine although it has an NVIDIA GPU")
                        .fix(torch_reinstall(e, &version, variant.as_deref())),
                );
            }
        }
        let tf_cpu_dist = dist(e, "tensorflow-cpu");
        let tf_cpu_build = e
            .frameworks
            .tensorflow
            .as_ref()
            .filter(|t| t.is_cuda_build == Some(false));
        if tf_cpu_dist.is_some() || tf_cpu_build.is_some() {
            let mut f = Finding::new(
                &TENSORFLOW_CPU_ONLY,
                Severity::Error,
                format!("TensorFlow in environment {} is built without CUDA", e.name),
            )
            .in_environment(&e.prefix);
            if let Some(d) = tf_cpu_dist {
                f = f.evidence(format!(
                    "{} {} is installed ({})",
                    d.name, d.version, d.metadata_dir
                ));
            }
            if let Some(t) = tf_cpu_build {
                f = f.evidence(format!("{} says is_cuda_build = False", t.source));
            }
            out.push(f.fix(format!(
                "{} install 'tensorflow[and-cuda]'   # Linux; uninstall tensorflow-cpu first",
                pip_of(e)
            )));
        }
        let jaxlib = dist(e, "jaxlib");
        let plugin = e
            .distributions
            .iter()
            .any(|d| d.key.starts_with("jax-cuda") && d.key.ends_with("-plugin"));
        if let Some(jl) = jaxlib {
            let monolithic_cuda = jl.version.contains("+cuda");
            if !plugin && !monolithic_cuda {
                out.push(
                    Finding::new(
                        &JAX_CPU_ONLY,
                        Severity::Error,
                        format!("JAX in environment {} has no CUDA plugin", e.name),
                    )
                    .in_environment(&e.prefix)
                    .evidence(format!(
                        "jaxlib {} is installed without jax-cuda12-plugin or jax-cuda13-plugin",
                        jl.version
                    ))
                    .evidence("jax.devices() lists only the CPU")
                    .fix(format!(
                        "{} install -U 'jax[cuda12]'   # or jax[cuda13] on a driver >= 580",
                        pip_of(e)
                    )),
                );
            }
        }
    }
}

/// `framework-needs-newer-driver`: a framework's CUDA build against the driver, with the same
/// minor-version-compatibility semantics as `driver-too-old-for-cuda`.
pub fn framework_needs_newer_driver(cx: &Context, out: &mut Vec<Finding>) {
    for e in cx.full_environments() {
        let mut builds: Vec<(CudaVersion, String)> = Vec::new();
        if let Some(t) = &e.frameworks.torch {
            if let Some(c) = t
                .cuda
                .as_deref()
                .and_then(|c| CudaVersion::from_str(c).ok())
            {
                builds.push((
                    c,
                    format!(
                        "torch {} is built for CUDA {c} ({})",
                        t.version.value, t.version.source
                    ),
                ));
            }
        }
        if let Some(tf) = &e.frameworks.tensorflow {
            if let Some(c) = tf
                .cuda_version
                .as_deref()
                .and_then(|c| CudaVersion::from_str(c).ok())
            {
                builds.push((
                    c,
                    format!(
                        "tensorflow {} is built for CUDA {c} ({})",
                        tf.version, tf.source
                    ),
                ));
            }
        }
        for d in e
            .distributions
            .iter()
            .filter(|d| d.key.starts_with("jax-cuda") && d.key.ends_with("-plugin"))
        {
            if let Some(p) = cx.kb.frameworks.jax_plugin(&d.key) {
                builds.push((
                    p.cuda_min,
                    format!(
                        "{} {} needs CUDA >= {} [{}]",
                        d.name,
                        d.version,
                        p.cuda_min,
                        p.sources.join(", ")
                    ),
                ));
            }
        }
        for (cuda, carrier) in builds {
            if let Some(f) = driver_vs_cuda(cx, &FRAMEWORK_NEEDS_NEWER_DRIVER, cuda, &[carrier]) {
                out.push(f.in_environment(&e.prefix));
            }
        }
    }
}

/// How a build's code serves a GPU.
enum ArchFit {
    Native,
    PtxOnly(ComputeCapability),
    None,
}

/// SASS for the same major with a minor no newer than the GPU's runs natively; otherwise PTX for
/// an architecture no newer than the GPU's can be JIT-compiled (nvidia-facts.md 6b).
fn arch_fit(
    cc: ComputeCapability,
    sass: &[ComputeCapability],
    ptx: &[ComputeCapability],
) -> ArchFit {
    if sass
        .iter()
        .any(|s| s.major == cc.major && s.minor <= cc.minor)
    {
        return ArchFit::Native;
    }
    match ptx.iter().filter(|p| **p <= cc).max() {
        Some(p) => ArchFit::PtxOnly(*p),
        None => ArchFit::None,
    }
}

/// `framework-lacks-gpu-arch`: the build carries no code for a GPU here ("no kernel image is
/// available for execution on the device"); PTX-only coverage is a warning (JIT at start-up, and
/// it needs a driver at least as new as the PTX).
pub fn framework_lacks_gpu_arch(cx: &Context, out: &mut Vec<Finding>) {
    let gpus = cx.gpus();
    if gpus.is_empty() {
        return;
    }
    for e in cx.full_environments() {
        // A binary's own fatbin is the exact answer; the knowledge base's lists serve when the
        // binary was not read.
        let from_binary: Vec<&str> = binary_verdicts(cx, e, &gpus, out);
        let mut builds: Vec<(
            String,
            Vec<ComputeCapability>,
            Vec<ComputeCapability>,
            String,
        )> = Vec::new();
        if let Some(t) = e
            .frameworks
            .torch
            .as_ref()
            .filter(|t| t.cuda.is_some() && !from_binary.contains(&"torch"))
        {
            let (public, _) = split_local(&t.version.value);
            if let (Some(public), Some(variant)) = (public, torch_variant_name(cx, t)) {
                if let Some(v) = cx
                    .kb
                    .frameworks
                    .torch_variant(&public, &variant)
                    .filter(|v| !v.sass().is_empty())
                {
                    let rows = v.arch.map(|a| a.sources.join(", ")).unwrap_or_default();
                    let confirmed = if v.confirmed() { "" } else { "; not confirmed" };
                    builds.push((
                        format!("torch {}", t.version.value),
                        v.sass().to_vec(),
                        v.ptx().to_vec(),
                        format!("knowledge base: torch {public} {variant} wheels carry {} [{rows}{confirmed}]", list(v.sass(), v.ptx())),
                    ));
                }
            }
        }
        if let Some(tf) =
            e.frameworks.tensorflow.as_ref().filter(|t| {
                !t.compute_capabilities.is_empty() && !from_binary.contains(&"tensorflow")
            })
        {
            let mut sass = Vec::new();
            let mut ptx = Vec::new();
            for a in &tf.compute_capabilities {
                if let Ok(cc) = ComputeCapability::from_str(a) {
                    if a.starts_with("compute_") {
                        ptx.push(cc)
                    } else {
                        sass.push(cc)
                    }
                }
            }
            builds.push((
                format!("tensorflow {}", tf.version),
                sass,
                ptx,
                format!(
                    "{} lists cuda_compute_capabilities {}",
                    tf.source,
                    tf.compute_capabilities.join(", ")
                ),
            ));
        }
        for (what, sass, ptx, evidence) in builds {
            for g in &gpus {
                let Some(cc) = g.cc else { continue };
                let (severity, title) = match arch_fit(cc, &sass, &ptx) {
                    ArchFit::Native => continue,
                    ArchFit::PtxOnly(p) => (
                        Severity::Warning,
                        format!("{what} has no {} code for {}: it runs only through PTX JIT from compute_{}{}", cc.sm(), g.label, p.major, p.minor),
                    ),
                    ArchFit::None => (
                        Severity::Error,
                        format!("{what} carries no code for {} ({}): \"no kernel image is available for execution on the device\"", g.label, cc.sm()),
                    ),
                };
                out.push(
                    Finding::new(&FRAMEWORK_LACKS_GPU_ARCH, severity, title)
                        .in_environment(&e.prefix)
                        .evidence(format!("{}: compute capability {cc} ({})", g.label, g.cc_source))
                        .evidence(evidence.clone())
                        .fix(format!(
                            "Install a build that carries {} (see `gpuenv plan`), e.g. an older CUDA variant for older GPUs or a newer release for new ones.",
                            cc.sm()
                        )),
                );
            }
        }
    }
}

/// `framework-lacks-gpu-arch` from the frameworks' own fatbins (read by doctor's probe): the
/// exact code each binary carries, judged per GPU with the knowledge base's rules. Returns the
/// frameworks judged this way.
fn binary_verdicts<'e>(
    cx: &Context,
    e: &'e PythonEnvironment,
    gpus: &[crate::context::GpuRef],
    out: &mut Vec<Finding>,
) -> Vec<&'e str> {
    use gpuenv_kb::gpu_code::CodeStatus;
    let mut judged = Vec::new();
    for b in e
        .frameworks
        .binaries
        .iter()
        .filter(|b| !b.gpu_code.is_empty())
    {
        let code = code_of(&b.gpu_code);
        if code.is_empty() {
            continue;
        }
        judged.push(b.framework.as_str());
        let source = b.gpu_code_source.as_deref().unwrap_or(&b.path);
        let summary: Vec<String> = b
            .gpu_code
            .iter()
            .map(|g| format!("{} container(s): {}", g.containers, g.targets.join(" ")))
            .collect();
        for g in gpus {
            let Some(cc) = g.cc else { continue };
            let v = cx.kb.judge_gpu_code(&code, cc);
            let (severity, title) = match v.status {
                CodeStatus::Native => continue,
                CodeStatus::PtxJit => (
                    Severity::Warning,
                    format!("{} has no {} code for {} in {source}: it runs only through PTX JIT ({})", b.framework, cc.sm(), g.label, v.jit_targets.join(", ")),
                ),
                CodeStatus::Partial => (
                    Severity::Warning,
                    format!("{} of {} GPU-code containers in {source} have no code for {} ({})", v.missing_containers, v.containers, g.label, cc.sm()),
                ),
                CodeStatus::None => (
                    Severity::Error,
                    format!("{} carries no code for {} ({}): \"no kernel image is available for execution on the device\"", b.framework, g.label, cc.sm()),
                ),
            };
            let mut f = Finding::new(&FRAMEWORK_LACKS_GPU_ARCH, severity, title)
                .in_environment(&e.prefix)
                .evidence(format!(
                    "{}: compute capability {cc} ({})",
                    g.label, g.cc_source
                ))
                .evidence(format!(
                    "the fatbin of {source} (read by gpuenv, headers only): {}",
                    summary.join("; ")
                ));
            if let Some(need) = &v.jit_needs {
                if let Some(min) = &need.min_driver {
                    f = f.evidence(format!(
                        "its PTX (ISA {}) needs driver >= {min}",
                        need.ptx_isa
                    ));
                }
            }
            out.push(f.fix(format!(
                "Install a {} build that carries {} (see `gpuenv plan`).",
                b.framework,
                cc.sm()
            )));
        }
    }
    judged
}

/// The knowledge base's code list from the probe's grouped targets (one entry per container).
fn code_of(groups: &[gpuenv_facts::CodeGroup]) -> Vec<gpuenv_kb::gpu_code::GpuCode> {
    use gpuenv_kb::gpu_code::{CodeKind, CodeVariant, GpuCode};
    let mut out = Vec::new();
    let mut container = 0;
    for g in groups {
        let isa = g
            .ptx_isa
            .as_deref()
            .and_then(|i| CudaVersion::from_str(i).ok());
        for _ in 0..g.containers {
            for t in &g.targets {
                let (kind, rest) = match t.strip_prefix("sm_") {
                    Some(r) => (CodeKind::Sass, r),
                    None => match t.strip_prefix("compute_") {
                        Some(r) => (CodeKind::Ptx, r),
                        None => continue,
                    },
                };
                let digits: String = rest.chars().take_while(|c| c.is_ascii_digit()).collect();
                let Ok(arch) = digits.parse::<u32>() else {
                    continue;
                };
                let variant = match rest[digits.len()..].chars().next() {
                    Some('a') => CodeVariant::A,
                    Some('f') => CodeVariant::F,
                    _ => CodeVariant::Plain,
                };
                out.push(GpuCode {
                    container,
                    kind,
                    arch,
                    variant,
                    ptx_isa: if kind == CodeKind::Ptx { isa } else { None },
                });
            }
            container += 1;
        }
    }
    out
}

fn list(sass: &[ComputeCapability], ptx: &[ComputeCapability]) -> String {
    let mut items: Vec<String> = sass.iter().map(|c| c.sm()).collect();
    items.extend(
        ptx.iter()
            .map(|c| format!("compute_{}{}", c.major, c.minor)),
    );
    items.join(" ")
}

/// `framework-cudnn-mismatch`: the installed `nvidia-cudnn-cuNN` differs from the version torch
/// pins (torch refuses another major, or an older minor: "cuDNN version incompatibility"), or its
/// major differs from the one TensorFlow was built with.
pub fn framework_cudnn_mismatch(cx: &Context, out: &mut Vec<Finding>) {
    for e in cx.full_environments() {
        if let Some(t) = &e.frameworks.torch {
            for (name, spec) in t
                .cuda_pins
                .iter()
                .filter(|(n, _)| n.starts_with("nvidia-cudnn-cu"))
            {
                let Some(pinned) = spec
                    .trim()
                    .strip_prefix("==")
                    .and_then(|v| v.trim().parse::<Version>().ok())
                else {
                    continue;
                };
                let Some(installed) = dist(e, name) else {
                    continue;
                };
                let Ok(have) = installed.version.parse::<Version>() else {
                    continue;
                };
                if have == pinned {
                    continue;
                }
                let rejected = have.major() != pinned.major()
                    || (have.major(), have.minor()) < (pinned.major(), pinned.minor());
                let severity = if rejected {
                    Severity::Error
                } else {
                    Severity::Warning
                };
                let title = if rejected {
                    format!("torch {} needs cuDNN {pinned} but {name} {have} is installed: torch rejects it", t.version.value)
                } else {
                    format!(
                        "{name} {have} drifted from the {pinned} torch {} pins",
                        t.version.value
                    )
                };
                out.push(
                    Finding::new(&FRAMEWORK_CUDNN_MISMATCH, severity, title)
                        .in_environment(&e.prefix)
                        .evidence(format!("torch's METADATA pins {name}{spec} ({})", t.site_packages))
                        .evidence(format!("{name} {have} is installed ({})", installed.metadata_dir))
                        .evidence("PyTorch refuses a cuDNN of another major or an older minor: \"cuDNN version incompatibility: PyTorch was compiled against ... but found runtime version ...\"")
                        .fix(format!("{} install '{name}=={pinned}'", pip_of(e))),
                );
            }
        }
        if let Some(tf) = &e.frameworks.tensorflow {
            let Some(major) = tf
                .cudnn_version
                .as_deref()
                .and_then(|v| v.split('.').next())
                .and_then(|m| m.parse::<u32>().ok())
            else {
                continue;
            };
            for d in e
                .distributions
                .iter()
                .filter(|d| d.key.starts_with("nvidia-cudnn-cu"))
            {
                let Ok(have) = d.version.parse::<Version>() else {
                    continue;
                };
                if have.major() == major {
                    continue;
                }
                out.push(
                    Finding::new(&FRAMEWORK_CUDNN_MISMATCH, Severity::Error, format!("tensorflow {} was built with cuDNN {major} but {} {have} is installed", tf.version, d.name))
                        .in_environment(&e.prefix)
                        .evidence(format!("{} says cudnn_version = {major}", tf.source))
                        .evidence(format!("{} {have} ({})", d.name, d.metadata_dir))
                        .fix(format!("{} install 'tensorflow[and-cuda]=={}'   # brings the matching nvidia-* wheels", pip_of(e), tf.version)),
                );
            }
        }
    }
}

/// `companion-version-mismatch`: torchvision/torchaudio built for another torch release or CUDA
/// variant; jax, jaxlib and the CUDA plugins out of step.
pub fn companion_version_mismatch(cx: &Context, out: &mut Vec<Finding>) {
    for e in cx.full_environments() {
        let torch = dist(e, "torch");
        for key in ["torchvision", "torchaudio"] {
            let (Some(t), Some(c)) = (torch, dist(e, key)) else {
                continue;
            };
            let (t_public, t_local) = split_local(&t.version);
            let (c_public, c_local) = split_local(&c.version);
            let mut problems = Vec::new();
            if let (Some(tp), Some(cp)) = (&t_public, &c_public) {
                let req = if key == "torchvision" {
                    cx.kb.frameworks.torch_for_torchvision(cp)
                } else {
                    cx.kb.frameworks.torch_for_torchaudio(cp)
                };
                if let Some(req) = req {
                    if !req.matches(tp, t_local) {
                        problems.push(format!("{key} {} requires torch {req} (knowledge base, from its METADATA); torch {} is installed", c.version, t.version));
                    }
                }
            }
            if let (Some(tl), Some(cl)) = (t_local, c_local) {
                if tl != cl {
                    problems.push(format!("torch is the {tl} build but {key} the {cl} build: their CUDA kernels do not match"));
                }
            }
            if problems.is_empty() {
                continue;
            }
            let mut f = Finding::new(
                &COMPANION_VERSION_MISMATCH,
                Severity::Error,
                format!(
                    "{key} {} does not match torch {} in environment {}",
                    c.version, t.version, e.name
                ),
            )
            .in_environment(&e.prefix);
            for p in problems {
                f = f.evidence(p);
            }
            let matching: Vec<String> = t_public
                .as_ref()
                .map(|tp| {
                    let rows = if key == "torchvision" {
                        cx.kb.frameworks.torchvision_for_torch(tp, t_local)
                    } else {
                        cx.kb.frameworks.torchaudio_for_torch(tp, t_local)
                    };
                    rows.iter().map(|r| r.version.to_string()).collect()
                })
                .unwrap_or_default();
            let fix = match (matching.last(), t_local) {
                (Some(v), Some(l)) => format!(
                    "{} install '{key}=={v}' --index-url https://download.pytorch.org/whl/{l}",
                    pip_of(e)
                ),
                (Some(v), None) => format!("{} install '{key}=={v}'", pip_of(e)),
                (None, _) => format!(
                    "{} install --upgrade torch {key}   # from one index, in one command",
                    pip_of(e)
                ),
            };
            out.push(f.fix(fix));
        }
        // JAX: the CUDA plugins must carry jaxlib's exact version, and only one CUDA major.
        let Some(jaxlib) = dist(e, "jaxlib") else {
            continue;
        };
        let plugins: Vec<&PythonDistribution> = e
            .distributions
            .iter()
            .filter(|d| {
                d.key.starts_with("jax-cuda")
                    && (d.key.ends_with("-plugin") || d.key.ends_with("-pjrt"))
            })
            .collect();
        let mut problems = Vec::new();
        for p in &plugins {
            if split_local(&p.version).0 != split_local(&jaxlib.version).0 {
                problems.push(format!(
                    "{} {} but jaxlib {}: the plugin must carry jaxlib's version",
                    p.name, p.version, jaxlib.version
                ));
            }
        }
        let majors: Vec<&str> = plugins
            .iter()
            .filter(|p| p.key.ends_with("-plugin"))
            .map(|p| p.key.as_str())
            .collect();
        if majors.len() > 1 {
            problems.push(format!(
                "several CUDA plugins are installed: {}",
                majors.join(", ")
            ));
        }
        if problems.is_empty() {
            continue;
        }
        let mut f = Finding::new(
            &COMPANION_VERSION_MISMATCH,
            Severity::Error,
            format!(
                "jaxlib and its CUDA plugins are out of step in environment {}",
                e.name
            ),
        )
        .in_environment(&e.prefix);
        for p in problems {
            f = f.evidence(p);
        }
        out.push(f.fix(format!(
            "{} install -U 'jax[cuda12]'   # one command pins jax, jaxlib and the plugin together",
            pip_of(e)
        )));
    }
}

/// `python-unsupported`: the environment's Python is outside the range the framework release
/// publishes wheels for (a venv whose Python was upgraded, a conda env pinned differently).
pub fn python_unsupported(cx: &Context, out: &mut Vec<Finding>) {
    for e in cx.full_environments() {
        let Some(python) = e.python_version.as_ref().map(|v| v.value.clone()) else {
            continue;
        };
        let mut checks: Vec<(String, gpuenv_kb::frameworks::spec::PythonRange, String)> =
            Vec::new();
        if let Some(t) = &e.frameworks.torch {
            if let Some(public) = split_local(&t.version.value).0 {
                if let (Some(range), Some(rel)) = (
                    cx.kb.frameworks.torch_python(&public),
                    cx.kb.frameworks.torch_release(&public),
                ) {
                    checks.push((
                        format!("torch {}", t.version.value),
                        range,
                        rel.sources.join(", "),
                    ));
                }
            }
        }
        if let Some(tf) = dist(e, "tensorflow") {
            if let Some(row) = tf
                .version
                .parse::<Version>()
                .ok()
                .and_then(|v| cx.kb.frameworks.tensorflow(&v))
            {
                checks.push((
                    format!("tensorflow {}", tf.version),
                    row.python(),
                    row.sources.join(", "),
                ));
            }
        }
        for (what, range, sources) in checks {
            if range.contains(&python) {
                continue;
            }
            out.push(
                Finding::new(
                    &PYTHON_UNSUPPORTED,
                    Severity::Error,
                    format!("{what} has no build for Python {python} (supported: {}..{}) in environment {}", range.min, range.max, e.name),
                )
                .in_environment(&e.prefix)
                .evidence(format!("Python {python} ({})", e.python_version.as_ref().map(|v| v.source.to_string()).unwrap_or_default()))
                .evidence(format!("knowledge base: {what} publishes wheels for Python {}..{} [{sources}]", range.min, range.max))
                .fix(format!(
                    "Recreate the environment with a supported Python (e.g. python{}.{} -m venv ...), or install a release built for Python {python}.",
                    range.max.major(),
                    range.max.minor()
                )),
            );
        }
    }
}

/// `application-backend-missing`: DeepLabCut 3 needs a CUDA-enabled PyTorch, DeepLabCut 2 needs
/// TensorFlow.
pub fn application_backend_missing(cx: &Context, out: &mut Vec<Finding>) {
    use gpuenv_kb::frameworks::rows::DlcBackend;
    for e in cx.full_environments() {
        let Some(dlc) = dist(e, "deeplabcut") else {
            continue;
        };
        let Ok(version) = split_local(&dlc.version).0.ok_or(()) else {
            continue;
        };
        let backend = cx
            .kb
            .frameworks
            .deeplabcut_backend(&version)
            .or(match version.major() {
                2 => Some(DlcBackend::Tensorflow),
                3 => Some(DlcBackend::Pytorch),
                _ => None,
            });
        let problem = match backend {
            Some(DlcBackend::Pytorch) => match &e.frameworks.torch {
                None if dist(e, "torch").is_none() => Some((
                    "PyTorch is not installed".to_string(),
                    format!("{} install torch torchvision", pip_of(e)),
                )),
                Some(t) if t.cuda.is_none() && t.hip.is_none() && cx.has_nvidia_gpu() => Some((
                    format!("torch {} is a CPU-only build", t.version.value),
                    torch_reinstall(
                        e,
                        &split_local(&t.version.value)
                            .0
                            .map(|v| v.to_string())
                            .unwrap_or_default(),
                        None,
                    ),
                )),
                _ => None,
            },
            Some(DlcBackend::Tensorflow)
                if dist(e, "tensorflow").is_none() && dist(e, "tensorflow-cpu").is_none() =>
            {
                Some((
                    "TensorFlow is not installed".to_string(),
                    format!(
                        "{} install 'deeplabcut[tf]'   # or the TensorFlow release its setup pins",
                        pip_of(e)
                    ),
                ))
            }
            _ => None,
        };
        let Some((why, fix)) = problem else { continue };
        let needs = match backend {
            Some(DlcBackend::Pytorch) => "a CUDA-enabled PyTorch",
            _ => "TensorFlow",
        };
        out.push(
            Finding::new(
                &APPLICATION_BACKEND_MISSING,
                Severity::Error,
                format!(
                    "DeepLabCut {} needs {needs}: {why} in environment {}",
                    dlc.version, e.name
                ),
            )
            .in_environment(&e.prefix)
            .evidence(format!("deeplabcut {} ({})", dlc.version, dlc.metadata_dir))
            .evidence(format!(
                "DeepLabCut {}.x runs on {needs} (knowledge base deeplabcut table)",
                version.major()
            ))
            .fix(fix),
        );
    }
}

/// `numpy-abi-mismatch`: NumPy 2 installed beside a release built against NumPy 1.x ("A module
/// that was compiled using NumPy 1.x cannot be run in NumPy 2.x"); `pip check` sees nothing.
pub fn numpy_abi_mismatch(cx: &Context, out: &mut Vec<Finding>) {
    for e in cx.full_environments() {
        let Some(numpy) = dist(e, "numpy") else {
            continue;
        };
        let Ok(np) = numpy.version.parse::<Version>() else {
            continue;
        };
        if np.major() < 2 {
            continue;
        }
        for row in &cx.kb.frameworks.conflicts {
            for floor in &row.numpy2_floor {
                let Some(d) = dist(e, &floor.distribution) else {
                    continue;
                };
                let Some(v) = split_local(&d.version).0 else {
                    continue;
                };
                if v >= floor.first {
                    continue;
                }
                let severity = if floor.confirmed {
                    Severity::Error
                } else {
                    Severity::Warning
                };
                out.push(
                    Finding::new(
                        &NUMPY_ABI_MISMATCH,
                        severity,
                        format!("{} {} was built against NumPy 1.x but numpy {} is installed in environment {}", d.name, d.version, numpy.version, e.name),
                    )
                    .in_environment(&e.prefix)
                    .evidence(format!(
                        "knowledge base: {} is built against NumPy 2 from {} on [{}{}]",
                        floor.distribution,
                        floor.first,
                        row.sources.join(", "),
                        if floor.confirmed { "" } else { "; not confirmed" }
                    ))
                    .evidence("symptom: \"A module that was compiled using NumPy 1.x cannot be run in NumPy 2.x as it may crash\", _ARRAY_API not found")
                    .fix(format!("{} install 'numpy<2'   # or upgrade {} to {} or newer", pip_of(e), d.name, floor.first)),
                );
            }
        }
    }
}
