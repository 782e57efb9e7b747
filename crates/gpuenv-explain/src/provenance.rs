//! Whether a log can have come from the machine whose facts were probed.
//!
//! People paste logs from a cluster node, a colleague's laptop or a CI runner into `gpuenv
//! explain` on another machine. Refining such a log with this machine's facts answers for the
//! wrong machine (a laptop without a GPU would call every cluster log "driver missing"). So before
//! refining, the log is read for signs of the machine it came from, and compared with the facts:
//!
//! - Windows paths (`C:\Users\...`) or macOS home directories: this is a Linux machine;
//! - a WSL kernel or WSL library path when this machine is not WSL;
//! - an NVIDIA driver version that is not this machine's (or any, when it has no driver), also as
//!   the kernel module's own line (`NVRM version: ... Kernel Module  396.54`);
//! - a GPU at work (device properties, `nvidia-smi`'s table), or an NVIDIA GPU named by its
//!   product name (`GeForce GTX 1050`, `Tesla V100`), when this machine has no GPU (and is not
//!   WSL, where a working GPU shows no PCI device);
//! - a shell prompt (`user@host:~$`, `[user@host dir]$`) of a host with another name;
//! - messages only the NVIDIA userspace driver prints (`nvidia-smi`'s and NVML's own errors, CUDA
//!   finding no device) when this machine has no NVIDIA userspace library at all;
//! - home directories and Python `site-packages` directories that do not exist here (the caller
//!   answers that question; this module never touches the file system).
//!
//! Each sign found is a reason; any reason makes the log foreign and it is explained from the
//! text alone, saying why.

use std::sync::OnceLock;

use regex::Regex;

use gpuenv_facts::Facts;
use gpuenv_kb::Version;

use crate::extract::cap;
use crate::matcher::{Hits, Matcher};
use crate::normalize::Text;

/// Strings that say which operating system or user wrote the log (paths, WSL kernel strings).
const PLACE_MARKERS: &[&str] = &[
    ":\\",
    "/Users/",
    "/home/",
    "-packages/",
    "microsoft-standard",
    "-Microsoft",
    "WSL",
    "/usr/lib/wsl/",
    "/dev/dxg",
];
/// Strings on the lines that name an NVIDIA driver version.
const DRIVER_MARKERS: &[&str] = &[
    "driver version",
    "has the version",
    "DSO version",
    "reported version is",
    "Kernel Module",
];
/// Strings only a machine with a working NVIDIA GPU prints.
const GPU_AT_WORK: &[&str] = &[
    "Found device 0 with properties",
    "Created TensorFlow device",
    "Created device /job:",
    "| NVIDIA-SMI",
    "with CUDA capability sm_",
    "pciBusID",
];

/// NVIDIA product names: a log that names one was written where that GPU was. The automaton
/// finds them in any case; their lines are read with `Patterns::gpu_name`, case-sensitively, so
/// that a host called `titan` is no GPU.
const GPU_NAMES: &[&str] = &[
    "GeForce", "Quadro", "TITAN", "Tesla", "RTX", "GTX", "A100", "H100", "V100", "Jetson",
];
/// What a shell prompt holds between its user and its host.
const PROMPT_MARKERS: &[&str] = &["@"];

/// Messages printed only where the NVIDIA userspace driver is installed: `nvidia-smi` and NVML
/// report their own failures only once `libnvidia-ml` is loaded, and the CUDA runtime says it
/// found no device (rather than no driver) only once `libcuda` is. Without either library
/// `nvidia-smi` is not there, NVML fails to load, and PyTorch says "Found no NVIDIA driver".
const USERSPACE_AT_WORK: &[&str] = &[
    "NVIDIA-SMI has failed because it couldn't communicate",
    "Failed to initialize NVML: Driver/library version mismatch",
    "Failed to initialize NVML: Unknown Error",
    "no CUDA-capable device is detected",
    "No CUDA GPUs are available",
    "CUDA_ERROR_NO_DEVICE",
];

/// Every string the automaton finds for this module; their lines are then read with the regexes.
pub fn markers() -> impl Iterator<Item = &'static str> {
    PLACE_MARKERS
        .iter()
        .chain(DRIVER_MARKERS)
        .chain(GPU_AT_WORK)
        .chain(USERSPACE_AT_WORK)
        .chain(GPU_NAMES)
        .chain(PROMPT_MARKERS)
        .copied()
}

/// Paths checked against the machine, at most.
const MAX_PATHS: usize = 8;

struct Patterns {
    windows_path: Regex,
    home: Regex,
    site_packages: Regex,
    driver_version: Regex,
    wsl_word: Regex,
    wsl1_kernel: Regex,
    gpu_name: Regex,
    prompt: Regex,
}

