//! The diagnosis categories: stable kebab-case ids, each on one layer of the stack.

use serde::{Deserialize, Serialize};

/// What went wrong, as a stable id. The ids are a contract (JSON output, corpus directories).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Category {
    DriverMissing,
    DriverKernelUserspaceMismatch,
    DriverTooOldForRuntime,
    GpuArchUnsupportedByBuild,
    CpuOnlyBuild,
    CudnnMissing,
    CudnnVersionMismatch,
    CudaRuntimeLibMissing,
    LibraryPathShadowing,
    MultipleInstallsConflict,
    PythonEnvMismatch,
    PackageConflict,
    GlibcLibstdcxx,
    MissingSystemLibrary,
    OutOfMemory,
    EnvVarMisconfiguration,
    NcclNetworkConfig,
    ContainerRuntime,
    Wsl,
    PermissionsDeviceNodes,
    HardwareOrDriverState,
    NotAnEnvironmentProblem,
}

/// Every category, in display order.
pub const ALL: [Category; 22] = [
    Category::DriverMissing,
    Category::DriverKernelUserspaceMismatch,
    Category::DriverTooOldForRuntime,
    Category::GpuArchUnsupportedByBuild,
    Category::CpuOnlyBuild,
    Category::CudnnMissing,
    Category::CudnnVersionMismatch,
    Category::CudaRuntimeLibMissing,
    Category::LibraryPathShadowing,
    Category::MultipleInstallsConflict,
    Category::PythonEnvMismatch,
    Category::PackageConflict,
    Category::GlibcLibstdcxx,
    Category::MissingSystemLibrary,
    Category::OutOfMemory,
    Category::EnvVarMisconfiguration,
    Category::NcclNetworkConfig,
    Category::ContainerRuntime,
    Category::Wsl,
    Category::PermissionsDeviceNodes,
    Category::HardwareOrDriverState,
    Category::NotAnEnvironmentProblem,
];

impl Category {
    /// The stable id (`cudnn-missing`).
    pub fn id(self) -> &'static str {
        match self {
            Category::DriverMissing => "driver-missing",
            Category::DriverKernelUserspaceMismatch => "driver-kernel-userspace-mismatch",
            Category::DriverTooOldForRuntime => "driver-too-old-for-runtime",
            Category::GpuArchUnsupportedByBuild => "gpu-arch-unsupported-by-build",
            Category::CpuOnlyBuild => "cpu-only-build",
            Category::CudnnMissing => "cudnn-missing",
            Category::CudnnVersionMismatch => "cudnn-version-mismatch",
            Category::CudaRuntimeLibMissing => "cuda-runtime-lib-missing",
            Category::LibraryPathShadowing => "library-path-shadowing",
            Category::MultipleInstallsConflict => "multiple-installs-conflict",
            Category::PythonEnvMismatch => "python-env-mismatch",
            Category::PackageConflict => "package-conflict",
            Category::GlibcLibstdcxx => "glibc-libstdcxx",
            Category::MissingSystemLibrary => "missing-system-library",
            Category::OutOfMemory => "out-of-memory",
            Category::EnvVarMisconfiguration => "env-var-misconfiguration",
            Category::NcclNetworkConfig => "nccl-network-config",
            Category::ContainerRuntime => "container-runtime",
            Category::Wsl => "wsl",
            Category::PermissionsDeviceNodes => "permissions-device-nodes",
            Category::HardwareOrDriverState => "hardware-or-driver-state",
            Category::NotAnEnvironmentProblem => "not-an-environment-problem",
        }
    }

    /// The category with this id.
    pub fn from_id(id: &str) -> Option<Category> {
        ALL.into_iter().find(|c| c.id() == id)
    }

    /// The layer of the stack it belongs to (L0 OS … L6 application), as doctor names them.
    pub fn layer(self) -> &'static str {
        match self {
            Category::DriverMissing
            | Category::DriverKernelUserspaceMismatch
            | Category::DriverTooOldForRuntime => "L1 driver",
            Category::HardwareOrDriverState | Category::GpuArchUnsupportedByBuild => "L2 GPU",
            Category::CudaRuntimeLibMissing
            | Category::LibraryPathShadowing
            | Category::MultipleInstallsConflict => "L3 CUDA",
            Category::CudnnMissing | Category::CudnnVersionMismatch => "L4 libraries",
            Category::NcclNetworkConfig => "L4 libraries",
            Category::CpuOnlyBuild | Category::PythonEnvMismatch | Category::PackageConflict => {
                "L5 Python"
            }
            Category::GlibcLibstdcxx
            | Category::MissingSystemLibrary
            | Category::ContainerRuntime
            | Category::Wsl
            | Category::PermissionsDeviceNodes
            | Category::EnvVarMisconfiguration => "L0 OS",
            Category::OutOfMemory | Category::NotAnEnvironmentProblem => "L6 application",
        }
    }
}

