//! Parser for glibc's `/etc/ld.so.cache`, working on the file's bytes.
//!
//! Three layouts exist, all handled here (see glibc `sysdeps/generic/dl-cache.h` and
//! `elf/cache.c`):
//!
//! * the **new** format (glibc 2.32+ default): header `glibc-ld.so.cache1.1`, 48 bytes,
//!   followed by `nlibs` 24-byte entries and the string table. String offsets are relative
//!   to the start of this header;
//! * the **compat** format: an old `ld.so-1.7.0` cache (12-byte entries) whose string area
//!   starts with the new cache, aligned to 8 bytes. The new cache is what glibc uses;
//! * the **old** format alone (`ld.so-1.7.0` only): string offsets are relative to the end of
//!   the old entry table and there are no hwcaps.
//!
//! The new format may carry an extension directory (at `extension_offset`, relative to the
//! start of the file) whose `glibc-hwcaps` section (tag 1) is an array of string-table
//! offsets naming `glibc-hwcaps/<name>` subdirectories. An entry whose `hwcap` field has
//! bit 62 set (and no other bits in the upper half except the ISA level bits) refers to
//! element `hwcap as u32` of that array.
//!
//! Every offset is bounds-checked; malformed input yields [`LdCacheError`], never a panic.

use serde::Serialize;

/// Magic of the old (libc5 / glibc 2.0) format.
const OLD_MAGIC: &[u8] = b"ld.so-1.7.0";
/// Magic plus version of the new format.
const NEW_MAGIC: &[u8] = b"glibc-ld.so.cache1.1";
/// `sizeof (struct cache_file)`: magic (11 bytes), padding to 12, `nlibs`.
const OLD_HEADER_LEN: usize = 16;
/// `sizeof (struct file_entry)`.
const OLD_ENTRY_LEN: usize = 12;
/// `sizeof (struct cache_file_new)`.
const NEW_HEADER_LEN: usize = 48;
/// `sizeof (struct file_entry_new)`.
const NEW_ENTRY_LEN: usize = 24;
/// `__alignof__ (struct cache_file_new)` on 64-bit targets.
const NEW_ALIGN: usize = 8;
/// `cache_extension_magic`.
const EXTENSION_MAGIC: u32 = (-358_342_284_i32) as u32;
/// `sizeof (struct cache_extension)` without its sections.
const EXTENSION_HEADER_LEN: usize = 8;
/// `sizeof (struct cache_extension_section)`.
const EXTENSION_SECTION_LEN: usize = 16;
/// `cache_extension_tag_generator`.
const TAG_GENERATOR: u32 = 0;
/// `cache_extension_tag_glibc_hwcaps`.
const TAG_GLIBC_HWCAPS: u32 = 1;
/// `DL_CACHE_HWCAP_EXTENSION`.
pub const HWCAP_EXTENSION_BIT: u64 = 1 << 62;
/// `DL_CACHE_HWCAP_ISA_LEVEL_MASK`: ISA level bits in the upper 32 bits of `hwcap`.
const HWCAP_ISA_LEVEL_MASK: u64 = (1 << 10) - 1;

/// `FLAG_TYPE_MASK` of ldconfig.
const FLAG_TYPE_MASK: i32 = 0x00ff;
/// `FLAG_REQUIRED_MASK` of ldconfig.
const FLAG_REQUIRED_MASK: i32 = 0xff00;
/// `FLAG_ELF`.
const FLAG_ELF: i32 = 0x0001;
/// `FLAG_ELF_LIBC6`.
const FLAG_ELF_LIBC6: i32 = 0x0003;
/// `FLAG_X8664_LIB64`.
const FLAG_X8664_LIB64: i32 = 0x0300;
/// `FLAG_X8664_LIBX32`.
const FLAG_X8664_LIBX32: i32 = 0x0800;
/// `FLAG_AARCH64_LIB64`.
const FLAG_AARCH64_LIB64: i32 = 0x0a00;
/// `FLAG_ARM_LIBHF`.
const FLAG_ARM_LIBHF: i32 = 0x0900;
/// `FLAG_POWERPC_LIB64`.
const FLAG_POWERPC_LIB64: i32 = 0x0500;