fn patterns() -> Option<&'static Patterns> {
    static PATTERNS: OnceLock<Option<Patterns>> = OnceLock::new();
    PATTERNS
        .get_or_init(|| {
            Some(Patterns {
                windows_path: Regex::new(r"(?:^|[\s'\x22(=])[A-Za-z]:\\[A-Za-z0-9_$.~ -]+\\").ok()?,
                home: Regex::new(r"(?:^|[^A-Za-z0-9_./-])(/home/[A-Za-z0-9._-]+|/Users/[A-Za-z0-9._-]+)/")
                    .ok()?,
                site_packages: Regex::new(
                    r"(?:^|[^A-Za-z0-9_./~-])((?:~|/)[A-Za-z0-9._+/-]*/(?:site|dist)-packages)/",
                )
                .ok()?,
                driver_version: Regex::new(
                    r"(?i)(?:driver version|has the version|DSO version|reported version is|Kernel Module)\s*:?\s*([0-9]{3}\.[0-9]{1,3}(?:\.[0-9]{1,3})?)\b",
                )
                .ok()?,
                wsl_word: Regex::new(r"(?i)\bWSL[12]?\b").ok()?,
                wsl1_kernel: Regex::new(r"[0-9]-Microsoft\b").ok()?,
                gpu_name: Regex::new(
                    r"\b(?:GeForce|Quadro|TITAN (?:X|V|RTX|Xp)|Titan (?:X|V|RTX|Xp)|Tesla [A-Z][0-9]+|RTX ?[A-Z]?[0-9]{4}|GTX ?[0-9]{3,4}|[AHV]100|Jetson)\b",
                )
                .ok()?,
                // `user@host:~/dir$ `, `root@0a1b2c:/app# `, `[user@host dir]$ `: a prompt ends in
                // `$` or `#` and a space (or the line's end) after a path or the bracket.
                prompt: Regex::new(
                    r"(?:^|[\s(\[])[a-z_][a-z0-9_.-]{0,31}@([A-Za-z0-9][A-Za-z0-9-]{0,62})(?:\.[A-Za-z0-9.-]+)?(?::[^\s$#]*|\s+[^\s\]]+\]|\])[$#](?:\s|$)",
                )
                .ok()?,
            })
        })
        .as_ref()
}

