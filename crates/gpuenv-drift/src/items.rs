//! Facts flattened into comparable items: one per thing a person would name ("cuDNN in
//! /usr/lib/x86_64-linux-gnu", "numpy in env ml"), each with a stable key, a layer, the
//! environment it belongs to, the value a person reads and, for files, an exact identity
//! (size and ELF build id) that tells two builds of one version apart.

use std::collections::BTreeMap;

use gpuenv_check::Layer;
use gpuenv_facts::{Facts, LibraryFile, LinkState, PythonEnvironment};

/// One comparable thing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Item {
    pub layer: Layer,
    /// The Python environment's prefix, for L5 items.
    pub environment: Option<String>,
    /// What a person calls it.
    pub subject: String,
    /// Its state in words (a version, a path, `yes`).
    pub value: String,
    /// The exact file behind it (size, build id), compared only when `value` is equal.
    pub identity: Option<String>,
}

/// Variables that shape which libraries load; `PATH` and the activation variables are left out
/// (a cron job and a login shell differ there without the stack changing).
const VARIABLES: &[&str] = &[
    "LD_LIBRARY_PATH",
    "LD_PRELOAD",
    "CUDA_HOME",
    "CUDA_PATH",
    "CUDA_VISIBLE_DEVICES",
    "NVIDIA_VISIBLE_DEVICES",
    "XLA_FLAGS",
    "TF_FORCE_GPU_ALLOW_GROWTH",
];

