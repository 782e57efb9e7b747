//! Refinement: the facts of a machine (doctor's probes) that confirm or rule out a candidate
//! cause. Each check is named in the catalogue (`facts = ["gpu-arch-vs-build"]`) and answers with
//! evidence lines; no answer means the facts cannot tell.

use serde::Serialize;

use gpuenv_facts::{Facts, TorchBuild};
use gpuenv_kb::{ComputeCapability, CudaVersion, Kb, Version};

use crate::extract::Extracted;
use crate::libraries;

/// A named fact check.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FactCheck {
    /// Is there an NVIDIA driver at all (kernel module, userspace libraries)?
    DriverPresent,
    /// Do the loaded kernel module and the userspace libraries have the same version?
    DriverVersionsAgree,
    /// Is the driver's CUDA version at least the one the installed frameworks were built for?
    DriverCudaVsFramework,
    /// Does the installed torch build carry code for the GPUs' compute capabilities?
    GpuArchVsBuild,
    /// Is the library the log asks for (`libcudnn.so.8`, `libcublas.so.11`) installed at all, in
    /// a place the system loader reaches or not? (Confirms only where nothing is found.)
    LibraryInstalled,
    /// Is it installed only where the system loader does not look (a toolkit tree, a Python
    /// environment's own `nvidia/*/lib`, a conda environment's `lib`), so a variable must name it?
    LibraryUnreachable,
    /// Does the log ask for a cuDNN major that is not installed while another one is?
    CudnnOtherMajor,
    /// Are there several cuDNN installs of different majors?
    CudnnSeveral,
    /// Is the installed torch (or TensorFlow) a CPU-only build?
    CpuBuild,
    /// Is this WSL2?
    Wsl,
    /// Is this a container?
    Container,
    /// Are the `/dev/nvidia*` nodes there and may this user open them?
    DeviceNodes,
    /// Does `CUDA_VISIBLE_DEVICES` hide the GPUs?
    VisibleDevices,
    /// Does `LD_LIBRARY_PATH` name CUDA or cuDNN directories?
    LdLibraryPath,
    /// Is no CUDA toolkit with an `nvcc` installed? (Confirms a missing toolkit.)
    ToolkitMissing,
    /// Is a toolkit with an `nvcc` installed where a build does not look (CUDA_HOME unset or
    /// naming another directory, no `nvcc` on PATH)? (Confirms a variable to set.)
    ToolkitUnreached,
    /// Does the log ask for a CUDA library of a major (`libcudart.so.11.0`) that is not installed,
    /// while the frameworks here are all built for another CUDA major? Then what asks for it is a
    /// package built for another CUDA than the framework beside it.
    CudaMajorVsFramework,
}

/// Every check, with its catalogue id.
const CHECKS: [(&str, FactCheck); 17] = [
    ("driver-present", FactCheck::DriverPresent),
    ("driver-versions-agree", FactCheck::DriverVersionsAgree),
    ("driver-cuda-vs-framework", FactCheck::DriverCudaVsFramework),
    ("gpu-arch-vs-build", FactCheck::GpuArchVsBuild),
    ("library-installed", FactCheck::LibraryInstalled),
    ("library-unreachable", FactCheck::LibraryUnreachable),
    ("cudnn-other-major", FactCheck::CudnnOtherMajor),
    ("cudnn-several", FactCheck::CudnnSeveral),
    ("cpu-build", FactCheck::CpuBuild),
    ("wsl", FactCheck::Wsl),
    ("container", FactCheck::Container),
    ("device-nodes", FactCheck::DeviceNodes),
    ("visible-devices", FactCheck::VisibleDevices),
    ("ld-library-path", FactCheck::LdLibraryPath),
    ("toolkit-missing", FactCheck::ToolkitMissing),
    ("toolkit-unreached", FactCheck::ToolkitUnreached),
    ("cuda-major-vs-framework", FactCheck::CudaMajorVsFramework),
];

impl FactCheck {
    /// The check with this catalogue id.
    pub fn from_id(id: &str) -> Option<FactCheck> {
        CHECKS.iter().find(|(name, _)| *name == id).map(|(_, c)| *c)
    }

    /// Its catalogue id.
    pub fn id(self) -> &'static str {
        CHECKS
            .iter()
            .find(|(_, c)| *c == self)
            .map(|(name, _)| *name)
            .unwrap_or("unknown")
    }
}

