//! Differential test of the loader simulation against the real loader: for every ELF executable
//! and shared library in this machine's standard directories (including Debian's NVIDIA driver
//! libraries and CUDA 11.8 toolkit when installed), the path the real `ldd` prints for each
//! library must be the file `gpuenv_probe::loader` resolves (compared by real path). The test runs
//! `ldd` — gpuenv itself never does. Every disagreement is printed; the agreement rate over all
//! compared edges must be at least 99 %.
//!
//! Scope: every regular file directly in the directories below (no sampling), at most
//! `MAX_FILES`, 64-bit x86-64 ELF with at least one `DT_NEEDED`; `ldd` runs with an empty
//! environment (no `LD_LIBRARY_PATH`, no `LD_PRELOAD`), and the simulation gets the same (and no
//! dlopen edges, which `ldd` cannot see). Runtime: ~1 500 files, two threads, a few seconds.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::HashMap;
use std::fs;
use std::path::Path;
use std::process::Command;

use gpuenv_probe::loader::simulate;
use gpuenv_probe::{Environment, SystemRoot};

const DIRS: &[&str] = &[
    "/usr/lib/x86_64-linux-gnu",
    "/usr/lib/x86_64-linux-gnu/nvidia/current",
    "/usr/lib/nvidia/current",
    "/usr/bin",
    "/usr/sbin",
    "/usr/libexec",
];
const MAX_FILES: usize = 3000;

/// `name -> Some(path)` or `None` for "not found", from `ldd` output.
fn parse_ldd(text: &str) -> Vec<(String, Option<String>)> {
    let mut out = Vec::new();
    for line in text.lines() {
        let line = line.trim();
        let Some((name, rest)) = line.split_once(" => ") else {
            continue;
        };
        let rest = rest.trim();
        if rest.starts_with("not found") {
            out.push((name.to_string(), None));
            continue;
        }
        let path = rest.split(" (0x").next().unwrap_or(rest).trim();
        if path.starts_with('/') {
            out.push((name.to_string(), Some(path.to_string())));
        }
    }
    out
}

fn is_candidate(path: &Path) -> bool {
    use std::io::Read;
    let mut bytes = [0u8; 64];
    let ok = fs::File::open(path).and_then(|mut f| f.read_exact(&mut bytes));
    if ok.is_err() {
        return false;
    }
    // 64-bit, little-endian, x86-64.
    bytes.starts_with(b"\x7fELF")
        && bytes[4] == 2
        && bytes[5] == 1
        && u16::from_le_bytes([bytes[18], bytes[19]]) == 62
}

struct Outcome {
    file: String,
    edges: usize,
    disagreements: Vec<String>,
    /// Edges where the path as opened (before resolving symlinks) also equals ldd's.
    same_raw_path: usize,
}

fn compare(root: &SystemRoot, file: &str, llp: Option<&str>) -> Option<Outcome> {
    let env = match llp {
        Some(v) => Environment::from_pairs([("LD_LIBRARY_PATH", v)]),
        None => Environment::default(),
    };
    let sim = simulate(root, &env, None, file).ok()?;
    if sim.objects.first().is_none_or(|o| o.needed.is_empty()) {
        return None;
    }
    let mut cmd = Command::new("ldd");
    cmd.env_clear().arg(file);
    if let Some(v) = llp {
        cmd.env("LD_LIBRARY_PATH", v);
    }
    let out = cmd.output().ok()?;
    if !out.status.success() && out.stdout.is_empty() {
        return None;
    }
    let ldd = parse_ldd(&String::from_utf8_lossy(&out.stdout));
    if ldd.is_empty() {
        return None;
    }
    // gpuenv: every name an edge asked for -> real path (None when missing).
    let mut ours: HashMap<&str, Option<(&str, &str)>> = HashMap::new();
    for o in &sim.objects {
        for d in &o.deps {
            let target = d
                .object
                .and_then(|i| sim.objects.get(i))
                .map(|t| (t.real_path.as_str(), t.path.as_str()));
            ours.entry(d.name.as_str()).or_insert(target);
        }
    }
    let mut same_raw_path = 0usize;
    let mut disagreements = Vec::new();
    let mut edges = 0usize;
    for (name, path) in &ldd {
        edges += 1;
        let theirs = path.as_ref().map(|p| {
            fs::canonicalize(p)
                .map(|c| c.display().to_string())
                .unwrap_or(p.clone())
        });
        let entry = ours.get(name.as_str()).copied().flatten();
        if entry.map(|(_, raw)| raw) == path.as_deref() {
            same_raw_path += 1;
        }
        let mine = entry.map(|(real, _)| real.to_string());
        if theirs != mine {
            disagreements.push(format!(
                "{file}: {name}: ldd {} / gpuenv {}",
                theirs.as_deref().unwrap_or("not found"),
                mine.as_deref().unwrap_or("not found")
            ));
        }
    }
    Some(Outcome {
        file: file.to_string(),
        edges,
        disagreements,
        same_raw_path,
    })
}

