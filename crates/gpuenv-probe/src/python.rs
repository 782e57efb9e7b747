//! L5–L6 probe: every Python environment on the machine, found without running any interpreter —
//! the active one (`VIRTUAL_ENV`, `CONDA_PREFIX`), the interpreters on `PATH`, conda/mamba
//! installations and their environments, pyenv and uv interpreters, a `.venv` in the current
//! directory, and those named with `--python` — then, for each, its Python version, site-packages,
//! distributions (dist-info, egg-info, conda-meta) and the framework builds in it, from files.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use gpuenv_facts::{
    CondaPackage, Executable, FileConflict, FrameworkFacts, LinkState, OpencvBuild,
    PythonDistribution, PythonEnvironment, PythonFacts, Source, Sourced, TensorflowBuild,
    TorchBuild, VariablePath,
};
use gpuenv_kb::Version;
use gpuenv_python::{conda, frameworks, metadata, names, pyvenv};

use crate::root::{file_name, join, parent_dir, SystemRoot};
use crate::vars::{self, Environment};

/// The biggest metadata file read (a METADATA header, a RECORD).
const MAX_METADATA: u64 = 2 * 1024 * 1024;

/// Which environments doctor reads in full (every distribution's metadata).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum FullSelection {
    /// The active environment (or, with none active, the one `python` on `PATH` belongs to).
    #[default]
    Active,
    All,
    /// Environments whose name or prefix matches.
    Named(Vec<String>),
}

/// What the caller asked for.
#[derive(Debug, Clone, Default)]
pub struct PythonOptions {
    /// `--python PATH`: prefixes or interpreters to include.
    pub extra: Vec<String>,
    pub full: FullSelection,
}

/// Distributions whose versions doctor always reports, even for environments only listed.
const KEY_DISTRIBUTIONS: &[&str] = &[
    "torch",
    "torchvision",
    "torchaudio",
    "tensorflow",
    "tensorflow-cpu",
    "tf-nightly",
    "jax",
    "jaxlib",
    "jax-cuda12-plugin",
    "jax-cuda13-plugin",
    "jax-cuda12-pjrt",
    "jax-cuda13-pjrt",
    "cupy-cuda11x",
    "cupy-cuda12x",
    "cupy-cuda13x",
    "onnxruntime-gpu",
    "onnxruntime",
    "deeplabcut",
    "numpy",
    "opencv-python",
    "opencv-contrib-python",
    "opencv-python-headless",
    "opencv-contrib-python-headless",
    "pyside6",
    "pyqt5",
    "pyqt6",
    "napari",
];

struct Candidate {
    prefix: String,
    via: String,
    name: Option<String>,
}

