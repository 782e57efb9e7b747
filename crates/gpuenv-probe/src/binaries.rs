//! Framework binaries, for the environments read in full: for each framework's CUDA binary
//! (`torch/lib/libtorch_cuda.so`, TensorFlow's `libtensorflow_cc.so.2`, JAX's CUDA plugin), the
//! CUDA libraries the loader would load — simulated with `loader::simulate`, the framework's own
//! preloading included as knowledge-base dlopen edges — and, when there is a GPU to judge it for,
//! the GPU code its fatbin carries (headers only; payloads are never read).

use std::collections::BTreeMap;

use gpuenv_elf::{read_fatbin, EntryKind, FatbinSection};
use gpuenv_facts::{
    CodeGroup, FrameworkBinary, MissingLibrary, PythonEnvironment, ResolvedLibrary, ShadowedCopy,
};
use gpuenv_kb::Kb;

use crate::loader::{self, Request, Simulation};
use crate::root::{join, SystemRoot};
use crate::vars::Environment;

/// Library names that belong to the CUDA stack (what doctor reports of a simulation).
const CUDA_LIBRARIES: &[&str] = &[
    "libcuda.",
    "libcudart",
    "libcudnn",
    "libcublas",
    "libcufft",
    "libcurand",
    "libcusolver",
    "libcusparse",
    "libnccl",
    "libnvrtc",
    "libnvJitLink",
    "libcupti",
    "libnvToolsExt",
    "libnvshmem",
    "libcufile",
    "libcusparseLt",
    "libnvjpeg",
];

fn is_cuda_library(name: &str) -> bool {
    CUDA_LIBRARIES.iter().any(|p| name.starts_with(p))
}

/// The binaries of the frameworks in an environment: (framework, binary to load, binary whose
/// fatbin to read).
fn candidates(root: &SystemRoot, e: &PythonEnvironment) -> Vec<(&'static str, String, String)> {
    let mut out = Vec::new();
    for site in &e.site_packages {
        if e.frameworks
            .torch
            .as_ref()
            .is_some_and(|t| t.cuda.is_some())
        {
            let lib = join(site, "torch/lib/libtorch_cuda.so");
            if root.is_file(&lib) {
                out.push(("torch", lib.clone(), lib));
            }
        }
        if e.frameworks
            .tensorflow
            .as_ref()
            .is_some_and(|t| t.is_cuda_build == Some(true))
        {
            let cc = join(site, "tensorflow/libtensorflow_cc.so.2");
            let framework = join(site, "tensorflow/libtensorflow_framework.so.2");
            let load = if root.is_file(&cc) {
                cc.clone()
            } else {
                framework
            };
            if root.is_file(&load) {
                out.push(("tensorflow", load, cc));
            }
        }
        for plugin in [
            "jax_plugins/xla_cuda12/xla_cuda_plugin.so",
            "jax_plugins/xla_cuda13/xla_cuda_plugin.so",
        ] {
            let lib = join(site, plugin);
            if root.is_file(&lib) {
                out.push(("jax", lib.clone(), lib));
            }
        }
    }
    out
}

/// Probes the framework binaries of every environment read in full.
pub fn probe(
    root: &SystemRoot,
    env: &Environment,
    kb: &Kb,
    envs: &mut [PythonEnvironment],
    read_gpu_code: bool,
) {
    for e in envs.iter_mut().filter(|e| e.full) {
        let mut binaries = Vec::new();
        for (framework, load, code) in candidates(root, e) {
            let mut b = FrameworkBinary {
                framework: framework.to_string(),
                path: load.clone(),
                libraries: Vec::new(),
                missing: Vec::new(),
                gpu_code: Vec::new(),
                gpu_code_source: None,
                error: None,
            };
            match loader::simulate(root, env, Some(kb), &load) {
                Ok(sim) => summarise(&sim, &mut b),
                Err(err) => b.error = Some(err.to_string()),
            }
            if read_gpu_code && root.is_file(&code) {
                match gpu_code(root, &code) {
                    Ok(groups) => {
                        b.gpu_code = groups;
                        b.gpu_code_source = Some(code);
                    }
                    Err(err) => b.error = Some(err),
                }
            }
            binaries.push(b);
        }
        e.frameworks.binaries = binaries;
    }
}

fn summarise(sim: &Simulation, b: &mut FrameworkBinary) {
    for o in sim.objects.iter().skip(1) {
        if !is_cuda_library(&o.name) {
            continue;
        }
        b.libraries.push(ResolvedLibrary {
            name: o.name.clone(),
            path: o.path.clone(),
            real_path: o.real_path.clone(),
            found_by: o.found_by.to_string(),
            version: o.version.clone(),
            dlopen: matches!(o.request, Request::Dlopen { .. }),
            shadowed: o
                .shadowed
                .iter()
                .map(|s| ShadowedCopy {
                    path: s.path.clone(),
                    found_by: s.step.to_string(),
                    version: s.version.clone(),
                    version_differs: s.version_differs,
                })
                .collect(),
        });
    }
    for (index, o) in sim.objects.iter().enumerate() {
        for d in &o.deps {
            let Some(m) = &d.missing else { continue };
            if !is_cuda_library(&d.name) {
                continue;
            }
            let requester = sim
                .objects
                .get(index)
                .map(|x| x.name.clone())
                .unwrap_or_default();
            b.missing.push(MissingLibrary {
                name: d.name.clone(),
                requested_by: requester,
                dlopen: matches!(d.request, Request::Dlopen { .. }),
                tried: m
                    .tried
                    .iter()
                    .map(|t| format!("{} [{}]", t.path, t.step))
                    .collect(),
                error: m.error.clone(),
            });
        }
    }
}

/// The fatbin's GPU code grouped by identical target sets (`.nv_fatbin` only: relocatable code
/// is not loaded by the runtime).
fn gpu_code(root: &SystemRoot, path: &str) -> Result<Vec<CodeGroup>, String> {
    let map = root.map(path).map_err(|e| e.to_string())?;
    let Some(fatbin) = read_fatbin(&map).map_err(|e| format!("{path}: {e}"))? else {
        return Ok(Vec::new());
    };
    let mut per_container: BTreeMap<usize, (Vec<String>, Option<String>)> = BTreeMap::new();
    for e in fatbin
        .entries
        .iter()
        .filter(|e| e.section == FatbinSection::Fatbin)
    {
        if matches!(e.kind, EntryKind::Other(_)) {
            continue;
        }
        let slot = per_container.entry(e.container).or_default();
        slot.0.push(e.target_name());
        if let Some(isa) = e.ptx_isa {
            slot.1 = Some(format!("{}.{}", isa.major, isa.minor));
        }
    }
    let mut groups: BTreeMap<(Vec<String>, Option<String>), usize> = BTreeMap::new();
    for (_, (mut targets, isa)) in per_container {
        targets.sort();
        targets.dedup();
        *groups.entry((targets, isa)).or_default() += 1;
    }
    Ok(groups
        .into_iter()
        .map(|((targets, ptx_isa), containers)| CodeGroup {
            containers,
            targets,
            ptx_isa,
        })
        .collect())
}
