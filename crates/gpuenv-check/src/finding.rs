//! Findings and the rule catalogue: what a check reports, and the stable list of every check id
//! with its layer and one-line summary (`gpuenv rules` and the JSON report use both).

use serde::{Deserialize, Serialize};

/// How bad a finding is. `Error` means the stack is broken; the exit status is 1 when any is found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Info,
    Warning,
    Error,
}

/// The layer of the stack a finding belongs to (design.md, L0..L6).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Layer {
    Os,
    Driver,
    Gpu,
    Cuda,
    Libraries,
    Python,
    Application,
}

impl Layer {
    pub const ALL: [Layer; 7] = [
        Layer::Os,
        Layer::Driver,
        Layer::Gpu,
        Layer::Cuda,
        Layer::Libraries,
        Layer::Python,
        Layer::Application,
    ];

    /// `L0`..`L6`.
    pub fn code(self) -> &'static str {
        match self {
            Layer::Os => "L0",
            Layer::Driver => "L1",
            Layer::Gpu => "L2",
            Layer::Cuda => "L3",
            Layer::Libraries => "L4",
            Layer::Python => "L5",
            Layer::Application => "L6",
        }
    }

    /// A human name.
    pub fn title(self) -> &'static str {
        match self {
            Layer::Os => "OS",
            Layer::Driver => "NVIDIA driver",
            Layer::Gpu => "GPUs",
            Layer::Cuda => "CUDA",
            Layer::Libraries => "cuDNN & CUDA libraries",
            Layer::Python => "Python",
            Layer::Application => "Applications",
        }
    }
}

/// One broken (or noteworthy) version contract, with the evidence and the exact fix.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Finding {
    /// A stable kebab-case id from `RULES`.
    pub id: String,
    pub severity: Severity,
    pub layer: Layer,
    /// One line saying what is wrong.
    pub title: String,
    /// The observed facts that show it, each naming where it came from.
    pub evidence: Vec<String>,
    /// What to run or do; commands are printed, never executed.
    pub fix: String,
    /// The Python environment (its prefix) a finding is about, for L5–L6 findings.
    #[serde(default)]
    pub environment: Option<String>,
}

impl Finding {
    pub fn new(rule: &Rule, severity: Severity, title: impl Into<String>) -> Finding {
        Finding {
            id: rule.id.to_string(),
            severity,
            layer: rule.layer,
            title: title.into(),
            evidence: Vec::new(),
            fix: String::new(),
            environment: None,
        }
    }

    /// Names the Python environment the finding is about.
    pub fn in_environment(mut self, prefix: &str) -> Finding {
        self.environment = Some(prefix.to_string());
        self
    }

    pub fn evidence(mut self, line: impl Into<String>) -> Finding {
        self.evidence.push(line.into());
        self
    }

    pub fn fix(mut self, text: impl Into<String>) -> Finding {
        self.fix = text.into();
        self
    }
}

/// A check's entry in the catalogue.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rule {
    pub id: &'static str,
    pub layer: Layer,
    /// One line for `gpuenv rules`.
    pub summary: &'static str,
}

macro_rules! rules {
    ($($name:ident = ($id:literal, $layer:ident, $summary:literal);)*) => {
        $(pub const $name: Rule = Rule { id: $id, layer: Layer::$layer, summary: $summary };)*
        /// Every check gpuenv runs, in catalogue order.
        pub const RULES: &[Rule] = &[$($name),*];
    };
}

