//! `gpuenv plan`'s engine: the newest framework build that fits a GPU, a driver and a Python, as
//! a choice with its reasons, the constraints that excluded everything newer, and the exact
//! commands and environment files. Pure: the target machine arrives as [`Target`] (built from
//! doctor's `Facts` by [`Target::from_context`] or from explicit inputs by the CLI), the tables
//! are the knowledge base's, and doctor's findings say whether the current environment is broken.
//!
//! Semantics (the same as doctor's):
//!
//! * **GPU code**: a build runs on a GPU of compute capability X.Y when its arch list has SASS
//!   for X.Z with Z <= Y (never across majors), or PTX for any capability <= X.Y (JIT-compiled by
//!   the driver). These are NVIDIA's rules as `gpuenv_kb::gpu_code` applies them to fatbins
//!   (nvidia-facts 6b); here they are applied to the knowledge base's `torch_arch` rows.
//! * **Driver**: a CUDA variant fits when the driver *fully* supports its CUDA: the driver is at
//!   least the CUDA release's Toolkit Driver Version (`Kb::min_driver_for_cuda`), or, where that
//!   is unknown, the branch table's ceiling reaches it — exactly when
//!   `checks::cuda::driver_vs_cuda` reports nothing. A build that runs only under minor-version
//!   compatibility (`Kb::mvc_min_driver`; no PTX JIT) is what doctor warns about, so it is not
//!   chosen unless `allow_mvc`; the plan names it as an alternative.
//! * **Python**: the wheel tags on PyPI (`torch_python`: the patch's own range where narrower).
//!
//! Only rows and variants the knowledge base confirms are chosen; unconfirmed ones are named as
//! such.

mod channels;
mod commands;
mod others;
mod torch;

use serde::Serialize;

use gpuenv_kb::{ComputeCapability, CudaVersion, DriverCeiling, Kb, Version};

use crate::{Context, Finding, Severity};

pub use channels::{CondaForgeChoice, DockerImage};
pub use commands::{emit_file, EmitKind};

/// The JSON document's schema name.
pub const PLAN_SCHEMA: &str = "gpuenv.plan/1";

/// The frameworks a plan can be made for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Framework {
    Torch,
    Tensorflow,
    Jax,
    Deeplabcut,
}

impl Framework {
    pub fn name(self) -> &'static str {
        match self {
            Framework::Torch => "torch",
            Framework::Tensorflow => "tensorflow",
            Framework::Jax => "jax",
            Framework::Deeplabcut => "deeplabcut",
        }
    }
}

/// How the environment is (to be) managed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Manager {
    Pip,
    Uv,
    Conda,
    Pixi,
    Docker,
}

/// A GPU to plan for.
#[derive(Debug, Clone, Serialize)]
pub struct TargetGpu {
    pub label: String,
    pub cc: ComputeCapability,
    /// The last driver branch that supports it (`None`: still supported or unknown).
    pub last_driver_branch: Option<u32>,
}

/// The driver to plan for.
#[derive(Debug, Clone, Serialize)]
pub struct TargetDriver {
    pub version: Version,
    /// The newest CUDA it fully supports, when known.
    pub ceiling: Option<CudaVersion>,
    /// Where the version came from.
    pub source: String,
}

/// The environment a plan changes (machine mode).
#[derive(Debug, Clone, Serialize)]
pub struct TargetEnv {
    pub name: String,
    pub prefix: String,
    /// `venv`, `conda`, `uv-venv` ... as doctor names it.
    pub kind: String,
    /// `torch/version.py`'s `__version__` (`2.8.0+cu128`), if torch is installed.
    pub torch: Option<String>,
    /// Other installed frameworks and companions (`torchvision` -> version).
    pub packages: Vec<(String, String)>,
}

/// The machine and environment a plan is for.
#[derive(Debug, Clone, Serialize)]
pub struct Target {
    pub gpus: Vec<TargetGpu>,
    /// `--gpu`, `--no-gpu`, `probe`, or `none` (no GPU given: the plan ignores GPU code).
    pub gpus_from: String,
    pub driver: Option<TargetDriver>,
    pub python: Option<Version>,
    /// `--python`, the environment's, or `none`.
    pub python_from: String,
    pub environment: Option<TargetEnv>,
}

