//! Ground truth for the fatbin reader: real fatbins compiled at test time by the real `nvcc`
//! (Debian's CUDA 11.8, `nvidia-cuda-toolkit`) for several architectures, with and without PTX,
//! compressed and not, plain and relocatable, each compared entry by entry with what the real
//! `cuobjdump --list-elf --list-ptx` says about the same file (and the PTX ISA with the `.version`
//! lines of `cuobjdump -ptx`). CUDA 13 (zstd, `a`/`f` variants), which cuobjdump 11.8 cannot read:
//! a committed fixture built by nvcc 13.5 with its recorded cuobjdump 13.4 listing, and PyPI's
//! `libnvjpeg.so.13` against PyPI's cuobjdump 13.4 (`.ci/fetch-cuda13-ground-truth`).
//!
//! Without nvcc (or the CUDA 13 download), those tests print SKIPPED and pass.

use std::path::{Path, PathBuf};
use std::process::Command;

use gpuenv_elf::{read_fatbin, Compression, EntryKind, Fatbin, FatbinSection};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

/// A program on PATH or at one of the usual places.
fn find_program(name: &str, env_var: &str) -> Option<PathBuf> {
    if let Some(p) = std::env::var_os(env_var) {
        return Some(PathBuf::from(p));
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|p| p.is_file())
}

/// The CUDA 13 ground truth that `.ci/fetch-cuda13-ground-truth` unpacks.
fn cuda13_dir() -> Option<PathBuf> {
    // The same default as the script: ${XDG_CACHE_HOME:-$HOME/.cache}/gpuenv-test/cuda13.
    let dir = match std::env::var_os("GPUENV_CUDA13_DIR") {
        Some(d) => PathBuf::from(d),
        None => {
            let cache = std::env::var_os("XDG_CACHE_HOME")
                .map(PathBuf::from)
                .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))?;
            cache.join("gpuenv-test/cuda13")
        }
    };
    dir.join("nvidia/cu13/bin/cuobjdump")
        .is_file()
        .then_some(dir)
}

/// `(kind, target)` per entry, in the order cuobjdump lists them: `("ELF", "sm_86")`.
fn cuobjdump_list(cuobjdump: &Path, file: &Path, all: bool) -> Vec<(String, String)> {
    let mut cmd = Command::new(cuobjdump);
    if all {
        cmd.arg("-all");
    }
    let out = cmd
        .args(["--list-elf", "--list-ptx"])
        .arg(file)
        .output()
        .expect("run cuobjdump");
    assert!(
        out.status.success(),
        "cuobjdump failed on {}: {}",
        file.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    parse_listing(&String::from_utf8_lossy(&out.stdout))
}

/// Parses `ELF file    1: name.1.sm_61.cubin` / `PTX file    1: name.1.sm_86.ptx` lines.
fn parse_listing(text: &str) -> Vec<(String, String)> {
    text.lines()
        .filter_map(|line| {
            let kind = line.split_whitespace().next()?;
            if kind != "ELF" && kind != "PTX" {
                return None;
            }
            let name = line.rsplit(' ').next()?;
            let mut parts = name.rsplit('.');
            let _extension = parts.next()?;
            let target = parts.next()?;
            Some((kind.to_string(), target.to_string()))
        })
        .collect()
}

/// Our entries as cuobjdump names them: PTX `compute_86` is listed as `sm_86`, and an `f` cubin
/// as the plain `sm_100` (cuobjdump 13.4 keeps the `f` only on PTX).
fn our_list(fatbin: &Fatbin, include_relocatable: bool) -> Vec<(String, String)> {
    fatbin
        .entries
        .iter()
        .filter(|e| include_relocatable || e.section == FatbinSection::Fatbin)
        .filter_map(|e| match e.kind {
            EntryKind::Elf => {
                let suffix = match e.variant_suffix() {
                    "f" => "",
                    other => other,
                };
                Some(("ELF".to_string(), format!("sm_{}{suffix}", e.arch)))
            }
            EntryKind::Ptx => Some((
                "PTX".to_string(),
                format!("sm_{}{}", e.arch, e.variant_suffix()),
            )),
            EntryKind::Other(_) => None,
        })
        .collect()
}

/// cuobjdump 11.8 lists all ELF entries first, then all PTX; 13.4 lists them in file order. So
/// compare the ELF and the PTX sequences, each in order: a stable sort by kind on both sides.
fn by_kind(mut list: Vec<(String, String)>) -> Vec<(String, String)> {
    list.sort_by(|a, b| a.0.cmp(&b.0));
    list
}

fn read(file: &Path) -> Fatbin {
    let bytes = std::fs::read(file).expect("read compiled file");
    read_fatbin(&bytes)
        .expect("fatbin parses")
        .expect("file has a fatbin")
}

/// The `.version X.Y` lines of `cuobjdump -ptx`, in order.
fn ptx_versions(cuobjdump: &Path, file: &Path) -> Vec<String> {
    let out = Command::new(cuobjdump)
        .arg("-ptx")
        .arg(file)
        .output()
        .expect("run cuobjdump -ptx");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.trim().strip_prefix(".version ").map(str::to_string))
        .collect()
}

