//! The CUDA fatbin inside an ELF file: which GPU code (SASS cubins for `sm_XY`, PTX for
//! `compute_XY`) a binary carries, read by walking the fatbin headers and skipping every payload.
//!
//! # Layout (little-endian; recorded from real files, see `tests/fatbin.rs`)
//!
//! A fatbin section is a sequence of **containers**, each a 16-byte header followed by its
//! entries:
//!
//! | offset | size | field |
//! | --- | --- | --- |
//! | 0 | 4 | magic `0xBA55ED50` |
//! | 4 | 2 | version (1) |
//! | 6 | 2 | header size (16) |
//! | 8 | 8 | size of the entries that follow |
//!
//! Each **entry** is a header of at least 64 bytes, then its (possibly compressed) payload:
//!
//! | offset | size | field |
//! | --- | --- | --- |
//! | 0 | 2 | kind: 1 = PTX, 2 = ELF (a SASS cubin) |
//! | 4 | 4 | header size (64; 72 or 80 for PTX; 96–120 with the extended header) |
//! | 8 | 8 | payload size, padded: the next entry starts at header size + this |
//! | 16 | 4 | compressed size (when compressed) |
//! | 24 | 2 | minor version: the PTX ISA minor for PTX entries |
//! | 26 | 2 | major version: the PTX ISA major for PTX entries |
//! | 28 | 4 | architecture, `10 * major + minor` (86 = 8.6, 121 = 12.1) |
//! | 40 | 8 | flags |
//! | 56 | 8 | uncompressed size (when compressed) |
//!
//! Flags: `0x2000` the older (LZ4-style) compression, `0x8000` zstd (CUDA 13), `0x100000` an
//! architecture-specific `a` target (`sm_90a`), `0x200000` a family-specific `f` target
//! (`sm_100f`), `0x1000000` an extended header. Confirmed on files built with nvcc 11.8 (Debian)
//! and nvcc 13.5 (PyPI) with `code=sm_90a`, `sm_100f`, `compute_100f`, `compute_100a`, and against
//! cuobjdump 11.8 and 13.4 listings. (cuobjdump prints an `f` cubin as plain `sm_100`, but its PTX
//! as `sm_100f`.) ELF entries hold version 1.7 (CUDA 11) or 1.8 (CUDA 13) at +24/+26; it is not
//! reported.
//!
//! # What is read
//!
//! * `.nv_fatbin`: the fatbins the CUDA runtime registers when the library loads (what
//!   `cuobjdump` lists by default). With relocatable device code (`nvcc -rdc`), the device-linked
//!   image is here too.
//! * `__nv_relfatbin`: the relocatable fatbins of `-rdc` objects (what `cuobjdump -all` adds).
//!   Their entries are marked [`FatbinSection::Relocatable`]; they are listed but are not loaded
//!   as they stand, so callers should not count them as runnable code.
//!
//! `.nvFatBinSegment` (24-byte `__fatBinC_Wrapper_t` records, one per registered fatbin, whose
//! pointers are filled by relocations) is not needed: the containers are walked in place.
//!
//! Payloads are never read or decompressed; only the section headers and the fatbin headers
//! are touched, so on a memory-mapped file only those pages are read. Every size is
//! bounds-checked: hostile input gives a [`FatbinError`], never a panic, and the walk always
//! moves forward (at most [`MAX_ENTRIES`] entries).

use serde::Serialize;

use crate::elf::{section_range, ElfError};

/// The first four bytes of every fatbin container.
pub const FATBIN_MAGIC: u32 = 0xBA55_ED50;
/// The section holding the fatbins the CUDA runtime registers.
pub const FATBIN_SECTION: &str = ".nv_fatbin";
/// The section holding the relocatable fatbins of `-rdc` objects.
pub const RELFATBIN_SECTION: &str = "__nv_relfatbin";
/// More entries than this is taken as a hostile file (real libraries carry a few thousand).
pub const MAX_ENTRIES: usize = 1_000_000;

