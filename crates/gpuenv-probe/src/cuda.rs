//! L3 probe: CUDA toolkits (`/usr/local/cuda-*`, `/usr/local/cuda`, `/opt`, Debian's
//! `nvidia-cuda-toolkit` layout in `/usr`, `CUDA_HOME`, `CUDA_PATH`, `nvcc` on `PATH`) with their
//! versions read from `version.json`, `version.txt`, `cuda.h` or library names — nvcc is never
//! run — and every `libcudart.so.*` the system offers.

use std::collections::BTreeMap;

use gpuenv_facts::{CudaFacts, Link, LinkState, Nvcc, PathVariable, Source, Sourced, Toolkit};
use gpuenv_kb::Version;

use crate::libs::{loader_facing_files, LibraryIndex};
use crate::parse;
use crate::root::{file_name, join, parent_dir, SystemRoot};
use crate::vars::{self, Environment};

/// Where Debian and Ubuntu's `nvidia-cuda-toolkit` keeps the real nvcc.
const DEBIAN_TOOLKIT_DIR: &str = "/usr/lib/nvidia-cuda-toolkit";

pub fn probe(root: &SystemRoot, env: &Environment, index: &LibraryIndex) -> CudaFacts {
    let mut found: BTreeMap<String, Toolkit> = BTreeMap::new();
    let add = |root_dir: &str, via: String, found: &mut BTreeMap<String, Toolkit>| {
        let resolved = root.resolve(root_dir);
        if resolved.state != LinkState::Ok || !looks_like_toolkit(root, &resolved.path) {
            return;
        }
        let entry = found.entry(resolved.path.clone()).or_insert_with(|| {
            let debian = resolved.path == "/usr";
            Toolkit {
                root: root_dir.to_string(),
                real_root: resolved.path.clone(),
                version: toolkit_version(root, &resolved.path),
                layout: if debian { "debian" } else { "nvidia" }.into(),
                found_via: Vec::new(),
                nvcc: nvcc_path(root, &resolved.path),
            }
        });
        if !entry.found_via.contains(&via) {
            entry.found_via.push(via);
        }
    };

    for parent in ["/usr/local", "/opt"] {
        let Ok(listing) = root.read_dir(parent) else {
            continue;
        };
        for name in &listing.names {
            if name.starts_with("cuda-") || (parent == "/opt" && name.starts_with("cuda")) {
                let dir = join(parent, name);
                add(&dir, dir.clone(), &mut found);
            }
        }
    }
    let usr_local_cuda = link(root, "/usr/local/cuda");
    if usr_local_cuda.state != LinkState::Missing {
        add("/usr/local/cuda", "/usr/local/cuda".into(), &mut found);
    }
    if root.exists(&join(DEBIAN_TOOLKIT_DIR, "bin/nvcc")) {
        add("/usr", "Debian nvidia-cuda-toolkit".into(), &mut found);
    }
    let cuda_home = path_variable(root, env, vars::CUDA_HOME);
    let cuda_path = path_variable(root, env, vars::CUDA_PATH);
    for var in [&cuda_home, &cuda_path].into_iter().flatten() {
        add(&var.value, var.variable.clone(), &mut found);
    }
    let nvcc_on_path = nvcc_on_path(root, env);
    if let Some(n) = &nvcc_on_path {
        if let Some(tk) = &n.toolkit_root {
            add(tk, "nvcc on PATH".into(), &mut found);
        }
    }
    let toolkits: Vec<Toolkit> = found.into_values().collect();
    let mut lib_dirs = Vec::new();
    for t in toolkits.iter().filter(|t| t.layout == "nvidia") {
        lib_dirs.push(join(&t.real_root, "lib64"));
        lib_dirs.push(join(&t.real_root, "lib"));
        lib_dirs.push(join(&t.real_root, "targets/x86_64-linux/lib"));
        lib_dirs.push(join(&t.real_root, "targets/sbsa-linux/lib"));
    }
    CudaFacts {
        runtimes: loader_facing_files(root, index, &lib_dirs, "libcudart"),
        toolkits,
        usr_local_cuda: (usr_local_cuda.state != LinkState::Missing).then_some(usr_local_cuda),
        cuda_home,
        cuda_path,
        nvcc_on_path,
    }
}

/// A symlink (or plain directory) and where it leads.
pub fn link(root: &SystemRoot, path: &str) -> Link {
    let r = root.resolve(path);
    Link {
        path: path.to_string(),
        target: root.read_link(path),
        resolved: (r.state == LinkState::Ok).then_some(r.path),
        state: r.state,
    }
}

