//! What every check needs besides the raw facts: the knowledge base and a few derived values
//! (the driver version to judge by, the driver's CUDA ceiling, the GPUs' compute capabilities,
//! the distribution family for fix commands), computed the same way for all checks.

use gpuenv_facts::{Facts, Sourced};
use gpuenv_kb::{ComputeCapability, CudaVersion, DriverCeiling, Kb, Version};

/// Facts and knowledge, as the checks see them.
pub struct Context<'a> {
    pub facts: &'a Facts,
    pub kb: &'a Kb,
}

/// Linux distribution families, for package-manager commands in fixes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    Debian,
    Ubuntu,
    Rhel,
    Suse,
    Arch,
    Other,
}

/// A GPU as the checks use it: a label for messages and its compute capability if known.
#[derive(Debug, Clone)]
pub struct GpuRef {
    pub label: String,
    pub cc: Option<ComputeCapability>,
    pub cc_source: String,
}

impl<'a> Context<'a> {
    pub fn new(facts: &'a Facts, kb: &'a Kb) -> Context<'a> {
        Context { facts, kb }
    }

    /// The userspace driver version (what libcuda reports), else the kernel module's.
    pub fn driver(&self) -> Option<(&Version, String)> {
        if let Some(s) = &self.facts.driver.userspace_version {
            return Some((&s.value, s.source.to_string()));
        }
        self.facts
            .driver
            .kernel_module
            .as_ref()
            .map(|m| (&m.version.value, m.version.source.to_string()))
    }

    /// The newest CUDA the driver supports, and how that is known.
    pub fn driver_ceiling(&self) -> Option<(CudaVersion, String)> {
        if let Some(Sourced { value, source }) = &self.facts.driver.cuda_driver_version {
            return Some((*value, source.to_string()));
        }
        let (driver, _) = self.driver()?;
        match self.kb.max_cuda_for_driver(driver) {
            DriverCeiling::Known { max_cuda, branch } => Some((
                max_cuda,
                format!("knowledge base: driver branch R{branch} supports up to CUDA {max_cuda}"),
            )),
            DriverCeiling::NewerThanKb { at_least, newest_known_branch } => Some((
                at_least,
                format!(
                    "knowledge base: branch R{} is newer than the newest known (R{newest_known_branch}); at least CUDA {at_least}",
                    driver.major()
                ),
            )),
            DriverCeiling::OlderThanKb => None,
        }
    }

    /// Whether the driver's CUDA ceiling is only a lower bound: the branch is newer than the
    /// knowledge base knows and the driver API did not say.
    pub fn driver_ceiling_is_lower_bound(&self) -> bool {
        if self.facts.driver.cuda_driver_version.is_some() {
            return false;
        }
        self.driver().is_some_and(|(driver, _)| {
            matches!(
                self.kb.max_cuda_for_driver(driver),
                DriverCeiling::NewerThanKb { .. }
            )
        })
    }

    /// The Python environments doctor read in full (the L5 checks run on these).
    pub fn full_environments(&self) -> impl Iterator<Item = &'a gpuenv_facts::PythonEnvironment> {
        self.facts.python.environments.iter().filter(|e| e.full)
    }

    /// The CPU architecture Python markers are evaluated for.
    pub fn machine(&self) -> &str {
        if self.facts.os.machine.is_empty() {
            "x86_64"
        } else {
            &self.facts.os.machine
        }
    }

    /// Whether the machine has an NVIDIA GPU (on the PCI bus, from NVML, or by override).
    pub fn has_nvidia_gpu(&self) -> bool {
        !self.facts.gpus.devices.is_empty() || !self.facts.gpus.override_ccs.is_empty()
    }

    /// Whether the driver's CUDA ceiling is a fact rather than an inference: the driver API or an
    /// override said it, or the knowledge base's row for the branch is confirmed.
    pub fn driver_ceiling_is_confirmed(&self) -> bool {
        if self.facts.driver.cuda_driver_version.is_some() {
            return true;
        }
        let Some((driver, _)) = self.driver() else {
            return false;
        };
        match self.kb.max_cuda_for_driver(driver) {
            DriverCeiling::Known { branch, .. } => self
                .kb
                .branches
                .iter()
                .any(|b| b.branch == branch && b.confirmed),
            _ => false,
        }
    }

    /// Every GPU with its compute capability: the PCI devices, else the override list.
    pub fn gpus(&self) -> Vec<GpuRef> {
        let devices = &self.facts.gpus.devices;
        if !devices.is_empty() {
            // Identical GPUs (same name and compute capability) are one entry, so an 8-GPU node
            // gets one finding per problem, not eight.
            let mut groups: Vec<(String, Option<ComputeCapability>, String, Vec<&str>)> =
                Vec::new();
            for g in devices {
                let name = g
                    .name
                    .as_ref()
                    .map(|n| n.value.as_str())
                    .unwrap_or("NVIDIA GPU");
                let cc = g.cc.as_ref().map(|c| c.value);
                match groups.iter_mut().find(|(n, c, _, _)| n == name && *c == cc) {
                    Some(group) => group.3.push(&g.pci_address),
                    None => groups.push((
                        name.to_string(),
                        cc,
                        g.cc.as_ref()
                            .map(|c| c.source.to_string())
                            .unwrap_or_default(),
                        vec![&g.pci_address],
                    )),
                }
            }
            return groups
                .into_iter()
                .map(|(name, cc, cc_source, addresses)| GpuRef {
                    label: if addresses.len() == 1 {
                        format!("{name} ({})", addresses.join(", "))
                    } else {
                        format!("{} × {name} ({})", addresses.len(), addresses.join(", "))
                    },
                    cc,
                    cc_source,
                })
                .collect();
        }
        self.facts
            .gpus
            .override_ccs
            .iter()
            .enumerate()
            .map(|(i, c)| GpuRef {
                label: format!("GPU {i} (compute capability {} by override)", c.value),
                cc: Some(c.value),
                cc_source: c.source.to_string(),
            })
            .collect()
    }

    /// How many GPUs CUDA programs will see under `CUDA_VISIBLE_DEVICES`, as CUDA applies it: the
    /// list is read up to its first invalid entry (a negative, out-of-range or repeated index, an
    /// unknown UUID). `None` when the variable is unset.
    pub fn visible_gpu_count(&self) -> Option<usize> {
        let value = &self.facts.gpus.cuda_visible_devices.as_ref()?.value;
        let devices = &self.facts.gpus.devices;
        let mut seen: Vec<usize> = Vec::new();
        for entry in value.split(',').map(str::trim) {
            let index = if let Ok(n) = entry.parse::<i64>() {
                usize::try_from(n).ok().filter(|n| *n < devices.len())
            } else if entry.starts_with("GPU-") {
                devices
                    .iter()
                    .position(|g| g.uuid.as_ref().is_some_and(|u| u.value.starts_with(entry)))
            } else {
                None
            };
            match index {
                Some(i) if !seen.contains(&i) => seen.push(i),
                _ => break,
            }
        }
        Some(seen.len())
    }

    /// Whether any userspace driver library is installed (not counting WSL's own).
    pub fn userspace_installed(&self) -> bool {
        self.facts
            .driver
            .userspace
            .iter()
            .any(|l| !l.wsl && l.real_path.is_some())
    }

    pub fn family(&self) -> Family {
        let Some(d) = &self.facts.os.distribution else {
            return Family::Other;
        };
        match d.value.id.as_str() {
            "debian" => Family::Debian,
            "ubuntu" | "pop" | "linuxmint" => Family::Ubuntu,
            "rhel" | "centos" | "rocky" | "almalinux" | "fedora" | "ol" | "amzn" => Family::Rhel,
            "sles" | "opensuse-leap" | "opensuse-tumbleweed" => Family::Suse,
            "arch" | "manjaro" => Family::Arch,
            _ => Family::Other,
        }
    }

    /// `sudo apt-mark hold ...` or the equivalent, to stop driver packages drifting.
    pub fn hold_driver_command(&self) -> &'static str {
        match self.family() {
            Family::Debian | Family::Ubuntu => {
                "sudo apt-mark hold 'nvidia-*' 'libnvidia-*' 'libcuda1'"
            }
            Family::Rhel => "sudo dnf versionlock add 'nvidia-*' 'cuda-drivers*'",
            Family::Suse => "sudo zypper addlock 'nvidia-*'",
            _ => "hold your distribution's NVIDIA driver packages at one version",
        }
    }

    /// How to install the NVIDIA driver on this distribution (`branch` when one is required).
    pub fn install_driver_command(&self, branch: Option<u32>) -> String {
        match (self.family(), branch) {
            (Family::Ubuntu, Some(b)) => format!("sudo apt install nvidia-driver-{b}"),
            (Family::Ubuntu, None) => "sudo ubuntu-drivers install".into(),
            (Family::Debian, Some(470)) => {
                "sudo apt install nvidia-tesla-470-driver   # contrib/non-free enabled".into()
            }
            (Family::Debian, _) => {
                "sudo apt install nvidia-driver firmware-misc-nonfree   # contrib/non-free enabled"
                    .into()
            }
            (Family::Rhel, Some(b)) => format!("sudo dnf module install nvidia-driver:{b}-dkms"),
            (Family::Rhel, None) => "sudo dnf module install nvidia-driver:latest-dkms".into(),
            (_, Some(b)) => {
                format!("install the NVIDIA driver, branch R{b}, from your distribution or NVIDIA")
            }
            (_, None) => "install the NVIDIA driver from your distribution or NVIDIA".into(),
        }
    }
}
