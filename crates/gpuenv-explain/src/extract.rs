//! Values pulled out of the lines that matched a signature: library names, GPU architectures,
//! version pairs ("compiled against X but found Y"), Xid numbers, cuDNN majors asked for and
//! named (for the text checks causes can name). A handful of regexes, run only on matched lines,
//! never over the whole log.

use std::sync::OnceLock;

use regex::Regex;
use serde::Serialize;

use gpuenv_kb::ComputeCapability;

/// At most this many bytes of one line are searched.
const LINE_CAP: usize = 4096;

/// What the matched lines say.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Extracted {
    /// Shared-library names (`libcudnn.so.8`, `libcudart.so.11.0`).
    pub libraries: Vec<String>,
    /// GPU architectures named (`sm_61`, `compute capability 3.5`).
    pub archs: Vec<ComputeCapability>,
    /// (built for, found) version pairs.
    pub version_pairs: Vec<(String, String)>,
    /// NVIDIA Xid error numbers.
    pub xids: Vec<u32>,
}

struct Patterns {
    library: Regex,
    sm: Regex,
    capability: Regex,
    compiled_found: Regex,
    loaded_compiled: Regex,
    xid: Regex,
    stated_version: Regex,
    cudnn_asked: Regex,
    cudnn_named: Regex,
}

fn patterns() -> Option<&'static Patterns> {
    static PATTERNS: OnceLock<Option<Patterns>> = OnceLock::new();
    PATTERNS
        .get_or_init(|| {
            Some(Patterns {
                library: Regex::new(r"\blib[A-Za-z0-9_+\-]+\.so(?:\.[0-9]+)*").ok()?,
                sm: Regex::new(r"\bsm_([0-9]{2,3})[af]?\b").ok()?,
                capability: Regex::new(r"(?i)(?:compute capability|cuda capability)[: ]*([0-9]+)\.([0-9]+)").ok()?,
                compiled_found: Regex::new(
                    r"(?i)(?:compiled\s+against|compiled\s+with|built\s+with|compiled\s+using)[^0-9(]{0,30}\(?([0-9]+(?:[., ]+[0-9]+)*)\)?.{0,80}?(?:found|runtime|loaded)[^0-9(]{0,40}\(?([0-9]+(?:[., ]+[0-9]+)*)\)?",
                )
                .ok()?,
                loaded_compiled: Regex::new(
                    r"(?i)loaded runtime cudnn library:?\s*([0-9.]+)\s+but source was compiled with:?\s*([0-9.]+)",
                )
                .ok()?,
                xid: Regex::new(r"\bXid\b(?:\s*\([^)]*\))?:?\s*([0-9]{1,3})\b").ok()?,
                stated_version: Regex::new(
                    r#"(?i)(?:release|version|detected:?)(?:\s+is)?:?\s*"?v?([0-9]{1,3})\.([0-9]{1,3})\b"#,
                )
                .ok()?,
                // The cuDNN a loader message asks for: `libcudnn.so.8`, `libcudnn_ops_infer.so.8`,
                // `cudnn64_8.dll`, `cudnn_ops_infer64_8.dll`.
                cudnn_asked: Regex::new(r"(?i)(?:libcudnn[a-z_]*\.so\.|cudnn[a-z_]*64_)([0-9]{1,2})\b").ok()?,
                // A cuDNN named with its version: the loader names above, `cuDNN version: 8.0.2`,
                // `cudnn 8.9`, `CUDA/cuDNN version: 10.1/8.0.2.39`, `nvidia-cudnn-cu12==9.1.0.70`
                // (or pip list's `nvidia-cudnn-cu12  9.1.0.70`), Debian's `libcudnn8`, image tags'
                // `cudnn8-runtime`, `cudnn9`, and an install directory's `cudnn-6.0/lib64`,
                // `cudnn/v8.0.3.33-cuda.11.0`.
                cudnn_named: Regex::new(
                    r"(?i)(?:libcudnn[a-z_]*\.so\.|cudnn[a-z_]*64_)([0-9]{1,2})\b|\bcudnn(?:\s+version)?\s*[:=\-/]?\s*v?([0-9]{1,2})\.[0-9]+|cuda/cudnn\s+version\s*:?\s*[0-9.]+\s*/\s*([0-9]{1,2})\.|nvidia-cudnn-cu[0-9]{2}\s*(?:==|\s)\s*([0-9]{1,2})\.|\blib(?:cudnn)([0-9]{1,2})\b|\bcudnn([0-9]{1,2})(?:\b|[-_])",
                )
                .ok()?,
            })
        })
        .as_ref()
}

