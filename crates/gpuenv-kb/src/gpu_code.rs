//! Which GPU can run which GPU code: NVIDIA's binary- and PTX-compatibility rules applied to the
//! SASS and PTX targets a binary carries (from its fatbin), for one compute capability.
//!
//! The rules (nvidia-facts 6b; sources CPG-BINCOMPAT, BLACKWELL-BLOG, LLVM-CUDA-CPP, PT-190654):
//!
//! * a cubin for `sm_XY` runs on compute capability X.Z with Z >= Y — never across majors;
//!   `sm_XYf` (family-specific, CUDA 12.9+) the same; `sm_XYa` (architecture-specific) only on
//!   exactly X.Y;
//! * PTX for `compute_XY` is JIT-compiled by the driver for any X.Y or newer, across majors;
//!   `compute_XYf` only within major X (minor >= Y); `compute_XYa` only for exactly X.Y;
//! * the driver's JIT must know the PTX ISA version: the driver must support at least the CUDA
//!   release that introduced it ([`crate::PtxIsaRow`]); minor-version compatibility does not
//!   cover JIT.
//!
//! The CUDA runtime loads each fatbin container (one per translation unit) on its own, so the
//! verdict counts containers: a container runs natively when one of its cubins fits, through JIT
//! when only its PTX fits, and not at all otherwise. This module is pure: it knows nothing of
//! ELF files; callers turn fatbin entries into [`GpuCode`] values.

use serde::Serialize;

use crate::version::{ComputeCapability, CudaVersion, Version};
use crate::Kb;

/// SASS (a cubin) or PTX.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CodeKind {
    Sass,
    Ptx,
}

/// Plain, architecture-specific (`a`) or family-specific (`f`) target.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CodeVariant {
    Plain,
    A,
    F,
}

/// One piece of GPU code in a binary.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GpuCode {
    /// The fatbin container it belongs to; code in different containers is loaded separately.
    pub container: usize,
    pub kind: CodeKind,
    /// `10 * major + minor` (86 for `sm_86`, 100 for `sm_100`).
    pub arch: u32,
    pub variant: CodeVariant,
    /// For PTX: the PTX ISA version.
    pub ptx_isa: Option<CudaVersion>,
}

impl GpuCode {
    /// The compute capability the target names (`sm_86` -> 8.6, `sm_103` -> 10.3).
    pub fn cc(&self) -> ComputeCapability {
        ComputeCapability::new(self.arch / 10, self.arch % 10)
    }

    /// `sm_86`, `compute_90a`.
    pub fn target_name(&self) -> String {
        let prefix = match self.kind {
            CodeKind::Sass => "sm",
            CodeKind::Ptx => "compute",
        };
        let suffix = match self.variant {
            CodeVariant::Plain => "",
            CodeVariant::A => "a",
            CodeVariant::F => "f",
        };
        format!("{prefix}_{}{suffix}", self.arch)
    }

    /// Whether this is a cubin the GPU runs as it stands.
    pub fn runs_natively_on(&self, gpu: ComputeCapability) -> bool {
        self.kind == CodeKind::Sass && fits(self.cc(), self.variant, gpu, false)
    }

    /// Whether this is PTX the driver may JIT-compile for the GPU (the PTX ISA aside).
    pub fn jit_target_for(&self, gpu: ComputeCapability) -> bool {
        self.kind == CodeKind::Ptx && fits(self.cc(), self.variant, gpu, true)
    }
}

/// The compatibility rule: `across_majors` is PTX's forward compatibility for plain targets.
fn fits(
    code: ComputeCapability,
    variant: CodeVariant,
    gpu: ComputeCapability,
    across_majors: bool,
) -> bool {
    match variant {
        CodeVariant::A => code == gpu,
        CodeVariant::F => code.major == gpu.major && code.minor <= gpu.minor,
        CodeVariant::Plain if across_majors => code <= gpu,
        CodeVariant::Plain => code.major == gpu.major && code.minor <= gpu.minor,
    }
}

/// The driver a PTX ISA version needs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PtxDriverNeed {
    pub ptx_isa: CudaVersion,
    /// The CUDA release that introduced this PTX ISA; `None` when the knowledge base does not
    /// know the version (newer than its table).
    pub cuda: Option<CudaVersion>,
    /// The minimum driver of that CUDA release, when confirmed.
    pub min_driver: Option<Version>,
    /// Else the first driver branch that supports that CUDA release.
    pub min_branch: Option<u32>,
    /// Whether the PTX ISA -> CUDA row is confirmed.
    pub confirmed: bool,
}

/// How one GPU fares with a binary's code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CodeStatus {
    /// Every container has a cubin for it.
    Native,
    /// Every container runs, some only through PTX JIT.
    PtxJit,
    /// Some containers have code for it and some have none (often architecture-specific kernels
    /// that are launched only on their own GPU).
    Partial,
    /// No container has code for it: "no kernel image is available for execution on the device".
    None,
}

