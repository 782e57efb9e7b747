//! The row types of the framework tables, exactly as `data/frameworks/*.toml` spell them. Every row
//! carries `sources` (ids defined in `sources.toml`) and a `confirmed` flag.

use serde::Deserialize;

use super::spec::{ArchFlag, BuildVariant, PythonRange, VersionReq};
use crate::version::{ComputeCapability, CudaVersion, Version};

/// One framework data file. The built-in framework tables are several such documents; rows of the
/// same table in different documents are concatenated. A user's `--kb` file holds NVIDIA tables
/// too, which this type leaves alone (table names are checked before: `Kb::with_override`).
#[derive(Debug, Default, Deserialize)]
pub struct FrameworksDocument {
    #[serde(default)]
    pub torch_release: Vec<TorchRelease>,
    #[serde(default)]
    pub torch_cudnn: Vec<TorchCudnnRow>,
    #[serde(default)]
    pub torch_arch: Vec<TorchArchRow>,
    #[serde(default)]
    pub torch_wheel: Vec<TorchWheelRow>,
    #[serde(default)]
    pub torchvision: Vec<CompanionRow>,
    #[serde(default)]
    pub torchaudio: Vec<CompanionRow>,
    #[serde(default)]
    pub tensorflow: Vec<TensorflowRow>,
    #[serde(default)]
    pub jax_release: Vec<JaxReleaseRow>,
    #[serde(default)]
    pub jax_plugin: Vec<JaxPluginRow>,
    #[serde(default)]
    pub deeplabcut: Vec<DeeplabcutRow>,
    #[serde(default)]
    pub conflict: Vec<ConflictRow>,
    #[serde(default)]
    pub torch_docker: Vec<TorchDockerRow>,
    #[serde(default)]
    pub conda_forge_torch: Vec<CondaForgeTorchRow>,
    #[serde(default)]
    pub tensorflow_arch: Vec<TensorflowArchRow>,
}

/// A PyTorch minor release (`2.1`): Pythons, build variants, PyPI default, companion releases.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TorchRelease {
    /// `major.minor`.
    pub minor: Version,
    pub patches: Vec<Version>,
    /// As precise as known (`2023-10-04`).
    pub release_date: String,
    pub release_date_confirmed: bool,
    /// The oldest CPython with a PyPI wheel (Linux x86_64) of any patch.
    pub python_min: Version,
    /// The newest CPython with a PyPI wheel of any patch.
    pub python_max: Version,
    /// Free-threaded builds (`cp313t` -> `3.13`).
    #[serde(default)]
    pub python_free_threaded: Vec<Version>,
    /// Patches whose Python range is narrower than the minor's.
    #[serde(default)]
    pub python_patches: Vec<PatchPython>,
    /// The wheels' `Requires-Python` (which may be looser than the wheel tags).
    pub requires_python: VersionReq,
    /// Every published variant (CUDA, cpu, xpu, ROCm), union over the patches.
    pub variants: Vec<BuildVariant>,
    /// The subset the release matrix calls experimental.
    #[serde(default)]
    pub experimental: Vec<BuildVariant>,
    /// Variants believed to exist but not confirmed by a source.
    #[serde(default)]
    pub unconfirmed_variants: Vec<BuildVariant>,
    /// What a plain `pip install torch` gets on Linux x86_64.
    pub pypi_default: BuildVariant,
    /// The PyPI x86_64 platform tag (`manylinux1_x86_64`, `manylinux_2_28_x86_64`).
    pub platform_tag: String,
    /// Published to the `pytorch` Anaconda channel.
    pub conda_pytorch_channel: bool,
    /// The torchvision releases made for this minor.
    pub torchvision: Vec<Version>,
    /// The torchaudio releases that serve this minor.
    pub torchaudio: Vec<Version>,
    pub confirmed: bool,
    pub sources: Vec<String>,
    #[serde(default)]
    pub note: String,
}

impl TorchRelease {
    /// The Pythons the minor has wheels for (union over its patches).
    pub fn python(&self) -> PythonRange {
        PythonRange {
            min: self.python_min.clone(),
            max: self.python_max.clone(),
        }
    }

