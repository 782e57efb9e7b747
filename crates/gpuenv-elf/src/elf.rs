//! Reads what a dynamic-loader model needs from an ELF file's bytes.
//!
//! The dynamic section is found through `PT_DYNAMIC` (falling back to the `SHT_DYNAMIC`
//! section), and its string table through `DT_STRTAB` mapped to a file offset via the
//! `PT_LOAD` program headers (falling back to the dynamic section's linked string table, then
//! `.dynstr`), so stripped files or files with damaged section headers still work.
//! Optional extras (build id) are read leniently: a malformed note is skipped, not an error.

use object::elf;
use object::read::elf::{Dyn, FileHeader, ProgramHeader, SectionHeader, SectionTable};
use object::Endianness;
use serde::Serialize;

use crate::ld_cache::CacheArch;

/// `NT_GNU_BUILD_ID`.
const NT_GNU_BUILD_ID: u32 = 3;
/// `EF_ARM_ABI_FLOAT_HARD`.
const EF_ARM_ABI_FLOAT_HARD: u32 = 0x400;

/// Errors from the ELF readers.
#[derive(Debug, thiserror::Error)]
pub enum ElfError {
    /// The input does not start with `\x7fELF`.
    #[error("not an ELF file (bad magic)")]
    NotElf,
    /// The input is shorter than the ELF identification bytes.
    #[error("ELF file truncated: {len} bytes is shorter than the ELF identification")]
    Truncated { len: usize },
    /// The identification bytes name an unknown class or byte order.
    #[error("unsupported ELF identification: class {class}, data encoding {data}")]
    UnsupportedIdent { class: u8, data: u8 },
    /// A structure is malformed (offsets or sizes outside the file, wrong entry size, ...).
    #[error("malformed ELF ({context}): {source}")]
    Malformed {
        context: &'static str,
        source: object::Error,
    },
    /// A dynamic entry's string offset lies outside the dynamic string table.
    #[error(
        "{tag} string offset {offset} is outside the dynamic string table ({table_len} bytes)"
    )]
    StringOutOfBounds {
        tag: &'static str,
        offset: u64,
        table_len: usize,
    },
    /// A dynamic string has no terminating NUL inside the string table.
    #[error("{tag} string at offset {offset} has no terminating NUL in the dynamic string table")]
    UnterminatedString { tag: &'static str, offset: u64 },
    /// Dynamic entries reference strings, but no string table could be located.
    #[error("cannot locate the dynamic string table: {reason}")]
    NoDynamicStringTable { reason: &'static str },
    /// A section's file range lies outside the file.
    #[error("section {name} (offset {offset}, size {size}) extends past the end of the file ({file_len} bytes)")]
    SectionOutOfBounds {
        name: String,
        offset: u64,
        size: u64,
        file_len: usize,
    },
}

/// ELF class.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum ElfClass {
    /// `ELFCLASS32`.
    Elf32,
    /// `ELFCLASS64`.
    Elf64,
}

/// Byte order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Endian {
    /// `ELFDATA2LSB`.
    Little,
    /// `ELFDATA2MSB`.
    Big,
}

/// `e_type`, simplified.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum ElfKind {
    /// `ET_DYN`: shared object or position-independent executable.
    Dyn,
    /// `ET_EXEC`: fixed-address executable.
    Exec,
    /// `ET_REL`: relocatable object.
    Rel,
    /// Anything else (core files, processor-specific values); holds `e_type`.
    Other(u16),
}