pub fn probe(root: &SystemRoot, env: &Environment, opts: &PythonOptions) -> PythonFacts {
    let home = env.get_nonempty(vars::HOME).map(str::to_string);
    let mut candidates: Vec<Candidate> = Vec::new();
    let mut add = |prefix: String, via: &str, name: Option<String>| {
        candidates.push(Candidate {
            prefix,
            via: via.to_string(),
            name,
        });
    };
    let mut active: BTreeSet<String> = BTreeSet::new();
    if let Some(p) = env.get_nonempty(vars::VIRTUAL_ENV) {
        add(p.to_string(), vars::VIRTUAL_ENV, None);
        active.insert(root.resolve(p).path);
    }
    if let Some(p) = env.get_nonempty(vars::CONDA_PREFIX) {
        let name = env
            .get_nonempty(vars::CONDA_DEFAULT_ENV)
            .map(str::to_string);
        add(p.to_string(), vars::CONDA_PREFIX, name);
        active.insert(root.resolve(p).path);
    }

    let python_on_path = find_on_path(root, env, &["python3", "python"]);
    let pip_on_path = find_on_path(root, env, &["pip3", "pip"]);
    for dir in env.path_list(vars::PATH) {
        if !dir.starts_with('/') {
            continue;
        }
        if ["python3", "python"]
            .iter()
            .any(|n| root.is_file(&join(&dir, n)))
        {
            // Resolve the directory (merged /usr: /bin -> /usr/bin), not the interpreter, which in
            // a venv links to the base installation.
            if let Some(prefix) = prefix_of_bin_dir(&root.resolve(&dir).path) {
                add(prefix, "PATH", None);
            }
        }
    }

    // conda / mamba installations and their environments.
    let mut conda_roots: Vec<(String, &str)> = Vec::new();
    if let Some(exe) = env.get_nonempty(vars::CONDA_EXE) {
        conda_roots.push((parent_dir(parent_dir(exe)).to_string(), vars::CONDA_EXE));
    }
    if let Some(h) = &home {
        for d in [
            "anaconda3",
            "miniconda3",
            "miniforge3",
            "mambaforge",
            "micromamba",
            ".conda",
        ] {
            conda_roots.push((join(h, d), "conda installation in $HOME"));
        }
        let envs_txt = join(h, ".conda/environments.txt");
        if let Ok(text) = root.read_to_string(&envs_txt) {
            for p in conda::parse_environments_txt(&text) {
                add(p, "~/.conda/environments.txt", None);
            }
        }
        for (dir, via) in [
            (join(h, ".pyenv/versions"), "pyenv"),
            (join(h, ".local/share/uv/python"), "uv-managed interpreters"),
        ] {
            if let Ok(listing) = root.read_dir(&dir) {
                for n in &listing.names {
                    add(join(&dir, n), via, None);
                }
            }
        }
    }
    for d in [
        "/opt/conda",
        "/opt/miniconda3",
        "/opt/miniforge3",
        "/opt/anaconda3",
    ] {
        conda_roots.push((d.to_string(), "conda installation in /opt"));
    }
    for (conda_root, via) in conda_roots {
        if !root.is_dir(&join(&conda_root, "conda-meta")) {
            continue;
        }
        add(conda_root.clone(), via, Some("base".into()));
        if let Ok(listing) = root.read_dir(&join(&conda_root, "envs")) {
            for n in &listing.names {
                add(
                    join(&conda_root, &format!("envs/{n}")),
                    via,
                    Some(n.clone()),
                );
            }
        }
    }
    if let Some(pwd) = env.get_nonempty(vars::PWD) {
        let dot_venv = join(pwd, ".venv");
        if root.is_dir(&dot_venv) {
            add(dot_venv, ".venv in the current directory", None);
        }
    }
    for extra in &opts.extra {
        let prefix = if root.is_file(extra) {
            let resolved = root.resolve(extra).path;
            prefix_of_bin_dir(parent_dir(extra))
                .or_else(|| prefix_of_bin_dir(parent_dir(&resolved)))
        } else {
            Some(extra.clone())
        };
        if let Some(p) = prefix {
            add(p, "--python", None);
        }
    }

    // Merge candidates by resolved prefix; keep only directories that are Python environments.
    let mut by_prefix: BTreeMap<String, PythonEnvironment> = BTreeMap::new();
    let mut order: Vec<String> = Vec::new();
    for c in candidates {
        let resolved = root.resolve(&c.prefix);
        if resolved.state != gpuenv_facts::LinkState::Ok || !root.is_dir(&resolved.path) {
            continue;
        }
        let key = resolved.path.clone();
        if let Some(e) = by_prefix.get_mut(&key) {
            if !e.found_via.contains(&c.via) {
                e.found_via.push(c.via);
            }
            continue;
        }
        let Some(mut e) = describe(root, &c.prefix, &key, home.as_deref()) else {
            continue;
        };
        if let Some(n) = c.name {
            e.name = n;
        }
        e.found_via.push(c.via);
        e.active = active.contains(&key);
        order.push(key.clone());
        by_prefix.insert(key, e);
    }

    let path_env = |exe: &Option<Executable>| {
        exe.as_ref().and_then(|x| {
            x.resolved
                .as_deref()
                .or(Some(x.path.as_str()))
                .map(str::to_string)
        })
    };
    let python_prefix = path_env(&python_on_path)
        .and_then(|p| prefix_of_bin_dir(parent_dir(&p)))
        .or_else(|| pyenv_selected(root, env, home.as_deref(), python_on_path.as_ref()));
    let mut environments: Vec<PythonEnvironment> = order
        .into_iter()
        .filter_map(|k| by_prefix.remove(&k))
        .collect();
    let nothing_active = environments.iter().all(|e| !e.active);
    let chosen: Vec<bool> = environments
        .iter()
        .map(|e| match &opts.full {
            FullSelection::All => true,
            FullSelection::Named(names) => names.iter().any(|n| n == &e.name || n == &e.prefix),
            FullSelection::Active => {
                e.active
                    || (nothing_active
                        && python_prefix
                            .as_deref()
                            .is_some_and(|p| root.resolve(p).path == root.resolve(&e.prefix).path))
            }
        })
        .collect();
    // Environments are independent: read them on a few threads (the work is file I/O).
    let workers = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
        .clamp(1, 8);
    let per_worker = environments.len().div_ceil(workers).max(1);
    std::thread::scope(|scope| {
        for (envs, full) in environments
            .chunks_mut(per_worker)
            .zip(chosen.chunks(per_worker))
        {
            scope.spawn(move || {
                for (e, full) in envs.iter_mut().zip(full) {
                    read_environment(root, e, *full);
                }
            });
        }
    });
    let locate = |exe: Option<Executable>| {
        exe.map(|mut x| {
            let real = x.resolved.clone().unwrap_or_else(|| x.path.clone());
            let candidates = [Some(x.path.clone()), Some(real)];
            x.environment = environments
                .iter()
                .find(|e| {
                    candidates.iter().flatten().any(|p| {
                        prefix_of_bin_dir(parent_dir(p)).is_some_and(|pre| {
                            root.resolve(&pre).path == root.resolve(&e.prefix).path
                        })
                    })
                })
                .map(|e| e.prefix.clone());
            x
        })
    };
    let qt_platform_plugin_path = env
        .get_nonempty(vars::QT_QPA_PLATFORM_PLUGIN_PATH)
        .map(|v| VariablePath {
            variable: vars::QT_QPA_PLATFORM_PLUGIN_PATH.into(),
            value: v.to_string(),
            state: root.resolve(v).state,
        });
    PythonFacts {
        python_on_path: locate(python_on_path),
        pip_on_path: locate(pip_on_path),
        environments,
        qt_platform_plugin_path,
    }
}