/// Extracts values from the given lines.
pub fn extract<'a>(lines: impl Iterator<Item = &'a str>) -> Extracted {
    let mut out = Extracted::default();
    let Some(p) = patterns() else {
        return out;
    };
    for line in lines {
        let line = cap(line);
        for m in p.library.find_iter(line) {
            push_unique(&mut out.libraries, m.as_str().to_string());
        }
        for c in p.sm.captures_iter(line) {
            if let Some(cc) = c.get(1).and_then(|d| sm_to_cc(d.as_str())) {
                push_unique(&mut out.archs, cc);
            }
        }
        for c in p.capability.captures_iter(line) {
            let major = c.get(1).and_then(|d| d.as_str().parse().ok());
            let minor = c.get(2).and_then(|d| d.as_str().parse().ok());
            if let (Some(major), Some(minor)) = (major, minor) {
                push_unique(&mut out.archs, ComputeCapability::new(major, minor));
            }
        }
        for c in p.compiled_found.captures_iter(line) {
            if let (Some(a), Some(b)) = (c.get(1), c.get(2)) {
                push_unique(&mut out.version_pairs, (tidy(a.as_str()), tidy(b.as_str())));
            }
        }
        for c in p.loaded_compiled.captures_iter(line) {
            if let (Some(found), Some(built)) = (c.get(1), c.get(2)) {
                push_unique(
                    &mut out.version_pairs,
                    (tidy(built.as_str()), tidy(found.as_str())),
                );
            }
        }
        for c in p.xid.captures_iter(line) {
            if let Some(x) = c.get(1).and_then(|d| d.as_str().parse().ok()) {
                push_unique(&mut out.xids, x);
            }
        }
    }
    out
}

/// The version a toolkit statement names (`Cuda compilation tools, release 8.0, V8.0.61`, `-- got
/// cuda version 7.5`, `Found CUDA: /usr/local/cuda (found version "11.8")`), or a driver statement
/// (TensorFlow's `libcuda reported version is: 384.111.0`), as (major, minor): the first
/// `release X.Y`, `version X.Y`, `version is: X.Y` or `detected: X.Y` in `line` at or after byte
/// `from`.
pub fn stated_version(line: &str, from: usize) -> Option<(u32, u32)> {
    let p = patterns()?;
    let rest = cap(line.get(from..)?);
    let c = p.stated_version.captures(rest)?;
    let major = c.get(1)?.as_str().parse().ok()?;
    let minor = c.get(2)?.as_str().parse().ok()?;
    Some((major, minor))
}

/// A condition on the log's text that a cause of a signature can name (`when_text`,
/// `unless_text` in the catalogue): things that take more than a word to see.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextCheck {
    /// The signature's line asks for a cuDNN major (`libcudnn.so.7: cannot open`) and another
    /// line names a cuDNN of another major (`cuDNN version: 8.0.2`, `libcudnn.so.9`): a cuDNN is
    /// installed, just not the one the program was built for.
    AnotherCudnnMajor,
    /// The log shows the value of `LD_LIBRARY_PATH` (on its line, or on the next one after an
    /// `echo $LD_LIBRARY_PATH`) and it names a CUDA or cuDNN directory: a copy there is found
    /// before the framework's own.
    LdLibraryPathNamesCuda,
    /// A `SyntaxError: invalid syntax` whose quoted source line (one of the three lines above)
    /// holds an f-string (`print(f"...")`): Python 3.6+ code run by an older Python, most often
    /// Python 2 as `python`.
    FStringSyntaxError,
    /// A line of the log carried Docker Compose's service column (`qna-transformers_1  | `,
    /// `ollama-1  | `, which normalising strips): the program ran in a container Compose started.
    ComposeLogPrefix,
    /// A line of the log carried vLLM's engine process tag (`(EngineCore_DP0 pid=68) `, which
    /// normalising strips): the log came from a vLLM server, whose images set up CUDA's
    /// forward-compatibility libraries.
    VllmEngineCoreTag,
    /// torch's `Found GPU0 ... which is of cuda capability 12.1. Minimum and Maximum cuda
    /// capability supported by this version of PyTorch is (8.0) - (12.0)`: the GPU is a newer
    /// minor revision of the newest major the build has code for, so that code runs on it (a cubin
    /// for X.y runs on X.z with z >= y) and the warning is harmless.
    CapabilityNewerMinorOfSupportedMajor,
    /// ggml's `ggml was not compiled with any CUDA arch <= 750` names the architecture it looked
    /// for, which is the device's own; the log lists the devices (`compute capability 8.0`) and
    /// none is of that architecture: the check itself misfired (llama.cpp#15589, #15593: a
    /// regression that asked for Turing on every GPU), not the build.
    GgmlArchNotTheDevices,
}