/// What a fact does to a cause.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Effect {
    Confirms,
    RulesOut,
    /// Context worth showing that decides nothing.
    Notes,
}

/// One fact, said in words, and its effect.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FactEvidence {
    pub effect: Effect,
    pub check: &'static str,
    pub text: String,
}

/// Runs one check against the facts.
pub fn evaluate(
    check: FactCheck,
    facts: &Facts,
    kb: Option<&Kb>,
    values: &Extracted,
) -> Vec<FactEvidence> {
    let say = |effect: Effect, text: String| FactEvidence {
        effect,
        check: check.id(),
        text,
    };
    let mut out = Vec::new();
    match check {
        FactCheck::DriverPresent => {
            let module = facts.driver.kernel_module.as_ref();
            let libs = facts.driver.userspace.iter().any(|l| l.selected);
            match (module, libs) {
                (None, false) if facts.driver.kernel_module_state_known => out.push(say(
                    Effect::Confirms,
                    "no NVIDIA kernel module is loaded and no libcuda.so.1 is reachable".to_string(),
                )),
                (None, true) if facts.driver.kernel_module_state_known => out.push(say(
                    Effect::Confirms,
                    "the NVIDIA userspace libraries are installed but no NVIDIA kernel module is loaded"
                        .to_string(),
                )),
                (Some(m), _) => out.push(say(
                    Effect::RulesOut,
                    format!("NVIDIA kernel module {} is loaded", m.version.value),
                )),
                _ => {}
            }
        }
        FactCheck::DriverVersionsAgree => {
            if let (Some(k), Some(u)) = (facts.kernel_module_version(), facts.driver_version()) {
                if k == u {
                    out.push(say(
                        Effect::RulesOut,
                        format!("kernel module and userspace driver are both {k}"),
                    ));
                } else {
                    out.push(say(
                        Effect::Confirms,
                        format!(
                            "the loaded kernel module is {k} but the userspace libraries are {u}"
                        ),
                    ));
                }
            }
        }
        FactCheck::DriverCudaVsFramework => {
            if let Some(driver_cuda) = facts.driver.cuda_driver_version.as_ref().map(|s| s.value) {
                for (env, cuda) in framework_cudas(facts) {
                    if cuda > driver_cuda {
                        out.push(say(
                            Effect::Confirms,
                            format!("environment `{env}` has a build for CUDA {cuda}; the driver supports CUDA {driver_cuda} at most"),
                        ));
                    } else {
                        out.push(say(
                            Effect::RulesOut,
                            format!("environment `{env}`'s build for CUDA {cuda} fits the driver (CUDA {driver_cuda})"),
                        ));
                    }
                }
            }
        }
        FactCheck::GpuArchVsBuild => gpu_arch_vs_build(facts, kb, values, &mut out, &say),
        FactCheck::LibraryInstalled => library_installed(facts, kb, values, &mut out, &say),
        FactCheck::LibraryUnreachable => library_unreachable(facts, values, &mut out, &say),
        FactCheck::CudnnOtherMajor => {
            for wanted in libraries::wanted(&values.libraries)
                .into_iter()
                .filter(|w| w.stem == "libcudnn")
            {
                if !libraries::whereabouts(facts, &wanted).nowhere() {
                    continue;
                }
                let others = libraries::other_cudnn_majors(facts, wanted.major);
                if !others.is_empty() {
                    out.push(say(
                        Effect::Confirms,
                        format!(
                            "the log asks for cuDNN {} ({}), which is not installed; this machine has {}",
                            wanted.major,
                            wanted.name,
                            others.join(", ")
                        ),
                    ));
                }
            }
        }
        FactCheck::CudnnSeveral => {
            let mut majors: Vec<u32> = facts.libraries.cudnn.iter().map(|c| c.major).collect();
            majors.sort_unstable();
            majors.dedup();
            if majors.len() > 1 {
                out.push(say(
                    Effect::Confirms,
                    format!("cuDNN majors {majors:?} are installed side by side"),
                ));
            }
        }
        FactCheck::CpuBuild => {
            for env in &facts.python.environments {
                if let Some(t) = &env.frameworks.torch {
                    if t.cuda.is_none() && t.hip.is_none() {
                        out.push(say(
                            Effect::Confirms,
                            format!(
                                "environment `{}` has torch {}, a CPU-only build",
                                env.name, t.version.value
                            ),
                        ));
                    } else if let Some(c) = &t.cuda {
                        out.push(say(
                            Effect::RulesOut,
                            format!(
                                "environment `{}` has torch {}, built for CUDA {c}",
                                env.name, t.version.value
                            ),
                        ));
                    }
                }
                if let Some(tf) = &env.frameworks.tensorflow {
                    if tf.is_cuda_build == Some(false) {
                        out.push(say(
                            Effect::Confirms,
                            format!(
                                "environment `{}` has TensorFlow {}, built without CUDA",
                                env.name, tf.version
                            ),
                        ));
                    }
                }
            }
        }
        FactCheck::Wsl => {
            if facts.os.wsl.is_some() {
                out.push(say(Effect::Confirms, "this machine is WSL2".to_string()));
            } else if facts.live {
                out.push(say(
                    Effect::RulesOut,
                    "this machine is not WSL2".to_string(),
                ));
            }
        }
        FactCheck::Container => {
            if let Some(c) = &facts.os.container {
                out.push(say(
                    Effect::Confirms,
                    format!("this is a container ({})", c.value),
                ));
            }
        }
        FactCheck::DeviceNodes => {
            let nodes = &facts.os.device_nodes;
            let denied: Vec<&str> = nodes
                .iter()
                .filter(|n| n.exists && n.accessible == Some(false))
                .map(|n| n.path.as_str())
                .collect();
            if !denied.is_empty() {
                out.push(say(
                    Effect::Confirms,
                    format!("this user may not open {}", denied.join(", ")),
                ));
            } else if nodes.iter().any(|n| n.exists && n.accessible == Some(true)) {
                out.push(say(
                    Effect::RulesOut,
                    "this user may open the /dev/nvidia* nodes".to_string(),
                ));
            }
        }
        FactCheck::VisibleDevices => {
            if let Some(v) = &facts.gpus.cuda_visible_devices {
                let value = v.value.trim();
                if value.is_empty() || value == "-1" || value.eq_ignore_ascii_case("none") {
                    out.push(say(
                        Effect::Confirms,
                        format!(
                            "CUDA_VISIBLE_DEVICES is `{}`, which hides every GPU",
                            v.value
                        ),
                    ));
                } else if let Some((first, count)) = first_index_beyond_gpus(value, facts) {
                    // CUDA stops at the first entry that names no device, so a first entry
                    // beyond the GPUs hides them all.
                    out.push(say(
                        Effect::Confirms,
                        format!(
                            "CUDA_VISIBLE_DEVICES is `{}` but this machine has {count} NVIDIA GPU(s), indices 0..{}: there is no GPU {first}, which hides every GPU",
                            v.value,
                            count - 1
                        ),
                    ));
                } else {
                    out.push(say(
                        Effect::Notes,
                        format!("CUDA_VISIBLE_DEVICES is `{}`", v.value),
                    ));
                }
            }
        }
        FactCheck::LdLibraryPath => {
            let cuda_dirs: Vec<&str> = facts
                .env
                .ld_library_path
                .iter()
                .filter(|d| d.contains("cuda") || d.contains("cudnn"))
                .map(String::as_str)
                .collect();
            if !cuda_dirs.is_empty() {
                out.push(say(
                    Effect::Confirms,
                    format!(
                        "LD_LIBRARY_PATH puts {} before the frameworks' own libraries",
                        cuda_dirs.join(":")
                    ),
                ));
            }
        }
        FactCheck::CudaMajorVsFramework => {
            for w in libraries::wanted(&values.libraries) {
                if !CUDA_MAJOR_NAMED.contains(&w.stem.as_str()) {
                    continue;
                }
                if !matches!(Place::of(&libraries::whereabouts(facts, &w)), Place::Nowhere) {
                    continue;
                }
                match frameworks_of_another_cuda(facts, w.major) {
                    Some(others) => out.push(say(
                        Effect::Confirms,
                        format!(
                            "the log asks for {} (CUDA {}), which is not installed, but {}: what asks for it is a package built for another CUDA than the framework",
                            w.name,
                            w.major,
                            others.join(", ")
                        ),
                    )),
                    None if framework_cudas(facts).iter().any(|(_, c)| c.major == w.major) => {
                        out.push(say(
                            Effect::RulesOut,
                            format!("a framework here is built for CUDA {} itself", w.major),
                        ))
                    }
                    None => {}
                }
            }
        }
        FactCheck::ToolkitMissing => match toolkits_with_nvcc(facts).first() {
            None => out.push(say(
                Effect::Confirms,
                "no CUDA toolkit with nvcc is installed (looked in /usr/local/cuda*, /usr, CUDA_HOME and PATH)"
                    .to_string(),
            )),
            Some(root) => out.push(say(
                Effect::RulesOut,
                format!("a CUDA toolkit with nvcc is installed at {root}"),
            )),
        },
        FactCheck::ToolkitUnreached => {
            let installed = toolkits_with_nvcc(facts);
            let home = facts.cuda.cuda_home.as_ref().map(|v| v.value.as_str());
            let home_names_one = facts.cuda.cuda_home.as_ref().is_some_and(|v| v.is_toolkit);
            match installed.first() {
                None => out.push(say(
                    Effect::RulesOut,
                    "no CUDA toolkit with nvcc is installed, so no variable can point at one"
                        .to_string(),
                )),
                Some(root) if !home_names_one && facts.cuda.nvcc_on_path.is_none() => {
                    out.push(say(
                        Effect::Confirms,
                        format!(
                            "a CUDA toolkit is installed at {root}, but {} and no nvcc is on PATH",
                            match home {
                                None => "CUDA_HOME is not set".to_string(),
                                Some(h) => format!("CUDA_HOME is {h}"),
                            }
                        ),
                    ))
                }
                Some(_) => {}
            }
        }
    }
    out
}

