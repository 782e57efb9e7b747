//! L4 probe: every cuDNN install the system loader or a toolkit tree holds — the shim
//! `libcudnn.so.N`, its sub-libraries, the `libcudnn.so -> .so.N -> .so.N.M.P` chain — with its
//! version from the header beside it (`cudnn_version.h`, Debian's `cudnn_version_vN.h`, 7.x's
//! `cudnn.h`) or the real file's name, and the CUDA major it was built for (its NEEDED cuBLAS).
//! Also the files of the other CUDA libraries (cuBLAS, NCCL) for the report.

use std::collections::{BTreeMap, BTreeSet};

use gpuenv_facts::{CudnnInstall, LibraryFacts, LibraryFile, LinkState, Source, Sourced, Toolkit};
use gpuenv_kb::{Kb, Version};

use crate::cuda::link;
use crate::libs::{library_file, loader_facing_files, multiarch_triplet, LibraryIndex};
use crate::parse;
use crate::root::{file_name, join, parent_dir, SystemRoot};

/// Other CUDA libraries whose files doctor lists.
const OTHER_LIBRARIES: &[&str] = &["libcublas", "libcublasLt", "libnccl"];

pub fn probe(
    root: &SystemRoot,
    kb: &Kb,
    index: &LibraryIndex,
    toolkits: &[Toolkit],
) -> LibraryFacts {
    let mut extra_dirs = Vec::new();
    for t in toolkits.iter().filter(|t| t.layout == "nvidia") {
        extra_dirs.push(join(&t.real_root, "lib64"));
        extra_dirs.push(join(&t.real_root, "lib"));
        extra_dirs.push(join(&t.real_root, "targets/x86_64-linux/lib"));
    }
    let other = OTHER_LIBRARIES
        .iter()
        .map(|stem| {
            (
                stem.to_string(),
                loader_facing_files(root, index, &extra_dirs, stem),
            )
        })
        .filter(|(_, files)| !files.is_empty())
        .collect();
    LibraryFacts {
        cudnn: cudnn_installs(root, kb, index, &extra_dirs),
        other,
    }
}

/// The major a cuDNN file name belongs to: `libcudnn.so.8.9.2` -> 8, `libcudnn_ops.so.9` -> 9.
fn cudnn_major(name: &str) -> Option<u32> {
    if !name.starts_with("libcudnn") {
        return None;
    }
    let (_, rest) = name.split_once(".so.")?;
    rest.split('.').next()?.parse().ok()
}

