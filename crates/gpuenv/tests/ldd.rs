//! `gpuenv ldd` on fake roots: glibc's search order (RPATH chain before LD_LIBRARY_PATH before
//! RUNPATH before the cache before the default directories), NODEFLIB, wrong-class and
//! wrong-machine skips, `$ORIGIN`, cycles, hostile sizes, Debian's alternatives chains and CUDA
//! stubs, dlopen edges, and the command's output and exit status. Objects are real ELF files:
//! compiled by `cc` through the scenario harness, or (for what a linker will not make quickly —
//! 10 000 NEEDED entries, a 20 000-character RUNPATH, DF_1_NODEFLIB, another machine) written by
//! `tiny_elf` below, a minimal but well-formed ELF64 shared object.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::collections::BTreeMap;
use std::fs;
use std::os::unix::fs::symlink;
use std::time::Instant;

use gpuenv_kb::Kb;
use gpuenv_probe::loader::{simulate, Outcome, Request, Simulation, Step};
use gpuenv_probe::{Environment, SystemRoot};
use support::{have_cc, run_gpuenv, FakeRoot, LibrarySpec, Scenario};

fn lib(path: &str, soname: &str, needed: &[&str]) -> LibrarySpec {
    LibrarySpec {
        path: path.into(),
        soname: Some(soname.into()),
        needed: needed.iter().map(|s| s.to_string()).collect(),
        rpath: Vec::new(),
        runpath: Vec::new(),
        links: Vec::new(),
        fatbin: Vec::new(),
    }
}

/// A fake root with these libraries, plus a libc (every `cc`-built object needs libc.so.6).
fn build(mut libs: Vec<LibrarySpec>) -> FakeRoot {
    if have_cc() {
        libs.push(lib("/usr/lib/x86_64-linux-gnu/libc.so.6", "libc.so.6", &[]));
    }
    let s = Scenario {
        library: libs,
        ..Default::default()
    };
    FakeRoot::build(&s)
}

fn sim(root: &FakeRoot, env: &[(&str, &str)], file: &str) -> Simulation {
    let r = SystemRoot::new(root.path()).unwrap();
    let kb = Kb::builtin().unwrap();
    simulate(
        &r,
        &Environment::from_pairs(env.iter().copied()),
        Some(&kb),
        file,
    )
    .unwrap()
}

/// The object a name resolved to (first edge that names it).
fn resolved<'a>(s: &'a Simulation, name: &str) -> Option<&'a gpuenv_probe::loader::Object> {
    s.objects
        .iter()
        .flat_map(|o| o.deps.iter())
        .find(|d| d.name == name)
        .and_then(|d| d.object)
        .and_then(|i| s.objects.get(i))
}

fn is_missing(s: &Simulation, name: &str) -> bool {
    s.missing().iter().any(|(_, d)| d.name == name)
}