const CONTAINER_HEADER: usize = 16;
const MIN_ENTRY_HEADER: usize = 64;

const FLAG_COMPRESSED_OLD: u64 = 0x2000;
const FLAG_COMPRESSED_ZSTD: u64 = 0x8000;
const FLAG_ARCH_SPECIFIC: u64 = 0x10_0000;
const FLAG_FAMILY_SPECIFIC: u64 = 0x20_0000;

/// Why a fatbin could not be walked.
#[derive(Debug, thiserror::Error)]
pub enum FatbinError {
    #[error(transparent)]
    Elf(#[from] ElfError),
    /// A header or a size in the fatbin does not fit.
    #[error("malformed fatbin in {section} at section offset {offset:#x}: {what}")]
    Malformed {
        section: &'static str,
        offset: u64,
        what: String,
    },
    /// More entries than [`MAX_ENTRIES`].
    #[error("fatbin in {section} has more than {MAX_ENTRIES} entries; refusing to go on")]
    TooManyEntries { section: &'static str },
}

/// Which section an entry was found in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FatbinSection {
    /// `.nv_fatbin`: loaded by the CUDA runtime.
    Fatbin,
    /// `__nv_relfatbin`: relocatable device code, for a later device link.
    Relocatable,
}

impl FatbinSection {
    pub fn name(self) -> &'static str {
        match self {
            FatbinSection::Fatbin => FATBIN_SECTION,
            FatbinSection::Relocatable => RELFATBIN_SECTION,
        }
    }
}

/// What an entry holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum EntryKind {
    /// PTX for a virtual architecture (`compute_XY`), JIT-compiled by the driver.
    Ptx,
    /// A cubin: SASS for a real architecture (`sm_XY`).
    Elf,
    /// A kind this reader does not know (the number as stored).
    Other(u16),
}

/// The architecture variant, from the entry flags.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ArchVariant {
    /// `sm_XY` / `compute_XY`.
    Plain,
    /// `sm_XYa`: architecture-specific, runs only on exactly X.Y.
    A,
    /// `sm_XYf`: family-specific (CUDA 12.9+).
    F,
}

/// How an entry's payload is stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Compression {
    None,
    /// The older scheme (flag `0x2000`; an LZ4-style stream), CUDA 11 and 12.
    Lz4,
    /// zstd frames (flag `0x8000`), CUDA 13.
    Zstd,
}

/// A PTX ISA version (`7.8`, `9.4`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct PtxIsa {
    pub major: u16,
    pub minor: u16,
}

impl std::fmt::Display for PtxIsa {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}

/// One fatbin entry: its header, decoded; the payload is not read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FatbinEntry {
    pub section: FatbinSection,
    /// The container's index within its section, from 0.
    pub container: usize,
    /// File offset of the entry header.
    pub offset: u64,
    pub kind: EntryKind,
    /// `10 * major + minor` of the target (86 for 8.6, 100 for 10.0).
    pub arch: u32,
    pub variant: ArchVariant,
    pub compression: Compression,
    /// The raw flags, for bits this reader does not interpret.
    pub flags: u64,
    pub header_size: u32,
    /// The payload's size in the file (padded).
    pub payload_size: u64,
    /// The compressed payload's exact size, when compressed.
    pub compressed_size: Option<u32>,
    /// The payload's size once decompressed, when compressed.
    pub uncompressed_size: Option<u64>,
    /// The PTX ISA version, for PTX entries.
    pub ptx_isa: Option<PtxIsa>,
}

impl FatbinEntry {
    /// `sm_86`, `sm_90a`, `compute_100f`, as nvcc spells the target.
    pub fn target_name(&self) -> String {
        let prefix = match self.kind {
            EntryKind::Ptx => "compute",
            EntryKind::Elf | EntryKind::Other(_) => "sm",
        };
        format!("{prefix}_{}{}", self.arch, self.variant_suffix())
    }