/// What the loader model needs from one ELF file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ElfInfo {
    pub class: ElfClass,
    pub endian: Endian,
    /// `e_machine`.
    pub machine: u16,
    /// Human name of `e_machine` (`"x86-64"`, `"AArch64"`, ...; `"unknown"` otherwise).
    pub machine_name: &'static str,
    /// `e_flags` (needed to tell ARM hard-float from soft-float).
    pub e_flags: u32,
    pub kind: ElfKind,
    /// `DT_SONAME`.
    pub soname: Option<String>,
    /// `DT_NEEDED` entries in order.
    pub needed: Vec<String>,
    /// `DT_RPATH` split on `:`, unexpanded (`$ORIGIN` kept). Empty components are kept:
    /// glibc treats them as the current directory.
    pub rpath: Vec<String>,
    /// `DT_RUNPATH` split on `:`, unexpanded.
    pub runpath: Vec<String>,
    /// `DT_FLAGS_1` (0 if absent).
    pub flags_1: u64,
    /// `DF_1_NODEFLIB` is set in `DT_FLAGS_1` (`-z nodefaultlib`).
    pub nodeflib: bool,
    /// `PT_INTERP` contents.
    pub interpreter: Option<String>,
    /// `NT_GNU_BUILD_ID` as lowercase hex.
    pub build_id: Option<String>,
    /// A `DT_RPATH` entry exists (even if empty).
    pub has_rpath_tag: bool,
    /// A `DT_RUNPATH` entry exists (even if empty). glibc ignores `DT_RPATH` when it is set.
    pub has_runpath_tag: bool,
}

impl ElfInfo {
    /// The `ld.so.cache` ABI a glibc loader for this object uses, where known.
    pub fn cache_arch(&self) -> Option<CacheArch> {
        match (self.class, self.machine) {
            (ElfClass::Elf64, elf::EM_X86_64) => Some(CacheArch::X86_64),
            (ElfClass::Elf32, elf::EM_X86_64) => Some(CacheArch::X32),
            (ElfClass::Elf32, elf::EM_386) => Some(CacheArch::I386),
            (ElfClass::Elf64, elf::EM_AARCH64) => Some(CacheArch::Aarch64),
            (ElfClass::Elf64, elf::EM_PPC64) => Some(CacheArch::Ppc64),
            (ElfClass::Elf32, elf::EM_ARM) => {
                if self.e_flags & EF_ARM_ABI_FLOAT_HARD != 0 {
                    Some(CacheArch::ArmHardFloat)
                } else {
                    Some(CacheArch::Other(0x0b03))
                }
            }
            _ => None,
        }
    }
}

/// Whether `bytes` starts with the ELF magic.
pub fn is_elf(bytes: &[u8]) -> bool {
    bytes.starts_with(&elf::ELFMAG)
}

/// Human name of an `e_machine` value.
pub fn machine_name(machine: u16) -> &'static str {
    match machine {
        elf::EM_NONE => "none",
        elf::EM_SPARC => "SPARC",
        elf::EM_386 => "Intel 80386",
        elf::EM_MIPS => "MIPS",
        elf::EM_PPC => "PowerPC",
        elf::EM_PPC64 => "PowerPC64",
        elf::EM_S390 => "IBM S/390",
        elf::EM_ARM => "ARM",
        elf::EM_IA_64 => "IA-64",
        elf::EM_SPARCV9 => "SPARC v9",
        elf::EM_X86_64 => "x86-64",
        elf::EM_AARCH64 => "AArch64",
        elf::EM_CUDA => "NVIDIA CUDA",
        elf::EM_AMDGPU => "AMD GPU",
        elf::EM_RISCV => "RISC-V",
        elf::EM_LOONGARCH => "LoongArch",
        _ => "unknown",
    }
}

/// Which header layout to use, from the identification bytes.
fn ident(bytes: &[u8]) -> Result<ElfClass, ElfError> {
    if bytes.len() < 4 {
        if elf::ELFMAG.starts_with(bytes) {
            return Err(ElfError::Truncated { len: bytes.len() });
        }
        return Err(ElfError::NotElf);
    }
    if !is_elf(bytes) {
        return Err(ElfError::NotElf);
    }
    // e_ident is 16 bytes: magic, EI_CLASS (4), EI_DATA (5), ...
    let (Some(&class), Some(&data), true) = (bytes.get(4), bytes.get(5), bytes.len() >= 16) else {
        return Err(ElfError::Truncated { len: bytes.len() });
    };
    if data != elf::ELFDATA2LSB && data != elf::ELFDATA2MSB {
        return Err(ElfError::UnsupportedIdent { class, data });
    }
    match class {
        elf::ELFCLASS32 => Ok(ElfClass::Elf32),
        elf::ELFCLASS64 => Ok(ElfClass::Elf64),
        _ => Err(ElfError::UnsupportedIdent { class, data }),
    }
}