#[test]
fn resolution_matches_the_real_loader() {
    if Command::new("ldd").arg("--version").output().is_err() {
        eprintln!("SKIPPED: no ldd on this machine");
        return;
    }
    let mut files: Vec<String> = Vec::new();
    for dir in DIRS {
        let Ok(entries) = fs::read_dir(dir) else {
            continue;
        };
        for e in entries.flatten() {
            let path = e.path();
            let Ok(meta) = fs::symlink_metadata(&path) else {
                continue;
            };
            if !meta.is_file() || !is_candidate(&path) {
                continue;
            }
            if let Some(p) = path.to_str() {
                files.push(p.to_string());
            }
        }
    }
    files.sort();
    files.dedup();
    files.truncate(MAX_FILES);
    let root = SystemRoot::new(Path::new("/")).unwrap();
    let halves: Vec<Vec<String>> = files
        .chunks(files.len().div_ceil(2).max(1))
        .map(|c| c.to_vec())
        .collect();
    let results: Vec<Outcome> = std::thread::scope(|scope| {
        let handles: Vec<_> = halves
            .iter()
            .map(|chunk| {
                let root = root.clone();
                scope.spawn(move || {
                    chunk
                        .iter()
                        .filter_map(|f| compare(&root, f, None))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect()
    });
    let compared_files = results.len();
    let edges: usize = results.iter().map(|r| r.edges).sum();
    let bad: Vec<&String> = results
        .iter()
        .flat_map(|r| r.disagreements.iter())
        .collect();
    let files_with_bad = results
        .iter()
        .filter(|r| !r.disagreements.is_empty())
        .count();
    for d in &bad {
        println!("DISAGREE {d}");
    }
    let raw: usize = results.iter().map(|r| r.same_raw_path).sum();
    println!("ldd differential: {raw} of {edges} edges also print the same unresolved path");
    let rate = if edges == 0 {
        1.0
    } else {
        (edges - bad.len()) as f64 / edges as f64
    };
    println!(
        "ldd differential: {compared_files} files ({} candidates), {edges} library edges, {} disagreements in {files_with_bad} files, agreement {:.3} %",
        files.len(),
        bad.len(),
        rate * 100.0
    );
    if compared_files < 20 {
        eprintln!("SKIPPED: fewer than 20 dynamic ELF files found");
        return;
    }
    assert!(
        results.iter().any(|r| r.file.contains("x86_64-linux-gnu")),
        "no shared library was compared"
    );
    assert!(
        rate >= 0.99,
        "agreement {:.3} % is below 99 %",
        rate * 100.0
    );
    assert!(
        raw as f64 >= 0.99 * edges as f64,
        "unresolved paths agree for only {raw} of {edges}"
    );
}

/// The same comparison with `LD_LIBRARY_PATH` set (a directory that shadows some system
/// libraries, a missing one, and one with a trailing slash), over the NVIDIA and CUDA libraries
/// and the first programs of /usr/bin.
#[test]
fn resolution_matches_the_real_loader_with_ld_library_path() {
    if Command::new("ldd").arg("--version").output().is_err() {
        eprintln!("SKIPPED: no ldd on this machine");
        return;
    }
    let llp = "/usr/lib/x86_64-linux-gnu/nvidia/current:/nonexistent:/usr/lib/x86_64-linux-gnu/";
    let mut files: Vec<String> = Vec::new();
    for dir in ["/usr/lib/x86_64-linux-gnu", "/usr/bin"] {
        let Ok(entries) = fs::read_dir(dir) else {
            continue;
        };
        let mut names: Vec<String> = entries
            .flatten()
            .filter(|e| fs::symlink_metadata(e.path()).is_ok_and(|m| m.is_file()))
            .filter(|e| is_candidate(&e.path()))
            .filter_map(|e| e.path().to_str().map(str::to_string))
            .collect();
        names.sort();
        files.extend(
            names.into_iter().filter(|n| {
                n.contains("cu") || n.contains("nvidia") || n.starts_with("/usr/bin/a")
            }),
        );
    }
    let root = SystemRoot::new(Path::new("/")).unwrap();
    let results: Vec<Outcome> = files
        .iter()
        .filter_map(|f| compare(&root, f, Some(llp)))
        .collect();
    let edges: usize = results.iter().map(|r| r.edges).sum();
    let bad: Vec<&String> = results
        .iter()
        .flat_map(|r| r.disagreements.iter())
        .collect();
    for d in &bad {
        println!("DISAGREE {d}");
    }
    println!(
        "ldd differential with LD_LIBRARY_PATH: {} files, {edges} edges, {} disagreements",
        results.len(),
        bad.len()
    );
    assert!(
        bad.len() * 100 <= edges,
        "{} of {edges} edges disagree",
        bad.len()
    );
}
