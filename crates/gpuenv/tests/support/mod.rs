//! The scenario harness: a scenario file (TOML) describes a machine — files, directories, symlinks,
//! shared libraries with their SONAME/NEEDED/RPATH/RUNPATH, GPUs on the PCI bus, ld.so.cache
//! entries, environment variables — and the findings expected. `FakeRoot::build` materialises it
//! into a temporary directory with *real* ELF objects compiled by the system C compiler and a real
//! glibc-format ld.so.cache; `run_gpuenv` runs the real binary against it with `--root`.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::fs;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Mutex, OnceLock};

use serde::Deserialize;

/// One scenario file.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    #[serde(default)]
    pub description: String,
    /// Environment variables of the gpuenv process (nothing else from the test's environment leaks in).
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    #[serde(default)]
    pub dir: Vec<DirSpec>,
    #[serde(default)]
    pub file: Vec<FileSpec>,
    #[serde(default)]
    pub symlink: Vec<SymlinkSpec>,
    #[serde(default)]
    pub library: Vec<LibrarySpec>,
    #[serde(default)]
    pub gpu: Vec<GpuSpec>,
    /// Kernel module files (`nvidia.ko`): relocatable ELF objects with a `.modinfo` section.
    #[serde(default)]
    pub kernel_module: Vec<KernelModuleSpec>,
    /// Python environments (venvs, conda environments, system interpreters).
    #[serde(default)]
    pub python_env: Vec<PythonEnvSpec>,
    /// Installed distributions (`*.dist-info`) in those environments.
    #[serde(default)]
    pub dist: Vec<DistSpec>,
    /// conda package records (`conda-meta/*.json`).
    #[serde(default)]
    pub conda_pkg: Vec<CondaPkgSpec>,
    /// ld.so.cache entries in lookup order: `soname -> path` pairs written in glibc's format.
    #[serde(default)]
    pub ld_cache: Vec<CacheEntrySpec>,
    /// Extra `doctor` arguments (e.g. `--all-envs`).
    #[serde(default)]
    pub args: Vec<String>,
    /// Include the templates named here (see `template`).
    #[serde(default)]
    pub use_templates: Vec<String>,
    pub expect: Expect,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DirSpec {
    pub path: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileSpec {
    pub path: String,
    #[serde(default)]
    pub text: String,
    /// Octal mode, e.g. "660".
    pub mode: Option<String>,
    /// Bytes given as hex, for binary files (efivars).
    pub hex: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SymlinkSpec {
    pub path: String,
    pub target: String,
}

/// A real ELF shared object. `path` is the real file; `links` are symlinks created beside it
/// (each pointing at the file name), e.g. the SONAME link and the development link.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LibrarySpec {
    pub path: String,
    pub soname: Option<String>,
    #[serde(default)]
    pub needed: Vec<String>,
    #[serde(default)]
    pub rpath: Vec<String>,
    #[serde(default)]
    pub runpath: Vec<String>,
    #[serde(default)]
    pub links: Vec<String>,
    /// A `.nv_fatbin` section: one container per string, each listing its targets
    /// (`"sm_80 sm_86 compute_86"`), with the headers nvcc writes (payloads are filler).
    #[serde(default)]
    pub fatbin: Vec<String>,
}

/// A Python environment: `kind` is `venv` (writes `pyvenv.cfg`), `conda` (writes `conda-meta/`
/// with a python record) or `system`; each gets `bin/python3` and its site-packages directory.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PythonEnvSpec {
    pub prefix: String,
    pub kind: String,
    pub python: String,
}

impl PythonEnvSpec {
    pub fn site_packages(&self) -> String {
        let mm: Vec<&str> = self.python.split('.').take(2).collect();
        format!(
            "{}/lib/python{}/site-packages",
            self.prefix.trim_end_matches('/'),
            mm.join(".")
        )
    }
}