    /// Whether the variant is published (confirmed) for this minor.
    pub fn has_variant(&self, variant: &BuildVariant) -> bool {
        self.variants.contains(variant)
    }

    /// The CUDA variants, oldest CUDA first.
    pub fn cuda_variants(&self) -> Vec<CudaVersion> {
        let mut out: Vec<CudaVersion> = self.variants.iter().filter_map(|v| v.cuda()).collect();
        out.sort();
        out
    }
}

/// A patch release whose wheels cover fewer Pythons than its minor (`1.7.0`: 3.6-3.8).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PatchPython {
    pub patch: Version,
    pub min: Version,
    pub max: Version,
}

/// How a torch build gets its cuDNN.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CudnnShipping {
    /// Inside the wheel.
    Bundled,
    /// The PyPI wheel's Requires-Dist pins `nvidia-cudnn-cuNN==X`.
    PipPin,
    /// A download.pytorch.org build; whether it bundles or pins cuDNN is not recorded.
    DownloadIndex,
}

/// The cuDNN of a range of torch minors built for some variants.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TorchCudnnRow {
    /// First torch minor (inclusive).
    pub first: Version,
    /// Last torch minor (inclusive).
    pub last: Version,
    pub variants: Vec<BuildVariant>,
    /// Absent when not known.
    pub cudnn: Option<Version>,
    pub shipping: CudnnShipping,
    pub confirmed: bool,
    pub sources: Vec<String>,
    #[serde(default)]
    pub note: String,
}

fn linux_x86_64() -> String {
    LINUX_X86_64.to_string()
}

/// The platform most rows describe.
pub const LINUX_X86_64: &str = "linux-x86_64";

/// The GPU architectures compiled into a range of torch minors for some variants.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TorchArchRow {
    pub first: Version,
    pub last: Version,
    pub variants: Vec<BuildVariant>,
    /// `linux-x86_64` (default) or `linux-aarch64`.
    #[serde(default = "linux_x86_64")]
    pub platform: String,
    /// Compute capabilities with SASS.
    pub sass: Vec<ComputeCapability>,
    /// Compute capabilities also shipped as PTX.
    pub ptx: Vec<ComputeCapability>,
    /// False when `ptx` rests on a build script or release notes, not on an inspected wheel.
    pub ptx_confirmed: bool,
    pub confirmed: bool,
    pub sources: Vec<String>,
    #[serde(default)]
    pub note: String,
}

/// One inspected PyPI torch wheel (Linux x86_64).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TorchWheelRow {
    /// The dist-info version (no local label on PyPI).
    pub version: Version,
    pub file: String,
    /// `torch/version.py` `__version__` (`2.1.2+cu121`).
    pub local_version: String,
    pub variant: BuildVariant,
    /// `torch/version.py` `cuda`.
    pub cuda: CudaVersion,
    pub version_py_fields: Vec<String>,
    /// The tag in the wheel's WHEEL file.
    pub wheel_tag: String,
    #[serde(default)]
    pub build_tag: Option<String>,
    pub requires_python: VersionReq,
    /// The `nvidia-cudnn-cuNN==X` pin; absent when cuDNN is bundled.
    #[serde(default)]
    pub cudnn_pin: Option<Version>,
    #[serde(default)]
    pub cudnn_distribution: Option<String>,
    /// The CUDA-related Requires-Dist lines, as written.
    pub cuda_requires_dist: Vec<String>,
    /// The string behind `torch._C._cuda_getArchFlags()`.
    pub arch_flags: Vec<ArchFlag>,
    pub max_glibc: String,
    pub max_glibcxx: String,
    pub max_cxxabi: String,
    pub confirmed: bool,
    pub sources: Vec<String>,
    #[serde(default)]
    pub note: String,
}

/// A torchvision or torchaudio release and the torch its PyPI wheel requires.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CompanionRow {
    pub version: Version,
    /// The Requires-Dist on torch; absent when the wheel declares none.
    #[serde(default)]
    pub torch: Option<VersionReq>,
    /// `version.py` `__version__` of the PyPI wheel (`0.16.0+cu121`).
    pub local_version: String,
    /// The wheel tags on PyPI (`cp38`, `cp313t`, `py3`).
    pub python_tags: Vec<String>,
    pub confirmed: bool,
    pub sources: Vec<String>,
    #[serde(default)]
    pub note: String,
}