/// The CUDA libraries whose SONAME major is the CUDA major they ship with (`libcudart.so.11.0`,
/// `libcublas.so.12`; cuFFT and cuRAND are numbered on their own) and whose system copies the
/// probes inventory, so that "nowhere" means not installed.
const CUDA_MAJOR_NAMED: [&str; 3] = ["libcudart", "libcublas", "libcublasLt"];

/// Where no framework here is built for CUDA `major` and at least one is built for another: each
/// of those, said as `environment `X`'s build for CUDA 12.1`. None otherwise (a framework of that
/// major wants the library itself, or no framework's CUDA is known).
fn frameworks_of_another_cuda(facts: &Facts, major: u32) -> Option<Vec<String>> {
    let builds = framework_cudas(facts);
    if builds.is_empty() || builds.iter().any(|(_, c)| c.major == major) {
        return None;
    }
    Some(
        builds
            .iter()
            .map(|(env, c)| format!("environment `{env}`'s framework is built for CUDA {c}"))
            .collect(),
    )
}

/// The roots of the installed CUDA toolkits that have an `nvcc`.
fn toolkits_with_nvcc(facts: &Facts) -> Vec<&str> {
    facts
        .cuda
        .toolkits
        .iter()
        .filter(|t| t.nvcc.is_some())
        .map(|t| t.root.as_str())
        .collect()
}