/// A distribution installed in an environment: a `name-version.dist-info` with METADATA,
/// INSTALLER and a RECORD listing `files` (created too); `content` changes the files' hashes so
/// that two distributions' copies of one file differ.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DistSpec {
    pub env: String,
    pub name: String,
    pub version: String,
    #[serde(default)]
    pub requires: Vec<String>,
    pub requires_python: Option<String>,
    #[serde(default = "default_installer")]
    pub installer: String,
    #[serde(default)]
    pub files: Vec<String>,
    #[serde(default)]
    pub content: String,
}

fn default_installer() -> String {
    "pip".into()
}

/// A conda package record in an environment's `conda-meta/`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CondaPkgSpec {
    pub env: String,
    pub name: String,
    pub version: String,
    #[serde(default)]
    pub build: String,
    #[serde(default)]
    pub channel: String,
}

/// A kernel module file as DKMS or a package installs it: an ELF relocatable object whose
/// `.modinfo` section carries `version=...`, with the module-signature trailer when `signed`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KernelModuleSpec {
    pub path: String,
    pub version: String,
    #[serde(default)]
    pub signed: bool,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GpuSpec {
    /// `0000:01:00.0`.
    pub pci: String,
    /// PCI device id, e.g. "2204".
    pub device: String,
    #[serde(default = "default_class")]
    pub class: String,
    /// The kernel driver bound to it (`nvidia`, `nouveau`), if any.
    pub driver: Option<String>,
}

