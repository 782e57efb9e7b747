//! L1 checks: the kernel module, the userspace libraries and their agreement; WSL's driver.

use gpuenv_facts::Source;

use crate::context::{Context, Family};
use crate::finding::{
    Finding, Severity, DRIVER_MISSING, DRIVER_USERSPACE_MISMATCH, KERNEL_MODULE_NOT_LOADED,
    WSL_LINUX_DRIVER,
};

/// `kernel-module-not-loaded`: the userspace driver is installed but no NVIDIA kernel module is
/// loaded; nvidia-smi then says it "couldn't communicate with the NVIDIA driver". The evidence
/// names which usual cause the facts support: no GPU at all, no module built for this kernel
/// (DKMS after a kernel upgrade), Secure Boot, nouveau.
pub fn kernel_module_not_loaded(cx: &Context, out: &mut Vec<Finding>) {
    let f = cx.facts;
    if f.driver.kernel_module.is_some() || f.os.wsl.is_some() || !cx.userspace_installed() {
        return;
    }
    let mut finding = Finding::new(
        &KERNEL_MODULE_NOT_LOADED,
        Severity::Error,
        "the NVIDIA userspace driver is installed but no NVIDIA kernel module is loaded",
    );
    if let Some(v) = &f.driver.userspace_version {
        finding = finding.evidence(format!("userspace driver {} ({})", v.value, v.source));
    }
    finding = finding.evidence(
        "no loaded module: /proc/driver/nvidia/version and /sys/module/nvidia/version are absent; \
         nvidia-smi would fail with \"couldn't communicate with the NVIDIA driver\"",
    );
    if let Some(n) = &f.driver.nvml {
        if let Some(e) = &n.init_error {
            finding = finding.evidence(format!("NVML: nvmlInit_v2 returned {e}"));
        }
    }
    let kernel =
        f.os.kernel_release
            .as_ref()
            .map(|k| k.value.as_str())
            .unwrap_or("the running kernel");
    let mut fix = Vec::new();
    if f.gpus.devices.is_empty() {
        finding = finding.evidence(
            "no NVIDIA GPU is on the PCI bus (/sys/bus/pci/devices): the module has nothing to drive \
             (a VM without GPU passthrough, or a machine without a GPU)",
        );
        fix.push(
            "Attach or pass through an NVIDIA GPU; without one the driver cannot load.".to_string(),
        );
    }
    if let Some(runtime) = f.os.container.as_ref().map(|c| c.value.as_str()) {
        finding = finding.evidence(format!(
            "this is a {runtime} container: the kernel module is the host's, so the host has none loaded \
             or the container does not see /proc/driver/nvidia"
        ));
        fix.push("On the host: load the NVIDIA driver (sudo modprobe nvidia) and start the container with --gpus all.".into());
    } else if f.os.nvidia_module_files.is_empty() {
        finding = finding.evidence(format!(
            "no nvidia.ko is installed for kernel {kernel} (/lib/modules/{kernel}/): the DKMS build is missing, \
             often after a kernel upgrade"
        ));
        // Without a GPU, building the module would not help: the fix above comes first.
        if !f.gpus.devices.is_empty() {
            // Ubuntu names the DKMS package after the branch (nvidia-dkms-535); Debian has one.
            let dkms_package = match (cx.family(), &f.driver.userspace_version) {
                (Family::Ubuntu, Some(v)) => format!("nvidia-dkms-{}", v.value.major()),
                _ => "nvidia-kernel-dkms".to_string(),
            };
            fix.push(format!(
                "sudo apt install linux-headers-{kernel} {dkms_package}   # or your distribution's equivalent\n\
                 sudo dkms autoinstall"
            ));
        }
    } else {
        for m in &f.os.nvidia_module_files {
            let v = m
                .version
                .as_ref()
                .map(|v| format!(" (version {v})"))
                .unwrap_or_default();
            finding = finding.evidence(format!(
                "module file {}{v} exists but is not loaded",
                m.path
            ));
        }
    }
    if f.os.secure_boot.as_ref().is_some_and(|s| s.value) {
        let unsigned =
            f.os.nvidia_module_files
                .iter()
                .any(|m| m.signed == Some(false));
        let all_signed = !f.os.nvidia_module_files.is_empty()
            && f.os
                .nvidia_module_files
                .iter()
                .all(|m| m.signed == Some(true));
        finding = finding.evidence(if unsigned {
            "Secure Boot is enabled and the module file is unsigned: the kernel refuses it (see secure-boot-blocks-module)"
        } else if all_signed {
            "Secure Boot is enabled; the module file is signed, so it loads only if its key is enrolled (mokutil --list-enrolled)"
        } else {
            "Secure Boot is enabled: a module not signed with an enrolled key is refused"
        });
    }
    // A GPU the installed branch does not support makes the module refuse to load.
    if let Some((driver, _)) = cx.driver() {
        for gpu in cx.gpus() {
            let Some(row) = gpu.cc.and_then(|cc| cx.kb.cc(cc)) else {
                continue;
            };
            let dropped = row
                .last_driver_branch
                .is_some_and(|last| driver.major() > last);
            let too_new = row
                .first_cuda
                .and_then(|c| cx.kb.first_branch_for_cuda(c))
                .is_some_and(|b| driver.major() < b.branch);
            if !row.tegra && (dropped || too_new) {
                finding = finding.evidence(format!(
                    "{} ({}) is not supported by driver branch R{}: the module refuses to load for it (see gpu-dropped-by-driver)",
                    gpu.label,
                    row.architecture,
                    driver.major()
                ));
            }
        }
    }
    if f.os.nouveau.loaded.as_ref().is_some_and(|l| l.value) {
        finding = finding.evidence("nouveau is loaded (see nouveau-loaded)");
    }
    if f.os.container.is_none() {
        fix.push(
            "sudo modprobe nvidia && sudo dmesg | grep -i nvidia   # load it and read why it fails"
                .into(),
        );
    }
    out.push(finding.fix(fix.join("\n")));
}

