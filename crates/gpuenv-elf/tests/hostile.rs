//! Stable-Rust fuzzing: random and mutated bytes thrown at both parsers for a bounded number
//! of cases. Neither parser may panic; results are otherwise unchecked (except that a parse
//! that succeeds must describe only data that lies in the input).
//!
//! The coverage-guided equivalent lives in `fuzz/` at the repository root (cargo-fuzz).

use std::path::Path;

use gpuenv_elf::{parse_ld_so_cache, read_elf_info, section_range};
use proptest::collection::vec;
use proptest::prelude::*;

fn fixture(name: &str) -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()))
}

/// A mutation: overwrite bytes, write a 32/64-bit value (offsets and counts are the
/// interesting targets), or cut the input.
#[derive(Debug, Clone)]
enum Mutation {
    Byte(usize, u8),
    Word32(usize, u32),
    Word64(usize, u64),
    Truncate(usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let interesting32 = prop_oneof![
        Just(0u32),
        Just(1),
        Just(0x7fff_ffff),
        Just(u32::MAX),
        Just(0x8000_0000),
        any::<u32>(),
    ];
    let interesting64 = prop_oneof![
        Just(0u64),
        Just(u64::MAX),
        Just(1 << 62),
        Just(0x7fff_ffff_ffff_ffff),
        any::<u64>(),
    ];
    prop_oneof![
        (any::<usize>(), any::<u8>()).prop_map(|(at, b)| Mutation::Byte(at, b)),
        (any::<usize>(), interesting32).prop_map(|(at, v)| Mutation::Word32(at, v)),
        (any::<usize>(), interesting64).prop_map(|(at, v)| Mutation::Word64(at, v)),
        any::<usize>().prop_map(Mutation::Truncate),
    ]
}

/// Applies mutations; offsets are taken modulo the length. `hot` biases offsets towards the
/// first `hot` bytes (headers) half of the time.
fn apply(mut bytes: Vec<u8>, mutations: &[Mutation], hot: usize) -> Vec<u8> {
    for (i, m) in mutations.iter().enumerate() {
        if bytes.is_empty() {
            break;
        }
        let len = bytes.len();
        let pick = |at: usize| {
            if i % 2 == 0 {
                at % hot.min(len)
            } else {
                at % len
            }
        };
        match *m {
            Mutation::Byte(at, b) => {
                let at = pick(at);
                bytes[at] = b;
            }
            Mutation::Word32(at, v) => {
                let at = pick(at);
                for (k, b) in v.to_le_bytes().iter().enumerate() {
                    if let Some(slot) = bytes.get_mut(at + k) {
                        *slot = *b;
                    }
                }
            }
            Mutation::Word64(at, v) => {
                let at = pick(at);
                for (k, b) in v.to_le_bytes().iter().enumerate() {
                    if let Some(slot) = bytes.get_mut(at + k) {
                        *slot = *b;
                    }
                }
            }
            Mutation::Truncate(at) => {
                bytes.truncate(at % (len + 1));
            }
        }
    }
    bytes
}

fn check_cache(bytes: &[u8]) {
    if let Ok(cache) = parse_ld_so_cache(bytes) {
        // Each entry costs at least 12 bytes of table in the file.
        assert!(cache.entries.len() <= bytes.len() / 12);
    }
}

fn check_elf(bytes: &[u8]) {
    let _ = read_elf_info(bytes);
    if let Ok(Some((offset, size))) = section_range(bytes, ".nv_fatbin") {
        assert!(offset.saturating_add(size) <= bytes.len() as u64 || size == 0);
    }
}

/// Cases per property: 400 by default, `PROPTEST_CASES` overrides.
fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(400)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    #[test]
    fn random_bytes_never_panic(data in vec(any::<u8>(), 0..512)) {
        check_cache(&data);
        check_elf(&data);
    }

    #[test]
    fn random_bytes_with_valid_magic_never_panic(
        data in vec(any::<u8>(), 0..512),
        which in 0u8..4,
    ) {
        let magic: &[u8] = match which {
            0 => b"glibc-ld.so.cache1.1",
            1 => b"ld.so-1.7.0",
            2 => b"\x7fELF\x02\x01\x01",
            _ => b"\x7fELF\x01\x02\x01",
        };
        let mut bytes = magic.to_vec();
        bytes.extend_from_slice(&data);
        check_cache(&bytes);
        check_elf(&bytes);
    }

    #[test]
    fn mutated_ld_caches_never_panic(
        which in 0usize..4,
        mutations in vec(mutation(), 1..6),
    ) {
        let name = [
            "ld.so.cache.synthetic-new",
            "ld.so.cache.synthetic-compat",
            "ld.so.cache.synthetic-old",
            "ld.so.cache.debian12",
        ][which];
        let bytes = apply(fixture(name), &mutations, 64);
        check_cache(&bytes);
    }

    #[test]
    fn mutated_elf_files_never_panic(
        which in 0usize..2,
        mutations in vec(mutation(), 1..6),
    ) {
        let name = ["libtiny.so", "libtiny32.so"][which];
        let bytes = apply(fixture(name), &mutations, 512);
        check_elf(&bytes);
    }
}