impl Target {
    /// An empty target: no GPU, no driver, any Python.
    pub fn unconstrained() -> Target {
        Target {
            gpus: Vec::new(),
            gpus_from: "none".into(),
            driver: None,
            python: None,
            python_from: "none".into(),
            environment: None,
        }
    }

    /// The GPUs given as compute capabilities (`--gpu 8.6`), labelled with the knowledge base's
    /// architecture.
    pub fn set_gpus(&mut self, kb: &Kb, ccs: &[ComputeCapability], from: &str) {
        self.gpus = ccs
            .iter()
            .map(|cc| {
                let row = kb.cc(*cc);
                TargetGpu {
                    label: match row {
                        Some(r) => format!(
                            "{} GPU ({}, compute capability {cc})",
                            r.architecture,
                            cc.sm()
                        ),
                        None => format!("GPU of compute capability {cc} ({})", cc.sm()),
                    },
                    cc: *cc,
                    last_driver_branch: row.filter(|r| !r.tegra).and_then(|r| r.last_driver_branch),
                }
            })
            .collect();
        self.gpus_from = from.into();
    }

    /// The driver given as a version (`--driver 535.104.05`); its ceiling from the branch table.
    pub fn set_driver(&mut self, kb: &Kb, version: Version, source: &str) {
        let ceiling = match kb.max_cuda_for_driver(&version) {
            DriverCeiling::Known { max_cuda, .. } => Some(max_cuda),
            DriverCeiling::NewerThanKb { at_least, .. } => Some(at_least),
            DriverCeiling::OlderThanKb => None,
        };
        self.driver = Some(TargetDriver {
            version,
            ceiling,
            source: source.into(),
        });
    }

    /// The machine as doctor read it: its GPUs, its driver, and the active environment (else the
    /// first one read in full) with its Python and installed frameworks.
    pub fn from_context(cx: &Context) -> Target {
        let mut t = Target::unconstrained();
        t.gpus = cx
            .gpus()
            .into_iter()
            .filter_map(|g| {
                let cc = g.cc?;
                Some(TargetGpu {
                    label: g.label,
                    cc,
                    last_driver_branch: cx
                        .kb
                        .cc(cc)
                        .filter(|r| !r.tegra)
                        .and_then(|r| r.last_driver_branch),
                })
            })
            .collect();
        t.gpus_from = if cx.has_nvidia_gpu() { "probe" } else { "none" }.into();
        if let Some((version, source)) = cx.driver() {
            t.driver = Some(TargetDriver {
                version: version.clone(),
                ceiling: cx.driver_ceiling().map(|c| c.0),
                source,
            });
        }
        let env = cx
            .full_environments()
            .find(|e| e.active)
            .or_else(|| cx.full_environments().next());
        if let Some(e) = env {
            if let Some(p) = &e.python_version {
                t.python = Some(p.value.clone());
                t.python_from = format!("environment {} ({})", e.name, p.source);
            }
            t.environment = Some(TargetEnv {
                name: e.name.clone(),
                prefix: e.prefix.clone(),
                kind: e.kind.clone(),
                torch: e.frameworks.torch.as_ref().map(|b| b.version.value.clone()),
                packages: e
                    .frameworks
                    .packages
                    .iter()
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect(),
            });
        }
        t
    }

    /// Whether the plan is for a machine without an NVIDIA GPU: no GPU and no driver. A driver
    /// without a known GPU means a GPU whose compute capability is unknown (CUDA builds are
    /// planned, their GPU code is not checked).
    pub fn cpu_only(&self) -> bool {
        self.gpus.is_empty() && self.driver.is_none()
    }

    /// The framework the environment already has (DeepLabCut before torch before the others).
    pub fn installed_framework(&self) -> Option<Framework> {
        let env = self.environment.as_ref()?;
        let has = |name: &str| env.packages.iter().any(|(k, _)| k == name);
        if has("deeplabcut") {
            Some(Framework::Deeplabcut)
        } else if env.torch.is_some() || has("torch") {
            Some(Framework::Torch)
        } else if has("tensorflow") || has("tensorflow-cpu") {
            Some(Framework::Tensorflow)
        } else if has("jax") || has("jaxlib") {
            Some(Framework::Jax)
        } else {
            None
        }
    }