/// Errors from [`parse_ld_so_cache`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LdCacheError {
    /// The input ends before a structure it must contain.
    #[error(
        "ld.so.cache truncated: {what} needs {needed} bytes at offset {offset}, file has {len}"
    )]
    Truncated {
        what: &'static str,
        offset: usize,
        needed: usize,
        len: usize,
    },
    /// Neither the old nor the new magic is present.
    #[error("not an ld.so.cache file (no `ld.so-1.7.0` or `glibc-ld.so.cache1.1` magic)")]
    BadMagic,
    /// The header's entry count cannot fit in the file.
    #[error("ld.so.cache {format} header claims {nlibs} entries, but only {room} fit in the file")]
    TooManyEntries {
        format: &'static str,
        nlibs: u32,
        room: usize,
    },
    /// The header's endianness field says the cache is invalid.
    #[error("ld.so.cache header marks the cache invalid (flags {flags:#04x})")]
    InvalidCache { flags: u8 },
    /// A string offset points outside the string area.
    #[error("ld.so.cache entry {index}: {field} offset {offset} is outside the string area ({area_len} bytes)")]
    StringOutOfBounds {
        index: usize,
        field: &'static str,
        offset: u32,
        area_len: usize,
    },
    /// A string has no terminating NUL before the end of the file.
    #[error("ld.so.cache entry {index}: {field} at offset {offset} has no terminating NUL")]
    UnterminatedString {
        index: usize,
        field: &'static str,
        offset: u32,
    },
    /// The extension directory is malformed (ldconfig -p refuses such a file too).
    #[error("ld.so.cache extension directory at offset {offset}: {reason}")]
    BadExtension { offset: u32, reason: &'static str },
}

/// Which on-disk layout a cache used.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum CacheFormat {
    /// `ld.so-1.7.0` only (no hwcaps, no extensions).
    Old,
    /// `glibc-ld.so.cache1.1` only (glibc 2.32+ default).
    New,
    /// Old header with the new cache hidden in its string area.
    Compat,
}

/// The ABI an entry was built for, decoded from its `flags` the way `ldconfig -p` prints them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum CacheArch {
    /// `libc6,x86-64` (flags `0x0303`).
    X86_64,
    /// `libc6` with no ABI tag (flags `0x0003`). On an x86 host this is i386; on other hosts
    /// it is their plain 32-bit ABI (ppc32, s390, ...). glibc's i386 loader also accepts
    /// entries flagged `ELF` (`0x0001`), and so does [`LdCache::lookup`] for this variant.
    I386,
    /// `libc6,x32` (flags `0x0803`).
    X32,
    /// `libc6,AArch64` (flags `0x0a03`).
    Aarch64,
    /// `libc6,hard-float`: 32-bit ARM hard-float (flags `0x0903`).
    ArmHardFloat,
    /// `libc6,64bit` with the PowerPC tag (flags `0x0503`).
    Ppc64,
    /// Anything else; holds the raw flags.
    Other(i32),
}

impl CacheArch {
    /// Decodes an entry's `flags` field.
    pub fn from_flags(flags: i32) -> CacheArch {
        match flags {
            0x0303 => CacheArch::X86_64,
            0x0003 => CacheArch::I386,
            0x0803 => CacheArch::X32,
            0x0a03 => CacheArch::Aarch64,
            0x0903 => CacheArch::ArmHardFloat,
            0x0503 => CacheArch::Ppc64,
            other => CacheArch::Other(other),
        }
    }

    /// The `flags` value glibc's loader for this ABI looks for (`_DL_CACHE_DEFAULT_ID`).
    pub fn flags(self) -> i32 {
        match self {
            CacheArch::X86_64 => FLAG_ELF_LIBC6 | FLAG_X8664_LIB64,
            CacheArch::I386 => FLAG_ELF_LIBC6,
            CacheArch::X32 => FLAG_ELF_LIBC6 | FLAG_X8664_LIBX32,
            CacheArch::Aarch64 => FLAG_ELF_LIBC6 | FLAG_AARCH64_LIB64,
            CacheArch::ArmHardFloat => FLAG_ELF_LIBC6 | FLAG_ARM_LIBHF,
            CacheArch::Ppc64 => FLAG_ELF_LIBC6 | FLAG_POWERPC_LIB64,
            CacheArch::Other(flags) => flags,
        }
    }