/// The first index of a `CUDA_VISIBLE_DEVICES` list and the number of NVIDIA GPUs, when that
/// index does not exist (a list of plain indices only; UUIDs and MIG names are not judged, nor
/// is anything when the GPUs are not known).
fn first_index_beyond_gpus(value: &str, facts: &Facts) -> Option<(u32, usize)> {
    let count = facts.gpus.devices.len();
    if count == 0 {
        return None;
    }
    let first: u32 = value.split(',').next()?.trim().parse().ok()?;
    (first as usize >= count).then_some((first, count))
}

/// Every environment's framework CUDA version (torch, TensorFlow).
fn framework_cudas(facts: &Facts) -> Vec<(String, CudaVersion)> {
    let mut out = Vec::new();
    for env in &facts.python.environments {
        if let Some(c) = env
            .frameworks
            .torch
            .as_ref()
            .and_then(|t| t.cuda.as_deref())
        {
            if let Ok(v) = c.parse::<CudaVersion>() {
                out.push((env.name.clone(), v));
            }
        }
        if let Some(c) = env
            .frameworks
            .tensorflow
            .as_ref()
            .and_then(|t| t.cuda_version.as_deref())
        {
            if let Ok(v) = c.parse::<CudaVersion>() {
                out.push((env.name.clone(), v));
            }
        }
    }
    out
}

