//! Real parts: Debian's real CUDA toolkit (`nvidia-cuda-toolkit` 11.8 from non-free, installed by
//! `.ci/install-system-packages`). Its layout is not NVIDIA's: no `version.json`, a wrapper-script
//! `/usr/bin/nvcc`, libraries with full versions in the multiarch directory, and a
//! `stubs/libcuda.so` that is not a driver. gpuenv must read the version without running nvcc.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::process::Command;

use support::dpkg_upstream_version;

#[test]
fn real_debian_cuda_toolkit_is_found_and_versioned_without_running_nvcc() {
    let Some(expected) = dpkg_upstream_version("nvidia-cuda-toolkit") else {
        eprintln!("SKIPPED: Debian's nvidia-cuda-toolkit is not installed here (.ci/install-system-packages installs it)");
        return;
    };
    let out = Command::new(env!("CARGO_BIN_EXE_gpuenv"))
        .args(["doctor", "--format", "json"])
        .env("PATH", "/usr/local/bin:/usr/bin:/bin")
        .env("GPUENV_NO_NVML", "1")
        .output()
        .unwrap();
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let cuda = &report["facts"]["cuda"];
    let toolkit = cuda["toolkits"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["layout"] == "debian")
        .unwrap_or_else(|| panic!("Debian's toolkit is found: {cuda:#}"));
    assert_eq!(toolkit["root"], "/usr");
    assert_eq!(
        toolkit["version"]["value"],
        expected.as_str(),
        "{toolkit:#}"
    );
    let via: Vec<&str> = toolkit["found_via"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert!(
        via.contains(&"nvcc on PATH"),
        "the /usr/bin/nvcc wrapper leads to it: {via:?}"
    );
    assert_eq!(cuda["nvcc_on_path"]["toolkit_root"], "/usr");
    let runtime = cuda["runtimes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["soname"] == "libcudart.so.11.0")
        .expect("the system libcudart.so.11.0 is listed");
    assert_eq!(runtime["version"], expected.as_str());
    // The toolkit's stubs/libcuda.so is not a driver.
    for lib in report["facts"]["driver"]["userspace"].as_array().unwrap() {
        assert!(
            !lib["path"].as_str().unwrap().contains("/stubs/"),
            "{lib:#}"
        );
    }
    // An 11.8 toolkit is within any 520+ driver's reach; the note explains the two numbers.
    let ids: Vec<&str> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["id"].as_str().unwrap())
        .collect();
    assert!(!ids.contains(&"driver-too-old-for-cuda"), "{ids:?}");
    assert!(!ids.contains(&"cuda-link-mismatch"), "{ids:?}");
}