fn looks_like_toolkit(root: &SystemRoot, dir: &str) -> bool {
    if dir == "/usr" {
        return root.exists(&join(DEBIAN_TOOLKIT_DIR, "bin/nvcc"));
    }
    [
        "bin/nvcc",
        "version.json",
        "version.txt",
        "include/cuda.h",
        "targets/x86_64-linux/include/cuda.h",
    ]
    .iter()
    .any(|f| root.exists(&join(dir, f)))
}

fn nvcc_path(root: &SystemRoot, dir: &str) -> Option<String> {
    let candidates = if dir == "/usr" {
        vec![
            join(DEBIAN_TOOLKIT_DIR, "bin/nvcc"),
            "/usr/bin/nvcc".to_string(),
        ]
    } else {
        vec![join(dir, "bin/nvcc")]
    };
    candidates.into_iter().find(|p| root.is_file(p))
}

/// The toolkit version, from the most exact file available.
pub fn toolkit_version(root: &SystemRoot, dir: &str) -> Option<Sourced<Version>> {
    let json = join(dir, "version.json");
    if let Some(v) = root
        .read_to_string(&json)
        .ok()
        .and_then(|t| parse::version_json(&t))
    {
        return Some(Sourced::new(v, Source::File(json)));
    }
    let txt = join(dir, "version.txt");
    if let Some(v) = root
        .read_to_string(&txt)
        .ok()
        .and_then(|t| parse::version_txt(&t))
    {
        return Some(Sourced::new(v, Source::File(txt)));
    }
    // Debian's toolkit has neither: its libcudart's file name has the full version, cuda.h the minor.
    let (lib_dirs, headers): (Vec<String>, Vec<String>) = if dir == "/usr" {
        let t = crate::libs::multiarch_triplet();
        (
            vec![format!("/usr/lib/{t}")],
            vec!["/usr/include/cuda.h".into()],
        )
    } else {
        (
            vec![
                join(dir, "lib64"),
                join(dir, "targets/x86_64-linux/lib"),
                join(dir, "lib"),
            ],
            vec![
                join(dir, "include/cuda.h"),
                join(dir, "targets/x86_64-linux/include/cuda.h"),
            ],
        )
    };
    let header_version = headers.iter().find_map(|h| {
        root.read_to_string(h)
            .ok()
            .and_then(|t| parse::cuda_h_version(&t))
            .map(|v| (v, h.clone()))
    });
    for lib_dir in &lib_dirs {
        let Ok(listing) = root.read_dir(lib_dir) else {
            continue;
        };
        let best = listing
            .names
            .iter()
            .filter_map(|n| parse::so_version(n, "libcudart").map(|v| (v, n)))
            .filter(|(v, _)| v.parts().len() >= 3)
            .filter(|(v, _)| {
                header_version
                    .as_ref()
                    .is_none_or(|(h, _)| h.cuda() == v.cuda())
            })
            .max_by(|a, b| a.0.cmp(&b.0));
        if let Some((v, name)) = best {
            return Some(Sourced::new(v, Source::Path(join(lib_dir, name))));
        }
    }
    header_version.map(|(v, h)| Sourced::new(v, Source::File(h)))
}

fn path_variable(root: &SystemRoot, env: &Environment, name: &str) -> Option<PathVariable> {
    let value = env.get_nonempty(name)?;
    let r = root.resolve(value);
    let resolved = (r.state == LinkState::Ok).then(|| r.path.clone());
    Some(PathVariable {
        variable: name.to_string(),
        value: value.to_string(),
        is_toolkit: resolved
            .as_deref()
            .is_some_and(|d| root.is_dir(d) && looks_like_toolkit(root, d)),
        resolved,
        state: r.state,
    })
}

fn nvcc_on_path(root: &SystemRoot, env: &Environment) -> Option<Nvcc> {
    for entry in env.path_list(vars::PATH) {
        if !entry.starts_with('/') {
            continue;
        }
        let path = join(&entry, "nvcc");
        if !root.is_file(&path) {
            continue;
        }
        let r = root.resolve(&path);
        let resolved = (r.state == LinkState::Ok).then(|| r.path.clone());
        let toolkit_root = resolved.as_deref().and_then(|p| {
            // Debian's /usr/bin/nvcc is a wrapper script around /usr/lib/nvidia-cuda-toolkit/bin/nvcc.
            if p == "/usr/bin/nvcc" && root.exists(&join(DEBIAN_TOOLKIT_DIR, "bin/nvcc")) {
                return Some("/usr".to_string());
            }
            let bin = parent_dir(p);
            (file_name(bin) == "bin").then(|| parent_dir(bin).to_string())
        });
        return Some(Nvcc {
            path,
            resolved,
            toolkit_root,
            path_entry: entry,
        });
    }
    None
}
