//! Fuzz target: `parse_ld_so_cache` must never panic, whatever the bytes.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(cache) = gpuenv_elf::parse_ld_so_cache(data) {
        // Each entry costs at least 12 bytes of table in the file.
        assert!(cache.entries.len() <= data.len() / 12);
        for entry in &cache.entries {
            let _ = entry.ldconfig_line();
        }
        let _ = cache
            .lookup("libcuda.so.1", gpuenv_elf::CacheArch::X86_64)
            .count();
    }
});
