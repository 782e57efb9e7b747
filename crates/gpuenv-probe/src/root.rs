//! `SystemRoot`: the one way gpuenv reads a machine. Every path is joined onto the root directory
//! (`/` for the real machine), and symlinks are resolved *inside* the root: an absolute target such
//! as `/usr/local/cuda -> /usr/local/cuda-12.1` in a fake root stays in that fake root. Loops and
//! dangling links come back as states, never as errors that stop a run, and nothing is ever written.

use std::collections::HashMap;
use std::ffi::OsStr;
use std::fs;
use std::io::{self, Read};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, Mutex};

use gpuenv_facts::LinkState;

/// Symlink hops allowed while resolving one path (glibc's and the kernel's limit is 40).
const MAX_SYMLINK_HOPS: usize = 40;

/// The biggest text file gpuenv reads whole (version files, headers, /proc files).
pub const MAX_TEXT_FILE: u64 = 4 * 1024 * 1024;

/// An I/O problem, naming the path inside the root.
#[derive(Debug, thiserror::Error)]
#[error("{path}: {message}")]
pub struct RootError {
    pub path: String,
    pub message: String,
}

impl RootError {
    fn io(path: &str, err: &io::Error) -> RootError {
        RootError {
            path: path.to_string(),
            message: err.to_string(),
        }
    }
}

/// The result of resolving a path inside the root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolved {
    /// The resolved path inside the root (absolute, `/`-based), as far as resolution got.
    pub path: String,
    pub state: LinkState,
    /// The first symlink's own target, when `path` itself is a symlink.
    pub link_target: Option<String>,
}

/// Metadata of a file, as gpuenv needs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileInfo {
    pub is_dir: bool,
    pub is_file: bool,
    pub is_symlink: bool,
    pub is_char_device: bool,
    pub size: u64,
    pub mode: u32,
    pub uid: u32,
    pub gid: u32,
}

/// A machine's file system seen from its root directory.
#[derive(Debug, Clone)]
pub struct SystemRoot {
    root: PathBuf,
    live: bool,
    /// Prefixes already resolved in this run (path as asked -> resolved path). Files do not
    /// change under a run; a new `SystemRoot` starts empty.
    resolved: Arc<Mutex<HashMap<String, String>>>,
}

/// One unit of work while resolving a path.
enum Step {
    /// Walk a component; `Some(i)` when it is the caller's `i`-th component.
    Walk(Vec<u8>, Option<usize>),
    /// The caller's `i`-th component is fully resolved.
    Done(usize),
}

/// Bound on the prefix cache (a run reads tens of thousands of files at most).
const MAX_CACHED_PREFIXES: usize = 200_000;

impl SystemRoot {
    /// A root at `dir`. `/` (or a path that resolves to it) is the live machine.
    pub fn new(dir: &Path) -> Result<SystemRoot, RootError> {
        let root =
            fs::canonicalize(dir).map_err(|e| RootError::io(&dir.display().to_string(), &e))?;
        if !root.is_dir() {
            return Err(RootError {
                path: dir.display().to_string(),
                message: "not a directory".into(),
            });
        }
        let live = root == Path::new("/");
        Ok(SystemRoot {
            root,
            live,
            resolved: Arc::new(Mutex::new(HashMap::new())),
        })
    }

    /// Whether this root is the running machine (then NVML and the driver API may be asked).
    pub fn is_live(&self) -> bool {
        self.live
    }

    /// The root directory on the host.
    pub fn dir(&self) -> &Path {
        &self.root
    }

    /// The host path of `path` (lexically joined; no symlink is followed).
    pub fn host_path(&self, path: &str) -> PathBuf {
        let mut out = self.root.clone();
        for comp in Path::new(path).components() {
            match comp {
                Component::Normal(c) => out.push(c),
                Component::ParentDir if out != self.root => {
                    out.pop();
                }
                _ => {}
            }
        }
        out
    }

