//! L1 probe: the loaded kernel module (`/proc/driver/nvidia/version`, `/sys/module/nvidia/version`),
//! the userspace driver libraries the loader would pick (`libcuda.so.1`, `libnvidia-ml.so.1`) and
//! their versions from the real file names, and, on the live root only, NVML and the driver API.
//! Overrides (`GPUENV_DRIVER_VERSION`, `GPUENV_CUDA_DRIVER_VERSION`) win over what was read.

use std::time::Duration;

use gpuenv_facts::{
    DriverFacts, DriverLibrary, KernelModule, LinkState, NvmlFacts, ProbeError, Source, Sourced,
};
use gpuenv_kb::{CudaVersion, Version};

use crate::libs::LibraryIndex;
use crate::nvml;
use crate::parse;
use crate::root::{file_name, SystemRoot};
use crate::vars::{self, Environment};

/// The userspace driver libraries gpuenv looks for, with their file-name stems.
const DRIVER_SONAMES: &[(&str, &str)] = &[
    ("libcuda.so.1", "libcuda"),
    ("libnvidia-ml.so.1", "libnvidia-ml"),
];

/// NVML and driver-API queries started before the file probes, answered (or not) afterwards.
pub struct DriverQueries {
    nvml: Option<nvml::Pending<Option<NvmlFacts>>>,
    api: Option<nvml::Pending<Option<nvml::DriverApi>>>,
    timeout: Duration,
    /// Skipped because this is a static build, which cannot `dlopen` glibc's driver libraries.
    skipped_static: bool,
}

impl DriverQueries {
    /// Starts them on the live root unless `GPUENV_NO_NVML` is set; they run while files are read.
    pub fn start(root: &SystemRoot, env: &Environment) -> DriverQueries {
        let timeout = Duration::from_millis(
            env.get_nonempty(vars::GPUENV_NVML_TIMEOUT_MS)
                .and_then(|t| t.parse().ok())
                .unwrap_or(3000),
        );
        let static_build = nvml::STATIC_BUILD;
        if !root.is_live() || env.get_nonempty(vars::GPUENV_NO_NVML).is_some() || static_build {
            return DriverQueries {
                nvml: None,
                api: None,
                timeout,
                skipped_static: static_build && root.is_live(),
            };
        }
        DriverQueries {
            nvml: nvml::start_nvml(timeout),
            api: nvml::start_driver_api(timeout),
            timeout,
            skipped_static: false,
        }
    }
}

pub fn probe(
    root: &SystemRoot,
    env: &Environment,
    index: &LibraryIndex,
    queries: DriverQueries,
    errors: &mut Vec<ProbeError>,
) -> DriverFacts {
    let mut d = DriverFacts {
        kernel_module: kernel_module(root),
        kernel_module_state_known: root.exists("/proc/modules")
            || root.is_dir("/sys/module")
            || root.exists("/proc/driver/nvidia"),
        userspace: userspace_libraries(root, index),
        ..DriverFacts::default()
    };

    let timeout = queries.timeout;
    if queries.skipped_static {
        errors.push(ProbeError {
            probe: "driver.nvml".into(),
            subject: "libnvidia-ml.so.1, libcuda.so.1".into(),
            message: nvml::STATIC_BUILD_NOTE.into(),
        });
    }
    if let Some(pending) = queries.nvml {
        d.nvml = pending.wait().flatten();
        if d.nvml.is_none() && d.userspace.iter().any(|l| l.soname == "libnvidia-ml.so.1") {
            errors.push(ProbeError {
                probe: "driver.nvml".into(),
                subject: "libnvidia-ml.so.1".into(),
                message: format!(
                    "could not be loaded or did not answer within {} ms",
                    timeout.as_millis()
                ),
            });
        }
    }
    if let Some(api) = queries.api.and_then(|p| p.wait()).flatten() {
        match api.version {
            Ok(v) => {
                d.cuda_driver_version = CudaVersion::from_driver_api(v)
                    .map(|c| Sourced::new(c, Source::DriverApi("cuDriverGetVersion".into())))
            }
            Err(e) => errors.push(ProbeError {
                probe: "driver.cuda_driver_version".into(),
                subject: api.library,
                message: e,
            }),
        }
    }

    d.userspace_version = userspace_version(env, &d, errors);
    if let Some(cuda) = cuda_override(env) {
        d.cuda_driver_version = Some(cuda);
    }
    d
}

