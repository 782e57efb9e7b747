//! The facts gpuenv observes about a machine: plain, serializable data, one struct per layer of the
//! stack (L0 OS ... L4 CUDA libraries), every value tagged with where it came from.
//!
//! Probes produce `Facts`; checks read them; a snapshot *is* `Facts`. Nothing here reads a file or
//! decides what is wrong. New layers (Python environments, loader results) are added as new fields,
//! never by changing the meaning of existing ones.

mod source;

use std::collections::BTreeMap;

use gpuenv_kb::{ComputeCapability, CudaVersion, Version};
use serde::{Deserialize, Serialize};

pub use source::{Source, Sourced};

/// Everything observed about one machine.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Facts {
    /// The machine root the probes read (`/` for the real machine).
    pub root: String,
    /// Whether `root` is the running machine (only then are NVML and the driver API asked).
    pub live: bool,
    pub os: OsFacts,
    pub driver: DriverFacts,
    pub gpus: GpuFacts,
    pub cuda: CudaFacts,
    pub libraries: LibraryFacts,
    /// L5–L6: Python environments, their distributions and frameworks.
    #[serde(default)]
    pub python: PythonFacts,
    pub env: EnvFacts,
    /// Files that could not be read and other problems the probes met; none of them stops a run.
    pub probe_errors: Vec<ProbeError>,
}

/// A problem met while probing: the run goes on without that fact.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProbeError {
    /// What the probe was trying to learn (`driver.kernel_module`).
    pub probe: String,
    /// The file, variable or call involved.
    pub subject: String,
    pub message: String,
}

// ---------------------------------------------------------------------------------------------
// L0: operating system
// ---------------------------------------------------------------------------------------------

/// L0: kernel, distribution, container, WSL, Secure Boot, nouveau, device nodes, the user.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct OsFacts {
    pub hostname: Option<Sourced<String>>,
    /// The CPU architecture (`x86_64`, `aarch64`) Python markers are evaluated for.
    #[serde(default)]
    pub machine: String,
    pub kernel_release: Option<Sourced<String>>,
    pub distribution: Option<Sourced<Distribution>>,
    /// `docker`, `podman`, `kubernetes`, `lxc`, `containerd`, or another runtime's name.
    pub container: Option<Sourced<String>>,
    pub wsl: Option<Sourced<WslFacts>>,
    /// `Some(true)` when UEFI Secure Boot is enabled, `None` when unknown (BIOS boot, no efivars).
    pub secure_boot: Option<Sourced<bool>>,
    pub nouveau: NouveauFacts,
    /// Kernel module files of the NVIDIA driver for the running kernel.
    pub nvidia_module_files: Vec<ModuleFile>,
    pub device_nodes: Vec<DeviceNode>,
    pub user: Option<Sourced<UserIdentity>>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Distribution {
    pub id: String,
    pub version_id: String,
    pub pretty_name: String,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct WslFacts {
    /// `/usr/lib/wsl/lib/libcuda.so.1`, the Windows driver's libcuda, when present.
    pub windows_libcuda: Option<String>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct NouveauFacts {
    /// Whether the nouveau kernel module is loaded.
    pub loaded: Option<Sourced<bool>>,
    /// Where nouveau is blacklisted (modprobe.d files, kernel command line); empty if nowhere.
    pub blacklisted_in: Vec<String>,
}

/// An NVIDIA kernel module file under `/lib/modules/<release>/`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModuleFile {
    pub path: String,
    /// The module's `version=` from its `.modinfo` section, when readable.
    pub version: Option<Version>,
    /// Whether a module signature is appended (`~Module signature appended~`); `None` if compressed.
    pub signed: Option<bool>,
}

/// A `/dev/nvidia*` node. gpuenv never opens one (that can wake or initialise the GPU).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeviceNode {
    pub path: String,
    pub exists: bool,
    pub char_device: bool,
    pub mode: Option<u32>,
    pub uid: Option<u32>,
    pub gid: Option<u32>,
    /// Whether the user in `OsFacts::user` may open it read-write, judged from mode, owner and groups.
    pub accessible: Option<bool>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UserIdentity {
    pub uid: u32,
    pub gid: u32,
    pub groups: Vec<u32>,
}

// ---------------------------------------------------------------------------------------------
// L1: driver
// ---------------------------------------------------------------------------------------------

/// L1: the kernel module and the userspace driver libraries.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct DriverFacts {
    /// The loaded kernel module's version, or `None` when no module is loaded.
    pub kernel_module: Option<KernelModule>,
    /// Whether we could tell if a module is loaded at all (`/proc/modules` or `/sys/module` readable).
    pub kernel_module_state_known: bool,
    /// Userspace driver libraries the loader would find (`libcuda.so.1`, `libnvidia-ml.so.1`).
    pub userspace: Vec<DriverLibrary>,
    /// The userspace driver version: from the libraries, NVML, or an override.
    pub userspace_version: Option<Sourced<Version>>,
    /// The CUDA version the driver supports, from `cuDriverGetVersion` (live root only).
    pub cuda_driver_version: Option<Sourced<CudaVersion>>,
    pub nvml: Option<NvmlFacts>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KernelModule {
    pub version: Sourced<Version>,
    /// `open` or `proprietary` when `/proc/driver/nvidia/version` says.
    pub flavor: Option<String>,
}

/// A userspace driver library as the loader would find it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DriverLibrary {
    /// The SONAME asked for (`libcuda.so.1`).
    pub soname: String,
    /// The path the loader would open.
    pub path: String,
    /// The file at the end of the symlink chain.
    pub real_path: Option<String>,
    /// The version from the real file's name (`libcuda.so.535.261.03`).
    pub version: Option<Version>,
    /// How the loader reaches it: `ld.so.cache`, `LD_LIBRARY_PATH`, `default directory`.
    pub found_via: Vec<String>,
    pub link_state: LinkState,
    /// Whether this is the copy the loader picks for `soname` (first in glibc's order).
    pub selected: bool,
    /// A Windows-driver library of WSL2 (`/usr/lib/wsl/lib`).
    pub wsl: bool,
}