/// A TensorFlow tested build configuration (Linux GPU) with its PyPI metadata.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TensorflowRow {
    /// As the tested-configurations table names it; the row serves its whole major.minor.
    pub version: Version,
    pub python_min: Version,
    pub python_max: Version,
    pub cuda: CudaVersion,
    /// `major.minor` as the table gives it.
    pub cudnn: Version,
    pub platform_tag: String,
    #[serde(default)]
    pub numpy: Option<VersionReq>,
    #[serde(default)]
    pub and_cuda: Option<TfAndCuda>,
    pub confirmed: bool,
    pub sources: Vec<String>,
    #[serde(default)]
    pub note: String,
}

impl TensorflowRow {
    pub fn python(&self) -> PythonRange {
        PythonRange {
            min: self.python_min.clone(),
            max: self.python_max.clone(),
        }
    }
}

/// The `tensorflow[and-cuda]` extra: the NVIDIA wheels it requires.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TfAndCuda {
    /// The wheel whose METADATA was read.
    pub inspected: Version,
    /// The `-cuNN` suffix of the nvidia-* wheels.
    pub cuda_major: u32,
    /// `==` pins (2.14-2.19) rather than ranges (2.20+).
    pub exact_pins: bool,
    pub cudnn: VersionReq,
    #[serde(default)]
    pub cuda_runtime: Option<VersionReq>,
    #[serde(default)]
    pub cublas: Option<VersionReq>,
    #[serde(default)]
    pub nccl: Option<VersionReq>,
    #[serde(default)]
    pub note: String,
}

/// A JAX release and the requirements it changed (absent: unchanged).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JaxReleaseRow {
    pub version: Version,
    #[serde(default)]
    pub date: Option<String>,
    #[serde(default)]
    pub python_min: Option<Version>,
    #[serde(default)]
    pub numpy_min: Option<Version>,
    #[serde(default)]
    pub cudnn_min: Option<Version>,
    #[serde(default)]
    pub cuda_min: Option<CudaVersion>,
    #[serde(default)]
    pub built_with_cuda: Option<CudaVersion>,
    /// `Some(false)` from the release on which jaxlib stopped shipping monolithic CUDA wheels.
    #[serde(default)]
    pub monolithic_cuda_jaxlib: Option<bool>,
    pub confirmed: bool,
    pub sources: Vec<String>,
    #[serde(default)]
    pub note: String,
}

/// A JAX CUDA plugin package (one per CUDA major).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JaxPluginRow {
    pub package: String,
    pub pjrt: String,
    pub cuda_major: u32,
    pub first_version: Version,
    /// The jax extras that install it.
    pub extras: Vec<String>,
    pub built_with_cuda: CudaVersion,
    pub cuda_min: CudaVersion,
    pub cudnn: VersionReq,
    /// The minimum Linux driver branch.
    pub min_driver: Version,
    pub min_cc: ComputeCapability,
    /// What the plugin's `[with-cuda]` extra requires of nvidia-cudnn-cuNN.
    pub with_cuda_cudnn: VersionReq,
    pub with_cuda_as_of: Version,
    pub confirmed: bool,
    pub sources: Vec<String>,
    #[serde(default)]
    pub note: String,
}

/// The engine a DeepLabCut release runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum DlcBackend {
    Tensorflow,
    Pytorch,
}

/// DeepLabCut's GUI toolkit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum DlcGui {
    Wxpython,
    Qt,
}

/// How OpenCV gets into a DeepLabCut environment.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum OpencvVia {
    Direct,
    Transitive,
}