/// The GPUs' compute capabilities: probed devices, NVML, overrides.
fn gpu_ccs(facts: &Facts) -> Vec<ComputeCapability> {
    let mut ccs: Vec<ComputeCapability> = facts
        .gpus
        .devices
        .iter()
        .filter_map(|g| g.cc.as_ref().map(|c| c.value))
        .collect();
    ccs.extend(facts.gpus.override_ccs.iter().map(|c| c.value));
    ccs.sort_unstable();
    ccs.dedup();
    ccs
}

/// `2.1.0+cu121` → (`2.1.0`, `cu121`); a build without a local tag takes its variant from `cuda`.
fn torch_version_and_variant(t: &TorchBuild) -> Option<(Version, String)> {
    let full = t.version.value.as_str();
    let (base, local) = match full.split_once('+') {
        Some((b, l)) => (b, Some(l.to_string())),
        None => (full, None),
    };
    let version: Version = base.parse().ok()?;
    let variant = match (local, &t.cuda) {
        (Some(l), _) => l,
        (None, Some(c)) => format!("cu{}", c.replace('.', "")),
        (None, None) => "cpu".to_string(),
    };
    Some((version, variant))
}

fn gpu_arch_vs_build(
    facts: &Facts,
    kb: Option<&Kb>,
    values: &Extracted,
    out: &mut Vec<FactEvidence>,
    say: &dyn Fn(Effect, String) -> FactEvidence,
) {
    let mut ccs = gpu_ccs(facts);
    if ccs.is_empty() {
        ccs = values.archs.clone();
    }
    if ccs.is_empty() {
        return;
    }
    let Some(kb) = kb else {
        return;
    };
    for env in &facts.python.environments {
        let Some(torch) = &env.frameworks.torch else {
            continue;
        };
        let Some((version, variant)) = torch_version_and_variant(torch) else {
            continue;
        };
        let Some(v) = kb.frameworks.torch_variant(&version, &variant) else {
            continue;
        };
        if v.sass().is_empty() {
            continue;
        }
        for cc in &ccs {
            let native = v.sass().contains(cc);
            let by_ptx = v.ptx().iter().any(|p| p <= cc && p.major == cc.major);
            let archs: Vec<String> = v
                .sass()
                .iter()
                .map(|c| format!("sm_{}{}", c.major, c.minor))
                .collect();
            if native || by_ptx {
                out.push(say(
                    Effect::RulesOut,
                    format!(
                        "torch {} in `{}` carries code for compute capability {cc}",
                        torch.version.value, env.name
                    ),
                ));
            } else {
                out.push(say(
                    Effect::Confirms,
                    format!(
                        "the GPU has compute capability {cc}; torch {} in `{}` has code only for {}",
                        torch.version.value,
                        env.name,
                        archs.join(" ")
                    ),
                ));
            }
        }
    }
}

/// `library-installed`: each library the log asks for, found reachable, found where the loader
/// does not look, or (for the libraries the probes inventory) found nowhere. Only "nowhere"
/// confirms a missing library; a copy in the wrong place is `library-unreachable`'s, another
/// cuDNN major `cudnn-other-major`'s.
fn library_installed(
    facts: &Facts,
    kb: Option<&Kb>,
    values: &Extracted,
    out: &mut Vec<FactEvidence>,
    say: &dyn Fn(Effect, String) -> FactEvidence,
) {
    let wanted = libraries::wanted(&values.libraries);
    if wanted.iter().any(|w| w.stem == "libcudnn") {
        for note in cudnn_wanted_by_frameworks(facts, kb) {
            out.push(say(Effect::Notes, note));
        }
    }
    for w in wanted {
        let found = libraries::whereabouts(facts, &w);
        match Place::of(&found) {
            Place::Reachable(places) => out.push(say(
                Effect::RulesOut,
                format!(
                    "{} is installed and the system loader reaches it: {places}",
                    w.name
                ),
            )),
            Place::Elsewhere(places) => out.push(say(
                Effect::RulesOut,
                format!(
                    "{} is installed ({places}), only not where the system loader looks",
                    w.name
                ),
            )),
            Place::Nowhere if w.stem == "libcudnn" => {
                let others = libraries::other_cudnn_majors(facts, w.major);
                if others.is_empty() {
                    out.push(say(
                        Effect::Confirms,
                        format!(
                            "no {} is installed on this machine, and no other cuDNN either",
                            w.soname()
                        ),
                    ));
                } else {
                    out.push(say(
                        Effect::RulesOut,
                        format!(
                            "no {} is installed, but {}: the program wants another cuDNN major than the machine has",
                            w.soname(),
                            others.join(", ")
                        ),
                    ));
                }
            }
            Place::Nowhere => match frameworks_of_another_cuda(facts, w.major)
                .filter(|_| CUDA_MAJOR_NAMED.contains(&w.stem.as_str()))
            {
                Some(others) => out.push(say(
                    Effect::RulesOut,
                    format!(
                        "no {} is installed, but {}: the package that asks for it was built for another CUDA than the framework",
                        w.soname(),
                        others.join(", ")
                    ),
                )),
                None => out.push(say(
                    Effect::Confirms,
                    format!(
                        "no {} is installed on this machine (system library directories, CUDA toolkits, the Python environments' own libraries)",
                        w.soname()
                    ),
                )),
            },
            Place::Unknown => {}
        }
    }
}