/// The pyenv version a `~/.pyenv/shims/python3` shim runs: `PYENV_VERSION`, else the
/// `.python-version` of the current directory, else `$PYENV_ROOT/version`.
fn pyenv_selected(
    root: &SystemRoot,
    env: &Environment,
    home: Option<&str>,
    python: Option<&Executable>,
) -> Option<String> {
    let python = python?;
    let shims = parent_dir(&python.path);
    if file_name(shims) != "shims" {
        return None;
    }
    let pyenv_root = env
        .get_nonempty(vars::PYENV_ROOT)
        .map(str::to_string)
        .or_else(|| home.map(|h| join(h, ".pyenv")))?;
    if root.resolve(shims).path != root.resolve(&join(&pyenv_root, "shims")).path {
        return None;
    }
    let first_line = |path: String| {
        root.read_to_string(&path)
            .ok()
            .and_then(|t| t.lines().next().map(|l| l.trim().to_string()))
            .filter(|l| !l.is_empty())
    };
    let version = env
        .get_nonempty(vars::PYENV_VERSION)
        .map(|v| v.split(':').next().unwrap_or(v).to_string())
        .or_else(|| {
            env.get_nonempty(vars::PWD)
                .and_then(|pwd| first_line(join(pwd, ".python-version")))
        })
        .or_else(|| first_line(join(&pyenv_root, "version")))?;
    Some(join(&pyenv_root, &format!("versions/{version}")))
}

/// `/x/bin` -> `/x` (the environment prefix of an interpreter's directory).
fn prefix_of_bin_dir(dir: &str) -> Option<String> {
    let dir = dir.trim_end_matches('/');
    (file_name(dir) == "bin").then(|| {
        let p = parent_dir(dir);
        if p.is_empty() {
            "/".to_string()
        } else {
            p.to_string()
        }
    })
}

