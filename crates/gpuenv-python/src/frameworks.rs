//! Framework build files read as text, never imported: `torch/version.py` (both `cuda = '12.1'`
//! and `cuda: Optional[str] = '13.2'`), TensorFlow's `build_info.py` (a dict or an
//! `OrderedDict([...])` of pairs), and OpenCV's `cv2/version.py`.

use std::collections::BTreeMap;

/// A Python literal as these generated files write them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PyValue {
    Str(String),
    Bool(bool),
    None,
    List(Vec<String>),
    /// Anything else, as written.
    Other(String),
}

impl PyValue {
    pub fn as_str(&self) -> Option<&str> {
        match self {
            PyValue::Str(s) => Some(s),
            _ => None,
        }
    }
}

/// Parses one literal at the start of `s`; returns it and the rest of the text.
fn literal(s: &str) -> (PyValue, &str) {
    let s = s.trim_start();
    if let Some(quote) = s.chars().next().filter(|c| *c == '\'' || *c == '"') {
        let body = &s[1..];
        return match body.find(quote) {
            Some(end) => (PyValue::Str(body[..end].to_string()), &body[end + 1..]),
            None => (PyValue::Other(s.to_string()), ""),
        };
    }
    if let Some(body) = s.strip_prefix('[') {
        let Some(end) = body.find(']') else {
            return (PyValue::Other(s.to_string()), "");
        };
        let items = body[..end]
            .split(',')
            .map(|i| i.trim().trim_matches(|c| c == '\'' || c == '"').to_string())
            .filter(|i| !i.is_empty())
            .collect();
        return (PyValue::List(items), &body[end + 1..]);
    }
    let word_end = s
        .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '.'))
        .unwrap_or(s.len());
    let word = &s[..word_end];
    let value = match word {
        "True" => PyValue::Bool(true),
        "False" => PyValue::Bool(false),
        "None" => PyValue::None,
        _ => PyValue::Other(word.to_string()),
    };
    (value, &s[word_end..])
}

/// Top-level `name = literal` and `name: Type = literal` assignments of a Python file.
pub fn assignments(text: &str) -> BTreeMap<String, PyValue> {
    let mut out = BTreeMap::new();
    for line in text.lines() {
        if line.starts_with([' ', '\t', '#']) {
            continue;
        }
        let Some((lhs, rhs)) = line.split_once('=') else {
            continue;
        };
        if rhs.starts_with('=') || lhs.ends_with(['!', '<', '>']) {
            continue;
        }
        let name = lhs.split(':').next().unwrap_or("").trim();
        if name.is_empty() || !name.chars().all(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        out.insert(name.to_string(), literal(rhs).0);
    }
    out
}

/// What `torch/version.py` says about a build.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TorchVersionPy {
    /// `__version__`, with its local tag (`2.1.0+cu121`, `2.3.0+cpu`).
    pub version: Option<String>,
    /// The CUDA version the build targets (`12.1`), `None` for CPU and ROCm builds.
    pub cuda: Option<String>,
    /// The HIP version of a ROCm build.
    pub hip: Option<String>,
    pub git_version: Option<String>,
}

pub fn parse_torch_version_py(text: &str) -> TorchVersionPy {
    let a = assignments(text);
    let get = |k: &str| a.get(k).and_then(|v| v.as_str()).map(str::to_string);
    TorchVersionPy {
        version: get("__version__"),
        cuda: get("cuda"),
        hip: get("hip"),
        git_version: get("git_version"),
    }
}

/// The `key -> value` pairs of TensorFlow's `build_info.py`, in either of its forms:
/// `build_info = {'cuda_version': '11.2', ...}` or `OrderedDict([('cuda_version', '12.5.1'), ...])`.
pub fn parse_tf_build_info(text: &str) -> BTreeMap<String, PyValue> {
    let mut out = BTreeMap::new();
    let mut rest = text;
    while let Some(pos) = rest.find(['\'', '"']) {
        let (key, after) = literal(&rest[pos..]);
        let PyValue::Str(key) = key else {
            rest = &rest[pos + 1..];
            continue;
        };
        let after_trim = after.trim_start();
        match after_trim.chars().next() {
            Some(':') | Some(',')
                if !key.is_empty()
                    && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') =>
            {
                let (value, tail) = literal(&after_trim[1..]);
                // A key followed by another key is a list item, not a pair; pairs' values are
                // literals. `('a', 'b')` pairs and `'a': 'b'` entries both land here.
                out.entry(key).or_insert(value);
                rest = tail;
            }
            _ => rest = after,
        }
    }
    out
}

/// TensorFlow build facts.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TfBuildInfo {
    pub is_cuda_build: Option<bool>,
    pub cuda_version: Option<String>,
    pub cudnn_version: Option<String>,
    pub cuda_compute_capabilities: Vec<String>,
}

