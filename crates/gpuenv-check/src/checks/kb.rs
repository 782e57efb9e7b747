//! `kb-unknown-version`: versions newer than (or absent from) the knowledge base are reported as
//! such, never guessed about: a driver branch, a CUDA major, a cuDNN release, a GPU.

use gpuenv_kb::DriverCeiling;

use crate::context::Context;
use crate::finding::{Finding, Severity, KB_UNKNOWN_VERSION};

/// `kb-unknown-version` (info): a driver branch, CUDA major, cuDNN release or GPU on this machine
/// is newer than (or absent from) the knowledge base's tables; the checks that would need it stay
/// silent instead of guessing.
pub fn kb_unknown_version(cx: &Context, out: &mut Vec<Finding>) {
    let kb = cx.kb;
    let as_of = &kb.as_of;
    let mut unknown = Vec::new();
    if let Some((driver, source)) = cx.driver() {
        if let DriverCeiling::NewerThanKb {
            newest_known_branch,
            ..
        } = kb.max_cuda_for_driver(driver)
        {
            unknown.push(format!(
                "driver {driver} ({source}): branch R{} is newer than the newest the knowledge base knows (R{newest_known_branch})",
                driver.major()
            ));
        }
    }
    if let Some(newest) = kb.newest_toolkit() {
        for t in &cx.facts.cuda.toolkits {
            if let Some(v) = &t.version {
                if v.value.cuda() > newest.version.cuda() {
                    unknown.push(format!(
                        "CUDA toolkit {} at {}: newer than the newest the knowledge base knows ({})",
                        v.value, t.root, newest.version
                    ));
                }
            }
        }
    }
    for i in &cx.facts.libraries.cudnn {
        if let Some(v) = &i.version {
            if kb.cudnn_release(&v.value).is_none() {
                unknown.push(format!(
                    "cuDNN {} in {}: not in the knowledge base's cuDNN table",
                    v.value, i.dir
                ));
            }
        }
    }
    for g in &cx.facts.gpus.devices {
        if g.cc.is_none() {
            unknown.push(format!(
                "GPU 10de:{:04x} at {}: its compute capability is not known (not in gpus.tsv, and NVML did not say)",
                g.device_id, g.pci_address
            ));
        } else if let Some(cc) = &g.cc {
            if kb.cc(cc.value).is_none() {
                unknown.push(format!(
                    "GPU at {}: compute capability {} is not in the knowledge base",
                    g.pci_address, cc.value
                ));
            }
        }
    }
    if unknown.is_empty() {
        return;
    }
    let mut finding = Finding::new(
        &KB_UNKNOWN_VERSION,
        Severity::Info,
        format!("some versions here are newer than gpuenv's knowledge base ({as_of}) knows; checks that need them were skipped"),
    );
    for u in unknown {
        finding = finding.evidence(u);
    }
    out.push(finding.fix("Update gpuenv, or pass a newer knowledge base with --kb FILE (see `gpuenv doctor --help`)."));
}