struct Case {
    name: &'static str,
    args: &'static [&'static str],
    /// Expected distinct targets (ours, with variants), `.nv_fatbin` only.
    sass: &'static [&'static str],
    ptx: &'static [&'static str],
    /// Every entry compressed with the older scheme (`-Xfatbin -compress-all`).
    all_compressed: bool,
    relocatable: bool,
}

const CASES: &[Case] = &[
    Case {
        name: "sass-and-ptx",
        args: &[
            "-gencode",
            "arch=compute_61,code=sm_61",
            "-gencode",
            "arch=compute_86,code=[sm_86,compute_86]",
        ],
        sass: &["sm_61", "sm_86"],
        ptx: &["compute_86"],
        all_compressed: false,
        relocatable: false,
    },
    Case {
        name: "sass-and-ptx-compressed",
        args: &[
            "-Xfatbin",
            "-compress-all",
            "-gencode",
            "arch=compute_61,code=sm_61",
            "-gencode",
            "arch=compute_86,code=[sm_86,compute_86]",
        ],
        sass: &["sm_61", "sm_86"],
        ptx: &["compute_86"],
        all_compressed: true,
        relocatable: false,
    },
    Case {
        name: "sass-only",
        args: &[
            "-gencode",
            "arch=compute_75,code=sm_75",
            "-gencode",
            "arch=compute_80,code=sm_80",
            "-gencode",
            "arch=compute_90,code=sm_90",
        ],
        sass: &["sm_75", "sm_80", "sm_90"],
        ptx: &[],
        all_compressed: false,
        relocatable: false,
    },
    Case {
        name: "ptx-only",
        args: &["-gencode", "arch=compute_70,code=compute_70"],
        // nvcc links the static CUDA runtime, whose own container carries no device code for
        // compute_70-only builds: only PTX is expected from the kernel.
        sass: &[],
        ptx: &["compute_70"],
        all_compressed: false,
        relocatable: false,
    },
    Case {
        name: "relocatable",
        args: &[
            "-rdc=true",
            "-gencode",
            "arch=compute_75,code=[sm_75,compute_75]",
        ],
        sass: &["sm_75"],
        ptx: &[],
        all_compressed: false,
        relocatable: true,
    },
];

#[test]
fn matches_cuobjdump_on_files_built_by_nvcc() {
    let Some(nvcc) = find_program("nvcc", "GPUENV_NVCC") else {
        println!("SKIPPED: no nvcc on PATH (install nvidia-cuda-toolkit, or set GPUENV_NVCC)");
        return;
    };
    let Some(cuobjdump) = find_program("cuobjdump", "GPUENV_CUOBJDUMP") else {
        println!("SKIPPED: no cuobjdump on PATH");
        return;
    };
    let dir = tempfile::tempdir().expect("temp dir");
    let source = fixture("fatbin-kernel.cu");
    let mut checked_entries = 0;
    for case in CASES {
        let out = dir.path().join(format!("lib{}.so", case.name));
        let status = Command::new(&nvcc)
            .args(["-shared", "-Xcompiler", "-fPIC", "-o"])
            .arg(&out)
            .args(case.args)
            .arg(&source)
            .status()
            .expect("run nvcc");
        assert!(status.success(), "{}: nvcc failed", case.name);
        let fatbin = read(&out);

        // Entry by entry, in order, against cuobjdump; and with `-all` (which adds the
        // relocatable fatbins, interleaved per container) as a multiset.
        let theirs = cuobjdump_list(&cuobjdump, &out, false);
        assert_eq!(
            by_kind(our_list(&fatbin, false)),
            by_kind(theirs.clone()),
            "{}: entries differ from cuobjdump",
            case.name
        );
        let mut theirs_all = cuobjdump_list(&cuobjdump, &out, true);
        let mut ours_all = our_list(&fatbin, true);
        theirs_all.sort();
        ours_all.sort();
        assert_eq!(
            ours_all, theirs_all,
            "{}: entries differ from cuobjdump -all",
            case.name
        );
        checked_entries += theirs_all.len();

        let summary = fatbin.summary();
        let sass: Vec<&str> = summary.sass.iter().map(|t| t.target.as_str()).collect();
        let ptx: Vec<&str> = summary.ptx.iter().map(|t| t.target.as_str()).collect();
        for want in case.sass {
            assert!(sass.contains(want), "{}: no {want} in {sass:?}", case.name);
        }
        assert_eq!(ptx, case.ptx, "{}: PTX targets", case.name);
        if case.relocatable {
            assert!(
                summary.relocatable_entries > 0,
                "{}: no __nv_relfatbin",
                case.name
            );
        }

        // Compression: nvcc always compresses PTX; -compress-all compresses the cubins too.
        for e in fatbin
            .entries
            .iter()
            .filter(|e| e.section == FatbinSection::Fatbin)
        {
            let expected = case.all_compressed || e.kind == EntryKind::Ptx;
            assert_eq!(
                e.compression != Compression::None,
                expected,
                "{}: entry {} compression",
                case.name,
                e.target_name()
            );
            if let (Some(c), Some(u)) = (e.compressed_size, e.uncompressed_size) {
                assert!(u64::from(c) <= e.payload_size && c > 0 && u > 0);
            }
        }

        // The PTX ISA in the entry header is the `.version` of the PTX itself.
        let versions = ptx_versions(&cuobjdump, &out);
        let ours_isa: Vec<String> = fatbin
            .entries
            .iter()
            .filter(|e| e.kind == EntryKind::Ptx && e.section == FatbinSection::Fatbin)
            .filter_map(|e| e.ptx_isa.map(|i| i.to_string()))
            .collect();
        assert_eq!(ours_isa, versions, "{}: PTX ISA versions", case.name);
    }
    println!(
        "compared {checked_entries} entries in {} files with cuobjdump",
        CASES.len()
    );
}