    /// Resolves every symlink in `path` inside the root.
    pub fn resolve(&self, path: &str) -> Resolved {
        let original = split_components(path.as_bytes());
        let last = original.len().checked_sub(1);
        let mut link_target = None;
        let mut hops = 0usize;
        // Start after the longest prefix already resolved in this run (probes read thousands of
        // files under the same directories; each prefix is walked once).
        let mut done: Vec<Vec<u8>> = Vec::new();
        let mut start = 0;
        if let Ok(cache) = self.resolved.lock() {
            // Only proper prefixes: the last component is always walked, so that a symlink's
            // own target is seen.
            for k in (1..original.len()).rev() {
                if let Some(hit) = cache.get(&join_components(&original[..k])) {
                    done = split_components(hit.as_bytes());
                    start = k;
                    break;
                }
            }
        }
        // Work items in order: a component to walk (with its index in `path` when it is one of
        // the caller's own), or the mark that the caller's component `i` is fully resolved.
        let mut pending: Vec<Step> = original[start..]
            .iter()
            .enumerate()
            .rev()
            .flat_map(|(k, c)| {
                [
                    Step::Done(start + k),
                    Step::Walk(c.clone(), Some(start + k)),
                ]
            })
            .collect();
        while let Some(step) = pending.pop() {
            let (comp, index) = match step {
                Step::Done(i) => {
                    self.remember(&original[..=i], &done);
                    continue;
                }
                Step::Walk(comp, index) => (comp, index),
            };
            if comp == b".." {
                done.pop();
                continue;
            }
            done.push(comp);
            let here = join_components(&done);
            let host = self.host_path(&here);
            let meta = match fs::symlink_metadata(&host) {
                Ok(m) => m,
                Err(_) => {
                    // Through a symlink, a missing component makes the link dangle.
                    let state = if hops > 0 {
                        LinkState::Dangling
                    } else {
                        LinkState::Missing
                    };
                    let mut rest = done.clone();
                    rest.extend(pending.into_iter().rev().filter_map(|s| match s {
                        Step::Walk(c, _) => Some(c),
                        Step::Done(_) => None,
                    }));
                    return Resolved {
                        path: join_components(&rest),
                        state,
                        link_target,
                    };
                }
            };
            if !meta.file_type().is_symlink() {
                continue;
            }
            hops += 1;
            if hops > MAX_SYMLINK_HOPS {
                return Resolved {
                    path: here,
                    state: LinkState::Loop,
                    link_target,
                };
            }
            let target = match fs::read_link(&host) {
                Ok(t) => t,
                Err(_) => {
                    return Resolved {
                        path: here,
                        state: LinkState::Dangling,
                        link_target,
                    }
                }
            };
            let target_bytes = target.as_os_str().as_bytes().to_vec();
            if index.is_some() && index == last {
                link_target = Some(String::from_utf8_lossy(&target_bytes).into_owned());
            }
            done.pop();
            if target_bytes.first() == Some(&b'/') {
                done.clear();
            }
            let new = split_components(&target_bytes);
            pending.extend(new.into_iter().rev().map(|c| Step::Walk(c, None)));
        }
        Resolved {
            path: join_components(&done),
            state: LinkState::Ok,
            link_target,
        }
    }

    /// Records that the caller's `prefix` resolves to `resolved` (an existing path).
    fn remember(&self, prefix: &[Vec<u8>], resolved: &[Vec<u8>]) {
        if let Ok(mut cache) = self.resolved.lock() {
            if cache.len() < MAX_CACHED_PREFIXES {
                cache.insert(join_components(prefix), join_components(resolved));
            }
        }
    }

    /// `stat` after resolving inside the root.
    pub fn metadata(&self, path: &str) -> Option<FileInfo> {
        let r = self.resolve(path);
        if r.state != LinkState::Ok {
            return None;
        }
        fs::metadata(self.host_path(&r.path)).ok().map(info)
    }

