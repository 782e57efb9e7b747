//! A static simulation of glibc's dynamic loader (`ld.so`): which file each `DT_NEEDED` entry of an
//! ELF object resolves to, and why — without executing anything.
//!
//! The search for a name without `/` follows glibc's `_dl_map_object` (elf/dl-load.c):
//!
//! 1. `DT_RPATH` of the requesting object, then of the object that loaded it, and so on up to the
//!    main program — only when the requester has no `DT_RUNPATH`. An object that has `DT_RUNPATH`
//!    contributes no `DT_RPATH` (glibc's get-dynamic-info.h drops it);
//! 2. `LD_LIBRARY_PATH` (separators `:` and `;`, DSTs expanded against the main program);
//! 3. the requester's own `DT_RUNPATH` (not inherited);
//! 4. `/etc/ld.so.cache` of the root, with its glibc-hwcaps entries — an entry inside a default
//!    directory is ignored when the requester has `DF_1_NODEFLIB`;
//! 5. the default directories, unless the requester has `DF_1_NODEFLIB`.
//!
//! Every directory is tried as `dir/glibc-hwcaps/<level>/` for each supported x86-64 ISA level
//! (highest first), then as `dir/` itself. Supported levels are computed from `/proc/cpuinfo` of
//! the root; a root without it (a fake root, an image) is assumed to run on baseline x86-64, so no
//! hwcaps subdirectory is used. glibc 2.36's legacy hwcaps subdirectories (`tls/`, `x86_64/`,
//! `haswell/`; removed in glibc 2.37) are not modelled.
//!
//! A name that is already loaded — matched against every name an object was requested by, its
//! path and its SONAME — is not searched again; a search that finds a file already loaded under
//! another name reuses that object. Objects load breadth-first (`_dl_map_object_deps`): the main
//! program, the preloads (`LD_PRELOAD`, then `/etc/ld.so.preload`), then their `DT_NEEDED` entries
//! level by level. A file of the wrong ELF class or machine is skipped and the search goes on; a
//! file that is not ELF (or of the wrong byte order or type) stops the load, as in glibc. Names
//! containing `/` are opened as paths. `$ORIGIN`/`${ORIGIN}`, `$LIB` and `$PLATFORM` are expanded
//! (`$ORIGIN` of the main program is the directory of its real path, as when the kernel runs it; of
//! a library, the directory it was found in, unresolved, as glibc does). Relative paths are taken
//! relative to `/` of the root. Secure (setuid) mode and audit modules are not modelled.
//!
//! After the start-up set, the knowledge base's dlopen edges are followed (`libcudart` opens
//! `libcuda.so.1`, ...): a name is searched as a `dlopen` from the object that opens it, a path
//! is opened directly, and what they need loads breadth-first too.
//!
//! For every object the search continues past the copy that was taken, and every later copy
//! that is a different file is recorded as shadowed (with whether its version differs). Work is
//! bounded: at most [`MAX_OBJECTS`] objects, [`MAX_REQUESTS`] requests and [`MAX_PATH_ENTRIES`]
//! distinct directories per path list; beyond them the result says it was truncated.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::rc::Rc;

use gpuenv_elf::{
    parse_ld_so_cache, read_elf_info, CacheArch, ElfClass, ElfInfo, ElfKind, Endian, LdCache,
};
use gpuenv_facts::LinkState;
use gpuenv_kb::{dlopen::glob_match, Kb};
use serde::Serialize;

use crate::root::{file_name, join, parent_dir, SystemRoot};
use crate::vars::{Environment, LD_LIBRARY_PATH, LD_PRELOAD};

/// The ELF constants the loader checks (values from the ELF specification / glibc's elf.h).
mod elf {
    pub const ELFMAG: [u8; 4] = [0x7f, b'E', b'L', b'F'];
    pub const ELFCLASS32: u8 = 1;
    pub const ELFCLASS64: u8 = 2;
    pub const ELFDATA2LSB: u8 = 1;
    pub const ELFDATA2MSB: u8 = 2;
    pub const EM_386: u16 = 3;
    pub const EM_PPC64: u16 = 21;
    pub const EM_S390: u16 = 22;
    pub const EM_ARM: u16 = 40;
    pub const EM_X86_64: u16 = 62;
    pub const EM_AARCH64: u16 = 183;
    pub const EM_RISCV: u16 = 243;
}

/// The most objects one simulation loads.
pub const MAX_OBJECTS: usize = 4096;
/// The most load requests (NEEDED entries, preloads, dlopen edges) one simulation handles.
pub const MAX_REQUESTS: usize = 100_000;
/// The most distinct directories taken from one path list (RPATH, RUNPATH, LD_LIBRARY_PATH).
pub const MAX_PATH_ENTRIES: usize = 1024;
/// The most directories one search visits (all lists together, after deduplication).
pub const MAX_PLAN: usize = 8192;
/// The biggest `/etc/ld.so.cache` read.
const MAX_CACHE_BYTES: u64 = 64 * 1024 * 1024;
/// glibc-hwcaps subdirectories, highest priority first.
const X86_64_LEVELS: [&str; 3] = ["x86-64-v4", "x86-64-v3", "x86-64-v2"];

/// Why a simulation could not start.
#[derive(Debug, thiserror::Error)]
pub enum LoaderError {
    #[error("{path}: {message}")]
    Unreadable { path: String, message: String },
    #[error("{path}: not an ELF object the loader can run: {message}")]
    NotElf { path: String, message: String },
}

/// The search step that found a library (or was tried).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
#[serde(tag = "step", rename_all = "kebab-case")]
pub enum Step {
    /// The object given to `gpuenv ldd`.
    Main,
    /// The program interpreter (`PT_INTERP`), loaded by the kernel.
    Interpreter,
    /// A name containing `/`, opened as a path.
    Path,
    /// `DT_RPATH` of the named object.
    Rpath { of: String },
    /// `LD_LIBRARY_PATH`.
    LdLibraryPath,
    /// `DT_RUNPATH` of the named object.
    Runpath { of: String },
    /// `/etc/ld.so.cache`.
    Cache,
    /// A default directory.
    Default,
}