/// The reasons the log cannot come from the machine of `facts`; empty when nothing says so.
/// `path_exists` answers whether a path exists on that machine: an absolute one, or one under the
/// user's home directory written `~/...`.
pub fn foreign_reasons(
    text: &Text,
    hits: &Hits,
    matcher: &Matcher,
    facts: &Facts,
    path_exists: &dyn Fn(&str) -> bool,
) -> Vec<String> {
    let Some(p) = patterns() else {
        return Vec::new();
    };
    let lines_of = |marker: &str| -> Vec<usize> {
        hits.lines(matcher.id(marker), text)
            .into_iter()
            .map(|(line, _)| line)
            .collect()
    };
    let mut reasons = Vec::new();

    // Another operating system.
    if let Some((n, line)) = first_line(text, &lines_of(":\\"), |l| p.windows_path.is_match(l)) {
        // From the drive letter to the next quote (paths may hold spaces).
        let path = p
            .windows_path
            .find(line)
            .and_then(|m| line.get(m.start()..))
            .map(|rest| {
                let rest = rest.trim_start_matches([' ', '\t', '\'', '"', '(', '=']);
                rest.split(['"', '\'']).next().unwrap_or(rest).trim_end()
            })
            .unwrap_or(line);
        reasons.push(format!(
            "line {n} has a Windows path ({}), and this is a Linux machine",
            clip(path)
        ));
    }
    if let Some((n, _)) = first_line(text, &lines_of("/Users/"), |l| {
        p.home
            .captures(l)
            .is_some_and(|c| c[1].starts_with("/Users/"))
    }) {
        reasons.push(format!(
            "line {n} has a macOS home directory (/Users/...), and this is a Linux machine"
        ));
    }

    // WSL on one side only.
    if facts.os.wsl.is_none() {
        let mut wsl: Vec<usize> = ["microsoft-standard", "/usr/lib/wsl/", "/dev/dxg"]
            .iter()
            .flat_map(|m| lines_of(m))
            .collect();
        // `WSL` and WSL1's `-Microsoft` kernel suffix as words, in that case.
        wsl.extend(
            lines_of("WSL")
                .into_iter()
                .filter(|&n| p.wsl_word.is_match(cap(text.line(n)))),
        );
        wsl.extend(
            lines_of("-Microsoft")
                .into_iter()
                .filter(|&n| p.wsl1_kernel.is_match(cap(text.line(n)))),
        );
        if let Some(n) = wsl.iter().min() {
            reasons.push(format!(
                "line {n} comes from WSL, and this machine is not WSL"
            ));
        }
    }

    // Driver versions.
    let ours = driver_versions(facts);
    let mut theirs: Vec<(usize, Version)> = Vec::new();
    for marker in DRIVER_MARKERS {
        for n in lines_of(marker) {
            for c in p.driver_version.captures_iter(cap(text.line(n))) {
                if let Ok(v) = c[1].parse::<Version>() {
                    theirs.push((n, v));
                }
            }
        }
    }
    if let Some((n, v)) = theirs.first() {
        if ours.is_empty() {
            reasons.push(format!(
                "line {n} names NVIDIA driver {v}, and this machine has no NVIDIA driver"
            ));
        } else if !theirs.iter().any(|(_, v)| ours.contains(v)) {
            let ours: Vec<String> = ours.iter().map(ToString::to_string).collect();
            reasons.push(format!(
                "line {n} names NVIDIA driver {v}, and this machine's is {}",
                ours.join(" / ")
            ));
        }
    }

    // A GPU at work, where this machine has none.
    let has_gpu = !facts.gpus.devices.is_empty()
        || facts
            .driver
            .nvml
            .as_ref()
            .is_some_and(|n| !n.gpus.is_empty());
    if !has_gpu {
        let gpu_lines: Vec<usize> = GPU_AT_WORK.iter().flat_map(|m| lines_of(m)).collect();
        if let Some(n) = gpu_lines.iter().min() {
            reasons.push(format!(
                "line {n} shows an NVIDIA GPU at work, and this machine has none"
            ));
        } else if facts.os.wsl.is_none() {
            let mut named: Vec<usize> = GPU_NAMES.iter().flat_map(|m| lines_of(m)).collect();
            named.sort_unstable();
            named.dedup();
            if let Some((n, name)) = named.iter().find_map(|&n| {
                p.gpu_name
                    .find(cap(text.line(n)))
                    .map(|m| (n, m.as_str().to_string()))
            }) {
                reasons.push(format!(
                    "line {n} names an NVIDIA GPU ({name}), and this machine has none"
                ));
            }
        }
    }

    // A shell prompt of another host.
    if let Some(here) = facts.os.hostname.as_ref().map(|h| h.value.as_str()) {
        let short = |host: &str| host.split('.').next().unwrap_or(host).to_ascii_lowercase();
        let here = short(here);
        let mut prompts = lines_of("@");
        prompts.sort_unstable();
        prompts.dedup();
        if let Some((n, host)) = prompts.iter().find_map(|&n| {
            p.prompt
                .captures(cap(text.line(n)))
                .map(|c| (n, c[1].to_string()))
                .filter(|(_, host)| short(host) != here)
        }) {
            reasons.push(format!(
                "line {n} is a shell prompt on host `{host}`, and this machine is `{here}`"
            ));
        }
    }

    // The NVIDIA userspace driver at work, where this machine has none.
    if facts.driver.userspace.is_empty() && facts.driver.nvml.is_none() {
        let lines: Vec<usize> = USERSPACE_AT_WORK.iter().flat_map(|m| lines_of(m)).collect();
        if let Some(n) = lines.iter().min() {
            reasons.push(format!(
                "line {n} comes from a machine with the NVIDIA userspace driver installed (only it \
                 prints this), and this machine has none"
            ));
        }
    }

    // Directories of the machine that wrote the log.
    let mut paths: Vec<(usize, String)> = Vec::new();
    for (marker, re) in [("/home/", &p.home), ("-packages/", &p.site_packages)] {
        for n in lines_of(marker) {
            for c in re.captures_iter(cap(text.line(n))) {
                let path = c[1].to_string();
                if paths.len() < MAX_PATHS && !paths.iter().any(|(_, q)| *q == path) {
                    paths.push((n, path));
                }
            }
        }
    }
    if let Some((n, path)) = paths.iter().find(|(_, path)| {
        (path.starts_with('/') || path.starts_with("~/"))
            && !path.starts_with("/Users/")
            && !path_exists(path)
    }) {
        reasons.push(format!(
            "line {n} names {path}, which does not exist on this machine"
        ));
    }
    reasons
}

/// The first of `lines` whose text satisfies `test`.
fn first_line<'t>(
    text: &'t Text,
    lines: &[usize],
    test: impl Fn(&str) -> bool,
) -> Option<(usize, &'t str)> {
    lines
        .iter()
        .map(|&n| (n, cap(text.line(n))))
        .find(|(_, line)| test(line))
}

/// Every NVIDIA driver version the facts know: kernel module, userspace, NVML.
fn driver_versions(facts: &Facts) -> Vec<Version> {
    let mut versions = Vec::new();
    if let Some(module) = &facts.driver.kernel_module {
        versions.push(module.version.value.clone());
    }
    if let Some(v) = &facts.driver.userspace_version {
        versions.push(v.value.clone());
    }
    versions.extend(
        facts
            .driver
            .userspace
            .iter()
            .filter_map(|l| l.version.clone()),
    );
    if let Some(v) = facts
        .driver
        .nvml
        .as_ref()
        .and_then(|n| n.driver_version.clone())
    {
        versions.push(v);
    }
    versions
}

/// A line shortened for a message.
fn clip(line: &str) -> String {
    let line = line.trim();
    match line.char_indices().nth(80) {
        Some((i, _)) => format!("{}…", &line[..i]),
        None => line.to_string(),
    }
}