fn find_on_path(root: &SystemRoot, env: &Environment, names: &[&str]) -> Option<Executable> {
    for dir in env.path_list(vars::PATH) {
        if !dir.starts_with('/') {
            continue;
        }
        for n in names {
            let path = join(&dir, n);
            if !root.is_file(&path) {
                continue;
            }
            let r = root.resolve(&path);
            let shebang = root
                .read_bytes(&path, 256)
                .ok()
                .filter(|b| b.starts_with(b"#!"))
                .and_then(|b| {
                    let line = String::from_utf8_lossy(&b)
                        .lines()
                        .next()
                        .map(str::to_string)?;
                    Some(line.trim_start_matches("#!").trim().to_string())
                });
            return Some(Executable {
                path,
                resolved: Some(r.path),
                environment: None,
                shebang,
            });
        }
    }
    None
}

/// Recognises a Python environment at `prefix` (resolved `real`) and reads its identity.
fn describe(
    root: &SystemRoot,
    prefix: &str,
    real: &str,
    home: Option<&str>,
) -> Option<PythonEnvironment> {
    let cfg_path = join(real, "pyvenv.cfg");
    let cfg = root
        .read_to_string(&cfg_path)
        .ok()
        .map(|t| pyvenv::parse_pyvenv_cfg(&t));
    let conda_meta = join(real, "conda-meta");
    let is_conda = root.is_dir(&conda_meta);
    let lib_version = lib_python_version(root, real);
    let has_python = ["bin/python3", "bin/python"]
        .iter()
        .any(|p| root.exists(&join(real, p)));
    if cfg.is_none() && !is_conda && lib_version.is_none() && !has_python {
        return None;
    }
    let under = |dir: &str| home.is_some_and(|h| real.starts_with(&join(h, dir)));
    let kind = match &cfg {
        Some(c) if c.creator == "uv" => "uv-venv",
        Some(c) if c.creator == "virtualenv" => "virtualenv",
        Some(_) => "venv",
        None if is_conda && root.is_dir(&join(real, "condabin")) => "conda-base",
        None if is_conda => "conda",
        None if under(".pyenv/versions") => "pyenv",
        None if under(".local/share/uv/python") => "uv-python",
        None => "system",
    };
    let mut python_version = cfg
        .as_ref()
        .and_then(|c| c.version.as_deref())
        .and_then(|v| v.parse::<Version>().ok())
        .map(|v| Sourced::new(v, Source::File(cfg_path.clone())));
    if python_version.is_none() && is_conda {
        if let Ok(listing) = root.read_dir(&conda_meta) {
            python_version = listing.names.iter().find_map(|n| {
                let rest = n.strip_prefix("python-")?;
                let v: Version = rest.split('-').next()?.parse().ok()?;
                Some(Sourced::new(v, Source::Path(join(&conda_meta, n))))
            });
        }
    }
    if python_version.is_none() {
        python_version = lib_version.map(|(v, p)| Sourced::new(v, Source::Path(p)));
    }
    let name = match kind {
        "system" if real == "/usr" || real == "/usr/local" => format!("system ({real})"),
        "pyenv" => format!("pyenv {}", file_name(prefix)),
        "uv-python" => format!("uv {}", file_name(prefix)),
        _ => file_name(prefix).to_string(),
    };
    Some(PythonEnvironment {
        name,
        prefix: prefix.to_string(),
        kind: kind.into(),
        found_via: Vec::new(),
        active: false,
        full: false,
        site_packages: site_packages(root, real, python_version.as_ref().map(|v| &v.value)),
        python_version,
        base_home: cfg.and_then(|c| c.home),
        distributions: Vec::new(),
        conda_packages: Vec::new(),
        frameworks: FrameworkFacts::default(),
        file_conflicts: Vec::new(),
        cuda_libraries: Vec::new(),
        errors: Vec::new(),
    })
}