pub fn tf_build_info(text: &str) -> TfBuildInfo {
    let map = parse_tf_build_info(text);
    TfBuildInfo {
        is_cuda_build: match map.get("is_cuda_build") {
            Some(PyValue::Bool(b)) => Some(*b),
            _ => None,
        },
        cuda_version: map
            .get("cuda_version")
            .and_then(|v| v.as_str())
            .map(str::to_string),
        cudnn_version: map
            .get("cudnn_version")
            .and_then(|v| v.as_str())
            .map(str::to_string),
        cuda_compute_capabilities: match map.get("cuda_compute_capabilities") {
            Some(PyValue::List(l)) => l.clone(),
            _ => Vec::new(),
        },
    }
}

/// OpenCV's `cv2/version.py`: which flavour owns `cv2` now.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OpencvVersionPy {
    pub version: Option<String>,
    pub contrib: Option<bool>,
    pub headless: Option<bool>,
}

pub fn parse_cv2_version_py(text: &str) -> OpencvVersionPy {
    let a = assignments(text);
    let flag = |k: &str| match a.get(k) {
        Some(PyValue::Bool(b)) => Some(*b),
        _ => None,
    };
    OpencvVersionPy {
        version: a
            .get("opencv_version")
            .and_then(|v| v.as_str())
            .map(str::to_string),
        contrib: flag("contrib"),
        headless: flag("headless"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn torch_version_py_both_eras() {
        // Verbatim from the real wheels (real-layouts.md 3.1).
        let new = "from typing import Optional\n\n__all__ = ['__version__', 'debug', 'cuda', 'git_version', 'hip', 'rocm', 'xpu']\n__version__ = '2.15.0+cu132'\ndebug = False\ncuda: Optional[str] = '13.2'\ngit_version = 'd0f2af8b66b20da4baa50644c0cd3f887a2eae2e'\nhip: Optional[str] = None\nrocm: Optional[str] = None\nxpu: Optional[str] = None\n";
        let t = parse_torch_version_py(new);
        assert_eq!(t.version.as_deref(), Some("2.15.0+cu132"));
        assert_eq!(t.cuda.as_deref(), Some("13.2"));
        assert_eq!(t.hip, None);
        let old = "__version__ = '2.1.0+cu121'\ndebug = False\ncuda = '12.1'\ngit_version = '7bcf7da3a268b435777fe87c7794c382f444e86d'\nhip = None\n";
        let t = parse_torch_version_py(old);
        assert_eq!(t.version.as_deref(), Some("2.1.0+cu121"));
        assert_eq!(t.cuda.as_deref(), Some("12.1"));
        let cpu = "__version__ = '2.3.0+cpu'\ndebug = False\ncuda: Optional[str] = None\n";
        assert_eq!(parse_torch_version_py(cpu).cuda, None);
    }

    #[test]
    fn tensorflow_build_info_both_forms() {
        // The 2.21 form (real-layouts.md 3.1).
        let new = "import collections\nbuild_info = collections.OrderedDict([('cpu_compiler', '/usr/lib/llvm-18/bin/clang'), ('cuda_compute_capabilities', ['sm_60', 'sm_70', 'sm_80', 'sm_89', 'compute_90']), ('cuda_version', '12.5.1'), ('cudnn_version', '9'), ('is_cuda_build', True), ('is_rocm_build', False)])\n";
        let b = tf_build_info(new);
        assert_eq!(b.cuda_version.as_deref(), Some("12.5.1"));
        assert_eq!(b.cudnn_version.as_deref(), Some("9"));
        assert_eq!(b.is_cuda_build, Some(true));
        assert_eq!(
            b.cuda_compute_capabilities,
            vec!["sm_60", "sm_70", "sm_80", "sm_89", "compute_90"]
        );
        let old = "build_info = {'cpu_compiler': '/usr/bin/gcc', 'cuda_compute_capabilities': ['sm_35', 'compute_80'], 'cuda_version': '11.2', 'cudnn_version': '8', 'is_cuda_build': True, 'is_rocm_build': False}\n";
        let b = tf_build_info(old);
        assert_eq!(b.cuda_version.as_deref(), Some("11.2"));
        assert_eq!(b.cuda_compute_capabilities, vec!["sm_35", "compute_80"]);
        let cpu = "build_info = {'is_cuda_build': False, 'is_rocm_build': False}\n";
        assert_eq!(tf_build_info(cpu).is_cuda_build, Some(false));
    }

    #[test]
    fn opencv_flavour() {
        let v = parse_cv2_version_py("opencv_version = \"4.9.0.80\"\ncontrib = False\nheadless = True\nrolling = False\nci_build = True\n");
        assert_eq!(v.version.as_deref(), Some("4.9.0.80"));
        assert_eq!(v.headless, Some(true));
        assert_eq!(v.contrib, Some(false));
    }
}