/// Reads the loader-relevant facts from an ELF file.
pub fn read_elf_info(bytes: &[u8]) -> Result<ElfInfo, ElfError> {
    match ident(bytes)? {
        ElfClass::Elf32 => read_info::<elf::FileHeader32<Endianness>>(bytes, ElfClass::Elf32),
        ElfClass::Elf64 => read_info::<elf::FileHeader64<Endianness>>(bytes, ElfClass::Elf64),
    }
}

/// Finds the section called `name` (e.g. `.nv_fatbin`) and returns its file range as
/// `(offset, size)`. A `SHT_NOBITS` section occupies no file bytes and gets size 0.
/// Returns `Ok(None)` when there is no such section (or no section headers at all).
pub fn section_range(bytes: &[u8], name: &str) -> Result<Option<(u64, u64)>, ElfError> {
    match ident(bytes)? {
        ElfClass::Elf32 => find_section::<elf::FileHeader32<Endianness>>(bytes, name),
        ElfClass::Elf64 => find_section::<elf::FileHeader64<Endianness>>(bytes, name),
    }
}

/// Parses the file header of class `Elf`.
fn parse_header<Elf: FileHeader<Endian = Endianness>>(
    bytes: &[u8],
) -> Result<(&Elf, Endianness), ElfError> {
    let header = Elf::parse(bytes).map_err(|source| ElfError::Malformed {
        context: "file header",
        source,
    })?;
    let endian = header.endian().map_err(|source| ElfError::Malformed {
        context: "file header",
        source,
    })?;
    Ok((header, endian))
}

fn find_section<Elf: FileHeader<Endian = Endianness>>(
    bytes: &[u8],
    name: &str,
) -> Result<Option<(u64, u64)>, ElfError> {
    let (header, endian) = parse_header::<Elf>(bytes)?;
    let sections = header
        .sections(endian, bytes)
        .map_err(|source| ElfError::Malformed {
            context: "section headers",
            source,
        })?;
    let Some((_, section)) = sections.section_by_name(endian, name.as_bytes()) else {
        return Ok(None);
    };
    let offset: u64 = section.sh_offset(endian).into();
    if section.sh_type(endian) == elf::SHT_NOBITS {
        return Ok(Some((offset, 0)));
    }
    let size: u64 = section.sh_size(endian).into();
    let fits = offset
        .checked_add(size)
        .is_some_and(|end| end <= bytes.len() as u64);
    if !fits {
        return Err(ElfError::SectionOutOfBounds {
            name: name.to_string(),
            offset,
            size,
            file_len: bytes.len(),
        });
    }
    Ok(Some((offset, size)))
}

/// One raw dynamic entry.
#[derive(Debug, Clone, Copy)]
struct DynEntry {
    tag: u64,
    val: u64,
}

