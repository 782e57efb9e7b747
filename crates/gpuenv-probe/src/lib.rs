//! gpuenv's probes: everything that reads a machine. A `SystemRoot` joins every path onto the
//! machine root; each layer's probe turns files (and, on the live root only, NVML and the driver
//! API) into `Facts`. Probes never decide what is wrong, never execute a program, never write, and
//! never stop at an unreadable file: they record a `ProbeError` and go on.

pub mod binaries;
pub mod cuda;
pub mod cudnn;
pub mod driver;
pub mod gpu;
pub mod libs;
pub mod loader;
pub mod nvml;
pub mod os;
pub mod parse;
pub mod python;
pub mod root;
pub mod vars;

use gpuenv_facts::{EnvFacts, Facts};
use gpuenv_kb::Kb;

pub use root::SystemRoot;
pub use vars::{Environment, VarDoc, VarKind, VARIABLES};

/// What a caller can choose about probing (everything else follows from the root and environment).
#[derive(Debug, Clone, Default)]
pub struct ProbeOptions {
    pub python: python::PythonOptions,
}

/// Probes every layer of the machine at `root` with default options.
pub fn probe_all(root: &SystemRoot, env: &Environment, kb: &Kb) -> Facts {
    probe_all_with(root, env, kb, &ProbeOptions::default())
}

/// Probes every layer of the machine at `root`.
pub fn probe_all_with(
    root: &SystemRoot,
    env: &Environment,
    kb: &Kb,
    options: &ProbeOptions,
) -> Facts {
    let mut errors = Vec::new();
    // NVML and the driver API (live root only) answer on their own threads while files are read.
    let queries = driver::DriverQueries::start(root, env);
    let index = libs::LibraryIndex::build(root, env, &mut errors);
    let os = os::probe(root, env, &mut errors);
    let driver = driver::probe(root, env, &index, queries, &mut errors);
    let gpus = gpu::probe(root, env, kb, driver.nvml.as_ref(), &mut errors);
    let cuda = cuda::probe(root, env, &index);
    let libraries = cudnn::probe(root, kb, &index, &cuda.toolkits);
    let mut python = python::probe(root, env, &options.python);
    // GPU code is read only when there is a GPU to judge it for (a fatbin header walk of a
    // 500 MB library still touches pages all over it).
    let have_gpu = !gpus.devices.is_empty() || !gpus.override_ccs.is_empty();
    binaries::probe(root, env, kb, &mut python.environments, have_gpu);
    Facts {
        root: root.dir().display().to_string(),
        live: root.is_live(),
        os,
        driver,
        gpus,
        cuda,
        libraries,
        python,
        env: env_facts(env),
        probe_errors: errors,
    }
}

fn env_facts(env: &Environment) -> EnvFacts {
    EnvFacts {
        ld_library_path: env.path_list(vars::LD_LIBRARY_PATH),
        path: env.path_list(vars::PATH),
        ld_preload: env.get_nonempty(vars::LD_PRELOAD).map(str::to_string),
        variables: env
            .all()
            .iter()
            .filter(|(k, _)| k.as_str() != vars::PATH)
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect(),
    }
}
