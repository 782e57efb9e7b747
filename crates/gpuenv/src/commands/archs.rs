//! `gpuenv archs FILE`: the GPU code inside a binary (its CUDA fatbin, headers only) and, for each
//! GPU — given with `--gpu`, else the ones doctor finds — whether it runs that code natively,
//! through PTX JIT (and which driver the PTX needs), or not at all.
//!
//! The file is a path on this machine as typed (`--root` only chooses where GPUs are looked for).
//! It is memory-mapped; only the ELF section headers and the fatbin headers are read.

use std::io::{self, Write};
use std::path::Path;
use std::process::ExitCode;

use anyhow::{Context as _, Result};
use serde::Serialize;

use gpuenv_check::Context;
use gpuenv_elf::{
    read_fatbin, ArchVariant, Compression, EntryKind, Fatbin, FatbinEntry, FatbinSection,
    FatbinSummary,
};
use gpuenv_kb::gpu_code::{
    CodeKind, CodeStatus, CodeVariant, GpuCode, GpuCodeVerdict, PtxDriverNeed,
};
use gpuenv_kb::{ComputeCapability, CudaVersion, Kb};
use gpuenv_probe::{probe_all, Environment, SystemRoot};

use crate::cli::{ArchsArgs, Format, GlobalArgs};
use crate::commands::load_kb;

/// The JSON document's schema name.
const ARCHS_SCHEMA: &str = "gpuenv.archs/1";

/// A GPU to judge for, with where it came from.
struct GpuTarget {
    label: String,
    cc: ComputeCapability,
}

/// The machine's driver, when the GPUs were probed.
#[derive(Serialize)]
struct DriverInfo {
    /// The newest CUDA the driver supports.
    cuda: CudaVersion,
    /// How that is known.
    source: String,
}

#[derive(Serialize)]
struct GpuReport {
    gpu: String,
    #[serde(flatten)]
    verdict: GpuCodeVerdict,
    /// Whether this machine's driver can JIT the PTX (only when the GPUs were probed and PTX JIT
    /// is needed).
    #[serde(skip_serializing_if = "Option::is_none")]
    driver_ok: Option<bool>,
}

#[derive(Serialize, Default)]
struct CompressionCounts {
    none: usize,
    lz4: usize,
    zstd: usize,
}

#[derive(Serialize)]
struct ArchsReport<'a> {
    schema: &'static str,
    file: String,
    file_size: u64,
    /// `null` when the file has no fatbin section (no CUDA GPU code).
    fatbin: Option<FatbinReport<'a>>,
    /// Where the GPUs came from: `--gpu` or `probe`.
    gpus_from: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    driver: Option<DriverInfo>,
    gpus: Vec<GpuReport>,
}

#[derive(Serialize)]
struct FatbinReport<'a> {
    section_bytes: u64,
    entries: usize,
    #[serde(flatten)]
    summary: FatbinSummary,
    compression: CompressionCounts,
    /// Every entry (with `-v` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    entry_list: Option<&'a [FatbinEntry]>,
}