    /// `lstat` of the path itself (its parents resolved inside the root).
    pub fn symlink_metadata(&self, path: &str) -> Option<FileInfo> {
        let (parent, name) = split_parent(path);
        let parent = self.resolve(parent);
        if parent.state != LinkState::Ok {
            return None;
        }
        let full = format!("{}/{}", parent.path.trim_end_matches('/'), name);
        fs::symlink_metadata(self.host_path(&full)).ok().map(info)
    }

    /// Whether the path exists after resolution.
    pub fn exists(&self, path: &str) -> bool {
        self.metadata(path).is_some()
    }

    /// Whether the resolved path is a directory.
    pub fn is_dir(&self, path: &str) -> bool {
        self.metadata(path).is_some_and(|m| m.is_dir)
    }

    /// Whether the resolved path is a regular file.
    pub fn is_file(&self, path: &str) -> bool {
        self.metadata(path).is_some_and(|m| m.is_file)
    }

    /// The target text of a symlink (not resolved).
    pub fn read_link(&self, path: &str) -> Option<String> {
        let (parent, name) = split_parent(path);
        let parent = self.resolve(parent);
        let full = format!("{}/{}", parent.path.trim_end_matches('/'), name);
        fs::read_link(self.host_path(&full))
            .ok()
            .map(|t| String::from_utf8_lossy(t.as_os_str().as_bytes()).into_owned())
    }

    /// Reads a text file (at most `MAX_TEXT_FILE` bytes; invalid UTF-8 replaced).
    pub fn read_to_string(&self, path: &str) -> Result<String, RootError> {
        let bytes = self.read_bytes(path, MAX_TEXT_FILE)?;
        Ok(String::from_utf8_lossy(&bytes).into_owned())
    }

    /// Reads at most `limit` bytes of a file.
    pub fn read_bytes(&self, path: &str, limit: u64) -> Result<Vec<u8>, RootError> {
        let r = self.resolve(path);
        match r.state {
            LinkState::Ok => {}
            LinkState::Missing => {
                return Err(RootError {
                    path: path.into(),
                    message: "no such file".into(),
                })
            }
            LinkState::Dangling => {
                return Err(RootError {
                    path: path.into(),
                    message: "dangling symlink".into(),
                })
            }
            LinkState::Loop => {
                return Err(RootError {
                    path: path.into(),
                    message: "symlink loop".into(),
                })
            }
        }
        let host = self.host_path(&r.path);
        let file = fs::File::open(&host).map_err(|e| RootError::io(path, &e))?;
        let meta = file.metadata().map_err(|e| RootError::io(path, &e))?;
        if !meta.is_file() {
            return Err(RootError {
                path: path.into(),
                message: "not a regular file".into(),
            });
        }
        // Sized from the metadata, so a small file costs one read (plus the one that sees EOF).
        let expected = meta.len().min(limit);
        let mut buf = Vec::with_capacity(usize::try_from(expected).unwrap_or(0).saturating_add(1));
        file.take(limit)
            .read_to_end(&mut buf)
            .map_err(|e| RootError::io(path, &e))?;
        Ok(buf)
    }

    /// Maps a file into memory for reading only the bytes a parser touches.
    pub fn map(&self, path: &str) -> Result<memmap2::Mmap, RootError> {
        let r = self.resolve(path);
        if r.state != LinkState::Ok {
            return Err(RootError {
                path: path.into(),
                message: format!("cannot open ({:?})", r.state),
            });
        }
        let file = fs::File::open(self.host_path(&r.path)).map_err(|e| RootError::io(path, &e))?;
        let meta = file.metadata().map_err(|e| RootError::io(path, &e))?;
        if !meta.is_file() {
            return Err(RootError {
                path: path.into(),
                message: "not a regular file".into(),
            });
        }
        map_file(&file).map_err(|e| RootError::io(path, &e))
    }