/// Which environments' frameworks want which cuDNN: torch's pins of the nvidia-cudnn wheel (or,
/// without one, the cuDNN the knowledge base says its build ships), TensorFlow's build_info.
fn cudnn_wanted_by_frameworks(facts: &Facts, kb: Option<&Kb>) -> Vec<String> {
    let mut notes = Vec::new();
    for env in &facts.python.environments {
        if let Some(t) = &env.frameworks.torch {
            let pins: Vec<String> = t
                .cuda_pins
                .iter()
                .filter(|(name, _)| name.starts_with("nvidia-cudnn"))
                .map(|(name, spec)| format!("{name}{spec}"))
                .collect();
            if !pins.is_empty() {
                notes.push(format!(
                    "torch {} in `{}` pins {}",
                    t.version.value,
                    env.name,
                    pins.join(", ")
                ));
            } else if let Some(cudnn) = kb.and_then(|kb| {
                let (version, variant) = torch_version_and_variant(t)?;
                kb.frameworks
                    .torch_variant(&version, &variant)?
                    .cudnn_version()
                    .cloned()
            }) {
                notes.push(format!(
                    "torch {} in `{}` ships or pins cuDNN {cudnn} (knowledge base)",
                    t.version.value, env.name
                ));
            }
        }
        if let Some(tf) = &env.frameworks.tensorflow {
            if let Some(cudnn) = &tf.cudnn_version {
                notes.push(format!(
                    "TensorFlow {} in `{}` was built for cuDNN {cudnn}",
                    tf.version, env.name
                ));
            }
        }
    }
    notes
}

/// `library-unreachable`: each library the log asks for confirms the variable when it is
/// installed only where the system loader does not look; a reachable copy, or none at all (for
/// the libraries the probes inventory), rules it out.
fn library_unreachable(
    facts: &Facts,
    values: &Extracted,
    out: &mut Vec<FactEvidence>,
    say: &dyn Fn(Effect, String) -> FactEvidence,
) {
    for w in libraries::wanted(&values.libraries) {
        let found = libraries::whereabouts(facts, &w);
        let (effect, text) = match Place::of(&found) {
            Place::Reachable(places) => (
                Effect::RulesOut,
                format!("the system loader reaches {}: {places}", w.name),
            ),
            Place::Elsewhere(places) => (
                Effect::Confirms,
                format!(
                    "{} is installed in {places}, where the system loader does not look (not in ld.so.cache, LD_LIBRARY_PATH or a default directory)",
                    w.name
                ),
            ),
            Place::Nowhere => (
                Effect::RulesOut,
                format!(
                    "no {} is installed on this machine: there is no directory to point the loader at",
                    w.soname()
                ),
            ),
            Place::Unknown => continue,
        };
        out.push(say(effect, text));
    }
}

/// Where a wanted library is, as the library checks read it.
enum Place {
    /// The system loader reaches a copy (the places, joined).
    Reachable(String),
    /// Copies exist only where it does not look.
    Elsewhere(String),
    /// None, and the probes inventory this library: not installed.
    Nowhere,
    /// None found, but the probes do not inventory this library's system copies.
    Unknown,
}

impl Place {
    fn of(found: &libraries::Whereabouts) -> Place {
        if !found.reachable.is_empty() {
            Place::Reachable(found.reachable.join("; "))
        } else if !found.unreachable.is_empty() {
            Place::Elsewhere(found.unreachable.join("; "))
        } else if found.inventoried {
            Place::Nowhere
        } else {
            Place::Unknown
        }
    }
}
