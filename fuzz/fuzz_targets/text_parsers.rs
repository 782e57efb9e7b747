//! Fuzz target: every text parser the probes use (/proc files, os-release, CUDA version files,
//! cuDNN headers, modprobe.d, kernel command line, GPU information) on arbitrary input.
#![no_main]

use gpuenv_probe::parse;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let _ = parse::proc_driver_version(&text);
    let _ = parse::bare_version(&text);
    let _ = parse::os_release(&text);
    let _ = parse::version_json(&text);
    let _ = parse::version_txt(&text);
    let _ = parse::cuda_h_version(&text);
    let _ = parse::cudnn_header_version(&text);
    let _ = parse::modprobe_blacklists(&text, "nouveau");
    let _ = parse::cmdline_blacklists(&text, "nouveau");
    let _ = parse::proc_modules(&text);
    let _ = parse::proc_gpu_information(&text);
    let _ = parse::sysfs_hex(&text);
    let _ = parse::modinfo_version(data);
    let _ = parse::so_version(&text, "libcudnn");
    let _ = parse::user_spec(&text);
});