impl TextCheck {
    /// The check named by its catalogue id.
    pub fn from_id(id: &str) -> Option<TextCheck> {
        match id {
            "another-cudnn-major" => Some(TextCheck::AnotherCudnnMajor),
            "ld-library-path-names-cuda" => Some(TextCheck::LdLibraryPathNamesCuda),
            "f-string-syntax-error" => Some(TextCheck::FStringSyntaxError),
            "compose-log-prefix" => Some(TextCheck::ComposeLogPrefix),
            "vllm-engine-core-tag" => Some(TextCheck::VllmEngineCoreTag),
            "capability-newer-minor-of-supported-major" => {
                Some(TextCheck::CapabilityNewerMinorOfSupportedMajor)
            }
            "ggml-arch-not-the-devices" => Some(TextCheck::GgmlArchNotTheDevices),
            _ => None,
        }
    }

    /// The strings whose lines the check reads; the matcher finds them in its one pass.
    pub fn markers() -> impl Iterator<Item = &'static str> {
        ["cudnn", "LD_LIBRARY_PATH", "compute capability"].into_iter()
    }
}

/// Whether `line` holds a Python f-string literal: `f"`, `f'`, `rf"`, `fr'` (any case) not
/// preceded by a letter, digit or underscore (`elif'` and `buf"` are not f-strings).
pub fn has_fstring(line: &str) -> bool {
    let bytes = line.as_bytes();
    bytes.iter().enumerate().any(|(i, b)| {
        if !matches!(b, b'f' | b'F') {
            return false;
        }
        // The prefix may be `f`, `rf` or `fr`: step over an `r` on either side.
        let (start, after) = match (
            i.checked_sub(1).and_then(|j| bytes.get(j)),
            bytes.get(i + 1),
        ) {
            (Some(b'r' | b'R'), _) => (i - 1, i + 1),
            (_, Some(b'r' | b'R')) => (i, i + 2),
            _ => (i, i + 1),
        };
        let quoted = matches!(bytes.get(after), Some(b'"' | b'\''));
        let word_before = start
            .checked_sub(1)
            .and_then(|j| bytes.get(j))
            .is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_');
        quoted && !word_before
    })
}

/// Whether `line` holds a directory path with a `cuda` or `cudnn` component (`/usr/local/cuda/lib64`,
/// `/public/apps/cudnn/v8.0.3.33-cuda.11.0/cuda/lib64`), as the value of a search path would.
pub fn names_cuda_directory(line: &str) -> bool {
    line.split([':', '=', ' ', '"', '\'', ','])
        .filter(|token| token.starts_with('/'))
        .any(|path| {
            path.split('/').any(|component| {
                let c = component.to_ascii_lowercase();
                c.starts_with("cuda") || c.starts_with("cudnn")
            })
        })
}

/// The cuDNN majors a loader message on `line` asks for (`libcudnn_ops_infer.so.8` → 8).
pub fn cudnn_majors_asked(line: &str) -> Vec<u32> {
    let Some(p) = patterns() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for c in p.cudnn_asked.captures_iter(cap(line)) {
        if let Some(major) = c.get(1).and_then(|d| d.as_str().parse().ok()) {
            push_unique(&mut out, major);
        }
    }
    out
}