fn default_class() -> String {
    "0x030000".into()
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CacheEntrySpec {
    pub soname: String,
    pub path: String,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Expect {
    /// Check ids that must be among the findings.
    #[serde(default)]
    pub fires: Vec<String>,
    /// Check ids that must not be.
    #[serde(default)]
    pub silent: Vec<String>,
    /// The exit status.
    pub exit: i32,
    /// Strings that must appear in the human output.
    #[serde(default)]
    pub output_contains: Vec<String>,
}

impl Scenario {
    pub fn load(path: &Path) -> Scenario {
        let text = fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let mut s: Scenario =
            toml::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        for name in s.use_templates.clone() {
            let t = templates_dir().join(format!("{name}.toml"));
            let text = fs::read_to_string(&t).unwrap_or_else(|e| panic!("{}: {e}", t.display()));
            let mut part: Scenario = toml::from_str(&format!("{text}\n[expect]\nexit = 0\n"))
                .unwrap_or_else(|e| panic!("{}: {e}", t.display()));
            s.dir.append(&mut part.dir);
            s.file.append(&mut part.file);
            s.symlink.append(&mut part.symlink);
            s.library.append(&mut part.library);
            s.gpu.append(&mut part.gpu);
            s.kernel_module.append(&mut part.kernel_module);
            s.python_env.append(&mut part.python_env);
            s.dist.append(&mut part.dist);
            s.conda_pkg.append(&mut part.conda_pkg);
            s.ld_cache.append(&mut part.ld_cache);
            for (k, v) in part.env {
                s.env.entry(k).or_insert(v);
            }
        }
        s
    }
}

pub fn scenarios_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scenarios")
}

pub fn templates_dir() -> PathBuf {
    scenarios_dir().join("templates")
}

/// A materialised fake machine root.
pub struct FakeRoot {
    pub dir: tempfile::TempDir,
}

impl FakeRoot {
    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    fn host(&self, path: &str) -> PathBuf {
        self.dir.path().join(path.trim_start_matches('/'))
    }

    fn parent(&self, path: &str) -> PathBuf {
        let host = self.host(path);
        if let Some(p) = host.parent() {
            fs::create_dir_all(p).unwrap();
        }
        host
    }

    pub fn build(s: &Scenario) -> FakeRoot {
        let root = FakeRoot {
            dir: tempfile::tempdir().unwrap(),
        };
        // Every machine has these; a scenario adds to them.
        for d in [
            "etc",
            "proc/sys/kernel",
            "sys/module",
            "sys/bus/pci/devices",
            "dev",
            "usr/lib/x86_64-linux-gnu",
            "lib64",
        ] {
            fs::create_dir_all(root.host(d)).unwrap();
        }
        for d in &s.dir {
            fs::create_dir_all(root.host(&d.path)).unwrap();
        }
        for f in &s.file {
            let host = root.parent(&f.path);
            match &f.hex {
                Some(hex) => fs::write(&host, decode_hex(hex)).unwrap(),
                None => fs::write(&host, &f.text).unwrap(),
            }
            if let Some(mode) = &f.mode {
                use std::os::unix::fs::PermissionsExt;
                let m = u32::from_str_radix(mode, 8).unwrap();
                fs::set_permissions(&host, fs::Permissions::from_mode(m)).unwrap();
            }
        }
        for lib in &s.library {
            let host = root.parent(&lib.path);
            fs::copy(compile_library(lib), &host).unwrap();
            for link in &lib.links {
                let name = Path::new(&lib.path).file_name().unwrap();
                let link_path = host.parent().unwrap().join(link);
                let _ = fs::remove_file(&link_path);
                symlink(name, link_path).unwrap();
            }
        }
        for m in &s.kernel_module {
            let host = root.parent(&m.path);
            let mut bytes = fs::read(compile_kernel_module(&m.version)).unwrap();
            if m.signed {
                // What scripts/sign-file appends (the signature blob itself is not checked).
                bytes.extend_from_slice(&[0u8; 16]);
                bytes.extend_from_slice(b"~Module signature appended~\n");
            }
            fs::write(host, bytes).unwrap();
        }
        for e in &s.python_env {
            root.build_python_env(e);
        }
        for d in &s.dist {
            let env = s
                .python_env
                .iter()
                .find(|e| e.prefix == d.env)
                .unwrap_or_else(|| panic!("dist {} names unknown env {}", d.name, d.env));
            root.build_dist(&env.site_packages(), d);
        }
        for c in &s.conda_pkg {
            let name = format!("{}-{}-{}.json", c.name, c.version, c.build);
            let host = root.parent(&format!("{}/conda-meta/{name}", c.env));
            let record = serde_json::json!({
                "name": c.name, "version": c.version, "build": c.build,
                "channel": c.channel, "files": []
            });
            fs::write(host, record.to_string()).unwrap();
        }
        for l in &s.symlink {
            let host = root.parent(&l.path);
            let _ = fs::remove_file(&host);
            symlink(&l.target, host).unwrap();
        }
        for g in &s.gpu {
            let dir = root.host(&format!("sys/bus/pci/devices/{}", g.pci));
            fs::create_dir_all(&dir).unwrap();
            fs::write(dir.join("vendor"), "0x10de\n").unwrap();
            fs::write(dir.join("device"), format!("0x{}\n", g.device)).unwrap();
            fs::write(dir.join("class"), format!("{}\n", g.class)).unwrap();
            if let Some(d) = &g.driver {
                let drv = root.host(&format!("sys/bus/pci/drivers/{d}"));
                fs::create_dir_all(&drv).unwrap();
                symlink(
                    format!("../../../../bus/pci/drivers/{d}"),
                    dir.join("driver"),
                )
                .unwrap();
            }
        }
        if !s.ld_cache.is_empty() {
            let entries: Vec<(&str, &str)> = s
                .ld_cache
                .iter()
                .map(|e| (e.soname.as_str(), e.path.as_str()))
                .collect();
            fs::write(root.host("etc/ld.so.cache"), ld_so_cache(&entries)).unwrap();
        }
        root
    }
}

impl FakeRoot {
    fn build_python_env(&self, e: &PythonEnvSpec) {
        let prefix = e.prefix.trim_end_matches('/');
        fs::create_dir_all(self.host(&e.site_packages())).unwrap();
        let python = self.parent(&format!("{prefix}/bin/python3"));
        fs::write(&python, "#!/bin/false\n").unwrap();
        match e.kind.as_str() {
            "venv" => fs::write(
                self.host(&format!("{prefix}/pyvenv.cfg")),
                format!(
                    "home = /usr/bin\ninclude-system-site-packages = false\nversion = {}\n",
                    e.python
                ),
            )
            .unwrap(),
            "conda" => {
                let meta = self.parent(&format!(
                    "{prefix}/conda-meta/python-{}-h0_0.json",
                    e.python
                ));
                fs::write(meta, format!("{{\"name\": \"python\", \"version\": \"{}\", \"build\": \"h0_0\", \"files\": []}}", e.python)).unwrap();
            }
            "system" => {}
            other => panic!("unknown python_env kind {other}"),
        }
    }

    fn build_dist(&self, site: &str, d: &DistSpec) {
        let escaped = d.name.replace('-', "_");
        let dir = format!("{site}/{escaped}-{}.dist-info", d.version);
        fs::create_dir_all(self.host(&dir)).unwrap();
        let mut meta = format!(
            "Metadata-Version: 2.1\nName: {}\nVersion: {}\n",
            d.name, d.version
        );
        if let Some(rp) = &d.requires_python {
            meta.push_str(&format!("Requires-Python: {rp}\n"));
        }
        for r in &d.requires {
            meta.push_str(&format!("Requires-Dist: {r}\n"));
        }
        meta.push_str("\nA test distribution.\n");
        fs::write(self.host(&format!("{dir}/METADATA")), meta).unwrap();
        fs::write(
            self.host(&format!("{dir}/INSTALLER")),
            format!("{}\n", d.installer),
        )
        .unwrap();
        let mut record = String::new();
        for f in &d.files {
            // Same path and same `content` give the same bytes (namespace packages' empty
            // `nvidia/__init__.py`); a different `content` makes the copies differ.
            let body = format!("{}:{}", f, d.content);
            let path = format!("{site}/{f}");
            fs::write(self.parent(&path), &body).unwrap();
            // Any distinct text stands in for the urlsafe-base64 sha256 pip writes.
            let hash: u64 = body.bytes().fold(1469598103934665603u64, |h, b| {
                (h ^ b as u64).wrapping_mul(1099511628211)
            });
            record.push_str(&format!("{f},sha256={hash:016x},{}\n", body.len()));
        }
        record.push_str(&format!("{escaped}-{}.dist-info/METADATA,,\n", d.version));
        fs::write(self.host(&format!("{dir}/RECORD")), record).unwrap();
    }
}

fn decode_hex(hex: &str) -> Vec<u8> {
    let clean: String = hex.chars().filter(|c| c.is_ascii_hexdigit()).collect();
    (0..clean.len() / 2)
        .map(|i| u8::from_str_radix(&clean[2 * i..2 * i + 2], 16).unwrap())
        .collect()
}

/// Writes a glibc `ld.so.cache` in the new format (`glibc-ld.so.cache1.1`), x86-64 entries.
pub fn ld_so_cache(entries: &[(&str, &str)]) -> Vec<u8> {
    const HEADER: usize = 20 + 4 + 4 + 1 + 3 + 4 + 12; // magic+version, nlibs, len_strings, flags, pad, ext offset, unused
    const ENTRY: usize = 24;
    let strings_start = HEADER + ENTRY * entries.len();
    let mut strings: Vec<u8> = Vec::new();
    let mut table: Vec<u8> = Vec::new();
    for (soname, path) in entries {
        let key = (strings_start + strings.len()) as u32;
        strings.extend_from_slice(soname.as_bytes());
        strings.push(0);
        let value = (strings_start + strings.len()) as u32;
        strings.extend_from_slice(path.as_bytes());
        strings.push(0);
        table.extend_from_slice(&0x0303i32.to_le_bytes()); // libc6,x86-64
        table.extend_from_slice(&key.to_le_bytes());
        table.extend_from_slice(&value.to_le_bytes());
        table.extend_from_slice(&0u32.to_le_bytes()); // osversion
        table.extend_from_slice(&0u64.to_le_bytes()); // hwcap
    }
    let mut out = Vec::new();
    out.extend_from_slice(b"glibc-ld.so.cache1.1");
    out.extend_from_slice(&(entries.len() as u32).to_le_bytes());
    out.extend_from_slice(&(strings.len() as u32).to_le_bytes());
    out.push(2); // flags: little endian
    out.extend_from_slice(&[0, 0, 0]);
    out.extend_from_slice(&0u32.to_le_bytes()); // no extensions
    out.extend_from_slice(&[0u8; 12]);
    assert_eq!(out.len(), HEADER);
    out.extend_from_slice(&table);
    out.extend_from_slice(&strings);
    out
}

/// A directory of compiled objects shared by all scenarios of one test run.
fn build_cache() -> &'static Mutex<(tempfile::TempDir, BTreeMap<String, PathBuf>)> {
    static CACHE: OnceLock<Mutex<(tempfile::TempDir, BTreeMap<String, PathBuf>)>> = OnceLock::new();
    CACHE.get_or_init(|| Mutex::new((tempfile::tempdir().unwrap(), BTreeMap::new())))
}

