//! Every environment variable gpuenv reads, declared once with its documentation. `gpuenv doctor
//! --help` and the README's table are generated from `VARIABLES`; probes read variables only through
//! `Environment`, which tests build by hand and the binary builds from the process environment.

use std::collections::BTreeMap;

/// What gpuenv does with a variable.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VarKind {
    /// A variable of the CUDA stack that gpuenv inspects (and reports).
    Inspected,
    /// A gpuenv override for a fact that cannot be read (CI, containers, planning another machine).
    Override,
    /// A gpuenv setting.
    Setting,
}

/// One variable's declaration.
#[derive(Debug, Clone, Copy)]
pub struct VarDoc {
    pub name: &'static str,
    pub kind: VarKind,
    pub doc: &'static str,
}

pub const CUDA_VISIBLE_DEVICES: &str = "CUDA_VISIBLE_DEVICES";
pub const NVIDIA_VISIBLE_DEVICES: &str = "NVIDIA_VISIBLE_DEVICES";
pub const CUDA_HOME: &str = "CUDA_HOME";
pub const CUDA_PATH: &str = "CUDA_PATH";
pub const LD_LIBRARY_PATH: &str = "LD_LIBRARY_PATH";
pub const LD_PRELOAD: &str = "LD_PRELOAD";
pub const PATH: &str = "PATH";
pub const KUBERNETES_SERVICE_HOST: &str = "KUBERNETES_SERVICE_HOST";
pub const CONTAINER: &str = "container";
pub const WSL_DISTRO_NAME: &str = "WSL_DISTRO_NAME";
pub const GPUENV_DRIVER_VERSION: &str = "GPUENV_DRIVER_VERSION";
pub const UV_CUDA_DRIVER_VERSION: &str = "UV_CUDA_DRIVER_VERSION";
pub const GPUENV_CUDA_DRIVER_VERSION: &str = "GPUENV_CUDA_DRIVER_VERSION";
pub const CONDA_OVERRIDE_CUDA: &str = "CONDA_OVERRIDE_CUDA";
pub const GPUENV_GPU_CC: &str = "GPUENV_GPU_CC";
pub const GPUENV_NO_NVML: &str = "GPUENV_NO_NVML";
pub const GPUENV_NVML_TIMEOUT_MS: &str = "GPUENV_NVML_TIMEOUT_MS";
pub const GPUENV_AS_USER: &str = "GPUENV_AS_USER";
pub const GPUENV_KB: &str = "GPUENV_KB";
pub const GPUENV_NO_PROGRESS: &str = "GPUENV_NO_PROGRESS";
pub const NO_COLOR: &str = "NO_COLOR";
pub const HOME: &str = "HOME";
pub const PYENV_ROOT: &str = "PYENV_ROOT";
pub const PYENV_VERSION: &str = "PYENV_VERSION";
pub const QT_QPA_PLATFORM_PLUGIN_PATH: &str = "QT_QPA_PLATFORM_PLUGIN_PATH";
pub const PWD: &str = "PWD";
pub const VIRTUAL_ENV: &str = "VIRTUAL_ENV";
pub const CONDA_PREFIX: &str = "CONDA_PREFIX";
pub const CONDA_DEFAULT_ENV: &str = "CONDA_DEFAULT_ENV";
pub const CONDA_EXE: &str = "CONDA_EXE";