/// One or more DeepLabCut releases with the same requirements.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DeeplabcutRow {
    pub versions: Vec<Version>,
    pub date: String,
    pub backend: DlcBackend,
    #[serde(default)]
    pub requires_python: Option<VersionReq>,
    /// The `python=` of conda-environments/DEEPLABCUT.yaml.
    pub conda_python: Version,
    /// Base Requires-Dist entries, as written.
    pub requirements: Vec<String>,
    /// The TensorFlow requirement of the `[tf]` extra, when TensorFlow is an extra.
    #[serde(default)]
    pub tensorflow_extra: Option<String>,
    pub gui: DlcGui,
    pub gui_requirements: Vec<String>,
    /// The OpenCV distributions that get installed.
    pub opencv: Vec<String>,
    pub opencv_via: OpencvVia,
    /// More than one OpenCV distribution ends up installed.
    pub opencv_conflict: bool,
    pub confirmed: bool,
    pub sources: Vec<String>,
    #[serde(default)]
    pub note: String,
}

/// A known conflict between distributions that checks can find statically.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConflictRow {
    /// Stable kebab-case id.
    pub id: String,
    pub distributions: Vec<String>,
    /// The top-level module the distributions fight over.
    #[serde(default)]
    pub module: Option<String>,
    pub check: String,
    pub evidence: String,
    pub static_hint: String,
    #[serde(default)]
    pub numpy2_floor: Vec<Numpy2Floor>,
    pub confirmed: bool,
    pub sources: Vec<String>,
    #[serde(default)]
    pub note: String,
}

/// The first release of a distribution that runs with NumPy 2.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Numpy2Floor {
    pub distribution: String,
    pub first: Version,
    pub confirmed: bool,
}

/// The official `pytorch/pytorch` images of one torch release and CUDA version: tags
/// `{version}-cuda{cuda}-cudnn{cudnn}-{flavor}` (linux/amd64).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TorchDockerRow {
    pub version: Version,
    pub cuda: CudaVersion,
    /// The cuDNN major in the tag (`8`, `9`).
    pub cudnn: String,
    /// `runtime`, `devel`.
    pub flavors: Vec<String>,
    pub confirmed: bool,
    pub sources: Vec<String>,
    /// The exact URLs the row rests on.
    pub evidence: Vec<String>,
}

impl TorchDockerRow {
    /// The image reference for a flavor (`pytorch/pytorch:2.5.1-cuda12.4-cudnn9-runtime`).
    pub fn image(&self, flavor: &str) -> String {
        format!(
            "pytorch/pytorch:{}-cuda{}-cudnn{}-{flavor}",
            self.version, self.cuda, self.cudnn
        )
    }
}

/// One CUDA build of conda-forge's `pytorch` package for linux-64.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CondaForgeTorchRow {
    pub version: Version,
    pub cuda: CudaVersion,
    /// The build string's prefix (`cuda129`).
    pub build_prefix: String,
    /// The cuDNN it was built with, as the CI configuration names it (`9`, `9.10`, `7.6.5`).
    pub cudnn: String,
    /// The Pythons built (`3.10`).
    pub python: Vec<Version>,
    /// Compute capabilities with SASS (TORCH_CUDA_ARCH_LIST).
    pub sass: Vec<ComputeCapability>,
    /// Those also shipped as PTX (`+PTX`).
    pub ptx: Vec<ComputeCapability>,
    /// The variant is in the CI matrix of a merged feedstock commit.
    pub confirmed: bool,
    /// An anaconda.org file listing with this build was read.
    pub uploaded_seen: bool,
    pub sources: Vec<String>,
    pub evidence: Vec<String>,
}

/// The GPU code measured in one TensorFlow Linux x86_64 PyPI wheel; serves its major.minor.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TensorflowArchRow {
    pub version: Version,
    pub wheel: String,
    pub sass: Vec<ComputeCapability>,
    pub ptx: Vec<ComputeCapability>,
    /// The wheel's own `build_info.py` cuda_compute_capabilities, when read.
    #[serde(default)]
    pub declared: Option<String>,
    /// Every fatbin container of the wheel has PTX: only then does PTX JIT give a GPU without
    /// matching SASS every kernel.
    pub ptx_in_every_container: bool,
    pub confirmed: bool,
    pub sources: Vec<String>,
    pub evidence: Vec<String>,
}
