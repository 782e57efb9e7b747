//! Core metadata (`METADATA`, `PKG-INFO`): the RFC 822 header block up to the first blank line,
//! and the top-level module names a `RECORD` installs.

use std::collections::BTreeSet;

/// The fields gpuenv uses from a distribution's core metadata.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CoreMetadata {
    pub name: Option<String>,
    pub version: Option<String>,
    pub requires_dist: Vec<String>,
    pub requires_python: Option<String>,
    pub provides_extra: Vec<String>,
}

/// Parses the header block of a `METADATA` / `PKG-INFO` file. Stops at the first blank line (the
/// description follows) so that a long README costs nothing; folded lines are joined.
pub fn parse_metadata(text: &str) -> CoreMetadata {
    let mut meta = CoreMetadata::default();
    let mut current: Option<(String, String)> = None;
    let finish = |field: Option<(String, String)>, meta: &mut CoreMetadata| {
        let Some((key, value)) = field else { return };
        let value = value.trim().to_string();
        match key.to_ascii_lowercase().as_str() {
            "name" => meta.name = Some(value),
            "version" => meta.version = Some(value),
            "requires-dist" => meta.requires_dist.push(value),
            "requires-python" => meta.requires_python = Some(value),
            "provides-extra" => meta.provides_extra.push(value),
            _ => {}
        }
    };
    for line in text.lines() {
        if line.trim().is_empty() {
            break;
        }
        if line.starts_with(' ') || line.starts_with('\t') {
            if let Some((_, value)) = current.as_mut() {
                value.push(' ');
                value.push_str(line.trim());
            }
            continue;
        }
        finish(current.take(), &mut meta);
        if let Some((key, value)) = line.split_once(':') {
            current = Some((key.trim().to_string(), value.to_string()));
        }
    }
    finish(current, &mut meta);
    meta
}

/// The top-level importable names a `RECORD` installs (`cv2`, `torch`, `numpy.libs` excluded):
/// first path components that are packages or modules, not metadata, scripts or data.
pub fn top_level_from_record(text: &str) -> Vec<String> {
    let mut names = BTreeSet::new();
    for line in text.lines() {
        let path = match line.split_once(',') {
            Some((p, _)) => p,
            None => line,
        }
        .trim_matches('"');
        if path.is_empty() || path.starts_with("..") || path.starts_with('/') {
            continue;
        }
        let first = path.split('/').next().unwrap_or("");
        if first.ends_with(".dist-info")
            || first.ends_with(".egg-info")
            || first.ends_with(".data")
            || first.ends_with(".libs")
            || first == "__pycache__"
            || first.ends_with(".pth")
        {
            continue;
        }
        let name = if path.contains('/') {
            first
        } else if let Some(module) = first.strip_suffix(".py") {
            module
        } else if first.contains(".cpython-")
            || first.ends_with(".so")
            || first.ends_with(".abi3.so")
        {
            first.split('.').next().unwrap_or(first)
        } else {
            continue;
        };
        if !name.is_empty() {
            names.insert(name.to_string());
        }
    }
    names.into_iter().collect()
}

/// The `(path, hash)` pairs of a `RECORD` whose files another distribution could overwrite:
/// entries with a hash, outside metadata and byte-code directories and outside the prefix.
pub fn record_entries(text: &str) -> Vec<(String, String)> {
    record_entries_iter(text)
        .map(|(p, h)| (p.to_string(), h.to_string()))
        .collect()
}

/// `record_entries` without copying: slices of `text`.
pub fn record_entries_iter(text: &str) -> impl Iterator<Item = (&str, &str)> {
    text.lines().filter_map(|line| {
        let mut fields = line.rsplitn(3, ',');
        let _size = fields.next();
        let hash = fields.next()?;
        let path = fields.next()?.trim_matches('"');
        let skip = hash.is_empty()
            || path.starts_with("..")
            || path.starts_with('/')
            || path.contains("__pycache__/")
            || path
                .split('/')
                .next()
                .is_some_and(|f| f.ends_with(".dist-info") || f.ends_with(".egg-info"));
        (!skip).then_some((path, hash))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn torch_2_1_metadata_with_parenthesised_pins() {
        // The real layout of torch 2.1.0's METADATA (Metadata-Version 2.1), see real-layouts.md 3.2.
        let text = "Metadata-Version: 2.1\nName: torch\nVersion: 2.1.0\nSummary: Tensors and Dynamic neural networks\nRequires-Python: >=3.8.0\nRequires-Dist: filelock\nRequires-Dist: nvidia-cuda-runtime-cu12 (==12.1.105) ; platform_system == \"Linux\" and platform_machine == \"x86_64\"\nRequires-Dist: nvidia-cudnn-cu12 (==8.9.2.26) ; platform_system == \"Linux\" and platform_machine == \"x86_64\"\nProvides-Extra: opt-einsum\n\nPyTorch is a Python package\nRequires-Dist: not-a-header\n";
        let m = parse_metadata(text);
        assert_eq!(m.name.as_deref(), Some("torch"));
        assert_eq!(m.version.as_deref(), Some("2.1.0"));
        assert_eq!(m.requires_python.as_deref(), Some(">=3.8.0"));
        assert_eq!(m.requires_dist.len(), 3);
        assert!(m.requires_dist[2].starts_with("nvidia-cudnn-cu12 (==8.9.2.26)"));
        assert_eq!(m.provides_extra, vec!["opt-einsum"]);
    }

    #[test]
    fn folded_header_lines_are_joined() {
        let m = parse_metadata("Name: a\nRequires-Dist: b\n  ; extra == 'x'\n");
        assert_eq!(m.requires_dist, vec!["b ; extra == 'x'"]);
    }

    #[test]
    fn record_entries_keep_overwritable_files() {
        let record = "cv2/__init__.py,sha256=abc,10\ncv2/__pycache__/x.pyc,,\nopencv_python-4.9.0.80.dist-info/RECORD,,\n../../bin/x,sha256=d,1\n\"a,b.py\",sha256=e,2\n";
        assert_eq!(
            record_entries(record),
            vec![
                ("cv2/__init__.py".to_string(), "sha256=abc".to_string()),
                ("a,b.py".to_string(), "sha256=e".to_string())
            ]
        );
    }

    #[test]
    fn record_top_levels() {
        let record = "cv2/__init__.py,sha256=x,1\ncv2/version.py,sha256=y,2\nopencv_python-4.9.0.80.dist-info/RECORD,,\nopencv_python.libs/libz.so,sha256=z,3\n../../bin/foo,sha256=a,1\nsix.py,sha256=b,3\n_cffi_backend.cpython-311-x86_64-linux-gnu.so,sha256=c,4\n__pycache__/six.cpython-311.pyc,,\n";
        assert_eq!(
            top_level_from_record(record),
            vec!["_cffi_backend", "cv2", "six"]
        );
    }
}
