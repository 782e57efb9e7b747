//! ELF reader tests: committed fixtures, objects built with the system C compiler at test
//! time, a real system library, and hostile inputs.

use std::path::{Path, PathBuf};
use std::process::Command;

use gpuenv_elf::{
    is_elf, read_elf_info, section_range, CacheArch, ElfClass, ElfError, ElfInfo, ElfKind, Endian,
};

const DF_1_NODEFLIB: u64 = 0x800;

fn fixture(name: &str) -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()))
}

// ---- committed fixtures (no compiler needed) ---------------------------------------------

#[test]
fn tiny64_fixture_fields() {
    let bytes = fixture("libtiny.so");
    assert!(is_elf(&bytes));
    let info = read_elf_info(&bytes).expect("parses");
    assert_eq!(
        info,
        ElfInfo {
            class: ElfClass::Elf64,
            endian: Endian::Little,
            machine: 62,
            machine_name: "x86-64",
            e_flags: 0,
            kind: ElfKind::Dyn,
            soname: Some("libtiny.so.1".into()),
            needed: vec!["libtinydep.so.3".into()],
            rpath: vec![],
            runpath: vec!["$ORIGIN/../lib".into(), "/opt/tiny".into()],
            flags_1: DF_1_NODEFLIB,
            nodeflib: true,
            interpreter: None,
            build_id: Some("00112233445566778899aabbccddeeff01234567".into()),
            has_rpath_tag: false,
            has_runpath_tag: true,
        }
    );
    assert_eq!(info.cache_arch(), Some(CacheArch::X86_64));

    let (offset, size) = section_range(&bytes, ".nv_fatbin")
        .expect("section headers parse")
        .expect(".nv_fatbin present");
    assert_eq!(size, 16);
    let start = usize::try_from(offset).expect("offset fits");
    assert_eq!(&bytes[start..start + 16], b"FAKEFATBINDATA!\0");
    assert_eq!(section_range(&bytes, ".nope").expect("parses"), None);
}

#[test]
fn tiny32_fixture_fields() {
    let info = read_elf_info(&fixture("libtiny32.so")).expect("parses");
    assert_eq!(info.class, ElfClass::Elf32);
    assert_eq!(info.machine, 3);
    assert_eq!(info.machine_name, "Intel 80386");
    assert_eq!(info.kind, ElfKind::Dyn);
    assert_eq!(info.soname.as_deref(), Some("libtiny32.so.1"));
    assert!(info.needed.is_empty());
    assert_eq!(info.rpath, ["$ORIGIN"]);
    assert!(info.runpath.is_empty());
    assert!(info.has_rpath_tag && !info.has_runpath_tag);
    assert_eq!(info.flags_1, 0);
    assert!(!info.nodeflib);
    assert_eq!(info.build_id.as_deref(), Some("feedface"));
    assert_eq!(info.cache_arch(), Some(CacheArch::I386));
}

// ---- byte-level helpers for 64-bit little-endian files -----------------------------------

fn rd_u16(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([b[at], b[at + 1]])
}
fn rd_u32(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().expect("4 bytes"))
}
fn rd_u64(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().expect("8 bytes"))
}
fn wr_u16(b: &mut [u8], at: usize, v: u16) {
    b[at..at + 2].copy_from_slice(&v.to_le_bytes());
}
fn wr_u64(b: &mut [u8], at: usize, v: u64) {
    b[at..at + 8].copy_from_slice(&v.to_le_bytes());
}

/// Removes the section header table reference (as a stripped or odd file might).
fn drop_section_headers(b: &mut [u8]) {
    wr_u64(b, 0x28, 0); // e_shoff
    wr_u16(b, 0x3c, 0); // e_shnum
    wr_u16(b, 0x3e, 0); // e_shstrndx
}

/// File offset of the `d_val` of the first dynamic entry with `tag`.
fn dyn_val_offset(b: &[u8], tag: u64) -> usize {
    let phoff = rd_u64(b, 0x20) as usize;
    let phentsize = rd_u16(b, 0x36) as usize;
    let phnum = rd_u16(b, 0x38) as usize;
    for i in 0..phnum {
        let ph = phoff + i * phentsize;
        if rd_u32(b, ph) == 2 {
            let off = rd_u64(b, ph + 8) as usize;
            let filesz = rd_u64(b, ph + 32) as usize;
            for d in (off..off + filesz).step_by(16) {
                if rd_u64(b, d) == tag {
                    return d + 8;
                }
            }
        }
    }
    panic!("no dynamic tag {tag:#x}");
}