fn read_info<Elf: FileHeader<Endian = Endianness>>(
    bytes: &[u8],
    class: ElfClass,
) -> Result<ElfInfo, ElfError> {
    let (header, endian) = parse_header::<Elf>(bytes)?;
    let phdrs = header
        .program_headers(endian, bytes)
        .map_err(|source| ElfError::Malformed {
            context: "program headers",
            source,
        })?;
    // Section headers are optional for a loader; damaged ones are treated as absent.
    let sections: Option<SectionTable<'_, Elf, &[u8]>> = header.sections(endian, bytes).ok();

    let machine = header.e_machine(endian);
    let kind = match header.e_type(endian) {
        elf::ET_DYN => ElfKind::Dyn,
        elf::ET_EXEC => ElfKind::Exec,
        elf::ET_REL => ElfKind::Rel,
        other => ElfKind::Other(other),
    };

    let mut interpreter = None;
    for phdr in phdrs {
        let interp = phdr
            .interpreter(endian, bytes)
            .map_err(|source| ElfError::Malformed {
                context: "PT_INTERP",
                source,
            })?;
        if let Some(raw) = interp {
            interpreter = Some(String::from_utf8_lossy(raw).into_owned());
            break;
        }
    }

    let (entries, linked_strtab) = dynamic_entries::<Elf>(bytes, endian, phdrs, sections.as_ref())?;

    let mut info = ElfInfo {
        class,
        endian: if endian == Endianness::Big {
            Endian::Big
        } else {
            Endian::Little
        },
        machine,
        machine_name: machine_name(machine),
        e_flags: header.e_flags(endian),
        kind,
        soname: None,
        needed: Vec::new(),
        rpath: Vec::new(),
        runpath: Vec::new(),
        flags_1: 0,
        nodeflib: false,
        interpreter,
        build_id: build_id::<Elf>(bytes, endian, phdrs, sections.as_ref()),
        has_rpath_tag: false,
        has_runpath_tag: false,
    };

    let string_tags = [
        elf::DT_NEEDED,
        elf::DT_SONAME,
        elf::DT_RPATH,
        elf::DT_RUNPATH,
    ];
    let uses_strings = entries
        .iter()
        .any(|e| string_tags.iter().any(|&t| e.tag == u64::from(t)));
    let strtab: &[u8] = if uses_strings {
        dynamic_strtab::<Elf>(
            bytes,
            endian,
            phdrs,
            sections.as_ref(),
            &entries,
            linked_strtab,
        )?
    } else {
        &[]
    };

    for entry in &entries {
        match entry.tag {
            t if t == u64::from(elf::DT_NEEDED) => {
                info.needed
                    .push(dyn_string(strtab, entry.val, "DT_NEEDED")?);
            }
            t if t == u64::from(elf::DT_SONAME) => {
                info.soname = Some(dyn_string(strtab, entry.val, "DT_SONAME")?);
            }
            t if t == u64::from(elf::DT_RPATH) => {
                info.has_rpath_tag = true;
                let value = dyn_string(strtab, entry.val, "DT_RPATH")?;
                info.rpath.extend(split_path_list(&value));
            }
            t if t == u64::from(elf::DT_RUNPATH) => {
                info.has_runpath_tag = true;
                let value = dyn_string(strtab, entry.val, "DT_RUNPATH")?;
                info.runpath.extend(split_path_list(&value));
            }
            t if t == u64::from(elf::DT_FLAGS_1) => {
                info.flags_1 = entry.val;
            }
            _ => {}
        }
    }
    info.nodeflib = info.flags_1 & u64::from(elf::DF_1_NODEFLIB) != 0;
    Ok(info)
}

/// Splits a `DT_RPATH`/`DT_RUNPATH` value on `:`; an empty value yields no entries.
fn split_path_list(value: &str) -> Vec<String> {
    if value.is_empty() {
        return Vec::new();
    }
    value.split(':').map(str::to_string).collect()
}

/// The dynamic entries up to `DT_NULL`, plus the string-table section index linked from the
/// `SHT_DYNAMIC` section when that is where they came from.
fn dynamic_entries<'a, Elf: FileHeader<Endian = Endianness>>(
    bytes: &'a [u8],
    endian: Endianness,
    phdrs: &'a [Elf::ProgramHeader],
    sections: Option<&SectionTable<'a, Elf, &'a [u8]>>,
) -> Result<(Vec<DynEntry>, Option<object::SectionIndex>), ElfError> {
    let mut segment_error = None;
    let mut table: Option<&[Elf::Dyn]> = None;
    let mut linked = None;
    for phdr in phdrs {
        match phdr.dynamic(endian, bytes) {
            Ok(Some(dyns)) => {
                table = Some(dyns);
                break;
            }
            Ok(None) => {}
            Err(source) => {
                segment_error = Some(ElfError::Malformed {
                    context: "PT_DYNAMIC",
                    source,
                });
                break;
            }
        }
    }
    if table.is_none() {
        if let Some(sections) = sections {
            match sections.dynamic(endian, bytes) {
                Ok(Some((dyns, link))) => {
                    table = Some(dyns);
                    linked = Some(link);
                }
                Ok(None) => {}
                Err(source) => {
                    if segment_error.is_none() {
                        segment_error = Some(ElfError::Malformed {
                            context: "SHT_DYNAMIC section",
                            source,
                        });
                    }
                }
            }
        }
    }
    let Some(table) = table else {
        return match segment_error {
            Some(err) => Err(err),
            None => Ok((Vec::new(), None)),
        };
    };
    let mut entries = Vec::new();
    for d in table {
        let tag: u64 = d.d_tag(endian).into();
        if tag == u64::from(elf::DT_NULL) {
            break;
        }
        entries.push(DynEntry {
            tag,
            val: d.d_val(endian).into(),
        });
    }
    Ok((entries, linked))
}