    /// The names in a directory (resolved inside the root), sorted. Names that are not UTF-8
    /// cannot be CUDA library or toolkit names and are skipped; their count is returned too.
    pub fn read_dir(&self, path: &str) -> Result<DirListing, RootError> {
        let r = self.resolve(path);
        if r.state != LinkState::Ok {
            return Err(RootError {
                path: path.into(),
                message: format!("cannot list ({:?})", r.state),
            });
        }
        let iter = fs::read_dir(self.host_path(&r.path)).map_err(|e| RootError::io(path, &e))?;
        let mut names = Vec::new();
        let mut skipped_non_utf8 = 0usize;
        for entry in iter {
            let Ok(entry) = entry else { continue };
            match entry.file_name().to_str() {
                Some(n) => names.push(n.to_string()),
                None => skipped_non_utf8 += 1,
            }
        }
        names.sort();
        Ok(DirListing {
            dir: r.path,
            names,
            skipped_non_utf8,
        })
    }
}

/// A directory's entries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DirListing {
    /// The resolved directory path inside the root.
    pub dir: String,
    pub names: Vec<String>,
    pub skipped_non_utf8: usize,
}

#[allow(unsafe_code)]
fn map_file(file: &fs::File) -> io::Result<memmap2::Mmap> {
    // SAFETY: the map is read-only and private. Another process truncating the file while we read
    // it could raise SIGBUS; gpuenv reads installed libraries, which package managers replace by
    // rename rather than truncate, and the parsers bounds-check every offset against the length.
    unsafe { memmap2::Mmap::map(file) }
}

fn info(m: fs::Metadata) -> FileInfo {
    let ft = m.file_type();
    FileInfo {
        is_dir: ft.is_dir(),
        is_file: ft.is_file(),
        is_symlink: ft.is_symlink(),
        is_char_device: ft.is_char_device(),
        size: m.len(),
        mode: m.mode(),
        uid: m.uid(),
        gid: m.gid(),
    }
}

fn split_components(path: &[u8]) -> Vec<Vec<u8>> {
    path.split(|b| *b == b'/')
        .filter(|c| !c.is_empty() && *c != b".")
        .map(|c| c.to_vec())
        .collect()
}

fn join_components(comps: &[Vec<u8>]) -> String {
    let mut out = String::new();
    for c in comps {
        out.push('/');
        out.push_str(&String::from_utf8_lossy(c));
    }
    if out.is_empty() {
        out.push('/');
    }
    out
}

fn split_parent(path: &str) -> (&str, &str) {
    let trimmed = path.trim_end_matches('/');
    match trimmed.rfind('/') {
        Some(0) => ("/", &trimmed[1..]),
        Some(i) => (&trimmed[..i], &trimmed[i + 1..]),
        None => ("/", trimmed),
    }
}

/// The file name of a path.
pub fn file_name(path: &str) -> &str {
    split_parent(path).1
}

/// The parent directory of a path.
pub fn parent_dir(path: &str) -> &str {
    split_parent(path).0
}

/// Joins a directory and a name with exactly one `/`.
pub fn join(dir: &str, name: &str) -> String {
    format!(
        "{}/{}",
        dir.trim_end_matches('/'),
        name.trim_start_matches('/')
    )
}