#[test]
fn works_without_section_headers() {
    let mut bytes = fixture("libtiny.so");
    drop_section_headers(&mut bytes);
    let info = read_elf_info(&bytes).expect("program headers suffice");
    assert_eq!(info.soname.as_deref(), Some("libtiny.so.1"));
    assert_eq!(info.needed, ["libtinydep.so.3"]);
    assert_eq!(info.runpath, ["$ORIGIN/../lib", "/opt/tiny"]);
    assert_eq!(
        info.build_id.as_deref(),
        Some("00112233445566778899aabbccddeeff01234567")
    );
    assert_eq!(
        section_range(&bytes, ".nv_fatbin").expect("no sections is fine"),
        None
    );
}

#[test]
fn garbage_section_headers_are_ignored_by_read_elf_info() {
    let mut bytes = fixture("libtiny.so");
    wr_u64(&mut bytes, 0x28, u64::MAX - 7); // e_shoff far outside
    let info = read_elf_info(&bytes).expect("program headers suffice");
    assert_eq!(info.soname.as_deref(), Some("libtiny.so.1"));
    assert!(matches!(
        section_range(&bytes, ".nv_fatbin"),
        Err(ElfError::Malformed { .. })
    ));
}

#[test]
fn strtab_outside_file_falls_back_to_dynstr_then_errors() {
    let mut bytes = fixture("libtiny.so");
    let at = dyn_val_offset(&bytes, 5); // DT_STRTAB
    wr_u64(&mut bytes, at, 0x7fff_ffff_0000);
    let info = read_elf_info(&bytes).expect("falls back to .dynstr");
    assert_eq!(info.soname.as_deref(), Some("libtiny.so.1"));

    drop_section_headers(&mut bytes);
    assert!(matches!(
        read_elf_info(&bytes),
        Err(ElfError::NoDynamicStringTable { .. })
    ));
}

#[test]
fn string_offset_outside_strtab_is_an_error() {
    let mut bytes = fixture("libtiny.so");
    let at = dyn_val_offset(&bytes, 14); // DT_SONAME
    wr_u64(&mut bytes, at, 0xffff_ffff);
    assert!(matches!(
        read_elf_info(&bytes),
        Err(ElfError::StringOutOfBounds {
            tag: "DT_SONAME",
            ..
        })
    ));
}

#[test]
fn hostile_program_header_table() {
    let good = fixture("libtiny.so");
    // e_phoff past the end
    let mut b = good.clone();
    wr_u64(&mut b, 0x20, u64::MAX - 100);
    assert!(matches!(read_elf_info(&b), Err(ElfError::Malformed { .. })));
    // huge e_phnum
    let mut b = good.clone();
    wr_u16(&mut b, 0x38, 0xfffe);
    assert!(matches!(read_elf_info(&b), Err(ElfError::Malformed { .. })));
    // PN_XNUM escapes to section 0's sh_info, which is 0 here: no program headers, so the
    // dynamic section is found through the section headers instead.
    let mut b = good.clone();
    wr_u16(&mut b, 0x38, 0xffff);
    let info = read_elf_info(&b).expect("section fallback");
    assert_eq!(info.soname.as_deref(), Some("libtiny.so.1"));
    drop_section_headers(&mut b);
    assert!(matches!(read_elf_info(&b), Err(ElfError::Malformed { .. })));
    // wrong e_phentsize
    let mut b = good.clone();
    wr_u16(&mut b, 0x36, 12);
    assert!(matches!(read_elf_info(&b), Err(ElfError::Malformed { .. })));
    // PT_DYNAMIC pointing past the end
    let mut b = good.clone();
    let phoff = rd_u64(&b, 0x20) as usize;
    let phnum = rd_u16(&b, 0x38) as usize;
    for i in 0..phnum {
        let ph = phoff + i * 56;
        if rd_u32(&b, ph) == 2 {
            wr_u64(&mut b, ph + 8, 1 << 40);
        }
    }
    assert!(
        read_elf_info(&b).is_ok(),
        "falls back to the SHT_DYNAMIC section"
    );
    drop_section_headers(&mut b);
    assert!(matches!(read_elf_info(&b), Err(ElfError::Malformed { .. })));
}

#[test]
fn every_truncation_is_handled() {
    for name in ["libtiny.so", "libtiny32.so"] {
        let bytes = fixture(name);
        for len in 0..bytes.len() {
            // Must not panic; short prefixes must fail.
            let result = read_elf_info(&bytes[..len]);
            if len < 64 {
                assert!(result.is_err(), "{name} cut at {len}");
            }
            let _ = section_range(&bytes[..len], ".nv_fatbin");
        }
    }
}