/// The newest `lib/pythonX.Y` directory of a prefix.
fn lib_python_version(root: &SystemRoot, prefix: &str) -> Option<(Version, String)> {
    let lib = join(prefix, "lib");
    let listing = root.read_dir(&lib).ok()?;
    listing
        .names
        .iter()
        .filter_map(|n| {
            let v: Version = n.strip_prefix("python")?.parse().ok()?;
            (v.parts().len() == 2 && v.major() >= 2).then(|| (v, join(&lib, n)))
        })
        .max_by(|a, b| a.0.cmp(&b.0))
}

/// The site-packages directories of an environment (`lib` and `lib64` when they differ; Debian's
/// `dist-packages` for the system interpreter).
fn site_packages(root: &SystemRoot, prefix: &str, version: Option<&Version>) -> Vec<String> {
    let mut dirs: Vec<String> = Vec::new();
    let mut seen = BTreeSet::new();
    let mut push = |d: String| {
        if root.is_dir(&d) && seen.insert(root.resolve(&d).path) {
            dirs.push(d);
        }
    };
    let mm = version.map(|v| format!("{}.{}", v.major(), v.minor()));
    if let Some(mm) = &mm {
        for lib in ["lib", "lib64"] {
            push(join(prefix, &format!("{lib}/python{mm}/site-packages")));
        }
        if prefix == "/usr" || prefix == "/usr/local" {
            push(format!("/usr/local/lib/python{mm}/dist-packages"));
            push(format!("/usr/lib/python{mm}/dist-packages"));
        }
    }
    if prefix == "/usr" || prefix == "/usr/local" {
        push("/usr/lib/python3/dist-packages".into());
    }
    dirs
}

/// Reads an environment's distributions, conda records and framework files. `full` reads every
/// distribution's metadata; otherwise only names and versions (from directory names) and the
/// framework files are read.
fn read_environment(root: &SystemRoot, e: &mut PythonEnvironment, full: bool) {
    e.full = full;
    // RECORD texts read so far, by metadata directory (full reads only).
    let mut records: BTreeMap<String, String> = BTreeMap::new();
    for site in e.site_packages.clone() {
        let Ok(listing) = root.read_dir(&site) else {
            e.errors.push(format!("{site}: cannot list"));
            continue;
        };
        for entry in &listing.names {
            let Some((raw_name, raw_version)) = names::split_dist_info_name(entry) else {
                continue;
            };
            let key = names::normalize_name(raw_name);
            let dir = join(&site, entry);
            let wanted = full || KEY_DISTRIBUTIONS.contains(&key.as_str()) || key == "cuda-toolkit";
            let mut dist = PythonDistribution {
                name: raw_name.to_string(),
                key: key.clone(),
                version: raw_version.to_string(),
                metadata_dir: dir.clone(),
                installer: None,
                requires_dist: Vec::new(),
                requires_python: None,
                top_level: Vec::new(),
                direct_url: None,
            };
            if wanted {
                // Without top_level.txt the modules come from RECORD, which is then kept for the
                // file-conflict map; with it, RECORD is read only if another distribution
                // shares a top-level name (below).
                if let Some(text) = read_distribution(root, &mut dist, e) {
                    records.insert(dist.metadata_dir.clone(), text);
                }
            }
            e.distributions.push(dist);
        }
        read_frameworks(root, &site, e);
    }
    e.distributions
        .sort_by(|a, b| a.key.cmp(&b.key).then(a.metadata_dir.cmp(&b.metadata_dir)));
    if full {
        e.file_conflicts = file_conflicts(&shared_records(root, &e.distributions, records));
    }
    for d in &e.distributions {
        if KEY_DISTRIBUTIONS.contains(&d.key.as_str()) {
            e.frameworks
                .packages
                .entry(d.key.clone())
                .or_insert_with(|| d.version.clone());
        }
    }
    if let Some(t) = e.frameworks.torch.as_mut() {
        t.cuda_pins = torch_cuda_pins(&e.distributions);
    }
    if full {
        e.cuda_libraries = cuda_libraries(root, e);
    }
    if full {
        let meta = join(&e.prefix, "conda-meta");
        if let Ok(listing) = root.read_dir(&meta) {
            for n in listing.names.iter().filter(|n| n.ends_with(".json")) {
                let path = join(&meta, n);
                match root
                    .read_to_string(&path)
                    .map(|t| conda::parse_conda_record(&t))
                {
                    Ok(Ok(r)) => e.conda_packages.push(CondaPackage {
                        name: r.name,
                        version: r.version,
                        build: r.build,
                        channel: r.channel,
                        record: path,
                    }),
                    Ok(Err(err)) => e.errors.push(format!("{path}: {err}")),
                    Err(err) => e.errors.push(err.to_string()),
                }
            }
        }
    }
}