    /// The manager of the environment (conda environments: conda; uv's venvs: uv; else pip).
    pub fn environment_manager(&self) -> Option<Manager> {
        let env = self.environment.as_ref()?;
        Some(if env.kind.starts_with("conda") {
            Manager::Conda
        } else if env.kind.starts_with("uv") {
            Manager::Uv
        } else {
            Manager::Pip
        })
    }
}

/// What the user asked for.
#[derive(Debug, Clone, Default)]
pub struct Request {
    /// `None`: what the environment has, else torch.
    pub framework: Option<Framework>,
    /// A PEP 440 specifier set, the distribution name already removed (`>=2.4,<2.6`).
    pub version_spec: Option<String>,
    /// The distribution the specifier names (`torch`, `deeplabcut`), if it named one.
    pub version_name: Option<String>,
    /// `None`: what manages the environment, else pip.
    pub manager: Option<Manager>,
    /// Also choose builds that run only under CUDA minor-version compatibility.
    pub allow_mvc: bool,
}

/// Splits `torch>=2.4,<2.6` into the name and the specifier set (`>=2.4,<2.6`); a bare version
/// (`2.5.1`) means `==2.5.1`. Errors when the specifiers are not PEP 440.
pub fn parse_version_spec(text: &str) -> Result<(Option<String>, String), String> {
    let text = text.trim();
    let split = text.find(['<', '>', '=', '!', '~']).unwrap_or(text.len());
    let (name, spec) = text.split_at(split);
    let name = name.trim();
    let (name, spec) = if spec.is_empty() {
        if name.chars().next().is_some_and(|c| c.is_ascii_digit()) {
            (None, format!("=={name}"))
        } else {
            return Err(format!(
                "{text:?} has no version specifier (e.g. 'torch>=2.4,<2.6')"
            ));
        }
    } else {
        (
            (!name.is_empty()).then(|| name.to_string()),
            spec.trim().to_string(),
        )
    };
    if gpuenv_python::requirements::version_satisfies("0", &spec).is_none() {
        return Err(format!("{spec:?} is not a PEP 440 specifier set"));
    }
    Ok((name, spec))
}

/// Whether a version satisfies the request's specifiers (no specifier: yes).
pub(crate) fn spec_allows(spec: Option<&str>, version: &Version) -> bool {
    spec.is_none_or(|s| {
        gpuenv_python::requirements::version_satisfies(version.as_str(), s).unwrap_or(false)
    })
}

/// A framework build the plan chose.
#[derive(Debug, Clone, Serialize)]
pub struct Choice {
    pub framework: String,
    pub version: Version,
    /// `cu126`, `cpu` (torch); absent where the framework has no variants.
    pub variant: Option<String>,
    /// The CUDA it is built for.
    pub cuda: Option<CudaVersion>,
    /// The cuDNN it brings (bundled or pinned), if known.
    pub cudnn: Option<Version>,
    /// `torchvision`, `torchaudio` ... with versions.
    pub companions: Vec<Package>,
    /// The Pythons it has wheels for (`3.10-3.14`).
    pub python: Option<String>,
    /// The Python a new environment gets.
    pub python_for_new_env: Option<Version>,
    /// The driver it needs for full support (and under minor-version compatibility).
    pub driver_full: Option<Version>,
    pub driver_mvc: Option<Version>,
    /// How it gets the driver requirement: `full`, `minor-version-compatibility`, `no-driver-given`,
    /// `not-needed` (CPU build).
    pub driver_fit: String,
    /// The pip index that serves it; `None`: PyPI.
    pub index_url: Option<String>,
    /// Whether every row the choice rests on is confirmed.
    pub confirmed: bool,
    /// Why this one, in words.
    pub why: Vec<String>,
}

/// A distribution and version.
#[derive(Debug, Clone, Serialize)]
pub struct Package {
    pub name: String,
    pub version: String,
}

/// One constraint and what it excluded.
#[derive(Debug, Clone, Serialize)]
pub struct Constraint {
    /// `version`, `python`, `gpu`, `driver`, `confirmation`, `platform`.
    pub kind: String,
    /// The constraint in words.
    pub rule: String,
    /// What it excluded, in words (newest first).
    pub excluded: Vec<String>,
}

/// A way to get a working environment, with its cost.
#[derive(Debug, Clone, Serialize)]
pub struct PlanOption {
    pub title: String,
    pub cost: String,
    pub commands: Vec<String>,
}