    /// Whether a loader of this ABI accepts a cache entry with `flags`
    /// (glibc's `_dl_cache_check_flags`).
    pub fn accepts(self, flags: i32) -> bool {
        match self {
            CacheArch::I386 => flags == FLAG_ELF_LIBC6 || flags == FLAG_ELF,
            other => flags == other.flags(),
        }
    }
}

/// The text `ldconfig -p` prints inside the parentheses for `flags`, without the hwcap part,
/// e.g. `libc6,x86-64`.
pub fn flags_description(flags: i32) -> String {
    let kind = match flags & FLAG_TYPE_MASK {
        0 => "libc4",
        1 => "ELF",
        2 => "libc5",
        3 => "libc6",
        _ => "unknown or unsupported flag",
    };
    let required = flags & FLAG_REQUIRED_MASK;
    let abi = match required {
        0x0000 => String::new(),
        0x0100 | 0x0400 | 0x0500 | 0x0700 => ",64bit".to_string(),
        0x0200 => ",IA-64".to_string(),
        0x0300 => ",x86-64".to_string(),
        0x0600 => ",N32".to_string(),
        0x0800 => ",x32".to_string(),
        0x0900 => ",hard-float".to_string(),
        0x0a00 => ",AArch64".to_string(),
        0x0b00 => ",soft-float".to_string(),
        0x0c00 => ",nan2008".to_string(),
        0x0d00 => ",N32,nan2008".to_string(),
        0x0e00 => ",64bit,nan2008".to_string(),
        0x0f00 => ",soft-float".to_string(),
        0x1000 => ",double-float".to_string(),
        other => format!(",{other}"),
    };
    format!("{kind}{abi}")
}

/// One library entry of the cache.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LdCacheEntry {
    /// The key: the library's SONAME (e.g. `libcuda.so.1`).
    pub soname: String,
    /// Full path the loader opens for it.
    pub path: String,
    /// Raw `flags` (kind and ABI).
    pub flags: i32,
    /// `flags` decoded.
    pub arch: CacheArch,
    /// Raw `hwcap` field (0 for plain entries and in the old format).
    pub hwcap: u64,
    /// For glibc-hwcaps entries, the subdirectory name (e.g. `x86-64-v3`).
    pub hwcaps_subdir: Option<String>,
}

impl LdCacheEntry {
    /// Whether `hwcap` marks a glibc-hwcaps entry (glibc's `dl_cache_hwcap_extension`).
    pub fn is_hwcaps_entry(&self) -> bool {
        is_hwcap_extension(self.hwcap)
    }

    /// The line `ldconfig -p` prints for this entry (with its leading tab).
    pub fn ldconfig_line(&self) -> String {
        let mut inner = flags_description(self.flags);
        if let Some(subdir) = &self.hwcaps_subdir {
            inner.push_str(&format!(", hwcap: \"{subdir}\""));
        } else if self.hwcap != 0 {
            inner.push_str(&format!(", hwcap: {:#018x}", self.hwcap));
        }
        format!("\t{} ({}) => {}", self.soname, inner, self.path)
    }
}

/// A parsed cache.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LdCache {
    /// Which layout the file used.
    pub format: CacheFormat,
    /// Entries in file order, which is the order glibc's loader searches them.
    pub entries: Vec<LdCacheEntry>,
    /// The generator string of the extension directory (e.g. `ldconfig (Debian GLIBC ...)`).
    pub generator: Option<String>,
}

impl LdCache {
    /// Entries for `soname` whose ABI a loader of `arch` accepts, in file order.
    pub fn lookup<'a>(
        &'a self,
        soname: &'a str,
        arch: CacheArch,
    ) -> impl Iterator<Item = &'a LdCacheEntry> + 'a {
        self.entries
            .iter()
            .filter(move |e| e.soname == soname && arch.accepts(e.flags))
    }
}

/// Whether `hwcap` is a glibc-hwcaps extension reference.
fn is_hwcap_extension(hwcap: u64) -> bool {
    ((hwcap >> 32) & !HWCAP_ISA_LEVEL_MASK) == (HWCAP_EXTENSION_BIT >> 32)
}

/// Byte order of the numbers in the cache.
#[derive(Debug, Clone, Copy)]
enum Order {
    Little,
    Big,
}

/// Bounds-checked reader over the whole file.
struct Bytes<'a> {
    data: &'a [u8],
    order: Order,
}