impl std::fmt::Display for Step {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Step::Main => write!(f, "main"),
            Step::Interpreter => write!(f, "interpreter"),
            Step::Path => write!(f, "path"),
            Step::Rpath { of } => write!(f, "rpath of {of}"),
            Step::LdLibraryPath => write!(f, "LD_LIBRARY_PATH"),
            Step::Runpath { of } => write!(f, "runpath of {of}"),
            Step::Cache => write!(f, "ld.so.cache"),
            Step::Default => write!(f, "default"),
        }
    }
}

/// How a library was asked for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Request {
    Needed,
    /// `LD_PRELOAD` or `/etc/ld.so.preload`.
    Preload {
        from: String,
    },
    /// A knowledge-base dlopen edge.
    Dlopen {
        why: String,
        rule: String,
    },
}

/// What happened at one place the loader looked.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Outcome {
    /// Nothing there (or a dangling link).
    NotFound,
    /// The cache has no entry for the name.
    NoCacheEntry,
    /// A cache entry inside a default directory, ignored because of `DF_1_NODEFLIB`.
    SkippedNodeflib,
    /// An ELF file of the other class (32/64-bit): skipped, the search goes on.
    WrongClass,
    /// An ELF file for another machine: skipped, the search goes on.
    WrongMachine,
    /// Could not be opened (permissions): skipped, the search goes on.
    Unreadable,
    /// Not loadable, and glibc stops here with an error (not ELF, wrong byte order, wrong type).
    Fatal,
    /// The file taken.
    Found,
}

/// One place the loader looked.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Attempt {
    pub path: String,
    pub step: Step,
    pub outcome: Outcome,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

/// A different copy a later place in the search would have given.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Shadowed {
    pub path: String,
    pub real_path: String,
    pub step: Step,
    pub version: Option<String>,
    /// Both versions are known (from the real file names) and differ.
    pub version_differs: bool,
}

/// One dependency edge of an object.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Dep {
    /// The name asked for (a NEEDED entry, a preload, a dlopen name or path).
    pub name: String,
    pub request: Request,
    /// The object it resolved to (index into [`Simulation::objects`]).
    pub object: Option<usize>,
    /// This edge loaded the object (otherwise it was already loaded).
    pub loaded_here: bool,
    /// Set when nothing loadable was found: every place tried.
    pub missing: Option<Missing>,
}

/// A dependency that could not be loaded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Missing {
    pub tried: Vec<Attempt>,
    /// glibc's error when a file was found but cannot be loaded (it stops the search).
    pub error: Option<String>,
}

/// One loaded object.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Object {
    /// The first name it was requested by.
    pub name: String,
    /// The path the loader opened (unresolved, as `ldd` prints it).
    pub path: String,
    /// The path with every symlink resolved inside the root.
    pub real_path: String,
    pub found_by: Step,
    pub request: Request,
    /// The object whose request loaded it (glibc's `l_loader`).
    pub loader: Option<usize>,
    pub soname: Option<String>,
    /// The version in the real file name (`libcudnn.so.9.1.0` gives `9.1.0`), when it has one.
    pub version: Option<String>,
    pub needed: Vec<String>,
    pub rpath: Vec<String>,
    pub runpath: Vec<String>,
    pub nodeflib: bool,
    /// Places rejected before the file was found (wrong class, ...).
    pub skipped: Vec<Attempt>,
    pub shadowed: Vec<Shadowed>,
    pub deps: Vec<Dep>,
}

/// The result of one simulation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Simulation {
    /// Objects in load order; index 0 is the main object.
    pub objects: Vec<Object>,
    /// Preload requests (`LD_PRELOAD`, `/etc/ld.so.preload`) that could not be loaded.
    pub missing_preloads: Vec<Dep>,
    /// The assumptions the search made (default directories, `$LIB`, hwcaps levels, ...).
    pub context: LoaderContext,
    /// A bound was hit; the result is incomplete.
    pub truncated: Option<String>,
}

impl Simulation {
    /// Every edge that failed, as (requesting object index, dep).
    pub fn missing(&self) -> Vec<(usize, &Dep)> {
        let mut out = Vec::new();
        for (i, o) in self.objects.iter().enumerate() {
            for d in &o.deps {
                if d.missing.is_some() {
                    out.push((i, d));
                }
            }
        }
        for d in &self.missing_preloads {
            out.push((0, d));
        }
        out
    }
}

/// What the simulation assumed about the machine.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LoaderContext {
    pub default_dirs: Vec<String>,
    pub lib: String,
    pub platform: String,
    pub hwcaps: Vec<String>,
    /// Where the supported hwcaps levels came from.
    pub hwcaps_source: String,
    pub ld_library_path: Vec<String>,
    pub cache: Option<String>,
    pub interpreter: Option<String>,
}

/// Facts about a candidate file, cached by real path.
#[derive(Debug, Clone)]
enum Probe {
    Missing,
    Unreadable(String),
    Fatal(String),
    WrongClass,
    WrongMachine,
    Ok(Rc<ElfInfo>),
}

/// A directory listing, cached: the names in it, or `None` when it cannot be listed.
type Listing = Option<Rc<HashSet<String>>>;

/// The simulation's state.
struct Loader<'a> {
    root: &'a SystemRoot,
    kb: Option<&'a Kb>,
    cache: Option<LdCache>,
    arch: Option<CacheArch>,
    class: ElfClass,
    endian: Endian,
    machine: u16,
    ctx: LoaderContext,
    listings: HashMap<String, Listing>,
    probes: HashMap<String, Probe>,
    objects: Vec<Object>,
    infos: Vec<Rc<ElfInfo>>,
    /// Every name an object answers to (requested names, SONAME, path) -> index.
    names: HashMap<String, usize>,
    /// Real path -> index.
    identities: HashMap<String, usize>,
    requests: usize,
    truncated: Option<String>,
    /// Expanded RPATH/RUNPATH of an object, computed once: (index, is_runpath) -> directories.
    path_lists: HashMap<(usize, bool), Rc<Vec<String>>>,
    /// Expanded LD_LIBRARY_PATH, computed once.
    llp: Option<Rc<Vec<String>>>,
    /// Cache entry positions by SONAME.
    cache_index: HashMap<String, Vec<usize>>,
}