/// Locates the dynamic string table bytes.
fn dynamic_strtab<'a, Elf: FileHeader<Endian = Endianness>>(
    bytes: &'a [u8],
    endian: Endianness,
    phdrs: &'a [Elf::ProgramHeader],
    sections: Option<&SectionTable<'a, Elf, &'a [u8]>>,
    entries: &[DynEntry],
    linked: Option<object::SectionIndex>,
) -> Result<&'a [u8], ElfError> {
    let find = |tag: u32| {
        entries
            .iter()
            .find(|e| e.tag == u64::from(tag))
            .map(|e| e.val)
    };
    if let Some(addr) = find(elf::DT_STRTAB) {
        let size = find(elf::DT_STRSZ);
        if let Some(table) = map_address::<Elf>(bytes, endian, phdrs, addr, size) {
            return Ok(table);
        }
    }
    if let Some(sections) = sections {
        let linked_section = linked.and_then(|index| sections.section(index).ok());
        let by_name = || {
            sections
                .section_by_name(endian, b".dynstr")
                .map(|(_, section)| section)
        };
        if let Some(section) = linked_section.or_else(by_name) {
            if section.sh_type(endian) == elf::SHT_STRTAB {
                if let Ok(data) = section.data(endian, bytes) {
                    return Ok(data);
                }
            }
        }
    }
    Err(ElfError::NoDynamicStringTable {
        reason: "DT_STRTAB is missing or outside every PT_LOAD segment's file bytes, \
                 and no usable .dynstr section exists",
    })
}

/// Maps the virtual address `addr` to the file bytes of the `PT_LOAD` segment holding it,
/// limited to `size` bytes when given and to the end of the file.
fn map_address<'a, Elf: FileHeader<Endian = Endianness>>(
    bytes: &'a [u8],
    endian: Endianness,
    phdrs: &'a [Elf::ProgramHeader],
    addr: u64,
    size: Option<u64>,
) -> Option<&'a [u8]> {
    for phdr in phdrs {
        if phdr.p_type(endian) != elf::PT_LOAD {
            continue;
        }
        let vaddr: u64 = phdr.p_vaddr(endian).into();
        let filesz: u64 = phdr.p_filesz(endian).into();
        let offset: u64 = phdr.p_offset(endian).into();
        let Some(delta) = addr.checked_sub(vaddr) else {
            continue;
        };
        if delta >= filesz {
            continue;
        }
        let available = filesz - delta;
        let len = size.map_or(available, |s| s.min(available));
        let start = usize::try_from(offset.checked_add(delta)?).ok()?;
        if start >= bytes.len() {
            return None;
        }
        let end = usize::try_from(len)
            .ok()
            .and_then(|l| start.checked_add(l))
            .map_or(bytes.len(), |e| e.min(bytes.len()));
        return bytes.get(start..end);
    }
    None
}