impl<'a> Bytes<'a> {
    fn slice(
        &self,
        what: &'static str,
        offset: usize,
        len: usize,
    ) -> Result<&'a [u8], LdCacheError> {
        let truncated = LdCacheError::Truncated {
            what,
            offset,
            needed: len,
            len: self.data.len(),
        };
        let end = offset.checked_add(len).ok_or(truncated.clone())?;
        self.data.get(offset..end).ok_or(truncated)
    }

    fn u32(&self, what: &'static str, offset: usize) -> Result<u32, LdCacheError> {
        let raw = self.slice(what, offset, 4)?;
        let mut buf = [0u8; 4];
        buf.copy_from_slice(raw);
        Ok(match self.order {
            Order::Little => u32::from_le_bytes(buf),
            Order::Big => u32::from_be_bytes(buf),
        })
    }

    fn u64(&self, what: &'static str, offset: usize) -> Result<u64, LdCacheError> {
        let raw = self.slice(what, offset, 8)?;
        let mut buf = [0u8; 8];
        buf.copy_from_slice(raw);
        Ok(match self.order {
            Order::Little => u64::from_le_bytes(buf),
            Order::Big => u64::from_be_bytes(buf),
        })
    }
}

/// Reads the NUL-terminated string at `base + offset`; the string must lie in `data[base..]`.
fn read_string(
    data: &[u8],
    base: usize,
    offset: u32,
    index: usize,
    field: &'static str,
) -> Result<String, LdCacheError> {
    let area = data.get(base..).unwrap_or(&[]);
    let start = usize::try_from(offset).unwrap_or(usize::MAX);
    let tail = area.get(start..).ok_or(LdCacheError::StringOutOfBounds {
        index,
        field,
        offset,
        area_len: area.len(),
    })?;
    if tail.is_empty() {
        return Err(LdCacheError::StringOutOfBounds {
            index,
            field,
            offset,
            area_len: area.len(),
        });
    }
    let end = tail
        .iter()
        .position(|&b| b == 0)
        .ok_or(LdCacheError::UnterminatedString {
            index,
            field,
            offset,
        })?;
    let raw = tail.get(..end).unwrap_or(&[]);
    Ok(String::from_utf8_lossy(raw).into_owned())
}

/// Same as [`read_string`] but returns `None` on any problem (used where ldconfig tolerates it).
fn read_string_lenient(data: &[u8], base: usize, offset: u32) -> Option<String> {
    read_string(data, base, offset, 0, "hwcaps name").ok()
}

/// Parses the bytes of an `ld.so.cache` file.
pub fn parse_ld_so_cache(bytes: &[u8]) -> Result<LdCache, LdCacheError> {
    if bytes.starts_with(NEW_MAGIC) {
        return parse_new(bytes, 0, CacheFormat::New);
    }
    if bytes.starts_with(OLD_MAGIC) {
        return parse_old_or_compat(bytes);
    }
    let short = bytes.len() < NEW_MAGIC.len()
        && (NEW_MAGIC.starts_with(bytes) || OLD_MAGIC.starts_with(bytes))
        && !bytes.is_empty();
    if short || bytes.is_empty() {
        return Err(LdCacheError::Truncated {
            what: "cache magic",
            offset: 0,
            needed: OLD_MAGIC.len(),
            len: bytes.len(),
        });
    }
    Err(LdCacheError::BadMagic)
}