/// What NVML answered (live root only).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct NvmlFacts {
    pub library: String,
    pub nvml_version: Option<String>,
    pub driver_version: Option<Version>,
    /// `nvmlInit_v2`'s return code and message when it failed (9 = "Driver Not Loaded").
    pub init_error: Option<String>,
    pub gpus: Vec<NvmlGpu>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NvmlGpu {
    pub index: u32,
    pub name: Option<String>,
    pub uuid: Option<String>,
    pub pci_bus_id: Option<String>,
    pub cc: Option<ComputeCapability>,
    pub memory_total_mib: Option<u64>,
}

// ---------------------------------------------------------------------------------------------
// L2: GPUs
// ---------------------------------------------------------------------------------------------

/// L2: the NVIDIA GPUs on the PCI bus and which of them CUDA may see.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct GpuFacts {
    pub devices: Vec<Gpu>,
    /// `CUDA_VISIBLE_DEVICES` as set, or `None` when unset.
    pub cuda_visible_devices: Option<Sourced<String>>,
    pub nvidia_visible_devices: Option<Sourced<String>>,
    /// Compute capabilities given by override (`GPUENV_GPU_CC`) for planning without a GPU.
    pub override_ccs: Vec<Sourced<ComputeCapability>>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Gpu {
    /// PCI address, e.g. `0000:01:00.0`.
    pub pci_address: String,
    pub device_id: u16,
    pub name: Option<Sourced<String>>,
    pub chip: Option<String>,
    pub cc: Option<Sourced<ComputeCapability>>,
    pub architecture: Option<String>,
    pub uuid: Option<Sourced<String>>,
    /// The kernel driver bound to the device (`nvidia`, `nouveau`, `vfio-pci`), if any.
    pub bound_driver: Option<Sourced<String>>,
    /// The legacy branch the driver's own list names for this device (e.g. `470.xx`).
    pub legacy_branch: Option<String>,
}

// ---------------------------------------------------------------------------------------------
// L3: CUDA toolkits and runtimes
// ---------------------------------------------------------------------------------------------

/// L3: CUDA toolkits on disk and the CUDA runtime libraries the system offers.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct CudaFacts {
    pub toolkits: Vec<Toolkit>,
    /// `/usr/local/cuda` and where it leads.
    pub usr_local_cuda: Option<Link>,
    pub cuda_home: Option<PathVariable>,
    pub cuda_path: Option<PathVariable>,
    /// The first `nvcc` on `PATH`.
    pub nvcc_on_path: Option<Nvcc>,
    /// Every `libcudart.so.*` found in the system library directories and toolkits.
    pub runtimes: Vec<LibraryFile>,
}