/// True for an OS string that is valid UTF-8 (helper for callers that walk host paths).
pub fn is_utf8(s: &OsStr) -> bool {
    s.to_str().is_some()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    fn fake() -> (tempfile::TempDir, SystemRoot) {
        let dir = tempfile::tempdir().unwrap();
        let root = SystemRoot::new(dir.path()).unwrap();
        (dir, root)
    }

    #[test]
    fn absolute_symlinks_resolve_inside_the_root() {
        let (dir, root) = fake();
        fs::create_dir_all(dir.path().join("usr/local/cuda-12.1/bin")).unwrap();
        symlink("/usr/local/cuda-12.1", dir.path().join("usr/local/cuda")).unwrap();
        let r = root.resolve("/usr/local/cuda/bin");
        assert_eq!(r.state, LinkState::Ok);
        assert_eq!(r.path, "/usr/local/cuda-12.1/bin");
        let r = root.resolve("/usr/local/cuda");
        assert_eq!(r.link_target.as_deref(), Some("/usr/local/cuda-12.1"));
        assert!(root.is_dir("/usr/local/cuda"));
        assert!(!root.is_live());
    }

    #[test]
    fn escaping_with_dotdot_stays_in_the_root() {
        let (dir, root) = fake();
        fs::create_dir_all(dir.path().join("a")).unwrap();
        symlink("../../../../etc", dir.path().join("a/up")).unwrap();
        let r = root.resolve("/a/up");
        assert_eq!(r.path, "/etc");
        assert_eq!(r.state, LinkState::Dangling);
    }

    #[test]
    fn loops_and_dangling_links_are_states() {
        let (dir, root) = fake();
        symlink("/b", dir.path().join("a")).unwrap();
        symlink("/a", dir.path().join("b")).unwrap();
        symlink("/nowhere", dir.path().join("c")).unwrap();
        assert_eq!(root.resolve("/a").state, LinkState::Loop);
        assert_eq!(root.resolve("/c").state, LinkState::Dangling);
        assert_eq!(root.resolve("/d").state, LinkState::Missing);
        assert!(root.read_to_string("/a").is_err());
        assert!(root.read_to_string("/c").is_err());
    }

    #[test]
    fn relative_chains_like_debian_alternatives() {
        let (dir, root) = fake();
        let lib = dir.path().join("usr/lib/x86_64-linux-gnu");
        fs::create_dir_all(lib.join("nvidia/current")).unwrap();
        fs::create_dir_all(dir.path().join("etc/alternatives")).unwrap();
        fs::write(lib.join("nvidia/current/libcuda.so.535.261.03"), b"x").unwrap();
        symlink(
            "libcuda.so.535.261.03",
            lib.join("nvidia/current/libcuda.so.1"),
        )
        .unwrap();
        symlink(
            "/usr/lib/x86_64-linux-gnu/nvidia/current/libcuda.so.1",
            dir.path().join("etc/alternatives/nvidia--libcuda.so.1"),
        )
        .unwrap();
        symlink(
            "/etc/alternatives/nvidia--libcuda.so.1",
            lib.join("libcuda.so.1"),
        )
        .unwrap();
        let r = root.resolve("/usr/lib/x86_64-linux-gnu/libcuda.so.1");
        assert_eq!(r.state, LinkState::Ok);
        assert_eq!(
            r.path,
            "/usr/lib/x86_64-linux-gnu/nvidia/current/libcuda.so.535.261.03"
        );
        assert_eq!(
            root.read_to_string("/usr/lib/x86_64-linux-gnu/libcuda.so.1")
                .unwrap(),
            "x"
        );
    }

    #[test]
    fn read_dir_sorts_and_skips_non_utf8_names() {
        let (dir, root) = fake();
        fs::write(dir.path().join("b"), b"").unwrap();
        fs::write(dir.path().join("a"), b"").unwrap();
        fs::write(dir.path().join(OsStr::from_bytes(b"\xff\xfe")), b"").unwrap();
        let l = root.read_dir("/").unwrap();
        assert_eq!(l.names, vec!["a", "b"]);
        assert_eq!(l.skipped_non_utf8, 1);
    }

    #[test]
    fn read_bytes_respects_the_limit() {
        let (dir, root) = fake();
        fs::write(dir.path().join("big"), vec![b'x'; 1000]).unwrap();
        assert_eq!(root.read_bytes("/big", 10).unwrap().len(), 10);
        assert!(root.read_to_string("/").is_err());
    }
}