    /// `""`, `"a"` or `"f"`.
    pub fn variant_suffix(&self) -> &'static str {
        match self.variant {
            ArchVariant::Plain => "",
            ArchVariant::A => "a",
            ArchVariant::F => "f",
        }
    }
}

/// Every entry of an ELF file's fatbins, in file order.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Fatbin {
    /// Containers in `.nv_fatbin`.
    pub containers: usize,
    /// Containers in `__nv_relfatbin`.
    pub relocatable_containers: usize,
    /// Bytes of `.nv_fatbin` and `__nv_relfatbin` together.
    pub section_bytes: u64,
    pub entries: Vec<FatbinEntry>,
}

/// One target and how many entries carry it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TargetCount {
    /// `sm_86`, `compute_90a`, ...
    pub target: String,
    pub arch: u32,
    pub variant: ArchVariant,
    pub count: usize,
    /// For PTX: the distinct PTX ISA versions, oldest first.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub ptx_isa: Vec<PtxIsa>,
}

/// What the loadable fatbins (`.nv_fatbin`) carry, grouped by target.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct FatbinSummary {
    pub containers: usize,
    pub relocatable_containers: usize,
    /// Distinct SASS targets, by architecture.
    pub sass: Vec<TargetCount>,
    /// Distinct PTX targets, by architecture.
    pub ptx: Vec<TargetCount>,
    /// Entries of unknown kinds.
    pub other_entries: usize,
    /// Entries in `__nv_relfatbin` (not in `sass`/`ptx`).
    pub relocatable_entries: usize,
}

impl Fatbin {
    /// Groups the `.nv_fatbin` entries by kind and target.
    pub fn summary(&self) -> FatbinSummary {
        let mut summary = FatbinSummary {
            containers: self.containers,
            relocatable_containers: self.relocatable_containers,
            ..FatbinSummary::default()
        };
        for entry in &self.entries {
            if entry.section == FatbinSection::Relocatable {
                summary.relocatable_entries += 1;
                continue;
            }
            let list = match entry.kind {
                EntryKind::Elf => &mut summary.sass,
                EntryKind::Ptx => &mut summary.ptx,
                EntryKind::Other(_) => {
                    summary.other_entries += 1;
                    continue;
                }
            };
            let target = entry.target_name();
            let index = match list.iter().position(|t| t.target == target) {
                Some(i) => i,
                None => {
                    list.push(TargetCount {
                        target,
                        arch: entry.arch,
                        variant: entry.variant,
                        count: 0,
                        ptx_isa: Vec::new(),
                    });
                    list.len() - 1
                }
            };
            if let Some(t) = list.get_mut(index) {
                t.count += 1;
                if let Some(isa) = entry.ptx_isa {
                    if !t.ptx_isa.contains(&isa) {
                        t.ptx_isa.push(isa);
                        t.ptx_isa.sort();
                    }
                }
            }
        }
        let order = |t: &TargetCount| (t.arch, variant_rank(t.variant));
        summary.sass.sort_by_key(order);
        summary.ptx.sort_by_key(order);
        summary
    }
}

fn variant_rank(v: ArchVariant) -> u8 {
    match v {
        ArchVariant::Plain => 0,
        ArchVariant::F => 1,
        ArchVariant::A => 2,
    }
}