/// The cuDNN majors `line` names, with or without a failure (`cuDNN version: 8.0.2` → 8,
/// `libcudnn.so.9` → 9).
pub fn cudnn_majors_named(line: &str) -> Vec<u32> {
    let Some(p) = patterns() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for c in p.cudnn_named.captures_iter(cap(line)) {
        if let Some(major) = c
            .iter()
            .skip(1)
            .flatten()
            .next()
            .and_then(|d| d.as_str().parse::<u32>().ok())
        {
            // cuDNN majors so far run 1-9; a larger number in these places is something else
            // (`cudnn64_8.dll`'s 64, a CUDA version).
            if (1..=9).contains(&major) {
                push_unique(&mut out, major);
            }
        }
    }
    out
}

/// The first of `lines` (1-based number, text) that names a cuDNN major none of `asked` is: the
/// evidence for [`TextCheck::AnotherCudnnMajor`]. None when nothing is asked for.
pub fn another_cudnn_major<'a>(
    asked: &[u32],
    lines: impl Iterator<Item = (usize, &'a str)>,
) -> Option<(usize, u32)> {
    if asked.is_empty() {
        return None;
    }
    for (number, line) in lines {
        if let Some(major) = cudnn_majors_named(line)
            .into_iter()
            .find(|m| !asked.contains(m))
        {
            return Some((number, major));
        }
    }
    None
}

/// The first `LINE_CAP` bytes, cut at a character boundary (also how much of a line
/// `provenance` reads).
pub(crate) fn cap(line: &str) -> &str {
    if line.len() <= LINE_CAP {
        return line;
    }
    let mut end = LINE_CAP;
    while !line.is_char_boundary(end) {
        end -= 1;
    }
    &line[..end]
}

/// `(8, 9, 2)` and `8.9.2` both become `8.9.2`.
fn tidy(version: &str) -> String {
    version
        .split([',', '.', ' '])
        .filter(|p| !p.is_empty())
        .collect::<Vec<_>>()
        .join(".")
}

/// `61` → 6.1, `120` → 12.0.
fn sm_to_cc(digits: &str) -> Option<ComputeCapability> {
    let n: u32 = digits.parse().ok()?;
    Some(ComputeCapability::new(n / 10, n % 10))
}

fn push_unique<T: PartialEq>(v: &mut Vec<T>, item: T) {
    if !v.contains(&item) && v.len() < 32 {
        v.push(item);
    }
}

/// Whether a torch capability warning's GPU (`which is of cuda capability X.Y`) has the same major
/// as the newest capability the build supports (`... is (A.B) - (C.D)`) and a higher minor: binary
/// code for C.D runs on it ([`TextCheck::CapabilityNewerMinorOfSupportedMajor`]).
pub fn capability_newer_minor_of_supported_major(line: &str) -> bool {
    let gpu = line
        .split_once("which is of cuda capability ")
        .and_then(|(_, rest)| major_minor(rest));
    let max = line
        .split_once(") - (")
        .and_then(|(_, rest)| major_minor(rest));
    match (gpu, max) {
        (Some((major, minor)), Some((max_major, max_minor))) => {
            major == max_major && minor > max_minor
        }
        _ => false,
    }
}

/// The architecture ggml looked for in `ggml was not compiled with any CUDA arch <= 750` (750).
pub fn ggml_arch_asked(line: &str) -> Option<u32> {
    let (_, rest) = line.split_once("CUDA arch <= ")?;
    let digits: String = rest.chars().take_while(|c| c.is_ascii_digit()).collect();
    digits.parse().ok()
}

/// A device's compute capability as ggml numbers architectures (`compute capability 8.6` is 860),
/// from a device listing such as ggml's `Device 0: NVIDIA A100-SXM4-80GB, compute capability 8.0`.
pub fn device_arch(line: &str) -> Option<u32> {
    let (_, rest) = line.split_once("compute capability ")?;
    let (major, minor) = major_minor(rest)?;
    if minor > 9 {
        return None;
    }
    major.checked_mul(100)?.checked_add(minor * 10)
}

/// The `X.Y` at the start of `text` as two numbers.
fn major_minor(text: &str) -> Option<(u32, u32)> {
    let (major, rest) = text.split_once('.')?;
    let minor: String = rest.chars().take_while(|c| c.is_ascii_digit()).collect();
    Some((major.trim().parse().ok()?, minor.parse().ok()?))
}

