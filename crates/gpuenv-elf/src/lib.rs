//! ELF and ld.so.cache readers that work on byte slices and never touch the file system.
//!
//! Callers read or mmap files themselves and pass the bytes in:
//!
//! * [`ld_cache`]: glibc's `/etc/ld.so.cache` (old, new and compat formats, glibc-hwcaps);
//! * [`elf`]: SONAME, NEEDED, RPATH/RUNPATH, `DT_FLAGS_1`, interpreter, build id, sections;
//! * [`fatbin`]: the CUDA fatbin headers (`.nv_fatbin`, `__nv_relfatbin`): which SASS and PTX
//!   targets a binary carries, payloads skipped;
//! * [`version`]: version suffixes of library file names.
//!
//! Every parser bounds-checks its input: malformed or hostile bytes give an error, never a
//! panic or an endless loop.

pub mod elf;
pub mod fatbin;
pub mod ld_cache;
pub mod version;

pub use elf::{
    is_elf, machine_name, read_elf_info, section_range, ElfClass, ElfError, ElfInfo, ElfKind,
    Endian,
};
pub use fatbin::{
    parse_fatbin_blob, read_fatbin, ArchVariant, Compression, EntryKind, Fatbin, FatbinEntry,
    FatbinError, FatbinSection, FatbinSummary, PtxIsa, TargetCount,
};
pub use ld_cache::{
    flags_description, parse_ld_so_cache, CacheArch, CacheFormat, LdCache, LdCacheEntry,
    LdCacheError,
};
pub use version::soname_version;