/// Walks the fatbins of the ELF file `bytes`. `Ok(None)` when it has neither `.nv_fatbin` nor
/// `__nv_relfatbin` (no GPU code); an error when it is not ELF or a fatbin is malformed.
pub fn read_fatbin(bytes: &[u8]) -> Result<Option<Fatbin>, FatbinError> {
    let main = section_range(bytes, FATBIN_SECTION)?;
    let relocatable = section_range(bytes, RELFATBIN_SECTION)?;
    if main.is_none() && relocatable.is_none() {
        return Ok(None);
    }
    let mut fatbin = Fatbin::default();
    for (range, section) in [
        (main, FatbinSection::Fatbin),
        (relocatable, FatbinSection::Relocatable),
    ] {
        let Some((offset, size)) = range else {
            continue;
        };
        // section_range checked that the range lies inside `bytes`.
        let data = usize::try_from(offset)
            .ok()
            .zip(usize::try_from(size).ok())
            .and_then(|(start, len)| bytes.get(start..start.checked_add(len)?));
        let Some(data) = data else {
            return Err(FatbinError::Malformed {
                section: section.name(),
                offset: 0,
                what: format!("section range {offset:#x}+{size:#x} is outside the file"),
            });
        };
        let containers = walk_section(data, offset, section, &mut fatbin.entries)?;
        match section {
            FatbinSection::Fatbin => fatbin.containers = containers,
            FatbinSection::Relocatable => fatbin.relocatable_containers = containers,
        }
        fatbin.section_bytes = fatbin.section_bytes.saturating_add(size);
    }
    Ok(Some(fatbin))
}

/// Walks a raw fatbin blob (the bytes of a `.nv_fatbin` section, or a `.fatbin` file from
/// `nvcc -fatbin`) as if it were `.nv_fatbin` at file offset 0.
pub fn parse_fatbin_blob(data: &[u8]) -> Result<Fatbin, FatbinError> {
    let mut fatbin = Fatbin {
        section_bytes: data.len() as u64,
        ..Fatbin::default()
    };
    fatbin.containers = walk_section(data, 0, FatbinSection::Fatbin, &mut fatbin.entries)?;
    Ok(fatbin)
}

/// Walks the containers of one section; returns how many there were.
fn walk_section(
    data: &[u8],
    file_offset: u64,
    section: FatbinSection,
    entries: &mut Vec<FatbinEntry>,
) -> Result<usize, FatbinError> {
    let malformed = |at: usize, what: String| FatbinError::Malformed {
        section: section.name(),
        offset: at as u64,
        what,
    };
    let mut containers = 0usize;
    let mut pos = 0usize;
    loop {
        // Containers may be separated by zero padding (alignment).
        while data.get(pos) == Some(&0) {
            pos += 1;
        }
        if pos >= data.len() {
            break;
        }
        let magic = read_u32(data, pos)
            .ok_or_else(|| malformed(pos, "truncated container header".to_string()))?;
        if magic != FATBIN_MAGIC {
            return Err(malformed(
                pos,
                format!("expected the fatbin magic 0x{FATBIN_MAGIC:08x}, found 0x{magic:08x}"),
            ));
        }
        let header_size = read_u16(data, pos + 6)
            .ok_or_else(|| malformed(pos, "truncated container header".to_string()))?
            as usize;
        let payload = read_u64(data, pos + 8)
            .ok_or_else(|| malformed(pos, "truncated container header".to_string()))?;
        if header_size < CONTAINER_HEADER {
            return Err(malformed(
                pos,
                format!("container header size {header_size} is below {CONTAINER_HEADER}"),
            ));
        }
        let start = pos + header_size;
        let end = usize::try_from(payload)
            .ok()
            .and_then(|p| start.checked_add(p))
            .filter(|&end| end <= data.len())
            .ok_or_else(|| {
                malformed(
                    pos,
                    format!(
                        "container of {payload} bytes runs past the end of the section ({} bytes)",
                        data.len()
                    ),
                )
            })?;
        walk_entries(data, start, end, file_offset, section, containers, entries)?;
        containers += 1;
        pos = end;
    }
    Ok(containers)
}