/// An installed CUDA toolkit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Toolkit {
    /// The toolkit's root directory as found (`/usr/local/cuda-12.4`, `/usr` for Debian's layout).
    pub root: String,
    /// The root with symlinks resolved inside the machine root.
    pub real_root: String,
    pub version: Option<Sourced<Version>>,
    /// `nvidia` (`/usr/local/cuda-X.Y` layout) or `debian` (`nvidia-cuda-toolkit` in `/usr`).
    pub layout: String,
    /// Every way this toolkit was found: `/usr/local/cuda-*`, `/usr/local/cuda`, `CUDA_HOME`, `PATH`.
    pub found_via: Vec<String>,
    pub nvcc: Option<String>,
}

/// A symlink and where it leads, inside the machine root.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Link {
    pub path: String,
    /// The link's own target text, when it is a symlink.
    pub target: Option<String>,
    /// The fully resolved path, when resolution succeeded.
    pub resolved: Option<String>,
    pub state: LinkState,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LinkState {
    /// Resolves to an existing file or directory.
    Ok,
    /// A symlink whose target does not exist.
    Dangling,
    /// Symlinks that lead back to themselves.
    Loop,
    /// The path does not exist at all.
    Missing,
}

/// `CUDA_HOME` or `CUDA_PATH`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PathVariable {
    pub variable: String,
    pub value: String,
    pub resolved: Option<String>,
    pub state: LinkState,
    /// Whether the directory looks like a CUDA toolkit (has `bin/nvcc`, `version.json` or `include/cuda.h`).
    pub is_toolkit: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Nvcc {
    pub path: String,
    pub resolved: Option<String>,
    /// The toolkit root it belongs to, when known.
    pub toolkit_root: Option<String>,
    /// The `PATH` entry it was found in.
    pub path_entry: String,
}

// ---------------------------------------------------------------------------------------------
// L4: CUDA libraries
// ---------------------------------------------------------------------------------------------

/// L4: cuDNN installs and the other CUDA libraries' files.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct LibraryFacts {
    pub cudnn: Vec<CudnnInstall>,
    /// cuBLAS, NCCL and other CUDA libraries, keyed by library stem (`libcublas`).
    pub other: BTreeMap<String, Vec<LibraryFile>>,
}

/// A shared-library file as found on disk.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LibraryFile {
    /// The path as found (often a SONAME symlink).
    pub path: String,
    pub real_path: Option<String>,
    pub link_state: LinkState,
    /// The SONAME from the ELF header.
    pub soname: Option<String>,
    /// DT_NEEDED entries (used, e.g., to tell which CUDA a cuDNN was built for).
    pub needed: Vec<String>,
    /// The version from the real file name (`libcudnn.so.8.9.2` -> `8.9.2`).
    pub version: Option<Version>,
    /// Where the system loader reaches it from: `ld.so.cache`, `LD_LIBRARY_PATH`, `default directory`;
    /// empty when only a toolkit tree holds it.
    pub reachable_via: Vec<String>,
    /// The directory it was found in.
    pub dir: String,
    /// Read problems (not ELF, truncated ...).
    pub error: Option<String>,
    /// The real file's size in bytes (with `build_id`, identifies the exact file for snapshots).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
    /// The ELF build id (`NT_GNU_BUILD_ID`, hex), when the file has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub build_id: Option<String>,
}

/// One cuDNN install: the shim and its sub-libraries in one directory.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CudnnInstall {
    pub dir: String,
    /// The major from the shim's SONAME (`libcudnn.so.9`).
    pub major: u32,
    /// The version: from `cudnn_version.h` when found beside it, else the shim's real file name.
    pub version: Option<Sourced<Version>>,
    /// The shim, `libcudnn.so.N`, when present.
    pub shim: Option<LibraryFile>,
    /// `libcudnn.so` (the development link), when present.
    pub dev_link: Option<Link>,
    pub sublibraries: Vec<LibraryFile>,
    /// The CUDA major it was built for, when it can be told (NEEDED `libcublas.so.11`, wheel name).
    pub cuda_major: Option<Sourced<u32>>,
    pub header: Option<String>,
    /// Whether the system loader can reach it (`ld.so.cache`, `LD_LIBRARY_PATH`, default directories).
    pub reachable_via: Vec<String>,
    /// Whether this is the copy the system loader picks for `libcudnn.so.N` (no RPATH involved).
    pub loader_selected: bool,
}

// ---------------------------------------------------------------------------------------------
// L5-L6: Python environments and frameworks
// ---------------------------------------------------------------------------------------------

/// L5–L6: every Python environment found, and which `python` / `pip` the shell would run.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct PythonFacts {
    pub environments: Vec<PythonEnvironment>,
    /// The first `python3` / `python` on `PATH` and the environment it belongs to.
    pub python_on_path: Option<Executable>,
    /// The first `pip3` / `pip` on `PATH` and the environment it belongs to.
    pub pip_on_path: Option<Executable>,
    /// `QT_QPA_PLATFORM_PLUGIN_PATH` and whether it leads anywhere.
    #[serde(default)]
    pub qt_platform_plugin_path: Option<VariablePath>,
}

