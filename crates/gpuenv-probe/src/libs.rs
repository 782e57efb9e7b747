//! The system loader's view of shared libraries, built once per run: `ld.so.cache` (parsed from the
//! root, never via `ldconfig -p`), the `LD_LIBRARY_PATH` entries and the default directories. Other
//! probes ask it for every file whose name matches a library stem and learn, for each, how the
//! loader reaches it. It also reads the ELF facts of a file (SONAME, NEEDED) through a memory map.

use std::collections::{BTreeMap, BTreeSet};

use gpuenv_elf::{parse_ld_so_cache, read_elf_info, CacheArch, LdCache};
use gpuenv_facts::{LibraryFile, LinkState, ProbeError};
use gpuenv_kb::Version;

use crate::parse;
use crate::root::{file_name, join, parent_dir, SystemRoot};
use crate::vars::{Environment, LD_LIBRARY_PATH};

pub const VIA_CACHE: &str = "ld.so.cache";
pub const VIA_LD_LIBRARY_PATH: &str = "LD_LIBRARY_PATH";
pub const VIA_DEFAULT: &str = "default directory";

/// The GNU multiarch triplet of the machine gpuenv runs on (probes assume the root is the same arch).
pub fn multiarch_triplet() -> &'static str {
    match std::env::consts::ARCH {
        "aarch64" => "aarch64-linux-gnu",
        "powerpc64" => "powerpc64le-linux-gnu",
        _ => "x86_64-linux-gnu",
    }
}

fn host_cache_arch() -> CacheArch {
    match std::env::consts::ARCH {
        "aarch64" => CacheArch::Aarch64,
        "powerpc64" => CacheArch::Ppc64,
        _ => CacheArch::X86_64,
    }
}

/// The trusted directories glibc searches last. glibc compiles them in per distribution (Debian:
/// `/lib/<triplet>`, `/usr/lib/<triplet>`, `/lib`, `/usr/lib`; Fedora/RHEL: `/lib64`, `/usr/lib64`);
/// gpuenv takes the union, and the ELF class check filters out 32-bit libraries.
pub fn default_dirs() -> Vec<String> {
    let t = multiarch_triplet();
    vec![
        format!("/lib/{t}"),
        format!("/usr/lib/{t}"),
        "/lib64".into(),
        "/usr/lib64".into(),
        "/lib".into(),
        "/usr/lib".into(),
    ]
}

/// One directory the loader searches, listed once.
#[derive(Debug, Clone)]
struct SearchDir {
    /// As configured (`/lib/x86_64-linux-gnu`).
    dir: String,
    /// Resolved inside the root (`/usr/lib/x86_64-linux-gnu` on merged-/usr systems).
    resolved: String,
    via: &'static str,
    names: Vec<String>,
}

/// The loader's view of the machine's libraries.
#[derive(Debug)]
pub struct LibraryIndex {
    pub cache: Option<LdCache>,
    dirs: Vec<SearchDir>,
}

/// A candidate library file and how the loader reaches it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    /// The path as the loader would open it.
    pub path: String,
    /// The resolved directory + file name (the identity used to merge duplicates).
    pub key: String,
    pub via: BTreeSet<&'static str>,
}

impl LibraryIndex {
    /// Reads `ld.so.cache` and lists the search directories.
    pub fn build(
        root: &SystemRoot,
        env: &Environment,
        errors: &mut Vec<ProbeError>,
    ) -> LibraryIndex {
        let cache = match root.read_bytes("/etc/ld.so.cache", 64 * 1024 * 1024) {
            Ok(bytes) => match parse_ld_so_cache(&bytes) {
                Ok(c) => Some(c),
                Err(e) => {
                    errors.push(ProbeError {
                        probe: "libraries".into(),
                        subject: "/etc/ld.so.cache".into(),
                        message: e.to_string(),
                    });
                    None
                }
            },
            Err(_) => None,
        };
        let mut dirs = Vec::new();
        let mut seen = BTreeSet::new();
        let mut add = |dir: String, via: &'static str, dirs: &mut Vec<SearchDir>| {
            if !dir.starts_with('/') {
                return;
            }
            let Ok(listing) = root.read_dir(&dir) else {
                return;
            };
            if !seen.insert((listing.dir.clone(), via)) {
                return;
            }
            dirs.push(SearchDir {
                dir,
                resolved: listing.dir,
                via,
                names: listing.names,
            });
        };
        for d in env.path_list(LD_LIBRARY_PATH) {
            add(d, VIA_LD_LIBRARY_PATH, &mut dirs);
        }
        for d in default_dirs() {
            add(d, VIA_DEFAULT, &mut dirs);
        }
        LibraryIndex { cache, dirs }
    }

    /// Every file whose name satisfies `matches`, from the cache and the search directories,
    /// merged by identity (resolved directory + name) and sorted by path.
    pub fn find(&self, root: &SystemRoot, matches: impl Fn(&str) -> bool) -> Vec<Candidate> {
        let mut by_key: BTreeMap<String, Candidate> = BTreeMap::new();
        let arch = host_cache_arch();
        if let Some(cache) = &self.cache {
            for e in &cache.entries {
                if !arch.accepts(e.flags) || e.hwcaps_subdir.is_some() {
                    continue;
                }
                let name = file_name(&e.path);
                if !matches(name) && !matches(&e.soname) {
                    continue;
                }
                let key = identity(root, &e.path);
                by_key
                    .entry(key.clone())
                    .or_insert_with(|| Candidate {
                        path: e.path.clone(),
                        key,
                        via: BTreeSet::new(),
                    })
                    .via
                    .insert(VIA_CACHE);
            }
        }
        for d in &self.dirs {
            for name in d.names.iter().filter(|n| matches(n)) {
                let key = join(&d.resolved, name);
                by_key
                    .entry(key.clone())
                    .or_insert_with(|| Candidate {
                        path: join(&d.dir, name),
                        key,
                        via: BTreeSet::new(),
                    })
                    .via
                    .insert(d.via);
            }
        }
        by_key.into_values().collect()
    }

    /// The first path the cache gives for a SONAME (the loader's answer after LD_LIBRARY_PATH).
    pub fn cache_lookup<'a>(&'a self, soname: &'a str) -> Option<&'a str> {
        self.cache
            .as_ref()?
            .lookup(soname, host_cache_arch())
            .find(|e| e.hwcaps_subdir.is_none())
            .map(|e| e.path.as_str())
    }

    /// Where the loader would find `soname` (no RPATH/RUNPATH of a requester): `LD_LIBRARY_PATH`,
    /// then the cache, then the default directories. Returns the path and the step.
    pub fn loader_lookup(&self, root: &SystemRoot, soname: &str) -> Option<(String, &'static str)> {
        for d in self.dirs.iter().filter(|d| d.via == VIA_LD_LIBRARY_PATH) {
            if d.names.iter().any(|n| n == soname) {
                let path = join(&d.dir, soname);
                if root.resolve(&path).state == LinkState::Ok {
                    return Some((path, VIA_LD_LIBRARY_PATH));
                }
            }
        }
        if let Some(p) = self.cache_lookup(soname) {
            if root.resolve(p).state == LinkState::Ok {
                return Some((p.to_string(), VIA_CACHE));
            }
        }
        for d in self.dirs.iter().filter(|d| d.via == VIA_DEFAULT) {
            if d.names.iter().any(|n| n == soname) {
                let path = join(&d.dir, soname);
                if root.resolve(&path).state == LinkState::Ok {
                    return Some((path, VIA_DEFAULT));
                }
            }
        }
        None
    }
}