/// `driver-missing`: an NVIDIA GPU is on the PCI bus and no driver is installed or loaded.
pub fn driver_missing(cx: &Context, out: &mut Vec<Finding>) {
    let f = cx.facts;
    if f.gpus.devices.is_empty()
        || cx.userspace_installed()
        || f.driver.kernel_module.is_some()
        || f.os.wsl.is_some()
        || f.driver
            .userspace_version
            .as_ref()
            .is_some_and(|v| matches!(v.source, Source::Override(_)))
    {
        return;
    }
    let mut finding = Finding::new(
        &DRIVER_MISSING,
        Severity::Error,
        "an NVIDIA GPU is present but no NVIDIA driver is installed",
    );
    let mut legacy = None;
    for g in &f.gpus.devices {
        let name = g
            .name
            .as_ref()
            .map(|n| n.value.as_str())
            .unwrap_or("NVIDIA GPU");
        finding = finding.evidence(format!(
            "{name} at {} (PCI id 10de:{:04x})",
            g.pci_address, g.device_id
        ));
        if let Some(b) = &g.legacy_branch {
            legacy = b.split('.').next().and_then(|b| b.parse::<u32>().ok());
        }
    }
    finding = finding.evidence(
        "no libcuda.so.1 or libnvidia-ml.so.1 in ld.so.cache or the default library directories",
    );
    out.push(finding.fix(cx.install_driver_command(legacy)));
}

/// `driver-userspace-mismatch`: the kernel module and the userspace libraries differ; NVML then
/// fails with "Driver/library version mismatch" and CUDA with error 803.
pub fn driver_userspace_mismatch(cx: &Context, out: &mut Vec<Finding>) {
    let f = cx.facts;
    let (Some(module), Some(user)) = (&f.driver.kernel_module, &f.driver.userspace_version) else {
        return;
    };
    if matches!(user.source, Source::Override(_)) || module.version.value == user.value {
        return;
    }
    out.push(
        Finding::new(
            &DRIVER_USERSPACE_MISMATCH,
            Severity::Error,
            format!(
                "kernel module {} and userspace driver {} differ: \"Failed to initialize NVML: Driver/library version mismatch\"",
                module.version.value, user.value
            ),
        )
        .evidence(format!("kernel module {} ({})", module.version.value, module.version.source))
        .evidence(format!("userspace libraries {} ({})", user.value, user.source))
        .evidence("usually the driver packages were upgraded and the old module is still loaded")
        .fix(format!(
            "sudo reboot   # loads the module that matches the new libraries\n\
             to stop it recurring, upgrade the driver only deliberately: {}",
            cx.hold_driver_command()
        )),
    );
}

/// `wsl-linux-driver`: inside WSL2 the Windows driver provides `/usr/lib/wsl/lib/libcuda.so.1`;
/// a Linux driver's `libcuda.so.<version>` installed in the distribution shadows it and cannot work.
pub fn wsl_linux_driver(cx: &Context, out: &mut Vec<Finding>) {
    let f = cx.facts;
    if f.os.wsl.is_none() {
        return;
    }
    let linux: Vec<_> = f
        .driver
        .userspace
        .iter()
        .filter(|l| !l.wsl && l.soname == "libcuda.so.1" && l.real_path.is_some())
        .collect();
    if linux.is_empty() {
        return;
    }
    let mut finding = Finding::new(
        &WSL_LINUX_DRIVER,
        Severity::Error,
        "a Linux NVIDIA driver is installed inside WSL2 and shadows the Windows driver's libcuda",
    );
    for l in &linux {
        let picked = if l.selected {
            ", and the loader picks it"
        } else {
            ""
        };
        finding = finding.evidence(format!(
            "{} -> {} (reached via {}{picked})",
            l.path,
            l.real_path.as_deref().unwrap_or("?"),
            l.found_via.join(", ")
        ));
    }
    if let Some(w) =
        f.os.wsl
            .as_ref()
            .and_then(|w| w.value.windows_libcuda.as_ref())
    {
        finding = finding.evidence(format!(
            "the Windows driver's {w} is the one that works in WSL2"
        ));
    }
    out.push(finding.fix(
        "Never install a Linux NVIDIA driver inside WSL2; remove it and keep only the Windows driver:\n\
         sudo apt remove --purge 'nvidia-driver*' 'libnvidia-*' libcuda1 && sudo ldconfig",
    ));
}
