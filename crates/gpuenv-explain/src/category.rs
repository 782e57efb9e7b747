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