/// The CUDA libraries an environment holds itself: every `lib*.so*` in `site-packages/nvidia/*/lib`
/// (pip's nvidia-* wheels; CUDA 13's share `nvidia/cu13/lib`) and, where the prefix has a
/// `conda-meta`, the `libcu*`/`libnv*`/`libnccl*` files of its `lib` (conda's cudnn, cudatoolkit,
/// cuda-cudart, libcublas ... packages). Dangling and looping links do not count.
fn cuda_libraries(root: &SystemRoot, e: &PythonEnvironment) -> Vec<String> {
    let is_library = |name: &str| name.starts_with("lib") && name.contains(".so");
    let mut out = Vec::new();
    for site in &e.site_packages {
        let nvidia = join(site, "nvidia");
        let Ok(packages) = root.read_dir(&nvidia) else {
            continue;
        };
        for package in &packages.names {
            let lib = join(&join(&nvidia, package), "lib");
            if let Ok(files) = root.read_dir(&lib) {
                out.extend(
                    files
                        .names
                        .iter()
                        .filter(|n| is_library(n))
                        .map(|n| join(&lib, n)),
                );
            }
        }
    }
    if root.read_dir(&join(&e.prefix, "conda-meta")).is_ok() {
        let lib = join(&e.prefix, "lib");
        if let Ok(files) = root.read_dir(&lib) {
            out.extend(
                files
                    .names
                    .iter()
                    .filter(|n| {
                        is_library(n)
                            && (n.starts_with("libcu")
                                || n.starts_with("libnv")
                                || n.starts_with("libnccl"))
                    })
                    .map(|n| join(&lib, n)),
            );
        }
    }
    out.retain(|path| root.resolve(path).state == LinkState::Ok);
    out.sort();
    out.dedup();
    out
}

/// Reads a distribution's metadata; returns its RECORD text when it had to read it (no
/// `top_level.txt`).
fn read_distribution(
    root: &SystemRoot,
    d: &mut PythonDistribution,
    e: &mut PythonEnvironment,
) -> Option<String> {
    let dir = d.metadata_dir.clone();
    let meta_text = if root.is_dir(&dir) {
        root.read_bytes(&join(&dir, "METADATA"), MAX_METADATA)
            .or_else(|_| root.read_bytes(&join(&dir, "PKG-INFO"), MAX_METADATA))
    } else {
        // An egg-info file is the PKG-INFO itself.
        root.read_bytes(&dir, MAX_METADATA)
    };
    match meta_text {
        Ok(bytes) => {
            let m = metadata::parse_metadata(&String::from_utf8_lossy(&bytes));
            if let Some(n) = m.name {
                d.name = n;
                d.key = names::normalize_name(&d.name);
            }
            if let Some(v) = m.version {
                d.version = v;
            }
            d.requires_dist = m.requires_dist;
            d.requires_python = m.requires_python;
        }
        Err(err) => e
            .errors
            .push(format!("{dir}: no readable METADATA ({err})")),
    }
    d.installer = root
        .read_to_string(&join(&dir, "INSTALLER"))
        .ok()
        .map(|t| t.trim().to_string())
        .filter(|t| !t.is_empty());
    let mut record = None;
    d.top_level = match root.read_to_string(&join(&dir, "top_level.txt")) {
        Ok(t) => t
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .map(str::to_string)
            .collect(),
        Err(_) => match root.read_bytes(&join(&dir, "RECORD"), MAX_METADATA) {
            Ok(b) => {
                let text = String::from_utf8_lossy(&b).into_owned();
                let modules = metadata::top_level_from_record(&text);
                record = Some(text);
                modules
            }
            Err(_) => Vec::new(),
        },
    };
    d.direct_url = root
        .read_to_string(&join(&dir, "direct_url.json"))
        .ok()
        .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
        .and_then(|v| {
            v.get("url")
                .and_then(|u| u.as_str())
                .map(strip_url_credentials)
        });
    record
}

