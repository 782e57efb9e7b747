//! Real parts: gpuenv on this machine's real root, with Debian's real NVIDIA userspace driver
//! (`libcuda1`, `libnvidia-ml1`, `nvidia-smi` from non-free, installed by `.ci/install-system-packages`).
//! On a machine with the userspace driver but no kernel module (CI: no GPU) gpuenv must read the
//! real version from the real files, say `kernel-module-not-loaded`, and handle NVML's real answer
//! (`nvmlInit_v2` = 9 "Driver Not Loaded") and the driver API's (`cuDriverGetVersion` still answers).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
mod support;

use std::process::Command;

use support::{dpkg_upstream_version, finding_ids};

fn doctor_json(nvml: bool) -> (i32, serde_json::Value) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_gpuenv"));
    cmd.args(["doctor", "--format", "json"])
        .env_remove("GPUENV_DRIVER_VERSION")
        .env_remove("UV_CUDA_DRIVER_VERSION");
    if nvml {
        cmd.env_remove("GPUENV_NO_NVML");
    } else {
        cmd.env("GPUENV_NO_NVML", "1");
    }
    let out = cmd.output().expect("gpuenv runs");
    let json = serde_json::from_slice(&out.stdout).expect("JSON report");
    (out.status.code().unwrap_or(-1), json)
}

#[test]
fn real_debian_driver_is_read_from_the_real_files() {
    let Some(expected) = dpkg_upstream_version("libcuda1") else {
        eprintln!("SKIPPED: Debian's libcuda1 is not installed here (.ci/install-system-packages installs it)");
        return;
    };
    for nvml in [true, false] {
        let (status, report) = doctor_json(nvml);
        let driver = &report["facts"]["driver"];
        assert_eq!(
            driver["userspace_version"]["value"],
            expected.as_str(),
            "nvml={nvml}: {driver:#}"
        );
        let libcuda = driver["userspace"]
            .as_array()
            .unwrap()
            .iter()
            .find(|l| l["soname"] == "libcuda.so.1" && l["selected"] == true)
            .expect("the loader's libcuda.so.1 is reported");
        let real = libcuda["real_path"].as_str().unwrap();
        assert!(
            real.ends_with(&format!("/libcuda.so.{expected}")),
            "Debian's alternatives chain leads to the versioned file: {real}"
        );
        if Path::new("/proc/driver/nvidia/version").exists() {
            eprintln!("note: a kernel module is loaded here; checking the loaded-module case");
            assert!(!finding_ids(&report).contains(&"kernel-module-not-loaded".to_string()));
            continue;
        }
        assert_eq!(status, 1, "an error finding sets exit status 1");
        assert!(
            finding_ids(&report).contains(&"kernel-module-not-loaded".to_string()),
            "{:#}",
            report["findings"]
        );
        assert!(driver["kernel_module"].is_null());
        if nvml {
            let init_error = driver["nvml"]["init_error"]
                .as_str()
                .expect("NVML loaded and nvmlInit_v2 failed");
            assert!(
                init_error.starts_with("9 "),
                "real NVML says 9 Driver Not Loaded: {init_error}"
            );
            let nvml_version = driver["nvml"]["nvml_version"].as_str().unwrap();
            assert!(
                nvml_version.ends_with(&expected),
                "nvmlSystemGetNVMLVersion answers without a module: {nvml_version}"
            );
            // cuDriverGetVersion answers from the userspace library alone: 535 -> CUDA 12.2.
            let major_branch: u32 = expected.split('.').next().unwrap().parse().unwrap();
            if major_branch == 535 {
                assert_eq!(driver["cuda_driver_version"]["value"], "12.2");
                assert_eq!(
                    driver["cuda_driver_version"]["source"]["kind"],
                    "driver-api"
                );
            }
        } else {
            assert!(driver["nvml"].is_null(), "GPUENV_NO_NVML=1 loads nothing");
        }
    }
}

#[test]
fn real_root_human_output_names_the_problem() {
    if dpkg_upstream_version("libcuda1").is_none()
        || Path::new("/proc/driver/nvidia/version").exists()
    {
        eprintln!("SKIPPED: needs Debian's libcuda1 and no loaded kernel module (the CI machine)");
        return;
    }
    let out = Command::new(env!("CARGO_BIN_EXE_gpuenv"))
        .args(["doctor", "--color", "never"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("[kernel-module-not-loaded]"), "{text}");
    assert!(text.contains("no kernel module loaded"), "{text}");
    assert!(
        !text.contains("\x1b["),
        "no colour when stdout is not a terminal"
    );
}