/// Simulates loading `path` (a path inside `root`) with the environment `env`; `kb` supplies the
/// dlopen edges (none are followed without it).
pub fn simulate(
    root: &SystemRoot,
    env: &Environment,
    kb: Option<&Kb>,
    path: &str,
) -> Result<Simulation, LoaderError> {
    let resolved = root.resolve(path);
    if resolved.state != LinkState::Ok {
        return Err(LoaderError::Unreadable {
            path: path.to_string(),
            message: format!("cannot open ({:?})", resolved.state),
        });
    }
    let map = root
        .map(&resolved.path)
        .map_err(|e| LoaderError::Unreadable {
            path: path.to_string(),
            message: e.message,
        })?;
    let info = read_elf_info(&map).map_err(|e| LoaderError::NotElf {
        path: path.to_string(),
        message: e.to_string(),
    })?;
    drop(map);
    if !matches!(info.kind, ElfKind::Dyn | ElfKind::Exec) {
        return Err(LoaderError::NotElf {
            path: path.to_string(),
            message: "not an executable or shared object".into(),
        });
    }
    let mut loader = Loader::new(root, env, kb, &info);
    loader.run(path, &resolved.path, info, env);
    let mut objects = loader.objects;
    // Preloads are requested by the main object; the ones that failed are reported on their own.
    let mut missing_preloads = Vec::new();
    if let Some(main) = objects.first_mut() {
        let (failed, rest): (Vec<Dep>, Vec<Dep>) = main
            .deps
            .drain(..)
            .partition(|d| matches!(d.request, Request::Preload { .. }) && d.missing.is_some());
        main.deps = rest;
        missing_preloads = failed;
    }
    Ok(Simulation {
        objects,
        missing_preloads,
        context: loader.ctx,
        truncated: loader.truncated,
    })
}

/// The GNU multiarch triplet for an ELF machine and class.
fn triplet(machine: u16, class: ElfClass) -> Option<&'static str> {
    match (machine, class) {
        (elf::EM_X86_64, ElfClass::Elf64) => Some("x86_64-linux-gnu"),
        (elf::EM_X86_64, ElfClass::Elf32) => Some("x86_64-linux-gnux32"),
        (elf::EM_386, _) => Some("i386-linux-gnu"),
        (elf::EM_AARCH64, _) => Some("aarch64-linux-gnu"),
        (elf::EM_PPC64, _) => Some("powerpc64le-linux-gnu"),
        (elf::EM_ARM, _) => Some("arm-linux-gnueabihf"),
        (elf::EM_RISCV, _) => Some("riscv64-linux-gnu"),
        (elf::EM_S390, _) => Some("s390x-linux-gnu"),
        _ => None,
    }
}

/// `AT_PLATFORM` as the kernel reports it, for `$PLATFORM`.
fn platform(machine: u16) -> &'static str {
    match machine {
        elf::EM_X86_64 => "x86_64",
        elf::EM_386 => "i686",
        elf::EM_AARCH64 => "aarch64",
        elf::EM_PPC64 => "power8",
        elf::EM_ARM => "v7l",
        elf::EM_RISCV => "riscv64",
        elf::EM_S390 => "z900",
        _ => "unknown",
    }
}

/// The interpreter glibc uses for objects without `PT_INTERP` (what `ldd` runs for a library).
fn default_interpreter(machine: u16, class: ElfClass) -> Option<&'static str> {
    match (machine, class) {
        (elf::EM_X86_64, ElfClass::Elf64) => Some("/lib64/ld-linux-x86-64.so.2"),
        (elf::EM_X86_64, ElfClass::Elf32) => Some("/libx32/ld-linux-x32.so.2"),
        (elf::EM_386, _) => Some("/lib/ld-linux.so.2"),
        (elf::EM_AARCH64, _) => Some("/lib/ld-linux-aarch64.so.1"),
        (elf::EM_PPC64, _) => Some("/lib64/ld64.so.2"),
        (elf::EM_ARM, _) => Some("/lib/ld-linux-armhf.so.3"),
        _ => None,
    }
}

/// The glibc-hwcaps levels this x86-64 CPU supports, from `/proc/cpuinfo` flags.
fn x86_64_levels(cpuinfo: &str) -> Vec<String> {
    let flags: HashSet<&str> = cpuinfo
        .lines()
        .find(|l| l.starts_with("flags"))
        .and_then(|l| l.split_once(':'))
        .map(|(_, v)| v.split_whitespace().collect())
        .unwrap_or_default();
    let has = |names: &[&str]| names.iter().all(|n| flags.contains(n));
    let v2 = has(&["cx16", "lahf_lm", "popcnt", "sse4_1", "sse4_2", "ssse3"]);
    let v3 = v2
        && has(&[
            "avx", "avx2", "bmi1", "bmi2", "f16c", "fma", "abm", "movbe", "xsave",
        ]);
    let v4 = v3 && has(&["avx512f", "avx512bw", "avx512cd", "avx512dq", "avx512vl"]);
    let mut out = Vec::new();
    for (ok, name) in [
        (v4, X86_64_LEVELS[0]),
        (v3, X86_64_LEVELS[1]),
        (v2, X86_64_LEVELS[2]),
    ] {
        if ok {
            out.push(name.to_string());
        }
    }
    out
}

/// The version suffix of a library file name (`libfoo.so.1.2.3` gives `1.2.3`).
pub fn file_version(name: &str) -> Option<String> {
    let (_, rest) = name.split_once(".so.")?;
    let numeric = !rest.is_empty()
        && rest
            .split('.')
            .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()));
    numeric.then(|| rest.to_string())
}

/// Whether two file-name versions can be the same release: equal, or one a dotted prefix of the
/// other (`9` from a wheel's `libcudnn.so.9` and `9.1.0` from `libcudnn.so.9.1.0`).
fn versions_compatible(a: &str, b: &str) -> bool {
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    long == short || long.starts_with(&format!("{short}."))
}