/// Parses an old-format file, switching to the embedded new cache when present.
fn parse_old_or_compat(bytes: &[u8]) -> Result<LdCache, LdCacheError> {
    // The old format has no endianness marker; it is written in host order. Use little
    // endian unless only big endian gives a plausible count.
    let room = bytes.len().saturating_sub(OLD_HEADER_LEN) / OLD_ENTRY_LEN;
    let le = Bytes {
        data: bytes,
        order: Order::Little,
    };
    let nlibs_le = le.u32("old cache header", 12)?;
    let order = if usize::try_from(nlibs_le).unwrap_or(usize::MAX) <= room {
        Order::Little
    } else {
        let be = Bytes {
            data: bytes,
            order: Order::Big,
        };
        let nlibs_be = be.u32("old cache header", 12)?;
        if usize::try_from(nlibs_be).unwrap_or(usize::MAX) <= room {
            Order::Big
        } else {
            return Err(LdCacheError::TooManyEntries {
                format: "old",
                nlibs: nlibs_le,
                room,
            });
        }
    };
    let reader = Bytes { data: bytes, order };
    let nlibs = reader.u32("old cache header", 12)?;
    let count = usize::try_from(nlibs).unwrap_or(usize::MAX);
    // count <= room, so this cannot overflow.
    let strings_start = OLD_HEADER_LEN + count * OLD_ENTRY_LEN;

    let new_start = strings_start.div_ceil(NEW_ALIGN) * NEW_ALIGN;
    let has_new = bytes
        .get(new_start..)
        .is_some_and(|rest| rest.len() > NEW_HEADER_LEN && rest.starts_with(NEW_MAGIC));
    if has_new {
        return parse_new(bytes, new_start, CacheFormat::Compat);
    }

    let mut entries = Vec::with_capacity(count);
    for index in 0..count {
        let at = OLD_HEADER_LEN + index * OLD_ENTRY_LEN;
        let flags = reader.u32("old cache entry", at)? as i32;
        let key = reader.u32("old cache entry", at + 4)?;
        let value = reader.u32("old cache entry", at + 8)?;
        let soname = read_string(bytes, strings_start, key, index, "soname")?;
        let path = read_string(bytes, strings_start, value, index, "path")?;
        entries.push(LdCacheEntry {
            soname,
            path,
            flags,
            arch: CacheArch::from_flags(flags),
            hwcap: 0,
            hwcaps_subdir: None,
        });
    }
    Ok(LdCache {
        format: CacheFormat::Old,
        entries,
        generator: None,
    })
}

/// Parses a new-format cache whose header starts at `start`.
fn parse_new(bytes: &[u8], start: usize, format: CacheFormat) -> Result<LdCache, LdCacheError> {
    // Header: magic+version (20), nlibs (4), len_strings (4), flags (1), padding (3),
    // extension_offset (4), unused (12).
    let header_end = start.saturating_add(NEW_HEADER_LEN);
    if header_end > bytes.len() {
        return Err(LdCacheError::Truncated {
            what: "new cache header",
            offset: start,
            needed: NEW_HEADER_LEN,
            len: bytes.len(),
        });
    }
    let flags_byte = bytes.get(start + 28).copied().unwrap_or(0);
    let room = (bytes.len() - header_end) / NEW_ENTRY_LEN;
    let order = match flags_byte & 3 {
        1 => return Err(LdCacheError::InvalidCache { flags: flags_byte }),
        2 => Order::Little,
        3 => Order::Big,
        _ => {
            // Written by an ldconfig without endianness support: guess from the count.
            let le = Bytes {
                data: bytes,
                order: Order::Little,
            };
            let n = le.u32("new cache header", start + 20)?;
            if usize::try_from(n).unwrap_or(usize::MAX) <= room {
                Order::Little
            } else {
                Order::Big
            }
        }
    };
    let reader = Bytes { data: bytes, order };
    let nlibs = reader.u32("new cache header", start + 20)?;
    let extension_offset = reader.u32("new cache header", start + 32)?;
    let count = usize::try_from(nlibs).unwrap_or(usize::MAX);
    if count > room {
        return Err(LdCacheError::TooManyEntries {
            format: "new",
            nlibs,
            room,
        });
    }

    let ext = load_extensions(&reader, extension_offset)?;

    let mut entries = Vec::with_capacity(count);
    for index in 0..count {
        let at = header_end + index * NEW_ENTRY_LEN;
        let flags = reader.u32("new cache entry", at)? as i32;
        let key = reader.u32("new cache entry", at + 4)?;
        let value = reader.u32("new cache entry", at + 8)?;
        let hwcap = reader.u64("new cache entry", at + 16)?;
        let soname = read_string(bytes, start, key, index, "soname")?;
        let path = read_string(bytes, start, value, index, "path")?;
        let hwcaps_subdir = if is_hwcap_extension(hwcap) {
            // The low 32 bits index the glibc-hwcaps array; truncation is the format.
            let slot = (hwcap & 0xffff_ffff) as usize;
            ext.hwcaps
                .get(slot)
                .and_then(|&name_offset| read_string_lenient(bytes, start, name_offset))
        } else {
            None
        };
        entries.push(LdCacheEntry {
            soname,
            path,
            flags,
            arch: CacheArch::from_flags(flags),
            hwcap,
            hwcaps_subdir,
        });
    }
    Ok(LdCache {
        format,
        entries,
        generator: ext.generator,
    })
}