/// The verdict for one compute capability.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GpuCodeVerdict {
    pub cc: ComputeCapability,
    pub status: CodeStatus,
    pub containers: usize,
    /// Containers with a cubin this GPU runs.
    pub native_containers: usize,
    /// Containers without one but with PTX the driver can JIT for it.
    pub jit_containers: usize,
    /// Containers with neither.
    pub missing_containers: usize,
    /// The cubin targets that fit, newest first (`sm_86`, `sm_80`).
    pub native_targets: Vec<String>,
    /// The PTX targets the JIT would compile for the containers that need it.
    pub jit_targets: Vec<String>,
    /// The driver the JIT-compiled PTX needs (its newest PTX ISA).
    pub jit_needs: Option<PtxDriverNeed>,
}

impl Kb {
    /// The knowledge-base row of a PTX ISA version.
    pub fn ptx_isa(&self, isa: CudaVersion) -> Option<&crate::PtxIsaRow> {
        self.ptx_isas.iter().find(|r| r.ptx_isa == isa)
    }

    /// The driver a PTX ISA version needs.
    pub fn driver_for_ptx_isa(&self, isa: CudaVersion) -> PtxDriverNeed {
        let Some(row) = self.ptx_isa(isa) else {
            return PtxDriverNeed {
                ptx_isa: isa,
                cuda: None,
                min_driver: None,
                min_branch: None,
                confirmed: false,
            };
        };
        let min_driver = self
            .min_driver_for_cuda(row.cuda)
            .and_then(|t| t.min_driver.clone());
        let min_branch = if min_driver.is_some() {
            None
        } else {
            self.toolkits
                .iter()
                .filter(|t| t.version.cuda() == row.cuda)
                .find_map(|t| t.min_driver_branch)
                .or_else(|| self.first_branch_for_cuda(row.cuda).map(|b| b.branch))
        };
        PtxDriverNeed {
            ptx_isa: isa,
            cuda: Some(row.cuda),
            min_driver,
            min_branch,
            confirmed: row.confirmed,
        }
    }

    /// Whether a GPU of compute capability `gpu` can run `code` (all of a binary's fatbin code,
    /// container by container): natively, through PTX JIT, partly, or not at all.
    pub fn judge_gpu_code(&self, code: &[GpuCode], gpu: ComputeCapability) -> GpuCodeVerdict {
        let mut containers: Vec<usize> = code.iter().map(|c| c.container).collect();
        containers.sort_unstable();
        containers.dedup();
        let mut verdict = GpuCodeVerdict {
            cc: gpu,
            status: CodeStatus::None,
            containers: containers.len(),
            native_containers: 0,
            jit_containers: 0,
            missing_containers: 0,
            native_targets: Vec::new(),
            jit_targets: Vec::new(),
            jit_needs: None,
        };
        let mut newest_isa: Option<CudaVersion> = None;
        let mut native_archs: Vec<(u32, String)> = Vec::new();
        let mut jit_archs: Vec<(u32, String)> = Vec::new();
        // Sorting by container keeps this linear; each container is a contiguous run.
        let mut sorted: Vec<&GpuCode> = code.iter().collect();
        sorted.sort_by_key(|c| c.container);
        for run in sorted.chunk_by(|a, b| a.container == b.container) {
            let natives: Vec<&&GpuCode> = run.iter().filter(|c| c.runs_natively_on(gpu)).collect();
            if !natives.is_empty() {
                verdict.native_containers += 1;
                for c in natives {
                    push_target(&mut native_archs, c);
                }
                continue;
            }
            // The driver JIT-compiles the newest PTX that fits.
            let ptx = run
                .iter()
                .filter(|c| c.jit_target_for(gpu))
                .max_by_key(|c| (c.arch, c.ptx_isa));
            match ptx {
                Some(c) => {
                    verdict.jit_containers += 1;
                    push_target(&mut jit_archs, c);
                    if let Some(isa) = c.ptx_isa {
                        newest_isa = Some(newest_isa.map_or(isa, |n| n.max(isa)));
                    }
                }
                None => verdict.missing_containers += 1,
            }
        }
        native_archs.sort_by(|a, b| b.cmp(a));
        jit_archs.sort_by(|a, b| b.cmp(a));
        verdict.native_targets = native_archs.into_iter().map(|(_, n)| n).collect();
        verdict.jit_targets = jit_archs.into_iter().map(|(_, n)| n).collect();
        verdict.jit_needs = newest_isa.map(|isa| self.driver_for_ptx_isa(isa));
        verdict.status =
            if verdict.containers == 0 || verdict.missing_containers == verdict.containers {
                CodeStatus::None
            } else if verdict.missing_containers > 0 {
                CodeStatus::Partial
            } else if verdict.jit_containers > 0 {
                CodeStatus::PtxJit
            } else {
                CodeStatus::Native
            };
        verdict
    }
}

