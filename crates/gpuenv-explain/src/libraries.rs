//! Where the shared libraries a log asks for (`libcublas.so.11: cannot open shared object file`)
//! are on the machine the facts describe: reachable by the system loader, installed where it does
//! not look (a toolkit tree, a Python environment's `nvidia/*/lib`, a conda environment's `lib`),
//! or nowhere. The fact checks `library-installed`, `library-unreachable` and `cudnn-other-major`
//! (refine.rs) read it.
//!
//! Pure: facts in, places out.

use gpuenv_facts::{Facts, LibraryFile, LinkState};

/// The library stems whose system copies the probes inventory (cuDNN, the CUDA runtime, cuBLAS,
/// NCCL): for these, "found nowhere" means not installed. Other libraries are only ever found in
/// the environments' own directories, so their absence there proves nothing.
const INVENTORIED: [&str; 5] = [
    "libcudnn",
    "libcudart",
    "libcublas",
    "libcublasLt",
    "libnccl",
];

/// A library as a loader asks for it: its stem and SONAME major (`libcudart.so.11.0` is
/// (`libcudart`, 11)). cuDNN's sub-libraries (`libcudnn_ops_infer.so.8`) come with the shim of
/// their major, so they count as `libcudnn`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Wanted {
    /// As the log wrote it.
    pub name: String,
    pub stem: String,
    pub major: u32,
}

impl Wanted {
    /// `libX.so.N` as the loader names the major.
    pub fn soname(&self) -> String {
        format!("{}.so.{}", self.stem, self.major)
    }
}

/// Where a wanted library is.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Whereabouts {
    /// Copies the system loader reaches, each with how (`/usr/lib/x86_64-linux-gnu (ld.so.cache)`).
    pub reachable: Vec<String>,
    /// Copies on the machine the system loader does not reach (a toolkit tree, an environment's
    /// own directory), each with where.
    pub unreachable: Vec<String>,
    /// Whether the system's copies of this library are inventoried by the probes at all.
    pub inventoried: bool,
}

impl Whereabouts {
    pub fn nowhere(&self) -> bool {
        self.reachable.is_empty() && self.unreachable.is_empty()
    }
}

/// The stem and major of a library file or SONAME: `libcublasLt.so.12.1.3.1` -> (`libcublasLt`,
/// 12); cuDNN's sub-libraries fold into `libcudnn`. None without a numeric major.
pub fn stem_and_major(name: &str) -> Option<(String, u32)> {
    let (stem, rest) = name.split_once(".so.")?;
    let major: u32 = rest.split('.').next()?.parse().ok()?;
    let stem = if stem.starts_with("libcudnn") {
        "libcudnn"
    } else {
        stem
    };
    Some((stem.to_string(), major))
}

/// The libraries named in a log's lines (`Extracted::libraries`), one per stem and major.
pub fn wanted(libraries: &[String]) -> Vec<Wanted> {
    let mut out: Vec<Wanted> = Vec::new();
    for name in libraries {
        let Some((stem, major)) = stem_and_major(name) else {
            continue;
        };
        if !out.iter().any(|w| w.stem == stem && w.major == major) {
            out.push(Wanted {
                name: name.clone(),
                stem,
                major,
            });
        }
    }
    out
}

/// Where `wanted` is on the machine `facts` describe.
pub fn whereabouts(facts: &Facts, wanted: &Wanted) -> Whereabouts {
    let mut found = Whereabouts {
        inventoried: INVENTORIED.contains(&wanted.stem.as_str()),
        ..Whereabouts::default()
    };
    if wanted.stem == "libcudnn" {
        for c in facts
            .libraries
            .cudnn
            .iter()
            .filter(|c| c.major == wanted.major)
        {
            let broken = c
                .shim
                .as_ref()
                .is_some_and(|s| !matches!(s.link_state, LinkState::Ok));
            if c.reachable_via.is_empty() || broken {
                found.unreachable.push(format!(
                    "{}{}",
                    c.dir,
                    if broken { " (its link is broken)" } else { "" }
                ));
            } else {
                found
                    .reachable
                    .push(format!("{} ({})", c.dir, c.reachable_via.join(", ")));
            }
        }
    } else {
        let files: Vec<&LibraryFile> = if wanted.stem == "libcudart" {
            facts.cuda.runtimes.iter().collect()
        } else {
            facts
                .libraries
                .other
                .get(&wanted.stem)
                .map(|files| files.iter().collect())
                .unwrap_or_default()
        };
        for f in files {
            let name = f.soname.as_deref().unwrap_or(&f.path);
            let matches = stem_and_major(file_name(name))
                .is_some_and(|(s, m)| s == wanted.stem && m == wanted.major);
            if !matches || f.error.is_some() {
                continue;
            }
            let place = if f.reachable_via.is_empty() {
                &mut found.unreachable
            } else {
                &mut found.reachable
            };
            let text = if f.reachable_via.is_empty() {
                f.dir.clone()
            } else {
                format!("{} ({})", f.dir, f.reachable_via.join(", "))
            };
            if !place.contains(&text) {
                place.push(text);
            }
        }
    }
    for env in &facts.python.environments {
        let mut dirs: Vec<&str> = env
            .cuda_libraries
            .iter()
            .filter(|path| {
                stem_and_major(file_name(path))
                    .is_some_and(|(s, m)| s == wanted.stem && m == wanted.major)
            })
            .map(|path| parent_dir(path))
            .collect();
        dirs.dedup();
        for dir in dirs {
            found
                .unreachable
                .push(format!("{dir} (Python environment `{}`)", env.name));
        }
    }
    found
}

/// The other cuDNN majors installed, with where (for a log that asks for one that is not).
pub fn other_cudnn_majors(facts: &Facts, major: u32) -> Vec<String> {
    let mut out: Vec<String> = facts
        .libraries
        .cudnn
        .iter()
        .filter(|c| c.major != major)
        .map(|c| format!("cuDNN {} in {}", c.major, c.dir))
        .collect();
    for env in &facts.python.environments {
        for path in &env.cuda_libraries {
            if let Some((stem, m)) = stem_and_major(file_name(path)) {
                let text = format!(
                    "cuDNN {m} in {} (Python environment `{}`)",
                    parent_dir(path),
                    env.name
                );
                if stem == "libcudnn" && m != major && !out.contains(&text) {
                    out.push(text);
                }
            }
        }
    }
    out
}

fn file_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

fn parent_dir(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(dir, _)| dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stems_and_majors() {
        assert_eq!(
            stem_and_major("libcudart.so.11.0"),
            Some(("libcudart".into(), 11))
        );
        assert_eq!(
            stem_and_major("libcublasLt.so.12.1.3.1"),
            Some(("libcublasLt".into(), 12))
        );
        assert_eq!(
            stem_and_major("libcudnn_ops_infer.so.8"),
            Some(("libcudnn".into(), 8))
        );
        assert_eq!(stem_and_major("libcublas.so"), None);
        assert_eq!(stem_and_major("libcudnn.so.x"), None);
    }

    #[test]
    fn wanted_is_one_per_stem_and_major() {
        let w = wanted(&[
            "libcudnn_ops.so.9.1.0".to_string(),
            "libcudnn_ops.so.9".to_string(),
            "libcublas.so.11".to_string(),
            "libcuda.so".to_string(),
        ]);
        assert_eq!(w.len(), 2);
        assert_eq!(w[0].soname(), "libcudnn.so.9");
        assert_eq!(w[1].soname(), "libcublas.so.11");
    }
}