fn cc(args: &[String]) {
    let status = Command::new("cc")
        .args(args)
        .status()
        .expect("the system C compiler (cc) runs");
    assert!(status.success(), "cc {args:?} failed");
}

/// Compiles (once per distinct spec) a shared object with the requested dynamic section.
fn compile_library(lib: &LibrarySpec) -> PathBuf {
    let key = format!(
        "{:?}|{:?}|{:?}|{:?}",
        lib.soname, lib.needed, lib.rpath, lib.runpath
    );
    let mut guard = build_cache().lock().unwrap_or_else(|e| e.into_inner());
    if let Some(p) = guard.1.get(&key) {
        return p.clone();
    }
    let dir = guard.0.path().to_path_buf();
    let n = guard.1.len();
    let stubs = dir.join("stubs");
    fs::create_dir_all(&stubs).unwrap();
    // Stub libraries give the linker something to record each NEEDED entry from.
    for needed in &lib.needed {
        let stub = stubs.join(needed);
        if !stub.exists() {
            cc(&[
                "-shared".into(),
                "-x".into(),
                "c".into(),
                "/dev/null".into(),
                "-o".into(),
                stub.display().to_string(),
                format!("-Wl,-soname,{needed}"),
            ]);
        }
    }
    let src = dir.join(format!("lib{n}.c"));
    let mut source = format!("int gpuenv_fixture_{n}(void) {{ return {n}; }}\n");
    if !lib.fatbin.is_empty() {
        let bytes: Vec<String> = fatbin_bytes(&lib.fatbin)
            .iter()
            .map(|b| b.to_string())
            .collect();
        source.push_str(&format!(
            "__attribute__((section(\".nv_fatbin\"), used, aligned(8))) static const unsigned char fatbin_{n}[] = {{{}}};\n",
            bytes.join(",")
        ));
    }
    fs::write(&src, source).unwrap();
    let out = dir.join(format!("lib{n}.so"));
    let mut args: Vec<String> = vec![
        "-shared".into(),
        "-fPIC".into(),
        src.display().to_string(),
        "-o".into(),
        out.display().to_string(),
        "-Wl,--no-as-needed".into(),
    ];
    if let Some(so) = &lib.soname {
        args.push(format!("-Wl,-soname,{so}"));
    }
    if !lib.rpath.is_empty() {
        args.push("-Wl,--disable-new-dtags".into());
        args.push(format!("-Wl,-rpath,{}", lib.rpath.join(":")));
    } else if !lib.runpath.is_empty() {
        args.push("-Wl,--enable-new-dtags".into());
        args.push(format!("-Wl,-rpath,{}", lib.runpath.join(":")));
    }
    if !lib.needed.is_empty() {
        args.push(format!("-L{}", stubs.display()));
        for needed in &lib.needed {
            args.push(format!("-l:{needed}"));
        }
    }
    cc(&args);
    guard.1.insert(key, out.clone());
    out
}