/// The identity of a library path: its directory resolved inside the root, plus its name.
pub fn identity(root: &SystemRoot, path: &str) -> String {
    let dir = root.resolve(parent_dir(path));
    join(&dir.path, file_name(path))
}

/// Reads a library file's facts: symlink chain, ELF SONAME and NEEDED, version from the real name.
pub fn library_file(root: &SystemRoot, path: &str, stem: &str, via: Vec<String>) -> LibraryFile {
    let resolved = root.resolve(path);
    let real_path = (resolved.state == LinkState::Ok).then(|| resolved.path.clone());
    let mut soname = None;
    let mut needed = Vec::new();
    let mut error = None;
    let mut size = None;
    let mut build_id = None;
    if let Some(real) = &real_path {
        match root.map(real) {
            Ok(map) => match read_elf_info(&map) {
                Ok(info) => {
                    size = Some(map.len() as u64);
                    soname = info.soname;
                    needed = info.needed;
                    build_id = info.build_id;
                }
                Err(e) => error = Some(format!("not a readable ELF shared object: {e}")),
            },
            Err(e) => error = Some(e.to_string()),
        }
    }
    let version = real_path
        .as_deref()
        .and_then(|p| parse::so_version(file_name(p), stem))
        .or_else(|| parse::so_version(file_name(path), stem))
        .filter(|v: &Version| v.parts().len() > 1);
    LibraryFile {
        path: path.to_string(),
        real_path,
        link_state: resolved.state,
        soname,
        needed,
        version,
        reachable_via: via,
        dir: parent_dir(path).to_string(),
        error,
        size,
        build_id,
    }
}

/// The loader-facing copies of a library: files named `<stem>.so.*` that the loader can reach,
/// plus those in `extra_dirs` (toolkit trees), keeping per directory the file whose name equals its
/// SONAME (what the loader opens) and any dangling or unreadable name, which is itself a finding.
pub fn loader_facing_files(
    root: &SystemRoot,
    index: &LibraryIndex,
    extra_dirs: &[String],
    stem: &str,
) -> Vec<LibraryFile> {
    let prefix = format!("{stem}.so.");
    let matches = |n: &str| n.starts_with(&prefix);
    let mut candidates = index.find(root, matches);
    for dir in extra_dirs {
        let Ok(listing) = root.read_dir(dir) else {
            continue;
        };
        for name in listing.names.iter().filter(|n| matches(n)) {
            let key = join(&listing.dir, name);
            if !candidates.iter().any(|c| c.key == key) {
                candidates.push(Candidate {
                    path: join(dir, name),
                    key,
                    via: BTreeSet::new(),
                });
            }
        }
    }
    let files: Vec<LibraryFile> = candidates
        .into_iter()
        .map(|c| {
            let via = c.via.iter().map(|v| v.to_string()).collect();
            library_file(root, &c.path, stem, via)
        })
        .collect();
    let mut keep = Vec::new();
    for f in &files {
        let name = file_name(&f.path);
        let is_loader_name = f.soname.as_deref() == Some(name);
        let broken = f.link_state != LinkState::Ok || f.error.is_some();
        // A real file whose SONAME link is missing from its directory: the loader cannot find it
        // by SONAME, but it is still an install of that library.
        let orphan = f.soname.as_deref().is_some_and(|so| {
            !files
                .iter()
                .any(|g| g.dir == f.dir && file_name(&g.path) == so)
        });
        if is_loader_name || broken || orphan {
            keep.push(f.clone());
        }
    }
    keep.sort_by(|a, b| a.path.cmp(&b.path));
    keep
}