/// Every variable gpuenv reads.
pub const VARIABLES: &[VarDoc] = &[
    VarDoc {
        name: CUDA_VISIBLE_DEVICES,
        kind: VarKind::Inspected,
        doc: "Which GPUs CUDA programs may use; empty or -1 hides them all.",
    },
    VarDoc {
        name: NVIDIA_VISIBLE_DEVICES,
        kind: VarKind::Inspected,
        doc: "Which GPUs the NVIDIA container runtime exposes to a container.",
    },
    VarDoc {
        name: CUDA_HOME,
        kind: VarKind::Inspected,
        doc: "The CUDA toolkit build tools use (PyTorch extensions, CuPy, TensorFlow builds).",
    },
    VarDoc {
        name: CUDA_PATH,
        kind: VarKind::Inspected,
        doc: "Another name for the CUDA toolkit directory (CuPy, Windows habit).",
    },
    VarDoc {
        name: LD_LIBRARY_PATH,
        kind: VarKind::Inspected,
        doc: "Directories the dynamic loader searches before ld.so.cache; a common source of shadowed CUDA libraries.",
    },
    VarDoc {
        name: LD_PRELOAD,
        kind: VarKind::Inspected,
        doc: "Libraries loaded into every process first.",
    },
    VarDoc {
        name: PATH,
        kind: VarKind::Inspected,
        doc: "Where `nvcc` and `nvidia-smi` are found.",
    },
    VarDoc {
        name: KUBERNETES_SERVICE_HOST,
        kind: VarKind::Inspected,
        doc: "Set inside Kubernetes pods; used to recognise a container.",
    },
    VarDoc {
        name: CONTAINER,
        kind: VarKind::Inspected,
        doc: "Set by systemd-nspawn, Podman and others inside a container.",
    },
    VarDoc {
        name: WSL_DISTRO_NAME,
        kind: VarKind::Inspected,
        doc: "Set inside WSL; used to recognise WSL2.",
    },
    VarDoc {
        name: QT_QPA_PLATFORM_PLUGIN_PATH,
        kind: VarKind::Inspected,
        doc: "Where Qt looks for its platform plugins; a stale value breaks every Qt GUI (DeepLabCut, napari).",
    },
    VarDoc {
        name: HOME,
        kind: VarKind::Inspected,
        doc: "Where per-user conda, pyenv and uv installations are looked for.",
    },
    VarDoc {
        name: PYENV_ROOT,
        kind: VarKind::Inspected,
        doc: "pyenv's root (default ~/.pyenv): its versions are environments, its shims select one.",
    },
    VarDoc {
        name: PYENV_VERSION,
        kind: VarKind::Inspected,
        doc: "The pyenv version the shims run (else .python-version, else $PYENV_ROOT/version).",
    },
    VarDoc {
        name: PWD,
        kind: VarKind::Inspected,
        doc: "The current directory, whose .venv is one of the environments doctor reports.",
    },
    VarDoc {
        name: VIRTUAL_ENV,
        kind: VarKind::Inspected,
        doc: "The active virtual environment (set by `activate`).",
    },
    VarDoc {
        name: CONDA_PREFIX,
        kind: VarKind::Inspected,
        doc: "The active conda environment's prefix.",
    },
    VarDoc {
        name: CONDA_DEFAULT_ENV,
        kind: VarKind::Inspected,
        doc: "The active conda environment's name.",
    },
    VarDoc {
        name: CONDA_EXE,
        kind: VarKind::Inspected,
        doc: "The conda executable, which names a conda installation and its environments.",
    },
    VarDoc {
        name: GPUENV_DRIVER_VERSION,
        kind: VarKind::Override,
        doc: "The userspace driver version to assume (e.g. 550.54.14) when it cannot be read from the machine.",
    },
    VarDoc {
        name: UV_CUDA_DRIVER_VERSION,
        kind: VarKind::Override,
        doc: "uv's driver-version override, honoured when GPUENV_DRIVER_VERSION is unset.",
    },
    VarDoc {
        name: GPUENV_CUDA_DRIVER_VERSION,
        kind: VarKind::Override,
        doc: "The CUDA version the driver supports (e.g. 12.4), as nvidia-smi's 'CUDA Version' would say.",
    },
    VarDoc {
        name: CONDA_OVERRIDE_CUDA,
        kind: VarKind::Override,
        doc: "conda's override of the driver's CUDA version, honoured when GPUENV_CUDA_DRIVER_VERSION is unset.",
    },
    VarDoc {
        name: GPUENV_GPU_CC,
        kind: VarKind::Override,
        doc: "Compute capabilities to assume for the GPUs, comma-separated (e.g. 8.6,8.6), for machines whose GPUs cannot be read.",
    },
    VarDoc {
        name: GPUENV_NO_NVML,
        kind: VarKind::Setting,
        doc: "Set to 1 to never load NVML or libcuda into gpuenv (files only).",
    },
    VarDoc {
        name: GPUENV_NVML_TIMEOUT_MS,
        kind: VarKind::Setting,
        doc: "How long NVML and the driver API may take before gpuenv gives up on them (default 3000).",
    },
    VarDoc {
        name: GPUENV_AS_USER,
        kind: VarKind::Setting,
        doc: "Judge device-node permissions for this user instead of the current one: UID:GID[,GROUP...].",
    },
    VarDoc {
        name: GPUENV_KB,
        kind: VarKind::Setting,
        doc: "A knowledge-base file whose tables replace the built-in ones (same as --kb).",
    },
    VarDoc {
        name: GPUENV_NO_PROGRESS,
        kind: VarKind::Setting,
        doc: "Set to 1 to never show progress on stderr (it is shown only on a terminal anyway).",
    },
    VarDoc {
        name: NO_COLOR,
        kind: VarKind::Setting,
        doc: "Set to anything to turn colour off.",
    },
];

/// The values of the declared variables, as one run sees them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Environment {
    values: BTreeMap<String, String>,
}

impl Environment {
    /// The declared variables from this process's environment. Values that are not UTF-8 are
    /// replaced lossily (they cannot name CUDA paths gpuenv would match anyway).
    pub fn from_process() -> Environment {
        let mut values = BTreeMap::new();
        for var in VARIABLES {
            if let Some(v) = std::env::var_os(var.name) {
                values.insert(var.name.to_string(), v.to_string_lossy().into_owned());
            }
        }
        Environment { values }
    }

    /// An environment from explicit pairs (tests, planning another machine).
    pub fn from_pairs<'a>(pairs: impl IntoIterator<Item = (&'a str, &'a str)>) -> Environment {
        Environment {
            values: pairs
                .into_iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        }
    }

    /// A variable's value when it is set (even to the empty string).
    pub fn get(&self, name: &str) -> Option<&str> {
        self.values.get(name).map(String::as_str)
    }

    /// A variable's value when it is set and not empty.
    pub fn get_nonempty(&self, name: &str) -> Option<&str> {
        self.get(name).filter(|v| !v.is_empty())
    }

    /// The entries of a colon-separated path variable (empty entries dropped).
    pub fn path_list(&self, name: &str) -> Vec<String> {
        self.get(name)
            .map(|v| {
                v.split(':')
                    .filter(|e| !e.is_empty())
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Every set variable and its value.
    pub fn all(&self) -> &BTreeMap<String, String> {
        &self.values
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_documented() {
        let mut names: Vec<&str> = VARIABLES.iter().map(|v| v.name).collect();
        names.sort();
        let before = names.len();
        names.dedup();
        assert_eq!(before, names.len());
        assert!(VARIABLES.iter().all(|v| v.doc.len() > 10));
    }

    #[test]
    fn path_lists_drop_empty_entries() {
        let env = Environment::from_pairs([(LD_LIBRARY_PATH, ":/a::/b:")]);
        assert_eq!(env.path_list(LD_LIBRARY_PATH), vec!["/a", "/b"]);
        assert!(env.path_list(PATH).is_empty());
    }
}