/// A URL without its credentials (`https://user:token@host/x` -> `https://host/x`), as PEP 610
/// asks installers to record it; not every installer does, and a report must not carry a token.
/// `git@` and `${VAR}` placeholders are kept.
pub fn strip_url_credentials(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_string();
    };
    let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    match rest[..authority_end].rfind('@') {
        Some(at) => {
            let user = &rest[..at];
            if user == "git" || (user.starts_with("${") && user.ends_with('}')) {
                url.to_string()
            } else {
                format!("{scheme}://{}", &rest[at + 1..])
            }
        }
        None => url.to_string(),
    }
}

fn read_frameworks(root: &SystemRoot, site: &str, e: &mut PythonEnvironment) {
    let version_py = join(site, "torch/version.py");
    if e.frameworks.torch.is_none() {
        if let Ok(text) = root.read_to_string(&version_py) {
            let t = frameworks::parse_torch_version_py(&text);
            if let Some(v) = t.version {
                let cuda_libraries = if t.cuda.is_none() {
                    "none"
                } else if root.is_dir(&join(site, "nvidia")) {
                    "wheels"
                } else if root.read_dir(&join(site, "torch/lib")).is_ok_and(|l| {
                    l.names
                        .iter()
                        .any(|n| n.starts_with("libcudart") || n.starts_with("libcudnn"))
                }) {
                    "bundled"
                } else {
                    "system"
                };
                e.frameworks.torch = Some(TorchBuild {
                    version: Sourced::new(v, Source::File(version_py)),
                    cuda: t.cuda,
                    hip: t.hip,
                    cuda_pins: BTreeMap::new(),
                    cuda_libraries: cuda_libraries.into(),
                    site_packages: site.to_string(),
                });
            }
        }
    }
    let build_info = join(site, "tensorflow/python/platform/build_info.py");
    if e.frameworks.tensorflow.is_none() {
        if let Ok(text) = root.read_to_string(&build_info) {
            let b = frameworks::tf_build_info(&text);
            let version = e
                .distributions
                .iter()
                .find(|d| {
                    matches!(
                        d.key.as_str(),
                        "tensorflow" | "tensorflow-cpu" | "tf-nightly"
                    )
                })
                .map(|d| d.version.clone())
                .unwrap_or_default();
            e.frameworks.tensorflow = Some(TensorflowBuild {
                version,
                is_cuda_build: b.is_cuda_build,
                cuda_version: b.cuda_version,
                cudnn_version: b.cudnn_version,
                compute_capabilities: b.cuda_compute_capabilities,
                source: build_info,
            });
        }
    }
    let cv2 = join(site, "cv2/version.py");
    if e.frameworks.opencv.is_none() {
        if let Ok(text) = root.read_to_string(&cv2) {
            let v = frameworks::parse_cv2_version_py(&text);
            e.frameworks.opencv = Some(OpencvBuild {
                version: v.version,
                contrib: v.contrib,
                headless: v.headless,
                source: cv2,
            });
        }
    }
}