#[test]
fn misaligned_input_is_fine() {
    let bytes = fixture("libtiny.so");
    let mut shifted = vec![0u8; bytes.len() + 1];
    shifted[1..].copy_from_slice(&bytes);
    let info = read_elf_info(&shifted[1..]).expect("unaligned slice parses");
    assert_eq!(info.soname.as_deref(), Some("libtiny.so.1"));
}

// ---- real system library ------------------------------------------------------------------

#[test]
fn real_libc() {
    let candidates = [
        "/lib/x86_64-linux-gnu/libc.so.6",
        "/usr/lib/x86_64-linux-gnu/libc.so.6",
        "/lib/aarch64-linux-gnu/libc.so.6",
        "/usr/lib64/libc.so.6",
    ];
    let Some(bytes) = candidates.iter().find_map(|p| std::fs::read(p).ok()) else {
        eprintln!("skipping: no libc.so.6 at {candidates:?}");
        return;
    };
    let info = read_elf_info(&bytes).expect("libc parses");
    assert_eq!(info.soname.as_deref(), Some("libc.so.6"));
    assert_eq!(info.kind, ElfKind::Dyn);
    assert_eq!(info.class, ElfClass::Elf64);
    let id = info
        .build_id
        .clone()
        .expect("distribution libc has a build id");
    assert!(
        id.len() >= 16
            && id
                .bytes()
                .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
    );
    assert!(
        info.needed.iter().any(|n| n.starts_with("ld-linux")),
        "{:?}",
        info.needed
    );
    assert!(info.cache_arch().is_some());
}

// ---- objects built with the system C compiler --------------------------------------------

/// A scratch directory removed on drop.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Scratch {
        let dir =
            std::env::temp_dir().join(format!("gpuenv-elf-test-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("create scratch dir");
        Scratch(dir)
    }
    fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn have_cc() -> bool {
    match Command::new("cc").arg("--version").output() {
        Ok(out) if out.status.success() => true,
        _ => {
            eprintln!("skipping: no working `cc` on PATH");
            false
        }
    }
}

/// Runs `cc args...` in `dir`; returns the error output on failure.
fn cc(dir: &Scratch, args: &[&str]) -> Result<(), String> {
    let out = Command::new("cc")
        .current_dir(&dir.0)
        .args(args)
        .output()
        .map_err(|e| e.to_string())?;
    if out.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    }
}

fn read(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()))
}

const LIB_C: &str = "int bar(void);\nint foo(void) { return bar() + 1; }\n";
const DEP_C: &str = "int bar(void) { return 41; }\n";
const MAIN_C: &str = "int main(void) { return 0; }\n";

#[test]
fn cc_shared_object_with_runpath() {
    if !have_cc() {
        return;
    }
    let dir = Scratch::new("runpath");
    std::fs::write(dir.path("foo.c"), LIB_C).expect("write source");
    std::fs::write(dir.path("bar.c"), DEP_C).expect("write source");
    cc(
        &dir,
        &[
            "-shared",
            "-fPIC",
            "-Wl,-soname,libbar.so.2",
            "-o",
            "libbar.so",
            "bar.c",
        ],
    )
    .expect("build libbar");
    cc(
        &dir,
        &[
            "-shared",
            "-fPIC",
            "-Wl,-soname,libfoo.so.1",
            "-Wl,-rpath,$ORIGIN/x:/opt/cuda/lib64",
            "-Wl,--enable-new-dtags",
            "-Wl,-z,nodefaultlib",
            "-Wl,--build-id=0xdeadbeef00",
            "-Wl,--no-as-needed",
            "-o",
            "libfoo.so.1.2.3",
            "foo.c",
            "-L.",
            "-lbar",
        ],
    )
    .expect("build libfoo");
    let info = read_elf_info(&read(&dir.path("libfoo.so.1.2.3"))).expect("parses");
    assert_eq!(info.class, ElfClass::Elf64);
    assert_eq!(info.kind, ElfKind::Dyn);
    assert_eq!(info.soname.as_deref(), Some("libfoo.so.1"));
    assert_eq!(info.needed.first().map(String::as_str), Some("libbar.so.2"));
    assert!(
        info.needed.iter().any(|n| n == "libc.so.6"),
        "{:?}",
        info.needed
    );
    assert_eq!(info.runpath, ["$ORIGIN/x", "/opt/cuda/lib64"]);
    assert!(info.rpath.is_empty());
    assert!(info.has_runpath_tag && !info.has_rpath_tag);
    assert!(info.nodeflib);
    assert_eq!(info.flags_1 & DF_1_NODEFLIB, DF_1_NODEFLIB);
    assert_eq!(info.build_id.as_deref(), Some("deadbeef00"));
    assert_eq!(info.interpreter, None);
}