impl Category {
    /// One line for `gpuenv rules`: what this category of root cause is.
    pub fn summary(self) -> &'static str {
        match self {
            Category::DriverMissing => "No NVIDIA driver is installed or loaded, so CUDA finds no device.",
            Category::DriverKernelUserspaceMismatch => "The loaded kernel module and the userspace driver libraries are different releases.",
            Category::DriverTooOldForRuntime => "The driver is older than the CUDA runtime (toolkit or framework build) needs.",
            Category::GpuArchUnsupportedByBuild => "The program or framework carries no code for this GPU's architecture.",
            Category::CpuOnlyBuild => "A framework build without CUDA is installed, so the GPU is never used.",
            Category::CudnnMissing => "cuDNN (or one of its sub-libraries) cannot be found by the loader.",
            Category::CudnnVersionMismatch => "The cuDNN loaded is another version than the one the program was built against.",
            Category::CudaRuntimeLibMissing => "A CUDA runtime library (libcudart, cuBLAS, cuFFT, ...) cannot be found by the loader.",
            Category::LibraryPathShadowing => "LD_LIBRARY_PATH or the loader cache makes a program load the wrong copy of a library.",
            Category::MultipleInstallsConflict => "Several CUDA or framework installations collide in one process or environment.",
            Category::PythonEnvMismatch => "The Python, pip or environment that runs is not the one the packages were installed into.",
            Category::PackageConflict => "Installed Python packages are out of step with each other (versions, ABIs, duplicates).",
            Category::GlibcLibstdcxx => "A binary needs a newer glibc or libstdc++ than the system provides.",
            Category::MissingSystemLibrary => "A non-CUDA system library a program needs is not installed.",
            Category::OutOfMemory => "The GPU (or host) ran out of memory: a workload problem, not a broken stack.",
            Category::EnvVarMisconfiguration => "An environment variable (CUDA_VISIBLE_DEVICES, CUDA_HOME, ...) is set wrongly.",
            Category::NcclNetworkConfig => "NCCL cannot set up communication between GPUs or nodes (network, shared memory, topology).",
            Category::ContainerRuntime => "The container runtime does not pass the GPU, driver libraries or devices into the container.",
            Category::Wsl => "A WSL2-specific problem: the Windows driver, /usr/lib/wsl/lib, or a Linux driver inside WSL.",
            Category::PermissionsDeviceNodes => "The /dev/nvidia* device nodes are missing or this user may not open them.",
            Category::HardwareOrDriverState => "The GPU or driver is in a bad state (Xid errors, fallen off the bus, ECC, needs a reset).",
            Category::NotAnEnvironmentProblem => "A bug in the program itself, not in the GPU stack.",
        }
    }
}

impl std::fmt::Display for Category {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.id())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_round_trip_and_are_unique() {
        let mut seen = std::collections::BTreeSet::new();
        for c in ALL {
            assert_eq!(Category::from_id(c.id()), Some(c));
            assert!(seen.insert(c.id()));
        }
    }
}