/// torch's CUDA pins: its own `nvidia-*` requirements, and for torch >= 2.11 those of the
/// `cuda-toolkit[extras]==X` it requires (read from `cuda_toolkit`'s METADATA under each extra).
fn torch_cuda_pins(dists: &[PythonDistribution]) -> BTreeMap<String, String> {
    let mut pins = BTreeMap::new();
    let Some(torch) = dists.iter().find(|d| d.key == "torch") else {
        return pins;
    };
    let mut toolkit_extras: Vec<String> = Vec::new();
    for req in &torch.requires_dist {
        let spec = req.split(';').next().unwrap_or(req).trim();
        let name_end = spec
            .find(|c: char| !(c.is_alphanumeric() || c == '-' || c == '_' || c == '.'))
            .unwrap_or(spec.len());
        let name = names::normalize_name(&spec[..name_end]);
        let rest = spec[name_end..].trim();
        if name == "cuda-toolkit" {
            if let Some(extras) = rest.strip_prefix('[').and_then(|r| r.split(']').next()) {
                toolkit_extras = extras.split(',').map(|x| x.trim().to_string()).collect();
            }
            pins.insert(
                name,
                rest.trim_start_matches(|c| c != ']')
                    .trim_start_matches(']')
                    .trim()
                    .to_string(),
            );
        } else if name.starts_with("nvidia-") {
            pins.insert(
                name,
                rest.trim_matches(|c| c == '(' || c == ')' || c == ' ')
                    .to_string(),
            );
        }
    }
    if let Some(tk) = dists.iter().find(|d| d.key == "cuda-toolkit") {
        for req in &tk.requires_dist {
            let Some((spec, marker)) = req.split_once(';') else {
                continue;
            };
            let applies = toolkit_extras.iter().any(|x| {
                marker.contains(&format!("extra == '{x}'"))
                    || marker.contains(&format!("extra == \"{x}\""))
            });
            if !applies {
                continue;
            }
            let spec = spec.trim();
            let name_end = spec
                .find(|c: char| !(c.is_alphanumeric() || c == '-' || c == '_' || c == '.'))
                .unwrap_or(spec.len());
            pins.insert(
                names::normalize_name(&spec[..name_end]),
                spec[name_end..].trim().to_string(),
            );
        }
    }
    pins
}

/// The RECORDs of the distributions that share a top-level name with another one (the only ones
/// that can have overwritten each other's files), reading those not read yet. A `top_level.txt`
/// that leaves a module out hides that module from this comparison.
fn shared_records(
    root: &SystemRoot,
    dists: &[PythonDistribution],
    mut records: BTreeMap<String, String>,
) -> Vec<(String, String)> {
    let mut owners: BTreeMap<&str, usize> = BTreeMap::new();
    for d in dists {
        for t in &d.top_level {
            *owners.entry(t.as_str()).or_default() += 1;
        }
    }
    let mut out = Vec::new();
    for d in dists {
        if !d
            .top_level
            .iter()
            .any(|t| owners.get(t.as_str()).is_some_and(|n| *n > 1))
        {
            continue;
        }
        let text = match records.remove(&d.metadata_dir) {
            Some(t) => t,
            None => match root.read_bytes(&join(&d.metadata_dir, "RECORD"), MAX_METADATA) {
                Ok(b) => String::from_utf8_lossy(&b).into_owned(),
                Err(_) => continue,
            },
        };
        out.push((d.name.clone(), text));
    }
    out
}

/// Groups files that several distributions installed with different hashes by top-level name.
/// `records` holds each distribution's name and RECORD text; the map borrows from them, so tens
/// of thousands of entries cost no copies.
fn file_conflicts(records: &[(String, String)]) -> Vec<FileConflict> {
    let entries: usize = records.iter().map(|(_, t)| t.len() / 64).sum();
    let mut first: HashMap<&str, (usize, &str)> = HashMap::with_capacity(entries);
    let mut groups: BTreeMap<(String, Vec<String>), (usize, String)> = BTreeMap::new();
    for (owner, (_, text)) in records.iter().enumerate() {
        for (path, hash) in gpuenv_python::metadata::record_entries_iter(text) {
            let (other, other_hash) = *first.entry(path).or_insert((owner, hash));
            if other == owner || other_hash == hash {
                continue;
            }
            let mut dists = vec![records[other].0.clone(), records[owner].0.clone()];
            dists.sort();
            dists.dedup();
            let top = path.split('/').next().unwrap_or(path).to_string();
            let entry = groups.entry((top, dists)).or_insert((0, path.to_string()));
            entry.0 += 1;
        }
    }
    groups
        .into_iter()
        .map(
            |((top_level, distributions), (files, example))| FileConflict {
                top_level,
                distributions,
                files,
                example,
            },
        )
        .collect()
}