/// Reads the NUL-terminated string at `offset` in the dynamic string table.
fn dyn_string(strtab: &[u8], offset: u64, tag: &'static str) -> Result<String, ElfError> {
    let tail = usize::try_from(offset)
        .ok()
        .and_then(|start| strtab.get(start..))
        .filter(|tail| !tail.is_empty())
        .ok_or(ElfError::StringOutOfBounds {
            tag,
            offset,
            table_len: strtab.len(),
        })?;
    let end = tail
        .iter()
        .position(|&b| b == 0)
        .ok_or(ElfError::UnterminatedString { tag, offset })?;
    Ok(String::from_utf8_lossy(tail.get(..end).unwrap_or(&[])).into_owned())
}

/// The GNU build id from `PT_NOTE` segments, else from `SHT_NOTE` sections.
fn build_id<'a, Elf: FileHeader<Endian = Endianness>>(
    bytes: &'a [u8],
    endian: Endianness,
    phdrs: &'a [Elf::ProgramHeader],
    sections: Option<&SectionTable<'a, Elf, &'a [u8]>>,
) -> Option<String> {
    for phdr in phdrs {
        if let Ok(Some(notes)) = phdr.notes(endian, bytes) {
            if let Some(id) = find_build_id::<Elf>(notes, endian) {
                return Some(id);
            }
        }
    }
    let sections = sections?;
    for section in sections.iter() {
        if let Ok(Some(notes)) = section.notes(endian, bytes) {
            if let Some(id) = find_build_id::<Elf>(notes, endian) {
                return Some(id);
            }
        }
    }
    None
}

/// Scans one note area; stops quietly at the first malformed note.
fn find_build_id<Elf: FileHeader<Endian = Endianness>>(
    mut notes: object::read::elf::NoteIterator<'_, Elf>,
    endian: Endianness,
) -> Option<String> {
    while let Ok(Some(note)) = notes.next() {
        if note.name() == elf::ELF_NOTE_GNU && note.n_type(endian) == NT_GNU_BUILD_ID {
            let desc = note.desc();
            if desc.is_empty() {
                return None;
            }
            let mut hex = String::with_capacity(desc.len() * 2);
            for b in desc {
                hex.push_str(&format!("{b:02x}"));
            }
            return Some(hex);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_keeps_origin_and_empty_components() {
        assert_eq!(
            split_path_list("$ORIGIN/x:/opt/lib"),
            vec!["$ORIGIN/x".to_string(), "/opt/lib".to_string()]
        );
        assert_eq!(
            split_path_list("a::b"),
            vec!["a".to_string(), String::new(), "b".to_string()]
        );
        assert!(split_path_list("").is_empty());
    }

    #[test]
    fn dyn_string_bounds() {
        let table = b"\0libc.so.6\0tail";
        assert_eq!(
            dyn_string(table, 1, "DT_NEEDED").ok(),
            Some("libc.so.6".to_string())
        );
        assert!(matches!(
            dyn_string(table, 99, "DT_NEEDED"),
            Err(ElfError::StringOutOfBounds { .. })
        ));
        assert!(matches!(
            dyn_string(table, 11, "DT_NEEDED"),
            Err(ElfError::UnterminatedString { .. })
        ));
        assert!(matches!(
            dyn_string(table, u64::MAX, "DT_NEEDED"),
            Err(ElfError::StringOutOfBounds { .. })
        ));
    }

    #[test]
    fn short_and_foreign_inputs() {
        assert!(matches!(
            read_elf_info(b""),
            Err(ElfError::Truncated { .. })
        ));
        assert!(matches!(
            read_elf_info(b"\x7fEL"),
            Err(ElfError::Truncated { .. })
        ));
        assert!(matches!(read_elf_info(b"MZ\x90\0"), Err(ElfError::NotElf)));
        assert!(matches!(
            read_elf_info(b"\x7fELF\x02\x01\x01"),
            Err(ElfError::Truncated { .. })
        ));
        let mut bad_class = [0u8; 64];
        bad_class[..4].copy_from_slice(b"\x7fELF");
        bad_class[4] = 9;
        bad_class[5] = 1;
        assert!(matches!(
            read_elf_info(&bad_class),
            Err(ElfError::UnsupportedIdent { class: 9, .. })
        ));
        assert!(!is_elf(b"\x7fEL"));
        assert!(is_elf(b"\x7fELF"));
    }
}