/// Walks the entries of one container, `data[start..end]`.
fn walk_entries(
    data: &[u8],
    start: usize,
    end: usize,
    file_offset: u64,
    section: FatbinSection,
    container: usize,
    entries: &mut Vec<FatbinEntry>,
) -> Result<(), FatbinError> {
    let malformed = |at: usize, what: String| FatbinError::Malformed {
        section: section.name(),
        offset: at as u64,
        what,
    };
    let mut pos = start;
    while pos < end {
        if end - pos < MIN_ENTRY_HEADER {
            return Err(malformed(
                pos,
                format!(
                    "{} bytes left in the container, too few for an entry header",
                    end - pos
                ),
            ));
        }
        // All reads below lie in data[pos..pos + 64], which the check above guarantees.
        let truncated = || malformed(pos, "truncated entry header".to_string());
        let kind = read_u16(data, pos).ok_or_else(truncated)?;
        let header_size = read_u32(data, pos + 4).ok_or_else(truncated)?;
        let payload_size = read_u64(data, pos + 8).ok_or_else(truncated)?;
        let compressed_size = read_u32(data, pos + 16).ok_or_else(truncated)?;
        let minor = read_u16(data, pos + 24).ok_or_else(truncated)?;
        let major = read_u16(data, pos + 26).ok_or_else(truncated)?;
        let arch = read_u32(data, pos + 28).ok_or_else(truncated)?;
        let flags = read_u64(data, pos + 40).ok_or_else(truncated)?;
        let uncompressed_size = read_u64(data, pos + 56).ok_or_else(truncated)?;
        if (header_size as usize) < MIN_ENTRY_HEADER {
            return Err(malformed(
                pos,
                format!("entry header size {header_size} is below {MIN_ENTRY_HEADER}"),
            ));
        }
        let next = usize::try_from(payload_size)
            .ok()
            .and_then(|p| pos.checked_add(header_size as usize)?.checked_add(p))
            .filter(|&next| next <= end)
            .ok_or_else(|| {
                malformed(
                    pos,
                    format!(
                        "entry of {header_size} + {payload_size} bytes runs past the end of its container"
                    ),
                )
            })?;
        if entries.len() >= MAX_ENTRIES {
            return Err(FatbinError::TooManyEntries {
                section: section.name(),
            });
        }
        let kind = match kind {
            1 => EntryKind::Ptx,
            2 => EntryKind::Elf,
            other => EntryKind::Other(other),
        };
        let compression = if flags & FLAG_COMPRESSED_ZSTD != 0 {
            Compression::Zstd
        } else if flags & FLAG_COMPRESSED_OLD != 0 {
            Compression::Lz4
        } else {
            Compression::None
        };
        let variant = if flags & FLAG_ARCH_SPECIFIC != 0 {
            ArchVariant::A
        } else if flags & FLAG_FAMILY_SPECIFIC != 0 {
            ArchVariant::F
        } else {
            ArchVariant::Plain
        };
        let compressed = compression != Compression::None;
        entries.push(FatbinEntry {
            section,
            container,
            offset: file_offset.saturating_add(pos as u64),
            kind,
            arch,
            variant,
            compression,
            flags,
            header_size,
            payload_size,
            compressed_size: compressed.then_some(compressed_size),
            uncompressed_size: compressed.then_some(uncompressed_size),
            ptx_isa: (kind == EntryKind::Ptx).then_some(PtxIsa { major, minor }),
        });
        // header_size >= 64, so the walk always moves forward.
        pos = next;
    }
    Ok(())
}

fn read_u16(data: &[u8], at: usize) -> Option<u16> {
    let bytes = data.get(at..at.checked_add(2)?)?;
    Some(u16::from_le_bytes(bytes.try_into().ok()?))
}

fn read_u32(data: &[u8], at: usize) -> Option<u32> {
    let bytes = data.get(at..at.checked_add(4)?)?;
    Some(u32::from_le_bytes(bytes.try_into().ok()?))
}