/// Commands for one manager.
#[derive(Debug, Clone, Serialize)]
pub struct CommandSet {
    pub manager: Manager,
    pub commands: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// When nothing fits: the newest release that still supports the GPUs, and what it needs.
#[derive(Debug, Clone, Serialize)]
pub struct NothingFits {
    pub reason: String,
    /// The newest build that carries code for every GPU, ignoring the other constraints.
    pub newest_for_gpu: Option<Choice>,
    pub needs: Vec<String>,
}

/// The plan.
#[derive(Debug, Clone, Serialize)]
pub struct Plan {
    pub schema: &'static str,
    pub framework: Framework,
    pub target: Target,
    /// The manager the commands are for (all managers' commands are in `commands`).
    pub manager: Manager,
    pub choice: Option<Choice>,
    pub constraints: Vec<Constraint>,
    /// The ways to a working environment, smallest change first (machine mode).
    pub options: Vec<PlanOption>,
    pub commands: Vec<CommandSet>,
    pub verify: String,
    /// Other builds that also fit, or would with a change (minor-version compatibility, a newer
    /// driver).
    pub alternatives: Vec<String>,
    pub nothing_fits: Option<NothingFits>,
    /// The official image of the chosen build (or of the newest fitting build that has one).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub docker_image: Option<DockerImage>,
    /// conda-forge's newest `pytorch` build that fits (torch and DeepLabCut plans).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub conda_forge: Option<CondaForgeChoice>,
    /// What the knowledge base does not cover for this plan.
    pub not_covered: Vec<String>,
    /// The doctor findings about the environment that the plan answers.
    pub broken: Vec<String>,
    /// The pip requirement lines of the choice (index option first), as `--emit requirements`
    /// writes them.
    pub requirements: Vec<String>,
    /// Conda packages a new conda/pixi environment gets besides Python and pip.
    #[serde(skip)]
    pub conda_packages: Vec<String>,
}

/// Doctor's findings that mean the environment's framework build is wrong for this machine.
const BROKEN_IDS: &[&str] = &[
    "torch-cpu-only",
    "tensorflow-cpu-only",
    "jax-cpu-only",
    "framework-needs-newer-driver",
    "framework-lacks-gpu-arch",
    "framework-cudnn-mismatch",
    "companion-version-mismatch",
    "python-unsupported",
];

/// Makes the plan. `findings` are doctor's (empty when planning for another machine).
pub fn plan(kb: &Kb, target: Target, request: &Request, findings: &[Finding]) -> Plan {
    let framework = request
        .framework
        .or_else(|| target.installed_framework())
        .unwrap_or(Framework::Torch);
    let manager = request
        .manager
        .or_else(|| target.environment_manager())
        .unwrap_or(Manager::Pip);
    let env_prefix = target.environment.as_ref().map(|e| e.prefix.clone());
    let broken: Vec<String> = findings
        .iter()
        .filter(|f| BROKEN_IDS.contains(&f.id.as_str()))
        .filter(|f| f.severity >= Severity::Warning)
        .filter(|f| f.environment.is_none() || f.environment == env_prefix)
        .map(|f| format!("{}: {}", f.id, f.title))
        .collect();
    let mut p = Plan {
        schema: PLAN_SCHEMA,
        framework,
        target,
        manager,
        choice: None,
        constraints: Vec::new(),
        options: Vec::new(),
        commands: Vec::new(),
        verify: String::new(),
        alternatives: Vec::new(),
        nothing_fits: None,
        docker_image: None,
        conda_forge: None,
        not_covered: Vec::new(),
        broken,
        requirements: Vec::new(),
        conda_packages: Vec::new(),
    };
    match framework {
        Framework::Torch => torch::plan_torch(kb, request, &mut p, None),
        Framework::Deeplabcut => others::plan_deeplabcut(kb, request, &mut p),
        Framework::Tensorflow => others::plan_tensorflow(kb, request, &mut p),
        Framework::Jax => others::plan_jax(kb, request, &mut p),
    }
    if matches!(framework, Framework::Torch | Framework::Deeplabcut) {
        channels::apply_torch_channels(kb, request, &mut p);
    }
    p
}

#[cfg(test)]
mod tests;