#[test]
fn cuda13_fixture_matches_recorded_cuobjdump_13() {
    let fatbin = read(&fixture("cuda13-variants.so"));
    let recorded = std::fs::read_to_string(fixture("cuda13-variants.cuobjdump-13.4.txt"))
        .expect("recorded listing");
    assert_eq!(
        by_kind(our_list(&fatbin, false)),
        by_kind(parse_listing(&recorded))
    );
    let names: Vec<String> = fatbin.entries.iter().map(|e| e.target_name()).collect();
    assert_eq!(
        names,
        [
            "sm_90a",
            "sm_100f",
            "compute_100f",
            "sm_103a",
            "sm_120",
            "compute_120",
            "compute_100a",
            "sm_75"
        ]
    );
    for e in &fatbin.entries {
        match e.kind {
            EntryKind::Ptx => {
                assert_eq!(e.compression, Compression::Zstd);
                assert_eq!(e.ptx_isa.map(|i| i.to_string()).as_deref(), Some("9.5"));
            }
            _ => assert_eq!(e.compression, Compression::None),
        }
    }
    if let Some(dir) = cuda13_dir() {
        let cuobjdump = dir.join("nvidia/cu13/bin/cuobjdump");
        let live = cuobjdump_list(&cuobjdump, &fixture("cuda13-variants.so"), false);
        assert_eq!(by_kind(our_list(&fatbin, false)), by_kind(live));
        let versions = ptx_versions(&cuobjdump, &fixture("cuda13-variants.so"));
        assert_eq!(versions, ["9.5", "9.5", "9.5"]);
    }
}

#[test]
fn cuda13_wheel_matches_cuobjdump_13() {
    let Some(dir) = cuda13_dir() else {
        println!(
            "SKIPPED: no CUDA 13 ground truth (run .ci/fetch-cuda13-ground-truth, or set GPUENV_CUDA13_DIR)"
        );
        return;
    };
    let cuobjdump = dir.join("nvidia/cu13/bin/cuobjdump");
    let lib = dir.join("nvidia/cu13/lib/libnvjpeg.so.13");
    let fatbin = read(&lib);
    let theirs = cuobjdump_list(&cuobjdump, &lib, false);
    assert_eq!(by_kind(our_list(&fatbin, false)), by_kind(theirs.clone()));
    assert!(theirs.len() > 100, "{} entries", theirs.len());
    let zstd = fatbin
        .entries
        .iter()
        .filter(|e| e.compression == Compression::Zstd)
        .count();
    assert!(zstd > 0, "the CUDA 13 wheel has zstd entries");
    let versions = ptx_versions(&cuobjdump, &lib);
    let ours_isa: Vec<String> = fatbin
        .entries
        .iter()
        .filter(|e| e.kind == EntryKind::Ptx)
        .filter_map(|e| e.ptx_isa.map(|i| i.to_string()))
        .collect();
    assert_eq!(ours_isa, versions);
    println!(
        "libnvjpeg.so.13: {} entries agree with cuobjdump 13, {zstd} zstd",
        theirs.len()
    );
}

#[test]
fn files_without_fatbin_and_non_elf() {
    // libtiny*.so carry a 16-byte `.nv_fatbin` holding "FAKEFATBINDATA!": a clear error.
    for name in ["libtiny.so", "libtiny32.so"] {
        let tiny = std::fs::read(fixture(name)).expect("fixture");
        let err = read_fatbin(&tiny).expect_err("fake fatbin");
        assert!(err.to_string().contains("magic"), "{err}");
    }
    assert!(read_fatbin(b"definitely not ELF").is_err());
    // An ELF file without GPU code: this test binary itself.
    let exe = std::fs::read(std::env::current_exe().expect("exe")).expect("read exe");
    assert!(matches!(read_fatbin(&exe), Ok(None)));
}