fn push_target(list: &mut Vec<(u32, String)>, code: &GpuCode) {
    let name = code.target_name();
    if !list.iter().any(|(_, n)| *n == name) {
        list.push((code.arch, name));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cc(major: u32, minor: u32) -> ComputeCapability {
        ComputeCapability::new(major, minor)
    }

    fn sass(container: usize, arch: u32, variant: CodeVariant) -> GpuCode {
        GpuCode {
            container,
            kind: CodeKind::Sass,
            arch,
            variant,
            ptx_isa: None,
        }
    }

    fn ptx(container: usize, arch: u32, variant: CodeVariant, isa: (u32, u32)) -> GpuCode {
        GpuCode {
            container,
            kind: CodeKind::Ptx,
            arch,
            variant,
            ptx_isa: Some(CudaVersion::new(isa.0, isa.1)),
        }
    }

    #[test]
    fn cubin_rules() {
        use CodeVariant::*;
        assert!(sass(0, 80, Plain).runs_natively_on(cc(8, 6)));
        assert!(sass(0, 80, Plain).runs_natively_on(cc(8, 9)));
        assert!(!sass(0, 86, Plain).runs_natively_on(cc(8, 0)));
        assert!(!sass(0, 90, Plain).runs_natively_on(cc(10, 0)));
        assert!(!sass(0, 90, Plain).runs_natively_on(cc(12, 0)));
        assert!(sass(0, 90, A).runs_natively_on(cc(9, 0)));
        assert!(!sass(0, 100, A).runs_natively_on(cc(10, 3)));
        assert!(sass(0, 100, F).runs_natively_on(cc(10, 3)));
        assert!(!sass(0, 100, F).runs_natively_on(cc(12, 0)));
        assert!(!ptx(0, 80, Plain, (7, 8)).runs_natively_on(cc(8, 0)));
    }

    #[test]
    fn ptx_rules() {
        use CodeVariant::*;
        assert!(ptx(0, 80, Plain, (7, 8)).jit_target_for(cc(9, 0)));
        assert!(ptx(0, 80, Plain, (7, 8)).jit_target_for(cc(12, 0)));
        assert!(!ptx(0, 86, Plain, (7, 8)).jit_target_for(cc(8, 0)));
        assert!(ptx(0, 90, A, (8, 0)).jit_target_for(cc(9, 0)));
        assert!(!ptx(0, 90, A, (8, 0)).jit_target_for(cc(10, 0)));
        assert!(ptx(0, 100, F, (9, 0)).jit_target_for(cc(10, 3)));
        assert!(!ptx(0, 100, F, (9, 0)).jit_target_for(cc(12, 0)));
    }

    #[test]
    fn verdicts_count_containers() {
        let kb = Kb::builtin().expect("built-in kb");
        use CodeVariant::*;
        let code = [
            sass(0, 61, Plain),
            sass(0, 86, Plain),
            ptx(0, 86, Plain, (7, 8)),
            sass(1, 61, Plain),
            sass(1, 86, Plain),
        ];
        let v = kb.judge_gpu_code(&code, cc(8, 9));
        assert_eq!(v.status, CodeStatus::Native);
        assert_eq!(v.native_targets, ["sm_86"]);
        let v = kb.judge_gpu_code(&code, cc(9, 0));
        assert_eq!(v.status, CodeStatus::Partial);
        assert_eq!((v.jit_containers, v.missing_containers), (1, 1));
        let need = v.jit_needs.expect("jit needs a driver");
        assert_eq!(need.cuda, Some(CudaVersion::new(11, 8)));
        assert!(need.min_driver.is_some());
        let v = kb.judge_gpu_code(&code[..3], cc(12, 0));
        assert_eq!(v.status, CodeStatus::PtxJit);
        assert_eq!(v.jit_targets, ["compute_86"]);
        let v = kb.judge_gpu_code(&code, cc(7, 5));
        assert_eq!(v.status, CodeStatus::None);
        assert_eq!(kb.judge_gpu_code(&[], cc(8, 6)).status, CodeStatus::None);
    }

    #[test]
    fn ptx_isa_table_is_sorted_and_unique() {
        let kb = Kb::builtin().expect("built-in kb");
        assert!(kb.ptx_isas.windows(2).all(|w| w[0].ptx_isa < w[1].ptx_isa));
        assert!(kb.ptx_isas.windows(2).all(|w| w[0].cuda < w[1].cuda));
        let unknown = kb.driver_for_ptx_isa(CudaVersion::new(99, 0));
        assert_eq!(unknown.cuda, None);
        let newest = kb.driver_for_ptx_isa(CudaVersion::new(9, 5));
        assert_eq!(newest.cuda, Some(CudaVersion::new(13, 5)));
        assert_eq!(newest.min_branch, Some(620));
    }
}
