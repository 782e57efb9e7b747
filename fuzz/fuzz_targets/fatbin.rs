//! Fuzz target: `gpuenv_elf::parse_fatbin_blob` on raw fatbin bytes (a `.nv_fatbin` section's
//! content) and `read_fatbin` on the same bytes as an ELF file, plus `Fatbin::summary`. A walk
//! that succeeds must describe only entries that lie inside the input.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(fatbin) = gpuenv_elf::parse_fatbin_blob(data) {
        for e in &fatbin.entries {
            let end = e
                .offset
                .saturating_add(u64::from(e.header_size))
                .saturating_add(e.payload_size);
            assert!(end <= data.len() as u64);
        }
        let _ = fatbin.summary();
    }
    if let Ok(Some(fatbin)) = gpuenv_elf::read_fatbin(data) {
        let _ = fatbin.summary();
    }
});