pub fn run(global: &GlobalArgs, args: &ArchsArgs) -> Result<ExitCode> {
    let kb = load_kb(global)?;
    let path = std::path::absolute(&args.file)
        .with_context(|| format!("cannot resolve {}", args.file.display()))?;
    let path_text = path
        .to_str()
        .with_context(|| format!("{} is not a UTF-8 path", path.display()))?;
    let host = SystemRoot::new(Path::new("/")).context("opening /")?;
    let map = host
        .map(path_text)
        .with_context(|| format!("cannot read {}", args.file.display()))?;
    let bytes: &[u8] = &map;
    let fatbin = read_fatbin(bytes).with_context(|| format!("{}", args.file.display()))?;

    let (targets, driver, gpus_from) = if args.gpus.is_empty() {
        let (targets, driver) = probe_gpus(global, &kb)?;
        (targets, driver, "probe")
    } else {
        let targets = args
            .gpus
            .iter()
            .map(|cc| GpuTarget {
                label: format!("compute capability {cc} (--gpu)"),
                cc: *cc,
            })
            .collect();
        (targets, None, "--gpu")
    };

    let code = fatbin.as_ref().map(gpu_code).unwrap_or_default();
    let gpus: Vec<GpuReport> = match &fatbin {
        None => Vec::new(),
        Some(_) => targets
            .iter()
            .map(|t| {
                let verdict = kb.judge_gpu_code(&code, t.cc);
                let driver_ok = match (&driver, &verdict.jit_needs) {
                    (Some(d), Some(need)) if verdict.jit_containers > 0 => {
                        need.cuda.map(|cuda| d.cuda >= cuda)
                    }
                    _ => None,
                };
                GpuReport {
                    gpu: t.label.clone(),
                    verdict,
                    driver_ok,
                }
            })
            .collect(),
    };
    let report = ArchsReport {
        schema: ARCHS_SCHEMA,
        file: args.file.display().to_string(),
        file_size: bytes.len() as u64,
        fatbin: fatbin.as_ref().map(|f| FatbinReport {
            section_bytes: f.section_bytes,
            entries: f.entries.len(),
            summary: f.summary(),
            compression: compression_counts(f),
            entry_list: global.verbose.then_some(f.entries.as_slice()),
        }),
        gpus_from,
        driver,
        gpus,
    };

    let stdout = io::stdout();
    let mut out = stdout.lock();
    match global.format {
        Format::Json => {
            serde_json::to_writer_pretty(&mut out, &report)?;
            writeln!(out)?;
        }
        Format::Human | Format::Markdown | Format::Prometheus | Format::Html => {
            render_human(&mut out, &report, targets.is_empty())?
        }
    }
    out.flush()?;
    let broken = report
        .gpus
        .iter()
        .any(|g| g.verdict.status == CodeStatus::None || (g.driver_ok == Some(false)));
    Ok(if broken {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// The GPUs doctor would find (PCI devices, NVML, `GPUENV_GPU_CC`), grouped as doctor groups
/// them, and the driver's CUDA ceiling.
fn probe_gpus(global: &GlobalArgs, kb: &Kb) -> Result<(Vec<GpuTarget>, Option<DriverInfo>)> {
    let root = SystemRoot::new(&global.root)
        .with_context(|| format!("--root {}", global.root.display()))?;
    let env = Environment::from_process();
    let facts = probe_all(&root, &env, kb);
    let cx = Context::new(&facts, kb);
    let targets = cx
        .gpus()
        .into_iter()
        .filter_map(|g| {
            g.cc.map(|cc| GpuTarget {
                label: g.label.clone(),
                cc,
            })
        })
        .collect();
    let driver = cx
        .driver_ceiling()
        .map(|(cuda, source)| DriverInfo { cuda, source });
    Ok((targets, driver))
}

/// The loadable (`.nv_fatbin`) SASS and PTX entries as the knowledge base's compatibility rules
/// take them. Relocatable entries and unknown kinds are left out.
fn gpu_code(fatbin: &Fatbin) -> Vec<GpuCode> {
    fatbin
        .entries
        .iter()
        .filter(|e| e.section == FatbinSection::Fatbin)
        .filter_map(|e| {
            let kind = match e.kind {
                EntryKind::Elf => CodeKind::Sass,
                EntryKind::Ptx => CodeKind::Ptx,
                EntryKind::Other(_) => return None,
            };
            Some(GpuCode {
                container: e.container,
                kind,
                arch: e.arch,
                variant: match e.variant {
                    ArchVariant::Plain => CodeVariant::Plain,
                    ArchVariant::A => CodeVariant::A,
                    ArchVariant::F => CodeVariant::F,
                },
                ptx_isa: e
                    .ptx_isa
                    .map(|i| CudaVersion::new(u32::from(i.major), u32::from(i.minor))),
            })
        })
        .collect()
}

fn compression_counts(fatbin: &Fatbin) -> CompressionCounts {
    let mut counts = CompressionCounts::default();
    for e in &fatbin.entries {
        match e.compression {
            Compression::None => counts.none += 1,
            Compression::Lz4 => counts.lz4 += 1,
            Compression::Zstd => counts.zstd += 1,
        }
    }
    counts
}

fn render_human(out: &mut impl Write, report: &ArchsReport<'_>, no_gpus: bool) -> Result<()> {
    let Some(fatbin) = &report.fatbin else {
        writeln!(
            out,
            "{}: no CUDA GPU code (no .nv_fatbin or __nv_relfatbin section)",
            report.file
        )?;
        return Ok(());
    };
    let s = &fatbin.summary;
    let c = &fatbin.compression;
    writeln!(
        out,
        "{}: {} fatbin containers, {} entries ({} compressed with the older scheme, {} zstd, {} uncompressed)",
        report.file, s.containers, fatbin.entries, c.lz4, c.zstd, c.none
    )?;
    if s.sass.is_empty() {
        writeln!(out, "  SASS: none")?;
    } else {
        let list: Vec<String> = s
            .sass
            .iter()
            .map(|t| format!("{} ×{}", t.target, t.count))
            .collect();
        writeln!(out, "  SASS: {}", list.join(", "))?;
    }
    if s.ptx.is_empty() {
        writeln!(out, "  PTX:  none")?;
    } else {
        let list: Vec<String> = s
            .ptx
            .iter()
            .map(|t| {
                let isas: Vec<String> = t.ptx_isa.iter().map(|i| i.to_string()).collect();
                format!("{} ×{} (PTX ISA {})", t.target, t.count, isas.join(", "))
            })
            .collect();
        writeln!(out, "  PTX:  {}", list.join(", "))?;
    }
    if s.relocatable_entries > 0 {
        writeln!(
            out,
            "  relocatable device code (__nv_relfatbin): {} entries in {} containers, not counted below",
            s.relocatable_entries, s.relocatable_containers
        )?;
    }
    if s.other_entries > 0 {
        writeln!(out, "  entries of unknown kind: {}", s.other_entries)?;
    }
    if let Some(entries) = fatbin.entry_list {
        for e in entries {
            writeln!(out, "    {}", entry_line(e))?;
        }
    }
    if let Some(d) = &report.driver {
        writeln!(out, "driver: supports CUDA {} ({})", d.cuda, d.source)?;
    }
    if no_gpus {
        writeln!(
            out,
            "no GPU found on this machine; judge for one with --gpu 8.6 (or GPUENV_GPU_CC)"
        )?;
    }
    for g in &report.gpus {
        writeln!(out, "{}: {}", g.gpu, verdict_text(&g.verdict, g.driver_ok))?;
    }
    Ok(())
}

fn entry_line(e: &FatbinEntry) -> String {
    let section = match e.section {
        FatbinSection::Fatbin => "",
        FatbinSection::Relocatable => " relocatable",
    };
    let isa = e
        .ptx_isa
        .map(|i| format!(" PTX ISA {i}"))
        .unwrap_or_default();
    let compression = match e.compression {
        Compression::None => String::new(),
        Compression::Lz4 => " lz4".to_string(),
        Compression::Zstd => " zstd".to_string(),
    };
    format!(
        "container {} @{:#x}: {}{isa}, {} bytes{compression}{}, flags {:#x}{section}",
        e.container,
        e.offset,
        e.target_name(),
        e.payload_size,
        e.uncompressed_size
            .map(|u| format!(" ({u} uncompressed)"))
            .unwrap_or_default(),
        e.flags
    )
}

fn verdict_text(v: &GpuCodeVerdict, driver_ok: Option<bool>) -> String {
    let sm = v.cc.sm();
    let jit = || {
        let targets = v.jit_targets.join(", ");
        let need = v.jit_needs.as_ref().map(need_text).unwrap_or_default();
        let driver = match driver_ok {
            Some(true) => "; this machine's driver is new enough",
            Some(false) => "; this machine's driver is TOO OLD for it",
            None => "",
        };
        format!("{targets}{need}{driver}")
    };
    match v.status {
        CodeStatus::Native => format!("runs natively ({})", v.native_targets.join(", ")),
        CodeStatus::PtxJit => format!(
            "runs through PTX JIT ({} of {} containers), from {}",
            v.jit_containers,
            v.containers,
            jit()
        ),
        CodeStatus::Partial => {
            let mut text = format!(
                "partly: {} of {} containers have no code for {sm}",
                v.missing_containers, v.containers
            );
            if v.native_containers > 0 {
                text.push_str(&format!(
                    "; {} run natively ({})",
                    v.native_containers,
                    v.native_targets.join(", ")
                ));
            }
            if v.jit_containers > 0 {
                text.push_str(&format!("; {} through PTX JIT from {}", v.jit_containers, jit()));
            }
            text.push_str(" (architecture-specific kernels are often launched only on their own GPU)");
            text
        }
        CodeStatus::None => format!(
            "cannot run it: no {sm}-compatible cubin and no PTX it can JIT (\"no kernel image is available for execution on the device\")"
        ),
    }
}

fn need_text(need: &PtxDriverNeed) -> String {
    match need.cuda {
        None => format!(
            " (PTX ISA {} is newer than the knowledge base knows: needs a driver newer than any it lists)",
            need.ptx_isa
        ),
        Some(cuda) => {
            let driver = match (&need.min_driver, need.min_branch) {
                (Some(d), _) => format!(", driver >= {d}"),
                (None, Some(b)) => format!(", driver branch R{b} or newer"),
                (None, None) => String::new(),
            };
            let unconfirmed = if need.confirmed { "" } else { "; unconfirmed" };
            format!(
                " (PTX ISA {} needs a driver that supports CUDA {cuda}{driver}{unconfirmed})",
                need.ptx_isa
            )
        }
    }
}