#[test]
fn cc_shared_object_with_old_rpath() {
    if !have_cc() {
        return;
    }
    let dir = Scratch::new("rpath");
    std::fs::write(dir.path("bar.c"), DEP_C).expect("write source");
    cc(
        &dir,
        &[
            "-shared",
            "-fPIC",
            "-Wl,-soname,libbar.so.2",
            "-Wl,-rpath,$ORIGIN:$LIB/z",
            "-Wl,--disable-new-dtags",
            "-o",
            "libbar.so",
            "bar.c",
        ],
    )
    .expect("build libbar");
    let info = read_elf_info(&read(&dir.path("libbar.so"))).expect("parses");
    assert_eq!(info.soname.as_deref(), Some("libbar.so.2"));
    assert_eq!(info.rpath, ["$ORIGIN", "$LIB/z"]);
    assert!(info.runpath.is_empty());
    assert!(info.has_rpath_tag && !info.has_runpath_tag);
    assert!(!info.nodeflib);
    assert!(info.build_id.is_some());
}

#[test]
fn cc_executables() {
    if !have_cc() {
        return;
    }
    let dir = Scratch::new("exe");
    std::fs::write(dir.path("main.c"), MAIN_C).expect("write source");
    cc(
        &dir,
        &["-no-pie", "-o", "prog", "main.c", "-Wl,-rpath,/opt/z"],
    )
    .expect("build prog");
    let info = read_elf_info(&read(&dir.path("prog"))).expect("parses");
    assert_eq!(info.kind, ElfKind::Exec);
    assert_eq!(info.soname, None);
    let interp = info
        .interpreter
        .expect("dynamic executables have PT_INTERP");
    assert!(
        interp.starts_with('/') && interp.contains("ld-"),
        "{interp}"
    );
    assert!(info.needed.iter().any(|n| n == "libc.so.6"));

    cc(&dir, &["-pie", "-fPIE", "-o", "pie", "main.c"]).expect("build pie");
    let info = read_elf_info(&read(&dir.path("pie"))).expect("parses");
    assert_eq!(info.kind, ElfKind::Dyn);
    assert!(info.interpreter.is_some());
}

#[test]
fn cc_m32_shared_object() {
    if !have_cc() {
        return;
    }
    let dir = Scratch::new("m32");
    std::fs::write(dir.path("bar.c"), DEP_C).expect("write source");
    // -nostdlib: a 32-bit libc is often not installed, but the compiler can still emit code.
    if let Err(why) = cc(
        &dir,
        &[
            "-m32",
            "-shared",
            "-fPIC",
            "-nostdlib",
            "-Wl,-soname,libbar32.so.2",
            "-Wl,-rpath,$ORIGIN/lib32",
            "-o",
            "libbar32.so",
            "bar.c",
        ],
    ) {
        eprintln!("skipping: cc -m32 does not work here: {}", why.trim());
        return;
    }
    let info = read_elf_info(&read(&dir.path("libbar32.so"))).expect("parses");
    assert_eq!(info.class, ElfClass::Elf32);
    assert_eq!(info.machine_name, "Intel 80386");
    assert_eq!(info.soname.as_deref(), Some("libbar32.so.2"));
    assert_eq!(info.cache_arch(), Some(CacheArch::I386));
}

#[test]
fn cc_fatbin_section() {
    if !have_cc() {
        return;
    }
    let dir = Scratch::new("fatbin");
    std::fs::write(
        dir.path("fb.c"),
        "__attribute__((section(\".nv_fatbin\"), used))\n\
         static const char blob[32] = \"0123456789abcdef0123456789abcde\";\n",
    )
    .expect("write source");
    cc(&dir, &["-shared", "-fPIC", "-o", "libfb.so", "fb.c"]).expect("build");
    let bytes = read(&dir.path("libfb.so"));
    let (offset, size) = section_range(&bytes, ".nv_fatbin")
        .expect("parses")
        .expect("present");
    assert_eq!(size, 32);
    let start = usize::try_from(offset).expect("fits");
    assert_eq!(
        &bytes[start..start + 31],
        b"0123456789abcdef0123456789abcde"
    );
}
