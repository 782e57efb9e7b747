//! Hostile fatbins: random mutations of a real CUDA 13 fatbin (proptest, stable Rust) and
//! hand-made lying headers. The reader may return errors but never panics, never reports an entry
//! that lies outside the input, and never loops (every step moves forward). The coverage-guided
//! equivalent is the `fatbin` target in `fuzz/`.

use std::path::Path;

use gpuenv_elf::{parse_fatbin_blob, read_fatbin, section_range, Fatbin};
use proptest::collection::vec;
use proptest::prelude::*;

fn real_elf() -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/cuda13-variants.so");
    std::fs::read(&path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()))
}

fn real_blob() -> Vec<u8> {
    let elf = real_elf();
    let (offset, size) = section_range(&elf, ".nv_fatbin")
        .expect("ELF")
        .expect(".nv_fatbin");
    elf[offset as usize..(offset + size) as usize].to_vec()
}

/// What a successful walk may claim about `len` bytes of input.
fn check(fatbin: &Fatbin, len: usize) {
    assert!(fatbin.entries.len() <= len / 64 + 1);
    for e in &fatbin.entries {
        let end = e
            .offset
            .checked_add(u64::from(e.header_size))
            .and_then(|x| x.checked_add(e.payload_size))
            .expect("no overflow");
        assert!(
            end <= len as u64,
            "entry ends at {end}, input is {len} bytes"
        );
        assert!(e.header_size >= 64);
    }
}

fn header(payload: u64) -> Vec<u8> {
    let mut h = Vec::new();
    h.extend_from_slice(&0xBA55_ED50u32.to_le_bytes());
    h.extend_from_slice(&1u16.to_le_bytes());
    h.extend_from_slice(&16u16.to_le_bytes());
    h.extend_from_slice(&payload.to_le_bytes());
    h
}

fn entry(header_size: u32, payload: u64) -> Vec<u8> {
    let mut e = vec![0u8; 64];
    e[0..2].copy_from_slice(&2u16.to_le_bytes());
    e[4..8].copy_from_slice(&header_size.to_le_bytes());
    e[8..16].copy_from_slice(&payload.to_le_bytes());
    e[28..32].copy_from_slice(&86u32.to_le_bytes());
    e
}

#[test]
fn real_blob_walks() {
    let blob = real_blob();
    let fatbin = parse_fatbin_blob(&blob).expect("real fatbin");
    assert_eq!(fatbin.entries.len(), 8);
    check(&fatbin, blob.len());
}

#[test]
fn lying_sizes_are_errors() {
    // A container claiming more bytes than there are.
    assert!(parse_fatbin_blob(&header(1 << 40)).is_err());
    assert!(parse_fatbin_blob(&header(u64::MAX)).is_err());
    // An entry whose payload runs past its container, and one whose size overflows.
    for payload in [1u64, 1 << 33, u64::MAX, u64::MAX - 63] {
        let mut blob = header(64);
        blob.extend(entry(64, payload));
        assert!(parse_fatbin_blob(&blob).is_err(), "payload {payload}");
    }
    // A header size below 64, and one past the container.
    for hs in [0u32, 1, 63, 65, u32::MAX] {
        let mut blob = header(64);
        blob.extend(entry(hs, 0));
        assert!(parse_fatbin_blob(&blob).is_err(), "header size {hs}");
    }
    // Half an entry header.
    let mut blob = header(32);
    blob.extend(&entry(64, 0)[..32]);
    assert!(parse_fatbin_blob(&blob).is_err());
}

#[test]
fn zero_sizes_are_bounded() {
    // Zero-size entries: 64-byte headers with empty payloads, each counted once.
    let mut body = Vec::new();
    for _ in 0..100 {
        body.extend(entry(64, 0));
    }
    let mut blob = header(body.len() as u64);
    blob.extend(body);
    let fatbin = parse_fatbin_blob(&blob).expect("valid");
    assert_eq!(fatbin.entries.len(), 100);
    // Many empty containers: bounded by the input (16 bytes each).
    let mut blob = Vec::new();
    for _ in 0..10_000 {
        blob.extend(header(0));
    }
    let fatbin = parse_fatbin_blob(&blob).expect("valid");
    assert_eq!((fatbin.containers, fatbin.entries.len()), (10_000, 0));
    // Zero padding alone is no container at all.
    assert_eq!(
        parse_fatbin_blob(&vec![0; 4096])
            .expect("padding")
            .containers,
        0
    );
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
    fn mutated_blob_never_panics(
        edits in vec((any::<usize>(), any::<u64>(), 0u8..4), 1..8),
        cut in any::<usize>(),
    ) {
        let mut blob = real_blob();
        for (at, value, width) in edits {
            // Bias towards the headers at the start, where the sizes are.
            let at = if value % 2 == 0 { at % 256.min(blob.len()) } else { at % blob.len() };
            let bytes = value.to_le_bytes();
            let n = [1usize, 2, 4, 8][width as usize];
            for (k, b) in bytes.iter().take(n).enumerate() {
                if let Some(slot) = blob.get_mut(at + k) {
                    *slot = *b;
                }
            }
        }
        if cut % 3 == 0 {
            let keep = cut % (blob.len() + 1);
            blob.truncate(keep);
        }
        if let Ok(fatbin) = parse_fatbin_blob(&blob) {
            check(&fatbin, blob.len());
            let _ = fatbin.summary();
        }
    }

    #[test]
    fn mutated_elf_never_panics(
        edits in vec((any::<usize>(), any::<u8>()), 1..16),
    ) {
        let mut elf = real_elf();
        let len = elf.len();
        for (at, b) in edits {
            elf[at % len] = b;
        }
        if let Ok(Some(fatbin)) = read_fatbin(&elf) {
            check(&fatbin, elf.len());
        }
    }

    #[test]
    fn random_bytes_never_panic(data in vec(any::<u8>(), 0..1024)) {
        if let Ok(fatbin) = parse_fatbin_blob(&data) {
            check(&fatbin, data.len());
        }
        let _ = read_fatbin(&data);
    }
}