#[cfg(test)]
mod tests {
    #[test]
    fn ggml_names_the_architecture_it_looked_for_and_devices_theirs() {
        assert_eq!(
            super::ggml_arch_asked(
                "common.cuh:112: ggml was not compiled with any CUDA arch <= 750"
            ),
            Some(750)
        );
        assert_eq!(super::ggml_arch_asked("ggml was not compiled"), None);
        assert_eq!(
            super::device_arch(
                "  Device 0: NVIDIA A100-SXM4-80GB, compute capability 8.0, VMM: yes"
            ),
            Some(800)
        );
        assert_eq!(
            super::device_arch("Device 1: NVIDIA GeForce RTX 5060 Ti, compute capability 12.0"),
            Some(1200)
        );
        assert_eq!(super::device_arch("compute capability unknown"), None);
    }

    #[test]
    fn a_newer_minor_of_the_newest_supported_major_is_covered() {
        let warning = |gpu: &str, max: &str| {
            format!("Found GPU0 NVIDIA GB10 which is of cuda capability {gpu}. Minimum and Maximum cuda capability supported by this version of PyTorch is (8.0) - ({max})")
        };
        assert!(super::capability_newer_minor_of_supported_major(&warning(
            "12.1", "12.0"
        )));
        assert!(!super::capability_newer_minor_of_supported_major(&warning(
            "12.0", "9.0"
        )));
        assert!(!super::capability_newer_minor_of_supported_major(&warning(
            "3.5", "9.0"
        )));
        assert!(!super::capability_newer_minor_of_supported_major(&warning(
            "9.0", "9.0"
        )));
        assert!(!super::capability_newer_minor_of_supported_major(
            "which is of cuda capability x.y"
        ));
    }

    use super::*;

    #[test]
    fn f_strings_are_told_from_words_ending_in_f() {
        for line in [
            r#"    print(f"[+] {len(data['matches'])} account found !")"#,
            r#"    endpoint = f"{BASE_URL}updates""#,
            "x = F'{a}'",
            r#"p = rf"\d{n}""#,
            "p = fR'{x}'",
        ] {
            assert!(has_fstring(line), "{line}");
        }
        for line in [
            r#"    print("[+] account found")"#,
            "if x: pass\nelif'a' in y: pass",
            r#"buf"x""#,
            "printf('%d', x)",
            "f = open(path)",
            "f",
            "",
        ] {
            assert!(!has_fstring(line), "{line}");
        }
    }

    #[test]
    fn cudnn_majors_asked_and_named() {
        assert_eq!(
            cudnn_majors_asked("libcudnn.so.7: cannot open shared object file"),
            vec![7]
        );
        assert_eq!(
            cudnn_majors_asked("Could not locate cudnn_ops_infer64_8.dll"),
            vec![8]
        );
        assert_eq!(
            cudnn_majors_asked("Unable to load any of {libcudnn_ops.so.9.1.0, libcudnn_ops.so.9}"),
            vec![9]
        );
        assert!(cudnn_majors_asked("CUDNN_STATUS_NOT_INITIALIZED").is_empty());
        for (line, major) in [
            ("- CUDA/cuDNN version: 10.1/8.0.2.39", 8),
            ("cuDNN version: 7.6.5", 7),
            ("cudnn 8.9", 8),
            ("nvidia-cudnn-cu12==9.1.0.70", 9),
            ("nvidia-cudnn-cu12        9.1.0.70", 9),
            ("ii  libcudnn8  8.9.7.29-1+cuda12.2  amd64", 8),
            ("FROM nvidia/cuda:11.8.0-cudnn8-runtime-ubuntu22.04", 8),
            (
                "LD_LIBRARY_PATH=/home/u/cudnn-6.0/lib64:/usr/local/cuda-8.0/lib64",
                6,
            ),
            ("/public/apps/cudnn/v8.0.3.33-cuda.11.0/cuda/lib64", 8),
            (
                "libcudnn.so.9 (libc6,x86-64) => /usr/lib/x86_64-linux-gnu/libcudnn.so.9",
                9,
            ),
        ] {
            assert_eq!(cudnn_majors_named(line), vec![major], "{line}");
        }
        // Not cuDNN majors: the 64 of a DLL name, a CUDA version, no version at all.
        assert_eq!(cudnn_majors_named("cudnn64_8.dll"), vec![8]);
        assert!(cudnn_majors_named("CUDNN_STATUS_NOT_INITIALIZED").is_empty());
        assert!(cudnn_majors_named("pip install nvidia-cudnn-cu12").is_empty());
    }