fn read_u64(data: &[u8], at: usize) -> Option<u64> {
    let bytes = data.get(at..at.checked_add(8)?)?;
    Some(u64::from_le_bytes(bytes.try_into().ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One entry to build: kind, arch, flags, payload length, (major, minor) version.
    type Spec = (u16, u32, u64, usize, (u16, u16));

    /// A container holding the given entries.
    fn container(entries: &[Spec]) -> Vec<u8> {
        let mut body = Vec::new();
        for &(kind, arch, flags, len, (major, minor)) in entries {
            let mut h = vec![0u8; 64];
            h[0..2].copy_from_slice(&kind.to_le_bytes());
            h[2..4].copy_from_slice(&0x101u16.to_le_bytes());
            h[4..8].copy_from_slice(&64u32.to_le_bytes());
            h[8..16].copy_from_slice(&(len as u64).to_le_bytes());
            h[24..26].copy_from_slice(&minor.to_le_bytes());
            h[26..28].copy_from_slice(&major.to_le_bytes());
            h[28..32].copy_from_slice(&arch.to_le_bytes());
            h[40..48].copy_from_slice(&flags.to_le_bytes());
            body.extend_from_slice(&h);
            body.extend(std::iter::repeat_n(0xAB, len));
        }
        let mut out = Vec::new();
        out.extend_from_slice(&FATBIN_MAGIC.to_le_bytes());
        out.extend_from_slice(&1u16.to_le_bytes());
        out.extend_from_slice(&16u16.to_le_bytes());
        out.extend_from_slice(&(body.len() as u64).to_le_bytes());
        out.extend_from_slice(&body);
        out
    }

    #[test]
    fn walks_entries_and_decodes_flags() {
        let mut blob = container(&[
            (2, 86, 0x11, 16, (1, 7)),
            (2, 90, 0x10_0011, 8, (1, 8)),
            (1, 100, 0x20_8011, 24, (9, 5)),
        ]);
        blob.extend_from_slice(&[0; 8]);
        blob.extend(container(&[(2, 86, 0x2011, 0, (1, 7))]));
        let fatbin = parse_fatbin_blob(&blob).expect("parses");
        assert_eq!(fatbin.containers, 2);
        let names: Vec<String> = fatbin.entries.iter().map(|e| e.target_name()).collect();
        assert_eq!(names, ["sm_86", "sm_90a", "compute_100f", "sm_86"]);
        assert_eq!(fatbin.entries[2].compression, Compression::Zstd);
        assert_eq!(fatbin.entries[3].compression, Compression::Lz4);
        assert_eq!(
            fatbin.entries[2].ptx_isa,
            Some(PtxIsa { major: 9, minor: 5 })
        );
        assert_eq!(fatbin.entries[0].ptx_isa, None);
        let summary = fatbin.summary();
        assert_eq!(summary.sass.len(), 2);
        assert_eq!(summary.sass[0].target, "sm_86");
        assert_eq!(summary.sass[0].count, 2);
        assert_eq!(summary.ptx[0].ptx_isa, vec![PtxIsa { major: 9, minor: 5 }]);
    }

    #[test]
    fn rejects_lying_sizes_and_truncation() {
        let good = container(&[(2, 86, 0x11, 16, (1, 7))]);
        for cut in 1..good.len() {
            // Every truncation is an error (or, for cuts inside zero bytes, a shorter walk).
            let _ = parse_fatbin_blob(&good[..cut]);
        }
        assert!(parse_fatbin_blob(&good[..good.len() - 1]).is_err());
        let mut lying = good.clone();
        lying[8..16].copy_from_slice(&u64::MAX.to_le_bytes());
        assert!(parse_fatbin_blob(&lying).is_err());
        let mut lying_entry = good.clone();
        lying_entry[16 + 8..16 + 16].copy_from_slice(&(u64::MAX - 10).to_le_bytes());
        assert!(parse_fatbin_blob(&lying_entry).is_err());
        let mut small_header = good;
        small_header[16 + 4..16 + 8].copy_from_slice(&0u32.to_le_bytes());
        assert!(parse_fatbin_blob(&small_header).is_err());
        assert!(parse_fatbin_blob(b"not a fatbin").is_err());
        assert_eq!(
            parse_fatbin_blob(&[0; 100]).map(|f| f.containers).ok(),
            Some(0)
        );
    }
}
