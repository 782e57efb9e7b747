//! Fuzz target: `read_elf_info` and `section_range` must never panic, whatever the bytes.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = gpuenv_elf::is_elf(data);
    if let Ok(info) = gpuenv_elf::read_elf_info(data) {
        let _ = info.cache_arch();
    }
    if let Ok(Some((offset, size))) = gpuenv_elf::section_range(data, ".nv_fatbin") {
        assert!(size == 0 || offset.saturating_add(size) <= data.len() as u64);
    }
});