/// Compiles an object with a `.modinfo` section like a real kernel module's.
fn compile_kernel_module(version: &str) -> PathBuf {
    let key = format!("kernel-module|{version}");
    let mut guard = build_cache().lock().unwrap_or_else(|e| e.into_inner());
    if let Some(p) = guard.1.get(&key) {
        return p.clone();
    }
    let dir = guard.0.path().to_path_buf();
    let n = guard.1.len();
    let src = dir.join(format!("module{n}.c"));
    fs::write(
        &src,
        format!(
            "__attribute__((section(\".modinfo\"), used)) static const char info[] = \"license=NVIDIA\\0version={version}\\0srcversion=GPUENVTEST\";\n"
        ),
    )
    .unwrap();
    let out = dir.join(format!("module{n}.ko"));
    cc(&[
        "-c".into(),
        src.display().to_string(),
        "-o".into(),
        out.display().to_string(),
    ]);
    guard.1.insert(key, out.clone());
    out
}

/// Fatbin bytes as nvcc lays them out (little-endian): per container a 16-byte header (magic
/// 0xBA55ED50, version 1, header size 16, size of the entries), then per target a 64-byte entry
/// header (kind 1 = PTX / 2 = ELF at +0, header size at +4, payload size at +8, PTX ISA minor and
/// major at +24/+26, arch at +28, flags at +40: 0x100000 `a`, 0x200000 `f`) and a 16-byte payload.
pub fn fatbin_bytes(containers: &[String]) -> Vec<u8> {
    const PAYLOAD: usize = 16;
    let mut out = Vec::new();
    for c in containers {
        let mut entries = Vec::new();
        for target in c.split_whitespace() {
            let (kind, rest) = match target.strip_prefix("sm_") {
                Some(r) => (2u16, r),
                None => (
                    1u16,
                    target
                        .strip_prefix("compute_")
                        .expect("sm_ or compute_ target"),
                ),
            };
            let digits: String = rest.chars().take_while(|c| c.is_ascii_digit()).collect();
            let arch: u32 = digits.parse().unwrap();
            let flags: u64 = match &rest[digits.len()..] {
                "a" => 0x10_0000,
                "f" => 0x20_0000,
                _ => 0,
            };
            let mut h = vec![0u8; 64];
            h[0..2].copy_from_slice(&kind.to_le_bytes());
            h[4..8].copy_from_slice(&64u32.to_le_bytes());
            h[8..16].copy_from_slice(&(PAYLOAD as u64).to_le_bytes());
            let (minor, major) = if kind == 1 {
                (2u16, 8u16)
            } else {
                (7u16, 1u16)
            };
            h[24..26].copy_from_slice(&minor.to_le_bytes());
            h[26..28].copy_from_slice(&major.to_le_bytes());
            h[28..32].copy_from_slice(&arch.to_le_bytes());
            h[40..48].copy_from_slice(&flags.to_le_bytes());
            entries.extend_from_slice(&h);
            entries.extend_from_slice(&[0xAB; PAYLOAD]);
        }
        out.extend_from_slice(&0xBA55_ED50u32.to_le_bytes());
        out.extend_from_slice(&1u16.to_le_bytes());
        out.extend_from_slice(&16u16.to_le_bytes());
        out.extend_from_slice(&(entries.len() as u64).to_le_bytes());
        out.extend_from_slice(&entries);
    }
    out
}