/// Splits a path list the way glibc does, dropping empty entries.
fn split_list(value: &str, separators: &[char]) -> Vec<String> {
    value
        .split(|c| separators.contains(&c))
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect()
}

/// Length of the dynamic string token `name` at the start of `input` (after `$`), glibc's
/// `is_dst`: `{NAME}` or `NAME` not followed by an identifier character.
fn dst_len(input: &str, name: &str) -> Option<usize> {
    if let Some(rest) = input.strip_prefix('{') {
        return rest
            .strip_prefix(name)
            .filter(|r| r.starts_with('}'))
            .map(|_| name.len() + 2);
    }
    let rest = input.strip_prefix(name)?;
    match rest.chars().next() {
        Some(c) if c.is_ascii_alphanumeric() || c == '_' => None,
        _ => Some(name.len()),
    }
}

/// Expands `$ORIGIN`, `$LIB`, `$PLATFORM` (glibc's `_dl_dst_substitute`). Returns `None` when
/// `$ORIGIN` is needed but unknown (glibc then drops the entry). Unknown `$X` stays literal.
fn expand_dst(value: &str, origin: Option<&str>, lib: &str, platform: &str) -> Option<String> {
    if !value.contains('$') {
        return Some(value.to_string());
    }
    let mut out = String::with_capacity(value.len() + 32);
    let mut rest = value;
    while let Some(pos) = rest.find('$') {
        out.push_str(&rest[..pos]);
        let after = &rest[pos + 1..];
        if let Some(n) = dst_len(after, "ORIGIN") {
            out.push_str(origin?);
            rest = &after[n..];
        } else if let Some(n) = dst_len(after, "PLATFORM") {
            out.push_str(platform);
            rest = &after[n..];
        } else if let Some(n) = dst_len(after, "LIB") {
            out.push_str(lib);
            rest = &after[n..];
        } else {
            out.push('$');
            rest = after;
        }
    }
    out.push_str(rest);
    Some(out)
}

/// glibc's `l_origin`: the directory part of a path (the root keeps its slash).
fn origin_of(path: &str) -> String {
    let dir = parent_dir(path);
    if dir.is_empty() {
        "/".to_string()
    } else {
        dir.to_string()
    }
}

/// Makes a path absolute against `/` of the root, dropping trailing slashes (glibc does the same
/// for search directories).
fn absolute(dir: &str) -> String {
    let trimmed = dir.trim_end_matches('/');
    if trimmed.is_empty() {
        return "/".to_string();
    }
    if trimmed.starts_with('/') {
        trimmed.to_string()
    } else {
        format!("/{trimmed}")
    }
}

impl<'a> Loader<'a> {
    fn new(root: &'a SystemRoot, env: &Environment, kb: Option<&'a Kb>, main: &ElfInfo) -> Self {
        let (cache, cache_note) = match root.read_bytes("/etc/ld.so.cache", MAX_CACHE_BYTES) {
            Ok(bytes) => match parse_ld_so_cache(&bytes) {
                Ok(c) => (Some(c), Some("/etc/ld.so.cache".to_string())),
                Err(e) => (None, Some(format!("/etc/ld.so.cache unusable: {e}"))),
            },
            Err(_) => (None, None),
        };
        let mut cache_index: HashMap<String, Vec<usize>> = HashMap::new();
        if let Some(c) = &cache {
            for (i, e) in c.entries.iter().enumerate() {
                cache_index.entry(e.soname.clone()).or_default().push(i);
            }
        }
        let triplet = triplet(main.machine, main.class);
        let multiarch = triplet.is_some_and(|t| {
            root.is_dir(&format!("/lib/{t}")) || root.is_dir(&format!("/usr/lib/{t}"))
        });
        let (default_dirs, lib) = match (multiarch, triplet, main.class) {
            (true, Some(t), _) => (
                vec![
                    format!("/lib/{t}"),
                    format!("/usr/lib/{t}"),
                    "/lib".to_string(),
                    "/usr/lib".to_string(),
                ],
                format!("lib/{t}"),
            ),
            (_, _, ElfClass::Elf64) => (
                vec!["/lib64".to_string(), "/usr/lib64".to_string()],
                "lib64".to_string(),
            ),
            _ => (
                vec!["/lib".to_string(), "/usr/lib".to_string()],
                "lib".to_string(),
            ),
        };
        let (hwcaps, hwcaps_source) = if main.machine == elf::EM_X86_64
            && main.class == ElfClass::Elf64
        {
            match root.read_to_string("/proc/cpuinfo") {
                Ok(text) => (x86_64_levels(&text), "/proc/cpuinfo flags".to_string()),
                Err(_) => (
                    Vec::new(),
                    "no /proc/cpuinfo in the root: baseline x86-64 assumed, no glibc-hwcaps subdirectory used".to_string(),
                ),
            }
        } else {
            (
                Vec::new(),
                "glibc-hwcaps levels are modelled for x86-64 only".to_string(),
            )
        };
        let ld_library_path = env
            .get(LD_LIBRARY_PATH)
            .map(|v| split_list(v, &[':', ';']))
            .unwrap_or_default();
        let interpreter = main
            .interpreter
            .clone()
            .or_else(|| default_interpreter(main.machine, main.class).map(str::to_string));
        Loader {
            root,
            kb,
            cache,
            arch: main.cache_arch(),
            class: main.class,
            endian: main.endian,
            machine: main.machine,
            ctx: LoaderContext {
                default_dirs,
                lib,
                platform: platform(main.machine).to_string(),
                hwcaps,
                hwcaps_source,
                ld_library_path,
                cache: cache_note,
                interpreter,
            },
            listings: HashMap::new(),
            probes: HashMap::new(),
            objects: Vec::new(),
            infos: Vec::new(),
            names: HashMap::new(),
            identities: HashMap::new(),
            requests: 0,
            truncated: None,
            path_lists: HashMap::new(),
            llp: None,
            cache_index,
        }
    }

