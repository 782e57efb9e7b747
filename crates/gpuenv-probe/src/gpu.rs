//! L2 probe: every NVIDIA PCI device (`/sys/bus/pci/devices/*/{vendor,device,class,driver}`), its
//! name, chip and compute capability — from NVML when it answered, from
//! `/proc/driver/nvidia/gpus/*/information`, else from the knowledge base's PCI-id table, so a
//! machine whose driver is broken still knows what GPU it has — and the visibility variables.

use gpuenv_facts::{Gpu, GpuFacts, NvmlFacts, ProbeError, Source, Sourced};
use gpuenv_kb::{ComputeCapability, Kb};

use crate::parse;
use crate::root::{file_name, join, SystemRoot};
use crate::vars::{self, Environment};

const NVIDIA_VENDOR: u32 = 0x10de;
const PCI_DEVICES: &str = "/sys/bus/pci/devices";

pub fn probe(
    root: &SystemRoot,
    env: &Environment,
    kb: &Kb,
    nvml: Option<&NvmlFacts>,
    errors: &mut Vec<ProbeError>,
) -> GpuFacts {
    let mut devices = pci_devices(root, kb);
    if let Some(n) = nvml {
        for g in &n.gpus {
            let bus = g.pci_bus_id.as_deref().map(normalize_pci_address);
            let found = devices
                .iter_mut()
                .find(|d| bus.as_deref() == Some(d.pci_address.as_str()));
            let source = |call: &str| Source::Nvml(format!("{call} (GPU {})", g.index));
            match found {
                Some(d) => {
                    if let Some(name) = &g.name {
                        d.name = Some(Sourced::new(name.clone(), source("nvmlDeviceGetName")));
                    }
                    if let Some(cc) = g.cc {
                        d.cc = Some(Sourced::new(
                            cc,
                            source("nvmlDeviceGetCudaComputeCapability"),
                        ));
                    }
                    if let Some(uuid) = &g.uuid {
                        d.uuid = Some(Sourced::new(uuid.clone(), source("nvmlDeviceGetUUID")));
                    }
                }
                None => devices.push(Gpu {
                    pci_address: bus.unwrap_or_else(|| format!("nvml:{}", g.index)),
                    device_id: 0,
                    name: g
                        .name
                        .clone()
                        .map(|n| Sourced::new(n, source("nvmlDeviceGetName"))),
                    chip: None,
                    cc: g
                        .cc
                        .map(|c| Sourced::new(c, source("nvmlDeviceGetCudaComputeCapability"))),
                    architecture: g.cc.and_then(|c| kb.cc(c)).map(|r| r.architecture.clone()),
                    uuid: g
                        .uuid
                        .clone()
                        .map(|u| Sourced::new(u, source("nvmlDeviceGetUUID"))),
                    bound_driver: None,
                    legacy_branch: None,
                }),
            }
        }
    }
    for d in &mut devices {
        if d.architecture.is_none() {
            d.architecture =
                d.cc.as_ref()
                    .and_then(|c| kb.cc(c.value))
                    .map(|r| r.architecture.clone());
        }
    }
    let mut override_ccs = Vec::new();
    if let Some(text) = env.get_nonempty(vars::GPUENV_GPU_CC) {
        for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            match part.parse::<ComputeCapability>() {
                Ok(cc) => override_ccs.push(Sourced::new(
                    cc,
                    Source::Override(vars::GPUENV_GPU_CC.into()),
                )),
                Err(e) => errors.push(ProbeError {
                    probe: "gpus.override".into(),
                    subject: vars::GPUENV_GPU_CC.into(),
                    message: e.to_string(),
                }),
            }
        }
    }
    let var = |name: &str| {
        env.get(name)
            .map(|v| Sourced::new(v.to_string(), Source::Env(name.into())))
    };
    GpuFacts {
        devices,
        cuda_visible_devices: var(vars::CUDA_VISIBLE_DEVICES),
        nvidia_visible_devices: var(vars::NVIDIA_VISIBLE_DEVICES),
        override_ccs,
    }
}

/// `00000000:01:00.0` (NVML) and `0000:01:00.0` (sysfs) both become `0000:01:00.0`.
pub fn normalize_pci_address(addr: &str) -> String {
    let lower = addr.trim().to_ascii_lowercase();
    match lower.split_once(':') {
        Some((domain, rest)) if domain.len() > 4 => {
            let domain = u32::from_str_radix(domain, 16).unwrap_or(0);
            format!("{domain:04x}:{rest}")
        }
        _ => lower,
    }
}

fn pci_devices(root: &SystemRoot, kb: &Kb) -> Vec<Gpu> {
    let Ok(listing) = root.read_dir(PCI_DEVICES) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for addr in &listing.names {
        let dir = join(PCI_DEVICES, addr);
        let read_hex = |attr: &str| {
            root.read_to_string(&join(&dir, attr))
                .ok()
                .and_then(|t| parse::sysfs_hex(&t))
        };
        if read_hex("vendor") != Some(NVIDIA_VENDOR) {
            continue;
        }
        // Display controllers only (class 0x03xxxx): skips the GPU's HDMI audio and USB functions.
        if read_hex("class").is_some_and(|c| c >> 16 != 0x03) {
            continue;
        }
        let Some(device_id) = read_hex("device").and_then(|d| u16::try_from(d).ok()) else {
            continue;
        };
        let row = kb.gpu_by_pci_id(device_id);
        let kb_source = || Source::Kb(format!("gpus.tsv (PCI id 10de:{device_id:04x})"));
        let mut gpu = Gpu {
            pci_address: normalize_pci_address(addr),
            device_id,
            name: row.map(|r| Sourced::new(r.name.clone(), kb_source())),
            chip: row.map(|r| r.chip.clone()).filter(|c| !c.is_empty()),
            cc: row.and_then(|r| r.cc).map(|c| Sourced::new(c, kb_source())),
            architecture: None,
            uuid: None,
            bound_driver: root.read_link(&join(&dir, "driver")).map(|t| {
                Sourced::new(
                    file_name(&t).to_string(),
                    Source::Path(join(&dir, "driver")),
                )
            }),
            legacy_branch: row.and_then(|r| r.legacy_branch.clone()),
        };
        let info_path = format!(
            "/proc/driver/nvidia/gpus/{}/information",
            normalize_pci_address(addr)
        );
        if let Ok(text) = root.read_to_string(&info_path) {
            let info = parse::proc_gpu_information(&text);
            if let Some(model) = info.model {
                gpu.name = Some(Sourced::new(model, Source::File(info_path.clone())));
            }
            if let Some(uuid) = info.uuid {
                gpu.uuid = Some(Sourced::new(uuid, Source::File(info_path.clone())));
            }
        }
        out.push(gpu);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pci_addresses_normalise() {
        assert_eq!(normalize_pci_address("00000000:01:00.0"), "0000:01:00.0");
        assert_eq!(normalize_pci_address("0000:0A:00.0"), "0000:0a:00.0");
    }
}
