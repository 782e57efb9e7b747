//! L0 checks: nouveau, Secure Boot, device nodes.

use gpuenv_facts::DeviceNode;

use crate::context::{Context, Family};
use crate::finding::{Finding, Severity, DEVICE_NODES, NOUVEAU_LOADED, SECURE_BOOT_BLOCKS_MODULE};

/// `nouveau-loaded`: nouveau is loaded (or bound to a GPU) while an NVIDIA driver is installed or
/// wanted (userspace libraries, module files or a CUDA toolkit present). Both cannot hold the GPU.
pub fn nouveau_loaded(cx: &Context, out: &mut Vec<Finding>) {
    let f = cx.facts;
    let loaded = f.os.nouveau.loaded.as_ref().filter(|l| l.value);
    let bound: Vec<&str> = f
        .gpus
        .devices
        .iter()
        .filter(|g| {
            g.bound_driver
                .as_ref()
                .is_some_and(|b| b.value == "nouveau")
        })
        .map(|g| g.pci_address.as_str())
        .collect();
    if loaded.is_none() && bound.is_empty() {
        return;
    }
    let wanted = cx.userspace_installed()
        || !f.os.nvidia_module_files.is_empty()
        || !f.cuda.toolkits.is_empty();
    if !wanted {
        return;
    }
    let mut finding = Finding::new(
        &NOUVEAU_LOADED,
        Severity::Error,
        "nouveau holds the GPU: the NVIDIA kernel module cannot load while it does",
    );
    if let Some(l) = loaded {
        finding = finding.evidence(format!("nouveau is loaded ({})", l.source));
    }
    for addr in bound {
        finding = finding.evidence(format!(
            "GPU {addr} is bound to nouveau (/sys/bus/pci/devices/{addr}/driver)"
        ));
    }
    if cx.userspace_installed() {
        finding = finding.evidence("the NVIDIA userspace driver is installed");
    }
    if f.os.nouveau.blacklisted_in.is_empty() {
        finding = finding.evidence(
            "nouveau is not blacklisted in any modprobe.d file or on the kernel command line",
        );
    } else {
        finding = finding.evidence(format!(
            "nouveau is blacklisted in {} but still loaded: the initramfs was not rebuilt, or no reboot since",
            f.os.nouveau.blacklisted_in.join(", ")
        ));
    }
    let rebuild = match cx.family() {
        Family::Rhel => "sudo dracut --force",
        Family::Suse => "sudo mkinitrd",
        Family::Arch => "sudo mkinitcpio -P",
        _ => "sudo update-initramfs -u",
    };
    let fix = if f.os.nouveau.blacklisted_in.is_empty() {
        format!(
            "printf 'blacklist nouveau\\noptions nouveau modeset=0\\n' | sudo tee /etc/modprobe.d/blacklist-nouveau.conf\n{rebuild}\nsudo reboot"
        )
    } else {
        // Already blacklisted: the boot image still carries nouveau, or the machine has not rebooted.
        format!("{rebuild}\nsudo reboot")
    };
    out.push(finding.fix(fix));
}

/// `secure-boot-blocks-module`: Secure Boot is on, no NVIDIA module is loaded, and the module
/// file for the running kernel carries no signature (the kernel refuses it).
pub fn secure_boot_blocks_module(cx: &Context, out: &mut Vec<Finding>) {
    let f = cx.facts;
    let Some(sb) = f.os.secure_boot.as_ref().filter(|s| s.value) else {
        return;
    };
    if f.driver.kernel_module.is_some() {
        return;
    }
    let unsigned: Vec<&str> =
        f.os.nvidia_module_files
            .iter()
            .filter(|m| m.signed == Some(false))
            .map(|m| m.path.as_str())
            .collect();
    if unsigned.is_empty() {
        return;
    }
    let mut finding = Finding::new(
        &SECURE_BOOT_BLOCKS_MODULE,
        Severity::Error,
        "Secure Boot is on and the NVIDIA kernel module is unsigned, so the kernel refuses to load it",
    )
    .evidence(format!("Secure Boot is enabled ({})", sb.source))
    .evidence("no NVIDIA kernel module is loaded (/proc/driver/nvidia/version and /sys/module/nvidia absent)");
    for p in unsigned {
        finding = finding.evidence(format!("{p} has no appended module signature"));
    }
    out.push(finding.fix(
        "Sign the module with a Machine Owner Key and enroll it (DKMS does this on Debian/Ubuntu):\n\
         sudo mokutil --import /var/lib/dkms/mok.pub   # choose a password, reboot, confirm in MOK Manager\n\
         sudo dkms autoinstall && sudo reboot\n\
         or disable Secure Boot in the firmware settings.",
    ));
}