/// A minimal ELF64 little-endian shared object: one PT_LOAD covering the file, a PT_DYNAMIC with
/// the given entries, and a string table.
fn tiny_elf(
    machine: u16,
    soname: Option<&str>,
    needed: &[String],
    rpath: Option<&str>,
    runpath: Option<&str>,
    flags_1: u64,
) -> Vec<u8> {
    let mut strtab = vec![0u8];
    let mut add = |s: &str| {
        let off = strtab.len() as u64;
        strtab.extend_from_slice(s.as_bytes());
        strtab.push(0);
        off
    };
    let mut dyns: Vec<(u64, u64)> = Vec::new();
    for n in needed {
        dyns.push((1, add(n)));
    }
    if let Some(s) = soname {
        dyns.push((14, add(s)));
    }
    if let Some(r) = rpath {
        dyns.push((15, add(r)));
    }
    if let Some(r) = runpath {
        dyns.push((29, add(r)));
    }
    if flags_1 != 0 {
        dyns.push((0x6fff_fffb, flags_1));
    }
    let dyn_off = 64 + 2 * 56;
    let dyn_size = (dyns.len() + 3) * 16;
    let str_off = dyn_off + dyn_size;
    dyns.push((5, str_off as u64));
    dyns.push((10, strtab.len() as u64));
    dyns.push((0, 0));
    let total = (str_off + strtab.len()) as u64;
    let mut out = Vec::new();
    out.extend_from_slice(&[0x7f, b'E', b'L', b'F', 2, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    out.extend_from_slice(&3u16.to_le_bytes()); // ET_DYN
    out.extend_from_slice(&machine.to_le_bytes());
    out.extend_from_slice(&1u32.to_le_bytes());
    out.extend_from_slice(&0u64.to_le_bytes()); // entry
    out.extend_from_slice(&64u64.to_le_bytes()); // phoff
    out.extend_from_slice(&0u64.to_le_bytes()); // shoff
    out.extend_from_slice(&0u32.to_le_bytes()); // flags
    for v in [64u16, 56, 2, 64, 0, 0] {
        out.extend_from_slice(&v.to_le_bytes());
    }
    let phdr = |out: &mut Vec<u8>, kind: u32, flags: u32, off: u64, size: u64, align: u64| {
        out.extend_from_slice(&kind.to_le_bytes());
        out.extend_from_slice(&flags.to_le_bytes());
        for v in [off, off, off, size, size, align] {
            out.extend_from_slice(&v.to_le_bytes());
        }
    };
    phdr(&mut out, 1, 4, 0, total, 0x1000);
    phdr(&mut out, 2, 6, dyn_off as u64, dyn_size as u64, 8);
    for (t, v) in dyns {
        out.extend_from_slice(&t.to_le_bytes());
        out.extend_from_slice(&v.to_le_bytes());
    }
    out.extend_from_slice(&strtab);
    out
}

fn write(root: &FakeRoot, path: &str, bytes: &[u8]) {
    let host = root.path().join(path.trim_start_matches('/'));
    fs::create_dir_all(host.parent().unwrap()).unwrap();
    fs::write(host, bytes).unwrap();
}

fn link(root: &FakeRoot, path: &str, target: &str) {
    let host = root.path().join(path.trim_start_matches('/'));
    fs::create_dir_all(host.parent().unwrap()).unwrap();
    let _ = fs::remove_file(&host);
    symlink(target, host).unwrap();
}

const SP: &str = "/venv/lib/python3.12/site-packages";

#[test]
fn rpath_beats_ld_library_path_which_only_fills_in_missing_libraries() {
    if !have_cc() {
        eprintln!("SKIPPED: no C compiler");
        return;
    }
    // torch's libtorch_cuda.so: DT_RPATH into the venv's nvidia/*/lib; an older cuDNN and an
    // nvToolsExt on LD_LIBRARY_PATH.
    let mut torch = lib(
        &format!("{SP}/torch/lib/libtorch_cuda.so"),
        "libtorch_cuda.so",
        &["libcudnn.so.9", "libnvToolsExt.so.1"],
    );
    torch.rpath = vec!["$ORIGIN/../../nvidia/cudnn/lib".into(), "$ORIGIN".into()];
    let mut old = lib(
        "/opt/cuda-old/lib64/libcudnn.so.9.1.0",
        "libcudnn.so.9",
        &[],
    );
    old.links = vec!["libcudnn.so.9".into()];
    let root = build(vec![
        torch,
        lib(
            &format!("{SP}/nvidia/cudnn/lib/libcudnn.so.9"),
            "libcudnn.so.9",
            &[],
        ),
        old,
        lib(
            "/opt/cuda-old/lib64/libnvToolsExt.so.1",
            "libnvToolsExt.so.1",
            &[],
        ),
    ]);
    let s = sim(
        &root,
        &[("LD_LIBRARY_PATH", "/opt/cuda-old/lib64")],
        &format!("{SP}/torch/lib/libtorch_cuda.so"),
    );
    let cudnn = resolved(&s, "libcudnn.so.9").unwrap();
    assert_eq!(
        cudnn.path,
        format!("{SP}/torch/lib/../../nvidia/cudnn/lib/libcudnn.so.9")
    );
    assert_eq!(
        cudnn.found_by,
        Step::Rpath {
            of: "libtorch_cuda.so".into()
        }
    );
    assert_eq!(
        cudnn.real_path,
        format!("{SP}/nvidia/cudnn/lib/libcudnn.so.9")
    );
    // The LD_LIBRARY_PATH copy is shadowed; "9" (wheel) vs "9.1.0" is not called a difference.
    let shadow = cudnn.shadowed.first().unwrap();
    assert_eq!(shadow.step, Step::LdLibraryPath);
    assert_eq!(shadow.real_path, "/opt/cuda-old/lib64/libcudnn.so.9.1.0");
    assert!(!shadow.version_differs);
    let nvtx = resolved(&s, "libnvToolsExt.so.1").unwrap();
    assert_eq!(nvtx.found_by, Step::LdLibraryPath);
    // Only the cuDNN shim's dlopen edges (sub-libraries not in this fixture) are missing.
    assert!(s
        .missing()
        .iter()
        .all(|(_, d)| matches!(d.request, Request::Dlopen { .. })));
}

#[test]
fn shadowing_reports_a_different_version() {
    if !have_cc() {
        return;
    }
    let mut new = lib("/opt/new/libfoo.so.2.5.0", "libfoo.so.2", &[]);
    new.links = vec!["libfoo.so.2".into()];
    let mut old = lib(
        "/usr/lib/x86_64-linux-gnu/libfoo.so.2.1.0",
        "libfoo.so.2",
        &[],
    );
    old.links = vec!["libfoo.so.2".into()];
    let root = build(vec![
        lib("/app/libapp.so", "libapp.so", &["libfoo.so.2"]),
        new,
        old,
    ]);
    let s = sim(&root, &[("LD_LIBRARY_PATH", "/opt/new")], "/app/libapp.so");
    let foo = resolved(&s, "libfoo.so.2").unwrap();
    assert_eq!(foo.found_by, Step::LdLibraryPath);
    assert_eq!(foo.version.as_deref(), Some("2.5.0"));
    let shadow = foo.shadowed.first().unwrap();
    assert_eq!(shadow.step, Step::Default);
    assert_eq!(shadow.version.as_deref(), Some("2.1.0"));
    assert!(shadow.version_differs);
}

#[test]
fn runpath_comes_after_ld_library_path_and_is_not_inherited() {
    if !have_cc() {
        return;
    }
    let mut app = lib("/app/libapp.so", "libapp.so", &["libb.so.1"]);
    app.runpath = vec!["/opt/a".into()];
    let root = build(vec![
        app,
        lib("/opt/a/libb.so.1", "libb.so.1", &["libc2.so.1"]),
        lib("/opt/a/libc2.so.1", "libc2.so.1", &[]),
        lib("/opt/l/libb.so.1", "libb.so.1", &["libc2.so.1"]),
    ]);
    // RUNPATH finds libb; libb's own NEEDED does not inherit the RUNPATH.
    let s = sim(&root, &[], "/app/libapp.so");
    let b = resolved(&s, "libb.so.1").unwrap();
    assert_eq!(b.path, "/opt/a/libb.so.1");
    assert_eq!(
        b.found_by,
        Step::Runpath {
            of: "libapp.so".into()
        }
    );
    assert!(is_missing(&s, "libc2.so.1"));
    let (_, dep) = s
        .missing()
        .into_iter()
        .find(|(_, d)| d.name == "libc2.so.1")
        .unwrap();
    let tried: Vec<&str> = dep
        .missing
        .as_ref()
        .unwrap()
        .tried
        .iter()
        .map(|a| a.path.as_str())
        .collect();
    assert!(tried.contains(&"/usr/lib/x86_64-linux-gnu/libc2.so.1"));
    assert!(!tried.iter().any(|p| p.starts_with("/opt/a")));
    // LD_LIBRARY_PATH is searched before RUNPATH.
    let s = sim(&root, &[("LD_LIBRARY_PATH", "/opt/l")], "/app/libapp.so");
    let b = resolved(&s, "libb.so.1").unwrap();
    assert_eq!(b.path, "/opt/l/libb.so.1");
    assert_eq!(b.found_by, Step::LdLibraryPath);
    assert_eq!(b.shadowed.first().unwrap().real_path, "/opt/a/libb.so.1");
}

#[test]
fn rpath_is_inherited_up_the_chain_unless_the_requester_has_runpath() {
    if !have_cc() {
        return;
    }
    let mut app = lib("/app/libapp.so", "libapp.so", &["libb.so.1", "libd.so.1"]);
    app.rpath = vec!["/opt/a".into()];
    let mut d = lib("/opt/a/libd.so.1", "libd.so.1", &["libc2.so.1"]);
    d.runpath = vec!["/nowhere".into()];
    let root = build(vec![
        app,
        lib("/opt/a/libb.so.1", "libb.so.1", &["libc2.so.1"]),
        d,
        lib("/opt/a/libc2.so.1", "libc2.so.1", &[]),
    ]);
    let s = sim(&root, &[], "/app/libapp.so");
    let c2 = resolved(&s, "libc2.so.1").unwrap();
    assert_eq!(
        c2.found_by,
        Step::Rpath {
            of: "libapp.so".into()
        }
    );
    // libd has RUNPATH: for its own NEEDED the RPATH chain is not used, but libc2 is already
    // loaded (by libb, breadth-first) and is not searched again.
    let d = s
        .objects
        .iter()
        .position(|o| o.name == "libd.so.1")
        .unwrap();
    let dep = s.objects[d]
        .deps
        .iter()
        .find(|x| x.name == "libc2.so.1")
        .unwrap();
    assert!(!dep.loaded_here && dep.object.is_some());
}

#[test]
fn a_runpath_requester_ignores_the_chain() {
    if !have_cc() {
        return;
    }
    let mut app = lib("/app/libapp.so", "libapp.so", &["libd.so.1"]);
    app.rpath = vec!["/opt/a".into()];
    let mut d = lib("/opt/a/libd.so.1", "libd.so.1", &["libc2.so.1"]);
    d.runpath = vec!["/nowhere".into()];
    let root = build(vec![app, d, lib("/opt/a/libc2.so.1", "libc2.so.1", &[])]);
    let s = sim(&root, &[], "/app/libapp.so");
    assert!(is_missing(&s, "libc2.so.1"));
}

#[test]
fn nodeflib_skips_default_directories_and_their_cache_entries() {
    let root = build(Vec::new());
    let needed = vec!["libz.so.1".to_string()];
    write(
        &root,
        "/app/libapp.so",
        &tiny_elf(62, Some("libapp.so"), &needed, None, None, 0x800),
    );
    write(
        &root,
        "/usr/lib/x86_64-linux-gnu/libz.so.1",
        &tiny_elf(62, Some("libz.so.1"), &[], None, None, 0),
    );
    write(
        &root,
        "/etc/ld.so.cache",
        &support::ld_so_cache(&[("libz.so.1", "/usr/lib/x86_64-linux-gnu/libz.so.1")]),
    );
    let s = sim(&root, &[], "/app/libapp.so");
    assert!(is_missing(&s, "libz.so.1"));
    let (_, dep) = s.missing().into_iter().next().unwrap();
    let tried = &dep.missing.as_ref().unwrap().tried;
    assert!(tried
        .iter()
        .any(|a| a.step == Step::Cache && a.outcome == Outcome::SkippedNodeflib));
    assert!(!tried.iter().any(|a| a.step == Step::Default));
    // Without the flag the cache finds it.
    write(
        &root,
        "/app/libapp.so",
        &tiny_elf(62, Some("libapp.so"), &needed, None, None, 0),
    );
    let s = sim(&root, &[], "/app/libapp.so");
    assert_eq!(resolved(&s, "libz.so.1").unwrap().found_by, Step::Cache);
}

#[test]
fn wrong_class_and_wrong_machine_are_skipped_and_the_search_goes_on() {
    let root = build(Vec::new());
    let needed = vec!["libz.so.1".to_string(), "libq.so.1".to_string()];
    write(
        &root,
        "/app/libapp.so",
        &tiny_elf(62, Some("libapp.so"), &needed, None, None, 0),
    );
    // A 32-bit ELF and an AArch64 ELF come first on LD_LIBRARY_PATH.
    let mut elf32 = vec![0x7f, b'E', b'L', b'F', 1, 1, 1, 0];
    elf32.resize(52, 0);
    write(&root, "/opt/l/libz.so.1", &elf32);
    write(
        &root,
        "/opt/l/libq.so.1",
        &tiny_elf(183, Some("libq.so.1"), &[], None, None, 0),
    );
    for n in ["libz.so.1", "libq.so.1"] {
        write(
            &root,
            &format!("/usr/lib/x86_64-linux-gnu/{n}"),
            &tiny_elf(62, Some(n), &[], None, None, 0),
        );
    }
    // A text file under the name stops the load, as glibc does ("invalid ELF header").
    write(&root, "/opt/bad/libz.so.1", b"INPUT(-lz)\n");
    let s = sim(&root, &[("LD_LIBRARY_PATH", "/opt/l")], "/app/libapp.so");
    let z = resolved(&s, "libz.so.1").unwrap();
    assert_eq!(z.found_by, Step::Default);
    assert_eq!(z.skipped.first().unwrap().outcome, Outcome::WrongClass);
    let q = resolved(&s, "libq.so.1").unwrap();
    assert_eq!(q.skipped.first().unwrap().outcome, Outcome::WrongMachine);
    let s = sim(&root, &[("LD_LIBRARY_PATH", "/opt/bad")], "/app/libapp.so");
    assert!(is_missing(&s, "libz.so.1"));
    let (_, dep) = s
        .missing()
        .into_iter()
        .find(|(_, d)| d.name == "libz.so.1")
        .unwrap();
    assert!(dep
        .missing
        .as_ref()
        .unwrap()
        .error
        .as_deref()
        .unwrap()
        .contains("invalid ELF header"));
}

#[test]
fn cycles_load_each_object_once() {
    if !have_cc() {
        return;
    }
    let mut a = lib("/opt/c/liba.so.1", "liba.so.1", &["libb.so.1"]);
    a.runpath = vec!["$ORIGIN".into()];
    let mut b = lib("/opt/c/libb.so.1", "libb.so.1", &["liba.so.1", "libb.so.1"]);
    b.runpath = vec!["$ORIGIN".into()];
    let root = build(vec![a, b]);
    let s = sim(&root, &[], "/opt/c/liba.so.1");
    assert_eq!(s.objects.len(), 3); // liba, libb, libc
    assert!(s.missing().is_empty());
    let out = run_gpuenv(root.path(), &BTreeMap::new(), &["ldd", "/opt/c/liba.so.1"]);
    assert_eq!(out.status, 0, "{}", out.stderr);
}

#[test]
fn ten_thousand_needed_entries_and_a_huge_runpath_are_bounded() {
    let root = build(Vec::new());
    let needed: Vec<String> = (0..10_000).map(|i| format!("libn{i}.so")).collect();
    // TensorFlow-like RUNPATH: 668 entries, mostly duplicates, ~20 000 characters.
    let unique: Vec<String> = (0..18)
        .map(|i| format!("$ORIGIN/../nvidia/component{i}/lib"))
        .collect();
    let runpath: Vec<String> = (0..668).map(|i| unique[i % 18].clone()).collect();
    let runpath = runpath.join(":");
    assert!(runpath.len() > 20_000);
    write(
        &root,
        "/sp/tf/libtf.so",
        &tiny_elf(62, Some("libtf.so"), &needed, None, Some(&runpath), 0),
    );
    write(
        &root,
        "/sp/nvidia/component7/lib/libn7.so",
        &tiny_elf(62, Some("libn7.so"), &[], None, None, 0),
    );
    let started = Instant::now();
    let s = sim(&root, &[], "/sp/tf/libtf.so");
    let took = started.elapsed();
    assert!(took.as_secs() < 20, "took {took:?}");
    assert_eq!(s.missing().len(), 9_999);
    let n7 = resolved(&s, "libn7.so").unwrap();
    assert_eq!(n7.path, "/sp/tf/../nvidia/component7/lib/libn7.so");
    // Each missing entry lists its places once per distinct directory (18 + default dirs).
    let (_, dep) = s.missing().into_iter().next().unwrap();
    let tried = dep.missing.as_ref().unwrap().tried.len();
    assert!(tried <= 18 + 4 + 1, "{tried}");
}

#[test]
fn debian_alternatives_chains_reach_the_driver_and_stubs_never_do() {
    if !have_cc() {
        return;
    }
    let mut drv = lib(
        "/usr/lib/x86_64-linux-gnu/nvidia/current/libcuda.so.535.261.03",
        "libcuda.so.1",
        &[],
    );
    drv.links = vec!["libcuda.so.1".into()];
    let mut cudart = lib(
        "/usr/lib/x86_64-linux-gnu/libcudart.so.11.8.89",
        "libcudart.so.11.0",
        &[],
    );
    cudart.links = vec!["libcudart.so.11.0".into()];
    let root = build(vec![
        drv,
        cudart,
        // NVIDIA's stub has the driver's SONAME but another file name.
        lib(
            "/usr/local/cuda/lib64/stubs/libcuda.so",
            "libcuda.so.1",
            &[],
        ),
    ]);
    link(
        &root,
        "/etc/alternatives/nvidia--libcuda.so.1-x86_64-linux-gnu",
        "/usr/lib/x86_64-linux-gnu/nvidia/current/libcuda.so.1",
    );
    link(
        &root,
        "/usr/lib/x86_64-linux-gnu/libcuda.so.1",
        "/etc/alternatives/nvidia--libcuda.so.1-x86_64-linux-gnu",
    );
    let s = sim(
        &root,
        &[(
            "LD_LIBRARY_PATH",
            "/usr/local/cuda/lib64/stubs:/usr/local/cuda/lib64",
        )],
        "/usr/lib/x86_64-linux-gnu/libcudart.so.11.0",
    );
    let cuda = resolved(&s, "libcuda.so.1").unwrap();
    assert!(matches!(cuda.request, Request::Dlopen { .. }));
    assert_eq!(cuda.path, "/usr/lib/x86_64-linux-gnu/libcuda.so.1");
    assert_eq!(
        cuda.real_path,
        "/usr/lib/x86_64-linux-gnu/nvidia/current/libcuda.so.535.261.03"
    );
    assert!(!s.objects.iter().any(|o| o.real_path.contains("stubs")));
    let out = run_gpuenv(
        root.path(),
        &BTreeMap::new(),
        &["ldd", "/usr/lib/x86_64-linux-gnu/libcudart.so.11.0"],
    );
    assert_eq!(out.status, 0, "{}{}", out.stdout, out.stderr);
    assert!(out
        .stdout
        .contains("[dlopen: CUDA runtime loads the driver] [default]"));
    assert!(out
        .stdout
        .contains("-> /usr/lib/x86_64-linux-gnu/nvidia/current/libcuda.so.535.261.03"));
}

#[test]
fn cudnn_shim_and_torch_preloads_are_followed() {
    if !have_cc() {
        return;
    }
    let mut torch = lib(
        &format!("{SP}/torch/lib/libtorch_cuda.so"),
        "libtorch_cuda.so",
        &["libcudnn.so.9"],
    );
    torch.rpath = vec!["$ORIGIN/../../nvidia/cudnn/lib".into()];
    let mut libs = vec![
        torch,
        lib(
            &format!("{SP}/nvidia/cudnn/lib/libcudnn.so.9"),
            "libcudnn.so.9",
            &[],
        ),
        lib(
            &format!("{SP}/nvidia/cu13/lib/libcublas.so.13"),
            "libcublas.so.13",
            &[],
        ),
    ];
    let layout = Kb::builtin().unwrap().cudnn_layout(9).unwrap().clone();
    for sub in layout.sublibraries.iter().filter(|s| !s.contains("adv")) {
        libs.push(lib(&format!("{SP}/nvidia/cudnn/lib/{sub}"), sub, &[]));
    }
    let root = build(libs);
    let s = sim(&root, &[], &format!("{SP}/torch/lib/libtorch_cuda.so"));
    let graph = resolved(&s, "libcudnn_graph.so.9").unwrap();
    assert!(
        matches!(&graph.request, Request::Dlopen { rule, .. } if rule == "cudnn9-sublibraries")
    );
    // The shim has no RUNPATH: its sub-libraries come through the RPATH of its loader, torch.
    assert_eq!(
        graph.found_by,
        Step::Rpath {
            of: "libtorch_cuda.so".into()
        }
    );
    assert!(is_missing(&s, "libcudnn_adv.so.9"));
    let cublas = s
        .objects
        .iter()
        .find(|o| o.real_path.ends_with("cu13/lib/libcublas.so.13"))
        .unwrap();
    assert!(matches!(&cublas.request, Request::Dlopen { rule, .. } if rule == "torch-preload"));
    assert_eq!(cublas.found_by, Step::Path);
}

#[test]
fn glibc_hwcaps_subdirectories_follow_the_cpu() {
    let root = build(Vec::new());
    let needed = vec!["libz.so.1".to_string()];
    write(
        &root,
        "/app/libapp.so",
        &tiny_elf(62, None, &needed, None, None, 0),
    );
    for dir in [
        "/usr/lib/x86_64-linux-gnu",
        "/usr/lib/x86_64-linux-gnu/glibc-hwcaps/x86-64-v3",
    ] {
        write(
            &root,
            &format!("{dir}/libz.so.1"),
            &tiny_elf(62, Some("libz.so.1"), &[], None, None, 0),
        );
    }
    // No /proc/cpuinfo: baseline assumed.
    let s = sim(&root, &[], "/app/libapp.so");
    assert_eq!(
        resolved(&s, "libz.so.1").unwrap().path,
        "/usr/lib/x86_64-linux-gnu/libz.so.1"
    );
    write(
        &root,
        "/proc/cpuinfo",
        b"flags\t\t: cx16 lahf_lm popcnt sse4_1 sse4_2 ssse3 avx avx2 bmi1 bmi2 f16c fma abm movbe xsave\n",
    );
    let s = sim(&root, &[], "/app/libapp.so");
    assert_eq!(
        resolved(&s, "libz.so.1").unwrap().path,
        "/usr/lib/x86_64-linux-gnu/glibc-hwcaps/x86-64-v3/libz.so.1"
    );
}

#[test]
fn preloads_and_the_command_line() {
    if !have_cc() {
        return;
    }
    let root = build(vec![
        lib(
            "/app/libapp.so",
            "libapp.so",
            &["libfoo.so.1", "libgone.so.3"],
        ),
        lib("/opt/p/libpre.so", "libpre.so", &["libfoo.so.1"]),
        lib("/usr/lib/x86_64-linux-gnu/libfoo.so.1", "libfoo.so.1", &[]),
    ]);
    let s = sim(
        &root,
        &[("LD_PRELOAD", "/opt/p/libpre.so libnothere.so")],
        "/app/libapp.so",
    );
    let pre = s
        .objects
        .iter()
        .find(|o| o.name == "/opt/p/libpre.so")
        .unwrap();
    assert_eq!(pre.found_by, Step::Path);
    assert_eq!(s.missing_preloads.len(), 1);
    assert!(is_missing(&s, "libgone.so.3"));
    // Human output: every place tried for the missing one; exit 1.
    let out = run_gpuenv(root.path(), &BTreeMap::new(), &["ldd", "/app/libapp.so"]);
    assert_eq!(out.status, 1);
    assert!(
        out.stdout.contains("libgone.so.3 not found"),
        "{}",
        out.stdout
    );
    assert!(out
        .stdout
        .contains("tried /lib/x86_64-linux-gnu/libgone.so.3 [default] not found"));
    // JSON.
    let out = run_gpuenv(
        root.path(),
        &BTreeMap::new(),
        &["ldd", "app/libapp.so", "--format", "json"],
    );
    assert_eq!(out.status, 1);
    let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(v["schema"], "gpuenv.ldd/1");
    assert_eq!(v["missing"], 1);
    assert_eq!(v["objects"][1]["found_by"]["step"], "default");
    // Usage errors: not ELF, missing file.
    write(&root, "/etc/notelf", b"hello");
    let out = run_gpuenv(root.path(), &BTreeMap::new(), &["ldd", "/etc/notelf"]);
    assert_eq!(out.status, 2);
    let out = run_gpuenv(root.path(), &BTreeMap::new(), &["ldd", "/nope"]);
    assert_eq!(out.status, 2);
}

#[test]
fn hostile_names_give_results_not_panics() {
    let root = build(Vec::new());
    let needed: Vec<String> = [
        "",
        "/",
        "..",
        "../../../../etc/passwd",
        "$ORIGIN",
        "${ORIGIN",
        "$LIB/$PLATFORM/x.so",
        "lib\u{1}.so",
    ]
    .iter()
    .map(|s| s.to_string())
    .chain(std::iter::once("l".repeat(5000)))
    .collect();
    write(
        &root,
        "/app/libapp.so",
        &tiny_elf(
            62,
            Some("libapp.so"),
            &needed,
            Some("::$ORIGIN/..:/proc/self/fd"),
            None,
            0,
        ),
    );
    write(&root, "/etc/passwd", b"root:x:0:0::/root:/bin/sh\n");
    let s = sim(
        &root,
        &[("LD_LIBRARY_PATH", ";;:$ORIGIN:/")],
        "/app/libapp.so",
    );
    assert_eq!(s.missing().len(), needed.len());
    let out = run_gpuenv(root.path(), &BTreeMap::new(), &["ldd", "/app/libapp.so"]);
    assert_eq!(out.status, 1, "{}", out.stderr);
}