rules! {
    NOUVEAU_LOADED = ("nouveau-loaded", Os, "The open-source nouveau driver holds the GPU, so the NVIDIA kernel module cannot load.");
    SECURE_BOOT_BLOCKS_MODULE = ("secure-boot-blocks-module", Os, "Secure Boot is on and the NVIDIA kernel module is not signed with an enrolled key.");
    DEVICE_NODES = ("device-nodes", Os, "/dev/nvidia* device nodes are missing or this user may not open them.");
    WSL_LINUX_DRIVER = ("wsl-linux-driver", Driver, "A Linux NVIDIA driver installed inside WSL2 shadows the Windows driver's libcuda.");
    KERNEL_MODULE_NOT_LOADED = ("kernel-module-not-loaded", Driver, "The NVIDIA userspace driver is installed but no NVIDIA kernel module is loaded.");
    DRIVER_MISSING = ("driver-missing", Driver, "An NVIDIA GPU is present but no NVIDIA driver is installed.");
    DRIVER_USERSPACE_MISMATCH = ("driver-userspace-mismatch", Driver, "The loaded kernel module and the userspace driver libraries are different versions.");
    GPU_DROPPED_BY_DRIVER = ("gpu-dropped-by-driver", Gpu, "The installed driver branch does not support this GPU generation.");
    GPUS_HIDDEN = ("gpus-hidden", Gpu, "CUDA_VISIBLE_DEVICES or NVIDIA_VISIBLE_DEVICES hides GPUs or names GPUs that do not exist.");
    DRIVER_TOO_OLD_FOR_CUDA = ("driver-too-old-for-cuda", Cuda, "The driver is too old for a CUDA toolkit or runtime on this machine.");
    GPU_ARCH_UNSUPPORTED_BY_TOOLKIT = ("gpu-arch-unsupported-by-toolkit", Cuda, "A CUDA toolkit cannot build code for this GPU's architecture.");
    CUDA_LINK_MISMATCH = ("cuda-link-mismatch", Cuda, "/usr/local/cuda, the nvcc on PATH and CUDA_HOME point at different toolkits.");
    CUDA_HOME_INVALID = ("cuda-home-invalid", Cuda, "CUDA_HOME or CUDA_PATH points nowhere or at something that is not a CUDA toolkit.");
    LIBRARY_PATH_MIXES_CUDA = ("library-path-mixes-cuda", Cuda, "LD_LIBRARY_PATH holds library directories of more than one CUDA version.");
    CUDA_VERSION_NUMBERS = ("cuda-version-numbers", Cuda, "What nvidia-smi's and nvcc's 'CUDA version' mean here, and whether the pair is fine.");
    CUDNN_MULTIPLE_VERSIONS = ("cudnn-multiple-versions", Libraries, "More than one version of the same cuDNN major is reachable by the system loader.");
    CUDNN_BROKEN_LINK = ("cudnn-broken-link", Libraries, "A cuDNN library link is missing, dangling, or names another version than its SONAME.");
    CUDNN_CUDA_MISMATCH = ("cudnn-cuda-mismatch", Libraries, "A cuDNN built for another CUDA major than the CUDA runtime beside it.");
    CUDNN_MIXED_SUBLIBRARIES = ("cudnn-mixed-sublibraries", Libraries, "The cuDNN shim and its sub-libraries come from different cuDNN versions.");
    KB_UNKNOWN_VERSION = ("kb-unknown-version", Cuda, "A version newer than gpuenv's knowledge base knows; nothing is guessed about it.");
    TORCH_CPU_ONLY = ("torch-cpu-only", Python, "A CPU-only PyTorch build is installed on a machine with an NVIDIA GPU.");
    TENSORFLOW_CPU_ONLY = ("tensorflow-cpu-only", Python, "A TensorFlow build without CUDA is installed on a machine with an NVIDIA GPU.");
    JAX_CPU_ONLY = ("jax-cpu-only", Python, "JAX is installed without a CUDA plugin on a machine with an NVIDIA GPU.");
    FRAMEWORK_NEEDS_NEWER_DRIVER = ("framework-needs-newer-driver", Python, "A framework's CUDA build needs a newer driver than this machine has.");
    FRAMEWORK_LACKS_GPU_ARCH = ("framework-lacks-gpu-arch", Python, "The framework build carries no code for this GPU's architecture.");
    FRAMEWORK_CUDNN_MISMATCH = ("framework-cudnn-mismatch", Python, "The installed cuDNN differs from the one the framework build pins or was compiled against.");
    COMPANION_VERSION_MISMATCH = ("companion-version-mismatch", Python, "torchvision/torchaudio built for another torch, or jax, jaxlib and the CUDA plugin out of step.");
    PYTHON_UNSUPPORTED = ("python-unsupported", Python, "The environment's Python is outside the framework release's supported range.");
    REQUIREMENT_UNSATISFIED = ("requirement-unsatisfied", Python, "A requirement of an installed distribution is missing or out of range (like `pip check`).");
    DUPLICATE_DISTRIBUTION = ("duplicate-distribution", Python, "Two metadata directories for one distribution in one environment.");
    MODULE_CLOBBERED = ("module-clobbered", Python, "Two distributions installed the same files with different contents (e.g. two OpenCV flavours' cv2).");
    CONDA_PIP_MIXED = ("conda-pip-mixed", Python, "The same package installed by conda and by pip in one environment.");
    INTERPRETER_MISMATCH = ("interpreter-mismatch", Python, "`python` and `pip` on PATH belong to different environments, or not to the active one.");
    APPLICATION_BACKEND_MISSING = ("application-backend-missing", Application, "An application lacks the framework backend it needs (DeepLabCut 3 without CUDA torch, 2 without TensorFlow).");
    QT_PLUGIN_CONFLICT = ("qt-plugin-conflict", Application, "Qt platform plugins collide: QT_QPA_PLATFORM_PLUGIN_PATH points nowhere, or OpenCV's bundled Qt meets PyQt/PySide.");
    LIBRARY_MISSING = ("library-missing", Libraries, "A CUDA library a framework needs is found nowhere the loader looks (cannot open shared object file).");
    LIBRARY_SHADOWED = ("library-shadowed", Libraries, "A framework loads a CUDA library from outside its environment, of another version than its own copy or pin.");
    NUMPY_ABI_MISMATCH = ("numpy-abi-mismatch", Python, "A framework compiled against NumPy 1.x beside NumPy 2.");
}

/// The catalogue entry of an id.
pub fn rule(id: &str) -> Option<&'static Rule> {
    RULES.iter().find(|r| r.id == id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rule_ids_are_unique_kebab_case() {
        let mut ids: Vec<&str> = RULES.iter().map(|r| r.id).collect();
        for id in &ids {
            assert!(
                id.chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'),
                "{id}"
            );
        }
        ids.sort();
        let n = ids.len();
        ids.dedup();
        assert_eq!(n, ids.len(), "duplicate rule id");
    }
}