    fn run(&mut self, path: &str, real: &str, info: ElfInfo, env: &Environment) {
        let main_path = absolute(path);
        let main = self.add_object(
            &main_path,
            &main_path,
            real,
            Step::Main,
            Request::Needed,
            None,
            Rc::new(info),
        );
        // The interpreter is mapped by the kernel before anything is searched.
        if let Some(interp) = self.ctx.interpreter.clone() {
            let resolved = self.root.resolve(&interp);
            if resolved.state == LinkState::Ok {
                if let Probe::Ok(info) = self.probe(&resolved.path) {
                    if !self.identities.contains_key(&resolved.path) {
                        self.add_object(
                            &interp,
                            &interp,
                            &resolved.path,
                            Step::Interpreter,
                            Request::Needed,
                            None,
                            info,
                        );
                    }
                }
            }
        }
        // Preloads: LD_PRELOAD, then /etc/ld.so.preload; requested by the main program.
        let mut preloads: Vec<(String, String)> = Vec::new();
        if let Some(v) = env.get(LD_PRELOAD) {
            for p in split_list(v, &[' ', ':']) {
                preloads.push((p, LD_PRELOAD.to_string()));
            }
        }
        if let Ok(text) = self.root.read_to_string("/etc/ld.so.preload") {
            for p in split_list(&text, &[' ', '\t', '\n', ':']) {
                preloads.push((p, "/etc/ld.so.preload".to_string()));
            }
        }
        let mut queue: Vec<usize> = vec![main];
        for (name, from) in preloads {
            if let Some(idx) = self.request(main, &name, Request::Preload { from }) {
                queue.push(idx);
            }
        }
        self.load_needed_breadth_first(queue);
        self.follow_dlopen_edges();
    }

    /// glibc's `_dl_map_object_deps`: processes the NEEDED entries of each queued object in
    /// order, appending newly loaded objects to the queue.
    fn load_needed_breadth_first(&mut self, mut queue: Vec<usize>) {
        let mut next = 0usize;
        while let Some(&idx) = queue.get(next) {
            next += 1;
            let needed = self
                .infos
                .get(idx)
                .map(|i| i.needed.clone())
                .unwrap_or_default();
            for name in needed {
                if self.truncated.is_some() {
                    return;
                }
                if let Some(new) = self.request(idx, &name, Request::Needed) {
                    queue.push(new);
                }
            }
        }
    }

    /// Follows the knowledge base's dlopen edges of every loaded object (and of what they load).
    fn follow_dlopen_edges(&mut self) {
        let Some(kb) = self.kb else {
            return;
        };
        let mut done: HashSet<(String, String)> = HashSet::new();
        let mut idx = 0usize;
        while idx < self.objects.len() {
            if self.truncated.is_some() {
                return;
            }
            let (fname, soname, path) = match self.objects.get(idx) {
                Some(o) => (
                    file_name(&o.path).to_string(),
                    o.soname.clone(),
                    o.path.clone(),
                ),
                None => break,
            };
            let rules: Vec<_> = kb
                .dlopen_rules(&fname, soname.as_deref())
                .cloned()
                .collect();
            for rule in rules {
                let site = match &rule.site_dir {
                    None => None,
                    Some(site_dir) => match site_packages(&path, site_dir) {
                        Some(s) => Some(s),
                        None => continue,
                    },
                };
                let mut new = Vec::new();
                for open in &rule.opens {
                    let target = match &site {
                        None => Some(open.clone()),
                        Some(site) => self.expand_site_glob(open, site),
                    };
                    let Some(target) = target else {
                        continue;
                    };
                    // One edge per rule and target, however many objects match the rule.
                    if !done.insert((rule.id.clone(), target.clone())) {
                        continue;
                    }
                    let request = Request::Dlopen {
                        why: rule.why.clone(),
                        rule: rule.id.clone(),
                    };
                    if let Some(n) = self.request(idx, &target, request) {
                        new.push(n);
                    }
                }
                self.load_needed_breadth_first(new);
            }
            idx += 1;
        }
    }

    /// `{site}/a/b/<glob>` -> the first (sorted) existing match, or `None`.
    fn expand_site_glob(&mut self, pattern: &str, site: &str) -> Option<String> {
        let full = pattern.replace("{site}", site);
        let dir = parent_dir(&full).to_string();
        let glob = file_name(&full).to_string();
        let listing = self.listing(&dir)?;
        let mut matches: Vec<&String> = listing.iter().filter(|n| glob_match(&glob, n)).collect();
        matches.sort();
        let first = matches.first()?;
        Some(join(&dir, first))
    }

    /// Handles one request from object `from`: returns the index of a newly loaded object.
    fn request(&mut self, from: usize, name: &str, request: Request) -> Option<usize> {
        self.requests += 1;
        if self.requests > MAX_REQUESTS {
            self.truncated = Some(format!("more than {MAX_REQUESTS} load requests"));
            return None;
        }
        // Already loaded under this name (a requested name, its path or its SONAME)?
        if let Some(&idx) = self.names.get(name) {
            self.push_dep(from, name, request, Some(idx), false, None);
            return None;
        }
        let search = self.search(from, name);
        match search.found {
            Some((path, real, step, info)) => {
                if let Some(&idx) = self.identities.get(&real) {
                    // The same file under another name: glibc reuses the loaded object.
                    self.names.insert(name.to_string(), idx);
                    self.push_dep(from, name, request, Some(idx), false, None);
                    return None;
                }
                if self.objects.len() >= MAX_OBJECTS {
                    self.truncated = Some(format!("more than {MAX_OBJECTS} objects"));
                    return None;
                }
                let idx =
                    self.add_object(name, &path, &real, step, request.clone(), Some(from), info);
                if let Some(o) = self.objects.get_mut(idx) {
                    o.skipped = search.skipped;
                    o.shadowed = search.shadowed;
                }
                self.push_dep(from, name, request, Some(idx), true, None);
                Some(idx)
            }
            None => {
                let missing = Missing {
                    tried: search.tried,
                    error: search.fatal,
                };
                self.push_dep(from, name, request, None, false, Some(missing));
                None
            }
        }
    }