    #[test]
    fn another_major_needs_an_asked_one_and_a_different_named_one() {
        let lines = [
            (1, "cuDNN version: 8.0.2"),
            (2, "libcudnn.so.7: cannot open"),
        ];
        assert_eq!(another_cudnn_major(&[7], lines.into_iter()), Some((1, 8)));
        assert_eq!(another_cudnn_major(&[8], lines.into_iter()), Some((2, 7)));
        assert_eq!(another_cudnn_major(&[], lines.into_iter()), None);
        let same = [
            (1, "cuDNN version: 7.6.5"),
            (2, "libcudnn.so.7: cannot open"),
        ];
        assert_eq!(another_cudnn_major(&[7], same.into_iter()), None);
    }

    #[test]
    fn values_are_extracted() {
        let e = extract(
            [
                "RuntimeError: cuDNN version incompatibility: PyTorch was compiled  against (8, 9, 2) but found runtime version (8, 6, 0).",
                "ImportError: libcudnn.so.8: cannot open shared object file: No such file or directory",
                "NVIDIA GeForce RTX 5090 with CUDA capability sm_120 is not compatible",
                "Found GPU0 Tesla K80 which is of cuda capability 3.7.",
                "NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, GPU has fallen off the bus.",
                "Loaded runtime CuDNN library: 8.0.5 but source was compiled with: 8.1.0.",
            ]
            .into_iter(),
        );
        assert_eq!(e.libraries, vec!["libcudnn.so.8".to_string()]);
        assert_eq!(
            e.archs,
            vec![ComputeCapability::new(12, 0), ComputeCapability::new(3, 7)]
        );
        assert_eq!(
            e.version_pairs,
            vec![
                ("8.9.2".to_string(), "8.6.0".to_string()),
                ("8.1.0".to_string(), "8.0.5".to_string())
            ]
        );
        assert_eq!(e.xids, vec![79]);
    }

    #[test]
    fn stated_versions() {
        assert_eq!(
            stated_version("Cuda compilation tools, release 8.0, V8.0.61", 0),
            Some((8, 0))
        );
        assert_eq!(stated_version("-- got cuda version 7.5", 3), Some((7, 5)));
        assert_eq!(
            stated_version(
                "-- Found CUDA: /usr/local/cuda (found suitable version \"11.8\", minimum required is \"7.0\")",
                3
            ),
            Some((11, 8))
        );
        assert_eq!(
            stated_version("-- Caffe2: CUDA detected: 12.1", 10),
            Some((12, 1))
        );
        assert_eq!(stated_version("-- Found CUDA: /opt/cuda", 3), None);
        assert_eq!(
            stated_version("libcuda reported version is: 384.111.0", 0),
            Some((384, 111))
        );
        assert_eq!(
            stated_version("kernel reported version is: 384.90.0", 0),
            Some((384, 90))
        );
        assert_eq!(
            stated_version(
                "libcuda reported version is: NOT_FOUND: was unable to find",
                0
            ),
            None
        );
        assert_eq!(stated_version("short", 99), None);
    }

    #[test]
    fn cuda_directories_in_a_search_path() {
        assert!(names_cuda_directory(
            "/public/apps/cudnn/v8.0.3.33-cuda.11.0/cuda/lib64:/usr/local/lib"
        ));
        assert!(names_cuda_directory(
            "LD_LIBRARY_PATH=/usr/local/cuda-11.8/lib64"
        ));
        assert!(!names_cuda_directory(
            "LD_LIBRARY_PATH=/usr/local/lib:/opt/conda/lib"
        ));
        assert!(!names_cuda_directory(
            "one possibility is that there is a conflicting cuDNN in LD_LIBRARY_PATH."
        ));
    }
}