/// Every item of `facts`, by stable key (`L4:cudnn:/usr/lib/x86_64-linux-gnu`,
/// `L5:/home/u/venv:dist:numpy`).
pub fn items(facts: &Facts) -> BTreeMap<String, Item> {
    let mut out = Items(BTreeMap::new());
    // L0
    let os = &facts.os;
    if let Some(k) = &os.kernel_release {
        out.add(Layer::Os, "os:kernel", "kernel", k.value.clone());
    }
    if let Some(d) = &os.distribution {
        let v = if d.value.pretty_name.is_empty() {
            format!("{} {}", d.value.id, d.value.version_id)
        } else {
            d.value.pretty_name.clone()
        };
        out.add(Layer::Os, "os:distribution", "distribution", v);
    }
    if let Some(c) = &os.container {
        out.add(Layer::Os, "os:container", "container", c.value.clone());
    }
    if let Some(sb) = &os.secure_boot {
        out.add(Layer::Os, "os:secure-boot", "Secure Boot", on(sb.value));
    }
    if let Some(n) = &os.nouveau.loaded {
        out.add(Layer::Os, "os:nouveau", "nouveau loaded", on(n.value));
    }
    for m in &os.nvidia_module_files {
        let v = m
            .version
            .as_ref()
            .map_or("present".into(), |v| v.to_string());
        out.add(
            Layer::Os,
            &format!("os:module-file:{}", m.path),
            &format!("NVIDIA kernel module file {}", m.path),
            v,
        );
    }
    for d in &os.device_nodes {
        let v = if !d.exists {
            "missing".to_string()
        } else {
            let mode = d
                .mode
                .map_or(String::new(), |m| format!("mode {:o}", m & 0o7777));
            match d.accessible {
                Some(false) => format!("{mode}, not accessible to the user"),
                _ => mode,
            }
        };
        out.add(Layer::Os, &format!("os:dev:{}", d.path), &d.path, v);
    }
    // L1
    let drv = &facts.driver;
    if let Some(m) = &drv.kernel_module {
        out.add(
            Layer::Driver,
            "driver:kernel-module",
            "loaded NVIDIA kernel module",
            m.version.value.to_string(),
        );
    }
    if let Some(v) = &drv.userspace_version {
        out.add(
            Layer::Driver,
            "driver:userspace",
            "userspace driver",
            v.value.to_string(),
        );
    }
    if let Some(v) = &drv.cuda_driver_version {
        out.add(
            Layer::Driver,
            "driver:cuda",
            "CUDA version the driver supports",
            v.value.to_string(),
        );
    }
    for lib in drv.userspace.iter().filter(|l| l.selected) {
        let v = lib
            .version
            .as_ref()
            .map(|v| v.to_string())
            .or_else(|| lib.real_path.clone())
            .unwrap_or_else(|| state(lib.link_state).to_string());
        out.add(
            Layer::Driver,
            &format!("driver:lib:{}", lib.soname),
            &format!("{} (loader's pick: {})", lib.soname, lib.path),
            v,
        );
    }
    // L2
    for g in &facts.gpus.devices {
        let name = g
            .name
            .as_ref()
            .map_or("unknown GPU".into(), |n| n.value.clone());
        let cc =
            g.cc.as_ref()
                .map_or(String::new(), |c| format!(", cc {}", c.value));
        let bound = g
            .bound_driver
            .as_ref()
            .map_or(", no driver bound".into(), |b| {
                format!(", driver {}", b.value)
            });
        out.add(
            Layer::Gpu,
            &format!("gpu:{}", g.pci_address),
            &format!("GPU {}", g.pci_address),
            format!("{name}{cc}{bound}"),
        );
    }
    // L3
    let cuda = &facts.cuda;
    for t in &cuda.toolkits {
        let v = t
            .version
            .as_ref()
            .map_or("unknown version".into(), |v| v.value.to_string());
        out.add(
            Layer::Cuda,
            &format!("cuda:toolkit:{}", t.root),
            &format!("CUDA toolkit {}", t.root),
            v,
        );
    }
    if let Some(l) = &cuda.usr_local_cuda {
        let v = l
            .resolved
            .clone()
            .unwrap_or_else(|| state(l.state).to_string());
        out.add(Layer::Cuda, "cuda:usr-local-cuda", "/usr/local/cuda", v);
    }
    if let Some(n) = &cuda.nvcc_on_path {
        out.add(
            Layer::Cuda,
            "cuda:nvcc",
            "nvcc on PATH",
            n.resolved.clone().unwrap_or_else(|| n.path.clone()),
        );
    }
    for f in &cuda.runtimes {
        out.library(Layer::Cuda, "cuda:runtime", "CUDA runtime", f);
    }
    // L4
    for c in &facts.libraries.cudnn {
        let v = c
            .version
            .as_ref()
            .map_or("unknown version".into(), |v| v.value.to_string());
        let v = match &c.cuda_major {
            Some(m) => format!("{v} (for CUDA {})", m.value),
            None => v,
        };
        let identity = c.shim.as_ref().and_then(identity);
        out.insert(
            format!("L4:cudnn:{}:{}", c.major, c.dir),
            Item {
                layer: Layer::Libraries,
                environment: None,
                subject: format!("cuDNN in {}", c.dir),
                value: v,
                identity,
            },
        );
        if c.loader_selected {
            out.add(
                Layer::Libraries,
                &format!("libs:cudnn-selected:{}", c.major),
                &format!("libcudnn.so.{} the system loader picks", c.major),
                c.dir.clone(),
            );
        }
        for sub in &c.sublibraries {
            out.library(Layer::Libraries, "libs:cudnn-sub", "cuDNN sub-library", sub);
        }
    }
    for (stem, files) in &facts.libraries.other {
        for f in files {
            out.library(Layer::Libraries, &format!("libs:{stem}"), stem, f);
        }
    }
    // L5
    for e in &facts.python.environments {
        environment(&mut out, e);
    }
    // Which `python` is first on PATH depends on the calling shell (cron, a login, an activated
    // environment), not on the machine: left out.
    // Environment variables that change what loads.
    for name in VARIABLES {
        if let Some(v) = facts.env.variables.get(*name) {
            out.add(
                Layer::Os,
                &format!("env:{name}"),
                &format!("environment variable {name}"),
                v.clone(),
            );
        }
    }
    out.0
}