    fn push_dep(
        &mut self,
        from: usize,
        name: &str,
        request: Request,
        object: Option<usize>,
        loaded_here: bool,
        missing: Option<Missing>,
    ) {
        if let Some(o) = self.objects.get_mut(from) {
            o.deps.push(Dep {
                name: name.to_string(),
                request,
                object,
                loaded_here,
                missing,
            });
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn add_object(
        &mut self,
        name: &str,
        path: &str,
        real: &str,
        step: Step,
        request: Request,
        loader: Option<usize>,
        info: Rc<ElfInfo>,
    ) -> usize {
        let idx = self.objects.len();
        self.names.insert(name.to_string(), idx);
        self.names.entry(path.to_string()).or_insert(idx);
        if let Some(so) = &info.soname {
            self.names.entry(so.clone()).or_insert(idx);
        }
        self.identities.insert(real.to_string(), idx);
        self.objects.push(Object {
            name: name.to_string(),
            path: path.to_string(),
            real_path: real.to_string(),
            found_by: step,
            request,
            loader,
            soname: info.soname.clone(),
            version: file_version(file_name(real)),
            needed: info.needed.clone(),
            rpath: info.rpath.clone(),
            runpath: info.runpath.clone(),
            nodeflib: info.nodeflib,
            skipped: Vec::new(),
            shadowed: Vec::new(),
            deps: Vec::new(),
        });
        self.infos.push(info);
        idx
    }

    /// Reads (once) what the loader would see when opening the file at real path `real`.
    fn probe(&mut self, real: &str) -> Probe {
        if let Some(p) = self.probes.get(real) {
            return p.clone();
        }
        let probe = self.probe_uncached(real);
        self.probes.insert(real.to_string(), probe.clone());
        probe
    }

    fn probe_uncached(&self, real: &str) -> Probe {
        match self.root.metadata(real) {
            None => return Probe::Missing,
            Some(m) if m.is_dir => {
                return Probe::Fatal("cannot read file data: Is a directory".into())
            }
            Some(m) if !m.is_file => return Probe::Unreadable("not a regular file".into()),
            Some(_) => {}
        }
        let head = match self.root.read_bytes(real, 64) {
            Ok(h) => h,
            Err(e) => return Probe::Unreadable(e.message),
        };
        if head.len() < 4 || !head.starts_with(&elf::ELFMAG) {
            return Probe::Fatal("invalid ELF header".into());
        }
        let want_class = match self.class {
            ElfClass::Elf32 => elf::ELFCLASS32,
            ElfClass::Elf64 => elf::ELFCLASS64,
        };
        let header_len = if want_class == elf::ELFCLASS64 {
            64
        } else {
            52
        };
        if head.len() < 16 {
            return Probe::Fatal("file too short".into());
        }
        if head.get(4) != Some(&want_class) {
            return Probe::WrongClass;
        }
        if head.len() < header_len {
            return Probe::Fatal("file too short".into());
        }
        if head.get(5) != Some(&elf::ELFDATA2LSB) && head.get(5) != Some(&elf::ELFDATA2MSB) {
            return Probe::Fatal("invalid ELF header".into());
        }
        let map = match self.root.map(real) {
            Ok(m) => m,
            Err(e) => return Probe::Unreadable(e.message),
        };
        match read_elf_info(&map) {
            Ok(info) => {
                if info.endian != self.endian {
                    return Probe::Fatal(
                        "ELF file data encoding differs from the program's".into(),
                    );
                }
                if info.machine != self.machine {
                    return Probe::WrongMachine;
                }
                if !matches!(info.kind, ElfKind::Dyn | ElfKind::Exec) {
                    return Probe::Fatal("only ET_DYN and ET_EXEC can be loaded".into());
                }
                Probe::Ok(Rc::new(info))
            }
            Err(e) => Probe::Fatal(e.to_string()),
        }
    }

    /// The names in a directory, listed once; `None` when it cannot be listed.
    fn listing(&mut self, dir: &str) -> Listing {
        if let Some(l) = self.listings.get(dir) {
            return l.clone();
        }
        let listing = self
            .root
            .read_dir(dir)
            .ok()
            .map(|l| Rc::new(l.names.into_iter().collect::<HashSet<String>>()));
        self.listings.insert(dir.to_string(), listing.clone());
        listing
    }

    /// The directory of each object's `$ORIGIN`.
    fn origin(&self, idx: usize) -> Option<String> {
        let o = self.objects.get(idx)?;
        Some(if idx == 0 {
            origin_of(&o.real_path)
        } else {
            origin_of(&o.path)
        })
    }

    /// A path list of object `idx` (`DT_RPATH` or `DT_RUNPATH`), DSTs expanded, deduplicated and
    /// capped; computed once per object.
    fn path_list(&mut self, idx: usize, runpath: bool) -> Rc<Vec<String>> {
        if let Some(l) = self.path_lists.get(&(idx, runpath)) {
            return l.clone();
        }
        let entries = match self.infos.get(idx) {
            Some(i) if runpath => i.runpath.clone(),
            Some(i) => i.rpath.clone(),
            None => Vec::new(),
        };
        let origin = self.origin(idx);
        let list = Rc::new(self.expand_list(&entries, origin.as_deref()));
        self.path_lists.insert((idx, runpath), list.clone());
        list
    }

    fn expand_list(&self, entries: &[String], origin: Option<&str>) -> Vec<String> {
        let mut out = Vec::new();
        let mut seen = HashSet::new();
        for e in entries {
            if out.len() >= MAX_PATH_ENTRIES {
                break;
            }
            let Some(expanded) = expand_dst(e, origin, &self.ctx.lib, &self.ctx.platform) else {
                continue;
            };
            if expanded.is_empty() {
                continue;
            }
            let dir = absolute(&expanded);
            if seen.insert(dir.clone()) {
                out.push(dir);
            }
        }
        out
    }

    /// The directories to search for a request from `from`, in glibc's order, each with its step;
    /// `None` marks where the cache is consulted.
    fn search_dirs(&mut self, from: usize) -> Vec<Option<(String, Step)>> {
        let mut out = Vec::new();
        let Some(info) = self.infos.get(from).cloned() else {
            return out;
        };
        if !info.has_runpath_tag {
            let mut cur = Some(from);
            let mut hops = 0usize;
            while let Some(idx) = cur {
                hops += 1;
                if hops > MAX_OBJECTS || out.len() >= MAX_PLAN {
                    break;
                }
                let (Some(o), Some(i)) = (self.objects.get(idx), self.infos.get(idx)) else {
                    break;
                };
                let next = o.loader;
                if !i.has_runpath_tag && i.has_rpath_tag {
                    let of = file_name(&o.path).to_string();
                    for d in self.path_list(idx, false).iter() {
                        out.push(Some((d.clone(), Step::Rpath { of: of.clone() })));
                    }
                }
                cur = next;
            }
        }
        let llp = match &self.llp {
            Some(l) => l.clone(),
            None => {
                let main_origin = self.origin(0);
                let l =
                    Rc::new(self.expand_list(&self.ctx.ld_library_path, main_origin.as_deref()));
                self.llp = Some(l.clone());
                l
            }
        };
        for d in llp.iter() {
            out.push(Some((d.clone(), Step::LdLibraryPath)));
        }
        if info.has_runpath_tag {
            if let Some(o) = self.objects.get(from) {
                let of = file_name(&o.path).to_string();
                for d in self.path_list(from, true).iter() {
                    out.push(Some((d.clone(), Step::Runpath { of: of.clone() })));
                }
            }
        }
        out.push(None);
        if !info.nodeflib {
            for d in &self.ctx.default_dirs {
                out.push(Some((d.clone(), Step::Default)));
            }
        }
        out
    }

    /// The cache's path for `name`: the best glibc-hwcaps entry this CPU supports, else the first
    /// plain entry (glibc's `search_cache`).
    fn cache_lookup(&self, name: &str) -> Option<String> {
        let cache = self.cache.as_ref()?;
        let arch = self.arch?;
        let entries: Vec<_> = self
            .cache_index
            .get(name)
            .map(|ix| {
                ix.iter()
                    .filter_map(|&i| cache.entries.get(i))
                    .filter(|e| arch.accepts(e.flags))
                    .collect()
            })
            .unwrap_or_default();
        for level in &self.ctx.hwcaps {
            if let Some(e) = entries
                .iter()
                .find(|e| e.hwcaps_subdir.as_deref() == Some(level.as_str()))
            {
                return Some(e.path.clone());
            }
        }
        entries
            .iter()
            .filter(|e| e.hwcaps_subdir.is_none() && !e.is_hwcaps_entry())
            .min_by_key(|e| e.hwcap != 0)
            .map(|e| e.path.clone())
    }

    /// Tries one candidate path: records the attempt; returns the file when it is taken.
    fn try_path(
        &mut self,
        path: &str,
        step: &Step,
        state: &mut SearchState,
    ) -> Option<(String, Rc<ElfInfo>)> {
        let resolved = self.root.resolve(path);
        let probe = if resolved.state == LinkState::Ok {
            self.probe(&resolved.path)
        } else {
            Probe::Missing
        };
        let (outcome, detail) = match &probe {
            Probe::Missing => (Outcome::NotFound, None),
            Probe::Unreadable(m) => (Outcome::Unreadable, Some(m.clone())),
            Probe::Fatal(m) => (Outcome::Fatal, Some(m.clone())),
            Probe::WrongClass => (Outcome::WrongClass, None),
            Probe::WrongMachine => (Outcome::WrongMachine, None),
            Probe::Ok(_) => (Outcome::Found, None),
        };
        let attempt = Attempt {
            path: path.to_string(),
            step: step.clone(),
            outcome: outcome.clone(),
            detail: detail.clone(),
        };
        if state.found.is_some() {
            // Past the taken copy: only different loadable files matter (shadowed copies).
            if let Probe::Ok(_) = probe {
                state.record_shadow(path, &resolved.path, step);
            }
            return None;
        }
        match probe {
            Probe::Ok(info) => {
                state.tried.push(attempt);
                Some((resolved.path, info))
            }
            Probe::Fatal(m) => {
                state.tried.push(attempt);
                state.fatal = Some(format!("{path}: {m}"));
                None
            }
            Probe::Missing => {
                state.tried.push(attempt);
                None
            }
            _ => {
                state.skipped.push(attempt.clone());
                state.tried.push(attempt);
                None
            }
        }
    }

    /// Searches for `name` requested by object `from`.
    fn search(&mut self, from: usize, name: &str) -> SearchResult {
        let mut state = SearchState::default();
        if name.contains('/') {
            let origin = self.origin(from);
            let Some(expanded) =
                expand_dst(name, origin.as_deref(), &self.ctx.lib, &self.ctx.platform)
            else {
                return state.finish(Some(format!("{name}: $ORIGIN unknown")));
            };
            let path = absolute(&expanded);
            if let Some((real, info)) = self.try_path(&path, &Step::Path, &mut state) {
                state.found = Some((path, real, Step::Path, info));
            }
            return state.finish(None);
        }
        let plan = self.search_dirs(from);
        let mut seen_dirs: HashSet<String> = HashSet::new();
        for entry in plan {
            if seen_dirs.len() >= MAX_PLAN {
                break;
            }
            if state.fatal.is_some() {
                break;
            }
            match entry {
                None => self.search_cache(from, name, &mut state),
                Some((dir, step)) => {
                    if !seen_dirs.insert(dir.clone()) {
                        continue;
                    }
                    self.search_dir(&dir, name, &step, &mut state);
                }
            }
        }
        state.finish(None)
    }

    fn search_cache(&mut self, from: usize, name: &str, state: &mut SearchState) {
        let Some(cached) = self.cache_lookup(name) else {
            if state.found.is_none() && self.cache.is_some() {
                state.tried.push(Attempt {
                    path: "/etc/ld.so.cache".into(),
                    step: Step::Cache,
                    outcome: Outcome::NoCacheEntry,
                    detail: None,
                });
            }
            return;
        };
        let nodeflib = self.infos.get(from).is_some_and(|i| i.nodeflib);
        if nodeflib {
            let in_default = self
                .ctx
                .default_dirs
                .iter()
                .any(|d| cached.starts_with(&format!("{d}/")));
            if in_default {
                if state.found.is_none() {
                    state.tried.push(Attempt {
                        path: cached,
                        step: Step::Cache,
                        outcome: Outcome::SkippedNodeflib,
                        detail: None,
                    });
                }
                return;
            }
        }
        if let Some((real, info)) = self.try_path(&cached, &Step::Cache, state) {
            state.found = Some((cached, real, Step::Cache, info));
        }
    }

    fn search_dir(&mut self, dir: &str, name: &str, step: &Step, state: &mut SearchState) {
        let levels = self.ctx.hwcaps.clone();
        for level in &levels {
            let sub = format!("{dir}/glibc-hwcaps/{level}");
            let Some(listing) = self.listing(&sub) else {
                continue;
            };
            if !listing.contains(name) && state.found.is_some() {
                continue;
            }
            let path = join(&sub, name);
            if let Some((real, info)) = self.try_path(&path, step, state) {
                state.found = Some((path, real, step.clone(), info));
            }
            if state.fatal.is_some() {
                return;
            }
        }
        let path = join(dir, name);
        // A listing saves opening a file that is not there (the common case).
        if let Some(listing) = self.listing(dir) {
            if !listing.contains(name) {
                if state.found.is_none() {
                    state.tried.push(Attempt {
                        path,
                        step: step.clone(),
                        outcome: Outcome::NotFound,
                        detail: None,
                    });
                }
                return;
            }
        }
        if let Some((real, info)) = self.try_path(&path, step, state) {
            state.found = Some((path, real, step.clone(), info));
        }
    }
}

/// The site-packages directory holding `path` when its directory ends with `site_dir` (each
/// component a glob): `/v/lib/python3.12/site-packages/torch/lib/libtorch.so` with `torch/lib`
/// gives `/v/lib/python3.12/site-packages`.
fn site_packages(path: &str, site_dir: &str) -> Option<String> {
    let dir: Vec<&str> = parent_dir(path)
        .split('/')
        .filter(|c| !c.is_empty())
        .collect();
    let want: Vec<&str> = site_dir.split('/').filter(|c| !c.is_empty()).collect();
    if want.is_empty() || dir.len() <= want.len() {
        return None;
    }
    let split = dir.len() - want.len();
    let tail = dir.get(split..)?;
    if !tail.iter().zip(&want).all(|(d, w)| glob_match(w, d)) {
        return None;
    }
    Some(format!("/{}", dir.get(..split)?.join("/")))
}

/// The progress of one search.
#[derive(Default)]
struct SearchState {
    found: Option<(String, String, Step, Rc<ElfInfo>)>,
    tried: Vec<Attempt>,
    skipped: Vec<Attempt>,
    shadowed: Vec<Shadowed>,
    shadow_paths: BTreeSet<String>,
    fatal: Option<String>,
}

impl SearchState {
    fn record_shadow(&mut self, path: &str, real: &str, step: &Step) {
        let Some((_, found_real, _, _)) = &self.found else {
            return;
        };
        if real == found_real || !self.shadow_paths.insert(real.to_string()) {
            return;
        }
        let found_version = file_version(file_name(found_real));
        let version = file_version(file_name(real));
        let version_differs = match (&found_version, &version) {
            (Some(a), Some(b)) => !versions_compatible(a, b),
            _ => false,
        };
        self.shadowed.push(Shadowed {
            path: path.to_string(),
            real_path: real.to_string(),
            step: step.clone(),
            version,
            version_differs,
        });
    }

    fn finish(mut self, error: Option<String>) -> SearchResult {
        if error.is_some() {
            self.fatal = error;
        }
        let found = if self.fatal.is_some() {
            None
        } else {
            self.found
        };
        SearchResult {
            found,
            tried: self.tried,
            skipped: self.skipped,
            shadowed: self.shadowed,
            fatal: self.fatal,
        }
    }
}

struct SearchResult {
    found: Option<(String, String, Step, Rc<ElfInfo>)>,
    tried: Vec<Attempt>,
    skipped: Vec<Attempt>,
    shadowed: Vec<Shadowed>,
    fatal: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dsts_expand_like_glibc() {
        let e = |v: &str| expand_dst(v, Some("/o"), "lib/x86_64-linux-gnu", "x86_64");
        assert_eq!(e("$ORIGIN/../lib").as_deref(), Some("/o/../lib"));
        assert_eq!(e("${ORIGIN}/x").as_deref(), Some("/o/x"));
        assert_eq!(
            e("/usr/$LIB/$PLATFORM").as_deref(),
            Some("/usr/lib/x86_64-linux-gnu/x86_64")
        );
        assert_eq!(e("$ORIGINAL").as_deref(), Some("$ORIGINAL"));
        assert_eq!(e("a$").as_deref(), Some("a$"));
        assert_eq!(e("${ORIGIN").as_deref(), Some("${ORIGIN"));
        assert_eq!(expand_dst("$ORIGIN/x", None, "lib", "x"), None);
    }

    #[test]
    fn versions_and_sites() {
        assert_eq!(file_version("libcudnn.so.9.1.0").as_deref(), Some("9.1.0"));
        assert_eq!(file_version("libcudnn.so.9").as_deref(), Some("9"));
        assert_eq!(file_version("libcudnn.so"), None);
        assert_eq!(
            site_packages("/v/site-packages/torch/lib/libtorch_cuda.so", "torch/lib").as_deref(),
            Some("/v/site-packages")
        );
        assert_eq!(
            site_packages(
                "/v/sp/jax_plugins/xla_cuda12/xla_cuda_plugin.so",
                "jax_plugins/xla_cuda1[0-9]"
            )
            .as_deref(),
            Some("/v/sp")
        );
        assert_eq!(site_packages("/torch/lib/x.so", "torch/lib"), None);
        assert_eq!(site_packages("/a/b/x.so", "torch/lib"), None);
    }

    #[test]
    fn cpu_levels() {
        let v3 = "flags : cx16 lahf_lm popcnt sse4_1 sse4_2 ssse3 avx avx2 bmi1 bmi2 f16c fma abm movbe xsave\n";
        assert_eq!(x86_64_levels(v3), vec!["x86-64-v3", "x86-64-v2"]);
        assert!(x86_64_levels("flags : sse2\n").is_empty());
        assert!(x86_64_levels("").is_empty());
    }
}