/// What the extension directory contributes.
#[derive(Default)]
struct Extensions {
    /// String-table offsets of the glibc-hwcaps subdirectory names.
    hwcaps: Vec<u32>,
    /// Generator string.
    generator: Option<String>,
}

/// Reads the extension directory at `offset` (relative to the file start), following
/// glibc's `cache_extension_load` checks.
fn load_extensions(reader: &Bytes<'_>, offset: u32) -> Result<Extensions, LdCacheError> {
    let mut out = Extensions::default();
    if offset == 0 {
        return Ok(out);
    }
    let bad = |reason: &'static str| LdCacheError::BadExtension { offset, reason };
    if offset % 4 != 0 {
        return Err(bad("offset is not a multiple of 4"));
    }
    let base = usize::try_from(offset).map_err(|_| bad("offset does not fit in memory"))?;
    let magic = reader
        .u32("extension header", base)
        .map_err(|_| bad("header extends past the end of the file"))?;
    if magic != EXTENSION_MAGIC {
        return Err(bad("wrong magic"));
    }
    let count = reader
        .u32("extension header", base.saturating_add(4))
        .map_err(|_| bad("header extends past the end of the file"))?;
    let count = usize::try_from(count).unwrap_or(usize::MAX);
    let sections_start = base.saturating_add(EXTENSION_HEADER_LEN);
    let room = reader.data.len().saturating_sub(sections_start) / EXTENSION_SECTION_LEN;
    if count > room {
        return Err(bad("section array extends past the end of the file"));
    }
    for i in 0..count {
        let at = sections_start + i * EXTENSION_SECTION_LEN;
        let tag = reader.u32("extension section", at)?;
        let sec_offset = reader.u32("extension section", at + 8)?;
        let sec_size = reader.u32("extension section", at + 12)?;
        let sec_start = usize::try_from(sec_offset).unwrap_or(usize::MAX);
        let sec_len = usize::try_from(sec_size).unwrap_or(usize::MAX);
        let data = reader
            .slice("extension section data", sec_start, sec_len)
            .map_err(|_| bad("section data extends past the end of the file"))?;
        match tag {
            TAG_GENERATOR => {
                out.generator = Some(String::from_utf8_lossy(data).into_owned());
            }
            TAG_GLIBC_HWCAPS => {
                // glibc ignores (does not reject) a misaligned or odd-sized section.
                if sec_len == 0 || sec_start % 4 != 0 || sec_len % 4 != 0 {
                    out.hwcaps.clear();
                    continue;
                }
                let mut names = Vec::with_capacity(sec_len / 4);
                for j in 0..sec_len / 4 {
                    names.push(reader.u32("glibc-hwcaps section", sec_start + j * 4)?);
                }
                out.hwcaps = names;
            }
            _ => {}
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_descriptions_match_ldconfig() {
        assert_eq!(flags_description(0x0303), "libc6,x86-64");
        assert_eq!(flags_description(0x0003), "libc6");
        assert_eq!(flags_description(0x0001), "ELF");
        assert_eq!(flags_description(0x0803), "libc6,x32");
        assert_eq!(flags_description(0x0a03), "libc6,AArch64");
        assert_eq!(flags_description(0x1103), "libc6,4352");
        assert_eq!(flags_description(0x0007), "unknown or unsupported flag");
    }

    #[test]
    fn arch_round_trips_through_flags() {
        for arch in [
            CacheArch::X86_64,
            CacheArch::I386,
            CacheArch::X32,
            CacheArch::Aarch64,
            CacheArch::ArmHardFloat,
            CacheArch::Ppc64,
            CacheArch::Other(0x1003),
        ] {
            assert_eq!(CacheArch::from_flags(arch.flags()), arch);
        }
        assert!(CacheArch::I386.accepts(1));
        assert!(!CacheArch::X86_64.accepts(1));
    }

    #[test]
    fn hwcap_extension_bit() {
        assert!(is_hwcap_extension(HWCAP_EXTENSION_BIT | 3));
        assert!(is_hwcap_extension(HWCAP_EXTENSION_BIT | (3 << 32) | 1));
        assert!(!is_hwcap_extension(0));
        assert!(!is_hwcap_extension(HWCAP_EXTENSION_BIT | (1 << 63)));
    }
}