fn environment(out: &mut Items, e: &PythonEnvironment) {
    let prefix = e.prefix.clone();
    let py = e
        .python_version
        .as_ref()
        .map_or(String::new(), |v| format!(", Python {}", v.value));
    let torch = e
        .frameworks
        .torch
        .as_ref()
        .map_or(String::new(), |t| format!(", torch {}", t.version.value));
    let mut add = |key: String, subject: String, value: String, identity: Option<String>| {
        out.insert(
            format!("L5:{prefix}:{key}"),
            Item {
                layer: Layer::Python,
                environment: Some(prefix.clone()),
                subject,
                value,
                identity,
            },
        );
    };
    add(
        "env".into(),
        format!("Python environment {} ({})", e.name, e.prefix),
        format!("{}{py}{torch}", e.kind),
        None,
    );
    if !e.full {
        return;
    }
    for d in &e.distributions {
        let installer = d.installer.as_deref().map(|i| format!("by {i}"));
        add(
            format!("dist:{}", d.key),
            format!("{} in {}", d.name, e.name),
            d.version.clone(),
            installer,
        );
    }
    for c in &e.conda_packages {
        add(
            format!("conda:{}", c.name),
            format!("conda package {} in {}", c.name, e.name),
            format!("{} ({})", c.version, c.build),
            c.channel.clone(),
        );
    }
    let fw = &e.frameworks;
    if let Some(t) = &fw.torch {
        let cuda = t
            .cuda
            .as_deref()
            .map_or("CPU-only build".into(), |c| format!("CUDA {c}"));
        add(
            "torch".into(),
            format!("torch build in {}", e.name),
            format!(
                "{} ({cuda}, CUDA libraries: {})",
                t.version.value, t.cuda_libraries
            ),
            None,
        );
    }
    if let Some(t) = &fw.tensorflow {
        let cuda = match t.is_cuda_build {
            Some(false) => "CPU-only build".to_string(),
            _ => t
                .cuda_version
                .as_deref()
                .map_or("CUDA build".into(), |c| format!("CUDA {c}")),
        };
        add(
            "tensorflow".into(),
            format!("TensorFlow build in {}", e.name),
            format!("{} ({cuda})", t.version),
            None,
        );
    }
    for b in &fw.binaries {
        for lib in &b.libraries {
            add(
                format!("load:{}:{}", b.path, lib.name),
                format!("{} loads {}", short(&b.path), lib.name),
                lib.real_path.clone(),
                None,
            );
        }
        for m in &b.missing {
            add(
                format!("load:{}:{}", b.path, m.name),
                format!("{} loads {}", short(&b.path), m.name),
                "not found".into(),
                None,
            );
        }
    }
}

struct Items(BTreeMap<String, Item>);

impl Items {
    fn insert(&mut self, key: String, item: Item) {
        self.0.insert(key, item);
    }

    fn add(&mut self, layer: Layer, key: &str, subject: &str, value: String) {
        self.insert(
            format!("{}:{key}", layer.code()),
            Item {
                layer,
                environment: None,
                subject: subject.to_string(),
                value,
                identity: None,
            },
        );
    }

    fn library(&mut self, layer: Layer, key: &str, what: &str, f: &LibraryFile) {
        let name = f.path.rsplit('/').next().unwrap_or(&f.path);
        let value = match (&f.version, f.link_state) {
            (Some(v), LinkState::Ok) => v.to_string(),
            (None, LinkState::Ok) => f.real_path.as_deref().map_or("present".into(), |p| {
                p.rsplit('/').next().unwrap_or(p).to_string()
            }),
            (_, s) => state(s).to_string(),
        };
        self.insert(
            format!("{}:{key}:{}", layer.code(), f.path),
            Item {
                layer,
                environment: None,
                subject: format!("{what} {name} in {}", f.dir),
                value,
                identity: identity(f),
            },
        );
    }
}

/// Size and build id, when the file was read.
fn identity(f: &LibraryFile) -> Option<String> {
    match (&f.build_id, f.size) {
        (None, None) => None,
        (b, s) => Some(format!(
            "build-id {}, {} bytes",
            b.as_deref().unwrap_or("none"),
            s.map_or("?".into(), |s| s.to_string())
        )),
    }
}

fn on(b: bool) -> String {
    if b { "yes" } else { "no" }.to_string()
}

fn state(s: LinkState) -> &'static str {
    match s {
        LinkState::Ok => "present",
        LinkState::Dangling => "a dangling link",
        LinkState::Loop => "a symlink loop",
        LinkState::Missing => "missing",
    }
}

/// The last two components of a path (`torch/lib/libtorch_cuda.so` → `lib/libtorch_cuda.so`).
fn short(path: &str) -> &str {
    let mut cut = path.len();
    for _ in 0..3 {
        match path[..cut].rfind('/') {
            Some(i) => cut = i,
            None => return path,
        }
    }
    &path[cut + 1..]
}