/// A path-valued environment variable and what its path is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct VariablePath {
    pub variable: String,
    pub value: String,
    pub state: LinkState,
}

/// An executable found on `PATH`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Executable {
    pub path: String,
    pub resolved: Option<String>,
    /// The prefix of the environment it belongs to, when known.
    pub environment: Option<String>,
    /// For scripts (pip): the interpreter named on the `#!` line.
    pub shebang: Option<String>,
}

/// One Python environment (a venv, a conda environment, an interpreter installation).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PythonEnvironment {
    /// A short name: the conda environment's name, else the prefix's last component.
    pub name: String,
    pub prefix: String,
    /// `venv`, `virtualenv`, `uv-venv`, `conda`, `conda-base`, `pyenv`, `uv-python`, `system`.
    pub kind: String,
    /// Every way it was found: `VIRTUAL_ENV`, `CONDA_PREFIX`, `PATH`, `conda environments.txt`, ...
    pub found_via: Vec<String>,
    pub active: bool,
    /// Whether doctor read it in full (distributions' metadata), or only listed it.
    pub full: bool,
    pub python_version: Option<Sourced<Version>>,
    /// `pyvenv.cfg`'s `home` (the base interpreter's directory).
    pub base_home: Option<String>,
    pub site_packages: Vec<String>,
    pub distributions: Vec<PythonDistribution>,
    pub conda_packages: Vec<CondaPackage>,
    pub frameworks: FrameworkFacts,
    /// Files that two or more distributions installed with different contents (read from their
    /// RECORDs; full reads only): the one installed last overwrote the others'.
    #[serde(default)]
    pub file_conflicts: Vec<FileConflict>,
    /// The CUDA libraries the environment holds itself (full reads only): pip's `nvidia-*` wheels'
    /// `site-packages/nvidia/*/lib/lib*.so*` and, in a conda environment, `lib/libcu*`,
    /// `lib/libnv*`, `lib/libnccl*`. The system loader does not search these directories: a
    /// program reaches them through its own RPATH or preloading, or through LD_LIBRARY_PATH.
    #[serde(default)]
    pub cuda_libraries: Vec<String>,
    /// Problems met reading it (unreadable metadata ...).
    pub errors: Vec<String>,
}

/// Files claimed by several distributions with different hashes, grouped by top-level name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileConflict {
    /// The top-level module or directory (`cv2`).
    pub top_level: String,
    /// The distributions' names, sorted.
    pub distributions: Vec<String>,
    pub files: usize,
    /// One of the files, as an example.
    pub example: String,
}

/// An installed distribution (`*.dist-info` or `*.egg-info`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PythonDistribution {
    pub name: String,
    /// PEP 503 normalised name.
    pub key: String,
    pub version: String,
    /// The metadata directory.
    pub metadata_dir: String,
    /// `pip`, `uv`, `conda` ... from `INSTALLER`.
    pub installer: Option<String>,
    pub requires_dist: Vec<String>,
    pub requires_python: Option<String>,
    /// Top-level modules it installs (from `top_level.txt` or `RECORD`).
    pub top_level: Vec<String>,
    /// `direct_url.json`'s URL (editable or URL installs).
    pub direct_url: Option<String>,
}

/// A conda package record (`conda-meta/*.json`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CondaPackage {
    pub name: String,
    pub version: String,
    pub build: String,
    pub channel: Option<String>,
    pub record: String,
}

/// Framework builds found in an environment, from their own files.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FrameworkFacts {
    pub torch: Option<TorchBuild>,
    pub tensorflow: Option<TensorflowBuild>,
    /// Other frameworks and companions by distribution key (`jax`, `jaxlib`, `jax-cuda12-plugin`,
    /// `cupy-cuda12x`, `onnxruntime-gpu`, `torchvision`, `torchaudio`, `deeplabcut`, `opencv-*`).
    pub packages: BTreeMap<String, String>,
    /// Which OpenCV flavour `cv2/version.py` says owns `cv2`.
    pub opencv: Option<OpencvBuild>,
    /// The frameworks' CUDA binaries as the loader and the fatbin reader see them (full reads).
    #[serde(default)]
    pub binaries: Vec<FrameworkBinary>,
}