/// `device-nodes`: with the kernel module loaded, `/dev/nvidiactl`, one `/dev/nvidiaN` per GPU and
/// `/dev/nvidia-uvm` must exist and be openable by this user. (A node alone proves nothing: running
/// nvidia-smi as root creates `/dev/nvidiactl` even without a driver, so missing module = silent.)
pub fn device_nodes(cx: &Context, out: &mut Vec<Finding>) {
    let f = cx.facts;
    if f.driver.kernel_module.is_none() {
        return;
    }
    let node = |path: &str| f.os.device_nodes.iter().find(|n| n.path == path);
    let missing = |path: &str| node(path).is_none_or(|n| !n.exists);
    let mut evidence = Vec::new();
    for path in ["/dev/nvidiactl", "/dev/nvidia-uvm"] {
        if missing(path) {
            evidence.push(format!("{path} does not exist"));
        }
    }
    let gpu_nodes =
        f.os.device_nodes
            .iter()
            .filter(|n| {
                n.exists
                    && n.path
                        .trim_start_matches("/dev/nvidia")
                        .bytes()
                        .all(|b| b.is_ascii_digit())
            })
            .filter(|n| n.path.len() > "/dev/nvidia".len())
            .count();
    let gpus = f.gpus.devices.len();
    if gpus > 0 && gpu_nodes < gpus {
        evidence.push(format!(
            "{gpu_nodes} /dev/nvidiaN node(s) for {gpus} GPU(s)"
        ));
    }
    let missing_any = !evidence.is_empty();
    let denied: Vec<&DeviceNode> =
        f.os.device_nodes
            .iter()
            .filter(|n| n.exists && n.accessible == Some(false))
            .collect();
    for n in &denied {
        evidence.push(format!(
            "{} is mode {:o}, owner {}:{}; this user (uid {}) may not open it",
            n.path,
            n.mode.unwrap_or(0),
            n.uid.unwrap_or(0),
            n.gid.unwrap_or(0),
            f.os.user.as_ref().map(|u| u.value.uid).unwrap_or(0)
        ));
    }
    if evidence.is_empty() {
        return;
    }
    let in_container = f.os.container.as_ref().map(|c| c.value.as_str());
    let (title, fix) = match (missing_any, in_container) {
        (true, Some(runtime)) => (
            format!("this {runtime} container was started without GPU access"),
            "Start the container with the GPUs: docker run --gpus all ... (NVIDIA Container Toolkit), \
             podman run --device nvidia.com/gpu=all ..., or in Kubernetes request nvidia.com/gpu resources."
                .to_string(),
        ),
        (true, None) => (
            "NVIDIA device nodes are missing".to_string(),
            "sudo nvidia-modprobe -c 0 -u   # creates /dev/nvidiactl, /dev/nvidia0 and /dev/nvidia-uvm\n\
             or: sudo modprobe nvidia-uvm && sudo reboot if the nodes still do not appear"
                .to_string(),
        ),
        (false, _) => {
            let gid = denied.first().and_then(|n| n.gid).unwrap_or(0);
            let fix = if gid == 0 {
                // Adding users to root's group is no fix: have the driver create the nodes for a
                // group meant for it, or for everyone (the driver's default mode is 0666).
                "The nodes belong to root's group: have the driver create them for a GPU group, e.g.\n\
                 echo 'options nvidia NVreg_DeviceFileGID=44 NVreg_DeviceFileMode=0660' | sudo tee /etc/modprobe.d/nvidia-devices.conf   # 44 = video\n\
                 sudo usermod -aG video $USER && sudo reboot\n\
                 or use the driver's default NVreg_DeviceFileMode=0666."
                    .to_string()
            } else {
                format!(
                    "Add the user to the group that owns the nodes (gid {gid}, often 'video' or 'render'):\n\
                     sudo usermod -aG $(getent group {gid} | cut -d: -f1) $USER   # then log out and in"
                )
            };
            ("this user may not open the NVIDIA device nodes".to_string(), fix)
        }
    };
    let mut finding = Finding::new(&DEVICE_NODES, Severity::Error, title).fix(fix);
    finding.evidence = evidence;
    if let Some(m) = &f.driver.kernel_module {
        finding.evidence.push(format!(
            "kernel module {} is loaded ({})",
            m.version.value, m.version.source
        ));
    }
    out.push(finding);
}