/// Whether the system C compiler is available (scenario tests need it).
pub fn have_cc() -> bool {
    Command::new("cc")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// The result of one gpuenv run.
pub struct Run {
    pub status: i32,
    pub stdout: String,
    pub stderr: String,
}

/// Runs the real gpuenv binary with `--root` and exactly the scenario's environment.
pub fn run_gpuenv(root: &Path, env: &BTreeMap<String, String>, args: &[&str]) -> Run {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_gpuenv"));
    cmd.env_clear().arg("--root").arg(root).args(args);
    cmd.env("GPUENV_NO_NVML", "1");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().expect("gpuenv runs");
    Run {
        status: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// The upstream part of an installed Debian package's version (`535.309.01-0+deb12u1` ->
/// `535.309.01`, `11.8.89~11.8.0-5~deb12u1` -> `11.8.89`), or `None` when it is not installed.
pub fn dpkg_upstream_version(package: &str) -> Option<String> {
    let out = Command::new("dpkg-query")
        .args(["-W", "-f=${Version}", package])
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    let full = String::from_utf8(out.stdout).ok()?;
    let upstream = full.split(['~', '-']).next()?.trim().to_string();
    (!upstream.is_empty()).then_some(upstream)
}

/// The ids of the findings in a JSON report.
pub fn finding_ids(report: &serde_json::Value) -> Vec<String> {
    report["findings"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|f| f["id"].as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}