/// A framework's CUDA binary (`torch/lib/libtorch_cuda.so` ...): which CUDA libraries the loader
/// would load for it and from where (its DT_RPATH/RUNPATH, `LD_LIBRARY_PATH`, the cache, and the
/// framework's own preloading as knowledge-base dlopen edges), and the GPU code it carries.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FrameworkBinary {
    /// `torch`, `tensorflow`, `jax`.
    pub framework: String,
    pub path: String,
    pub libraries: Vec<ResolvedLibrary>,
    pub missing: Vec<MissingLibrary>,
    /// The fatbin's code, grouped by identical target sets; empty when the binary carries none
    /// or it was not read (no GPU to judge it for).
    pub gpu_code: Vec<CodeGroup>,
    /// The binary whose fatbin `gpu_code` comes from (for TensorFlow not the loaded one).
    pub gpu_code_source: Option<String>,
    /// Why the binary or its fatbin could not be read.
    pub error: Option<String>,
}

/// A CUDA library the loader would load for a framework binary.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResolvedLibrary {
    /// The name asked for (`libcudnn.so.9`).
    pub name: String,
    pub path: String,
    pub real_path: String,
    /// The search step: `rpath of X`, `LD_LIBRARY_PATH`, `runpath of X`, `ld.so.cache`, `default`.
    pub found_by: String,
    pub version: Option<String>,
    /// Loaded by `dlopen` (a knowledge-base edge), not DT_NEEDED.
    pub dlopen: bool,
    /// Copies a later step would have found.
    pub shadowed: Vec<ShadowedCopy>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShadowedCopy {
    pub path: String,
    pub found_by: String,
    pub version: Option<String>,
    pub version_differs: bool,
}

/// A CUDA library the loader would not find for a framework binary.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MissingLibrary {
    pub name: String,
    pub requested_by: String,
    pub dlopen: bool,
    /// Every place tried, with the step.
    pub tried: Vec<String>,
    /// glibc's error when a bad file stopped the search.
    pub error: Option<String>,
}

/// Fatbin containers with the same targets (`sm_80`, `sm_90a`, `compute_90`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CodeGroup {
    pub containers: usize,
    pub targets: Vec<String>,
    /// The PTX ISA of the group's PTX, when it has one (`8.2`).
    pub ptx_isa: Option<String>,
}

/// PyTorch as `torch/version.py` and its metadata describe it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TorchBuild {
    /// `__version__` with its local tag (`2.1.0+cu121`).
    pub version: Sourced<String>,
    /// The CUDA version it was built for; `None` for CPU and ROCm builds.
    pub cuda: Option<String>,
    pub hip: Option<String>,
    /// `nvidia-cudnn-cu12==8.9.2.26` and the other CUDA pins of its METADATA (and of
    /// `cuda-toolkit`'s, for torch >= 2.11), as `name -> specifier`.
    pub cuda_pins: BTreeMap<String, String>,
    /// Where its CUDA libraries come from: `wheels` (nvidia-* in site-packages), `bundled`
    /// (inside torch/lib), `system`, or `none` (CPU build).
    pub cuda_libraries: String,
    pub site_packages: String,
}

/// TensorFlow as its `build_info.py` describes it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TensorflowBuild {
    pub version: String,
    pub is_cuda_build: Option<bool>,
    pub cuda_version: Option<String>,
    pub cudnn_version: Option<String>,
    pub compute_capabilities: Vec<String>,
    pub source: String,
}

/// OpenCV's build flavour.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OpencvBuild {
    pub version: Option<String>,
    pub contrib: Option<bool>,
    pub headless: Option<bool>,
    pub source: String,
}

// ---------------------------------------------------------------------------------------------
// Environment
// ---------------------------------------------------------------------------------------------

/// The environment variables that shape the stack, as the process saw them.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct EnvFacts {
    pub ld_library_path: Vec<String>,
    pub path: Vec<String>,
    pub ld_preload: Option<String>,
    /// Every variable gpuenv reads that was set, with its value (secrets are never read).
    pub variables: BTreeMap<String, String>,
}

impl Facts {
    /// The userspace driver version, if known from any source.
    pub fn driver_version(&self) -> Option<&Version> {
        self.driver.userspace_version.as_ref().map(|s| &s.value)
    }

    /// The kernel module version, if a module is loaded.
    pub fn kernel_module_version(&self) -> Option<&Version> {
        self.driver.kernel_module.as_ref().map(|m| &m.version.value)
    }

    /// The best-known driver version: the loaded kernel module's, else the userspace libraries'.
    pub fn effective_driver_version(&self) -> Option<&Version> {
        self.kernel_module_version().or(self.driver_version())
    }
}