fn kernel_module(root: &SystemRoot) -> Option<KernelModule> {
    let proc_path = "/proc/driver/nvidia/version";
    if let Ok(text) = root.read_to_string(proc_path) {
        if let Some((version, flavor)) = parse::proc_driver_version(&text) {
            return Some(KernelModule {
                version: Sourced::new(version, Source::File(proc_path.into())),
                flavor: Some(flavor.into()),
            });
        }
    }
    let sys_path = "/sys/module/nvidia/version";
    let text = root.read_to_string(sys_path).ok()?;
    Some(KernelModule {
        version: Sourced::new(parse::bare_version(&text)?, Source::File(sys_path.into())),
        flavor: None,
    })
}

/// Every copy of the driver libraries the loader can reach, the one it would pick marked.
fn userspace_libraries(root: &SystemRoot, index: &LibraryIndex) -> Vec<DriverLibrary> {
    let mut out = Vec::new();
    for (soname, stem) in DRIVER_SONAMES {
        let picked = index
            .loader_lookup(root, soname)
            .map(|(p, _)| crate::libs::identity(root, &p));
        for c in index.find(root, |n| n == *soname) {
            let resolved = root.resolve(&c.path);
            let real_path = (resolved.state == LinkState::Ok).then(|| resolved.path.clone());
            let version = real_path
                .as_deref()
                .and_then(|p| parse::so_version(file_name(p), stem))
                .filter(|v| v.major() >= 100);
            out.push(DriverLibrary {
                soname: soname.to_string(),
                selected: picked.as_deref() == Some(c.key.as_str()),
                wsl: c.key.starts_with("/usr/lib/wsl/"),
                path: c.path,
                real_path,
                version,
                found_via: c.via.iter().map(|v| v.to_string()).collect(),
                link_state: resolved.state,
            });
        }
    }
    // WSL's own libcuda sits in /usr/lib/wsl/lib, which the cache normally lists; if it does not,
    // still record it, so a shadowing Linux libcuda can be recognised.
    let wsl = "/usr/lib/wsl/lib/libcuda.so.1";
    if root.exists(wsl) && !out.iter().any(|l| l.wsl) {
        out.push(DriverLibrary {
            soname: "libcuda.so.1".into(),
            path: wsl.into(),
            real_path: Some(root.resolve(wsl).path),
            version: None,
            found_via: Vec::new(),
            link_state: LinkState::Ok,
            selected: false,
            wsl: true,
        });
    }
    out
}

fn userspace_version(
    env: &Environment,
    d: &DriverFacts,
    errors: &mut Vec<ProbeError>,
) -> Option<Sourced<Version>> {
    for var in [vars::GPUENV_DRIVER_VERSION, vars::UV_CUDA_DRIVER_VERSION] {
        if let Some(text) = env.get_nonempty(var) {
            match text.parse::<Version>() {
                Ok(v) => return Some(Sourced::new(v, Source::Override(var.into()))),
                Err(e) => errors.push(ProbeError {
                    probe: "driver.userspace_version".into(),
                    subject: var.into(),
                    message: e.to_string(),
                }),
            }
        }
    }
    let from_lib = |soname: &str| {
        d.userspace
            .iter()
            .filter(|l| l.soname == soname && l.selected)
            .find_map(|l| {
                l.version.clone().map(|v| {
                    Sourced::new(
                        v,
                        Source::Path(l.real_path.clone().unwrap_or_else(|| l.path.clone())),
                    )
                })
            })
    };
    if let Some(v) = from_lib("libcuda.so.1").or_else(|| from_lib("libnvidia-ml.so.1")) {
        return Some(v);
    }
    if let Some(n) = &d.nvml {
        if let Some(v) = &n.driver_version {
            return Some(Sourced::new(
                v.clone(),
                Source::Nvml("nvmlSystemGetDriverVersion".into()),
            ));
        }
        if let Some(v) = n
            .nvml_version
            .as_deref()
            .and_then(nvml::driver_from_nvml_version)
        {
            return Some(Sourced::new(
                v,
                Source::Nvml("nvmlSystemGetNVMLVersion".into()),
            ));
        }
    }
    None
}

fn cuda_override(env: &Environment) -> Option<Sourced<CudaVersion>> {
    [vars::GPUENV_CUDA_DRIVER_VERSION, vars::CONDA_OVERRIDE_CUDA]
        .into_iter()
        .find_map(|var| {
            let v: CudaVersion = env.get_nonempty(var)?.parse().ok()?;
            Some(Sourced::new(v, Source::Override(var.into())))
        })
}
