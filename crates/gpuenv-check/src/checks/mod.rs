//! The check families, one file each. Every check is a plain function of the `Context` that
//! appends findings; `ALL` lists them in the order doctor runs them.

pub mod cuda;
pub mod cudnn;
pub mod driver;
pub mod frameworks;
pub mod gpu;
pub mod kb;
pub mod loading;
pub mod os;
pub mod python;

use crate::context::Context;
use crate::finding::Finding;

/// A check: reads the context, appends what it finds.
pub type Check = fn(&Context, &mut Vec<Finding>);

/// Every check, in the order doctor runs them.
pub const ALL: &[Check] = &[
    os::nouveau_loaded,
    os::secure_boot_blocks_module,
    os::device_nodes,
    driver::wsl_linux_driver,
    driver::kernel_module_not_loaded,
    driver::driver_missing,
    driver::driver_userspace_mismatch,
    gpu::gpu_dropped_by_driver,
    gpu::gpus_hidden,
    cuda::driver_too_old_for_cuda,
    cuda::gpu_arch_unsupported_by_toolkit,
    cuda::cuda_link_mismatch,
    cuda::cuda_home_invalid,
    cuda::library_path_mixes_cuda,
    cuda::cuda_version_numbers,
    cudnn::cudnn_multiple_versions,
    cudnn::cudnn_broken_link,
    cudnn::cudnn_cuda_mismatch,
    cudnn::cudnn_mixed_sublibraries,
    kb::kb_unknown_version,
    python::requirement_unsatisfied,
    python::duplicate_distribution,
    python::module_clobbered,
    python::conda_pip_mixed,
    python::interpreter_mismatch,
    python::qt_plugin_conflict,
    frameworks::cpu_only_builds,
    frameworks::framework_needs_newer_driver,
    frameworks::framework_lacks_gpu_arch,
    frameworks::framework_cudnn_mismatch,
    frameworks::companion_version_mismatch,
    frameworks::python_unsupported,
    frameworks::application_backend_missing,
    frameworks::numpy_abi_mismatch,
    loading::library_missing,
    loading::library_shadowed,
];