fn cudnn_installs(
    root: &SystemRoot,
    kb: &Kb,
    index: &LibraryIndex,
    extra_dirs: &[String],
) -> Vec<CudnnInstall> {
    // Every libcudnn* file, grouped by (directory as found, major), with how the loader reaches it.
    let mut groups: BTreeMap<(String, u32), BTreeMap<String, BTreeSet<String>>> = BTreeMap::new();
    let mut dir_seen: BTreeMap<String, String> = BTreeMap::new();
    let mut note =
        |path: &str,
         via: Vec<String>,
         groups: &mut BTreeMap<(String, u32), BTreeMap<String, BTreeSet<String>>>| {
            let name = file_name(path);
            let Some(major) = cudnn_major(name) else {
                return;
            };
            // Merge directories that are the same after resolution (merged /usr: /lib vs /usr/lib).
            let real_dir = root.resolve(parent_dir(path)).path;
            let dir = dir_seen
                .entry(real_dir)
                .or_insert_with(|| parent_dir(path).to_string())
                .clone();
            groups
                .entry((dir, major))
                .or_default()
                .entry(name.to_string())
                .or_default()
                .extend(via);
        };
    for c in index.find(root, |n| n.starts_with("libcudnn")) {
        note(
            &c.path,
            c.via.iter().map(|v| v.to_string()).collect(),
            &mut groups,
        );
    }
    for dir in extra_dirs {
        let Ok(listing) = root.read_dir(dir) else {
            continue;
        };
        for name in listing.names.iter().filter(|n| n.starts_with("libcudnn")) {
            note(&join(dir, name), Vec::new(), &mut groups);
        }
    }

    let mut out = Vec::new();
    for ((dir, major), files) in groups {
        let file = |name: &str| {
            files.get(name).map(|via| {
                let stem = name.split(".so").next().unwrap_or("libcudnn");
                library_file(root, &join(&dir, name), stem, via.iter().cloned().collect())
            })
        };
        let shim_name = format!("libcudnn.so.{major}");
        let shim = file(&shim_name).or_else(|| {
            // No SONAME link: fall back to the real file (`libcudnn.so.8.9.2`), a broken chain.
            files
                .keys()
                .filter(|n| n.starts_with(&format!("{shim_name}.")))
                .max()
                .and_then(|n| file(n))
        });
        let layout = kb.cudnn_layout(major);
        let sublibraries: Vec<LibraryFile> = match layout {
            Some(l) => l.sublibraries.iter().filter_map(|s| file(s)).collect(),
            None => Vec::new(),
        };
        let dev_link = files
            .contains_key("libcudnn.so")
            .then(|| link(root, &join(&dir, "libcudnn.so")))
            .or_else(|| {
                let p = join(&dir, "libcudnn.so");
                (root.symlink_metadata(&p).is_some()).then(|| link(root, &p))
            });
        let (header, header_version) = header_version(root, &dir, major);
        let version = header_version
            .map(|v| Sourced::new(v, Source::File(header.clone().unwrap_or_default())))
            .or_else(|| {
                // Only a file of this major tells its version: a `libcudnn.so.8` that leads to a
                // cuDNN 9 file is a broken link, not a cuDNN 9 install.
                shim.as_ref().and_then(|s| {
                    s.version.clone().filter(|v| v.major() == major).map(|v| {
                        Sourced::new(
                            v,
                            Source::Path(s.real_path.clone().unwrap_or_else(|| s.path.clone())),
                        )
                    })
                })
            });
        let cuda_major = std::iter::once(&shim)
            .flatten()
            .chain(sublibraries.iter())
            .find_map(|f| {
                f.needed.iter().find_map(|n| {
                    let major = n
                        .strip_prefix("libcublas.so.")
                        .or_else(|| n.strip_prefix("libcublasLt.so."))?
                        .split('.')
                        .next()?
                        .parse::<u32>()
                        .ok()?;
                    Some(Sourced::new(
                        major,
                        Source::Elf(format!(
                            "{} (NEEDED {n})",
                            f.real_path.as_deref().unwrap_or(&f.path)
                        )),
                    ))
                })
            });
        let mut reachable: BTreeSet<String> = BTreeSet::new();
        for f in std::iter::once(&shim).flatten().chain(sublibraries.iter()) {
            if f.link_state == LinkState::Ok {
                reachable.extend(f.reachable_via.iter().cloned());
            }
        }
        let loader_selected = index
            .loader_lookup(root, &shim_name)
            .is_some_and(|(p, _)| root.resolve(parent_dir(&p)).path == root.resolve(&dir).path);
        out.push(CudnnInstall {
            loader_selected,
            dir: dir.clone(),
            major,
            version,
            shim,
            dev_link,
            sublibraries,
            cuda_major,
            header,
            reachable_via: reachable.into_iter().collect(),
        });
    }
    out
}

/// The cuDNN header that belongs to a library directory, and its version if its major matches.
fn header_version(
    root: &SystemRoot,
    lib_dir: &str,
    major: u32,
) -> (Option<String>, Option<Version>) {
    let prefix = parent_dir(lib_dir);
    let t = multiarch_triplet();
    let mut candidates = vec![
        join(prefix, "include/cudnn_version.h"),
        join(prefix, &format!("include/cudnn_version_v{major}.h")),
        join(prefix, "include/cudnn.h"),
    ];
    // System installs (Debian/Ubuntu packages, NVIDIA's repos) put headers in /usr/include.
    if lib_dir.starts_with("/usr/lib") || lib_dir.starts_with("/lib") {
        candidates.push(format!("/usr/include/{t}/cudnn_version_v{major}.h"));
        candidates.push("/usr/include/cudnn_version.h".into());
        candidates.push("/usr/include/cudnn.h".into());
    }
    for h in candidates {
        let Ok(text) = root.read_to_string(&h) else {
            continue;
        };
        if let Some(v) = parse::cudnn_header_version(&text) {
            if v.major() == major {
                return (Some(h), Some(v));
            }
        }
    }
    (None, None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn majors_from_names() {
        assert_eq!(cudnn_major("libcudnn.so.8.9.2"), Some(8));
        assert_eq!(cudnn_major("libcudnn_ops.so.9"), Some(9));
        assert_eq!(cudnn_major("libcudnn.so"), None);
        assert_eq!(cudnn_major("libcudart.so.12"), None);
    }
}
