//! Hostile inputs never panic and stay fast: a 10 MB log, a 1 MB single line, binary junk,
//! invalid UTF-8 at every position of an error line, lone escape bytes.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Instant;

use gpuenv_explain::Explainer;

/// A small deterministic generator (no dependencies).
fn junk(len: usize, mut seed: u64) -> Vec<u8> {
    let mut out = Vec::with_capacity(len);
    while out.len() < len {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        out.extend_from_slice(&seed.to_le_bytes());
    }
    out.truncate(len);
    out
}

/// About 10 MB of log lines, line `i` made by `line(i)`.
fn ten_megabytes(line: impl Fn(usize) -> String) -> Vec<u8> {
    let mut log = Vec::new();
    let mut i = 0;
    while log.len() < 10 * 1024 * 1024 {
        log.extend_from_slice(line(i).as_bytes());
        i += 1;
    }
    log
}

#[test]
fn ten_megabyte_log() {
    let e = Explainer::builtin().unwrap();
    let mut log = ten_megabytes(|i| {
        format!(
            "2024-01-01 12:00:{:02}.000000: I tensorflow/core/step.cc:{i}] step {i} loss=0.{i}\n",
            i % 60
        )
    });
    log.extend_from_slice(b"RuntimeError: CUDA error: out of memory\n");
    let start = Instant::now();
    let x = e.explain(&log, None, None);
    let took = start.elapsed();
    assert_eq!(x.top().unwrap().category.id(), "out-of-memory");
    eprintln!("10 MB log explained in {took:?} (debug build)");
}

/// A 10 MB log in which no signature matches: one pass, and the answer is "unknown".
#[test]
fn ten_megabyte_log_without_a_known_message() {
    let e = Explainer::builtin().unwrap();
    let mut log = ten_megabytes(|i| {
        format!(
            "2024-01-01 12:00:{:02}.000000: worker{i} step {i} loss=0.{i} token{i}\n",
            i % 60
        )
    });
    log.extend_from_slice(b"the job stopped\n");
    let start = Instant::now();
    let x = e.explain(&log, None, None);
    let took = start.elapsed();
    assert!(x.recognised.is_empty());
    assert!(x.top().is_none());
    eprintln!("10 MB unknown log explained in {took:?} (debug build)");
}

#[test]
fn one_megabyte_single_line_and_binary_junk() {
    let e = Explainer::builtin().unwrap();
    let mut line = vec![b'x'; 1024 * 1024];
    line.extend_from_slice(b" no kernel image is available for execution on the device ");
    line.extend(std::iter::repeat_n(b'y', 1024 * 1024));
    let x = e.explain(&line, None, None);
    let top = x.top().unwrap();
    assert_eq!(top.category.id(), "gpu-arch-unsupported-by-build");
    for ev in &top.evidence {
        if let gpuenv_explain::Evidence::Log { text, .. } = ev {
            assert!(text.len() < 1024, "evidence is cut");
            assert!(text.contains("no kernel image"));
        }
    }
    for seed in 0..20 {
        let data = junk(64 * 1024 + seed as usize * 977, seed);
        let _ = e.explain(&data, None, None);
    }
    let _ = e.explain(&[0x1b; 10_000], None, None);
    let _ = e.explain(b"\x1b[", None, None);
    let _ = e.explain(b"\x1b]", None, None);
    let _ = e.explain(b"", None, None);
    let _ = e.explain(b"\r\r\r\n\n\\n\\n\\n", None, None);
    let _ = e.explain(&[0xe2; 200_000], None, None);
}

#[test]
fn invalid_utf8_anywhere() {
    let e = Explainer::builtin().unwrap();
    let base = b"E0000 00:00:1 1 cuda_dnn.cc:1] Loaded runtime CuDNN library: 8.0.5 but source was compiled with: 8.1.0.";
    for i in 0..base.len() {
        let mut v = base.to_vec();
        v.insert(i, 0xff);
        v.insert(i, 0xc3);
        let _ = e.explain(&v, None, None);
    }
}

/// The provenance check on a log made of its own markers: megabyte lines of Windows and home
/// paths, driver versions, WSL strings, shell prompts and GPU names, and 100,000 short ones. It reads only capped windows
/// of the first occurrences, asks about at most a few paths, and answers.
#[test]
fn provenance_markers_everywhere() {
    let e = Explainer::builtin().unwrap();
    let mut facts = gpuenv_facts::Facts::default();
    facts.os.hostname = Some(gpuenv_facts::Sourced::new(
        "here".to_string(),
        gpuenv_facts::Source::File("/proc/sys/kernel/hostname".to_string()),
    ));
    let asked = std::cell::Cell::new(0usize);
    let exists = |_: &str| {
        asked.set(asked.get() + 1);
        false
    };
    let unit = "C:\\Users\\x\\ /home/u/ /opt/e/lib/python3.8/site-packages/ Driver Version: 470.82.01 WSL2 -Microsoft | NVIDIA-SMI u@h:~$ GeForce Kernel Module  396.54 ";
    let mut long = unit.repeat(1_000_000 / unit.len());
    long.push('\n');
    let mut log = long.repeat(3);
    for i in 0..100_000 {
        log.push_str(&format!(
            "/home/user{i}/x/site-packages/y Driver Version: 5{}.1\n",
            i % 100
        ));
    }
    log.push_str("RuntimeError: No CUDA GPUs are available\n");
    let scanned = e.scan(log.as_bytes());
    let x = e.conclude_checked(&scanned, &facts, None, &exists);
    assert!(!x.refined);
    assert!(!x.facts_not_used.is_empty());
    assert!(asked.get() <= 8, "asked about {} paths", asked.get());
}

/// A 10 MB log that no signature or hint answers but that has error words: the word model reads
/// only its last 256 KB.
#[test]
fn ten_megabyte_log_for_the_word_model() {
    let e = Explainer::builtin().unwrap();
    let log = ten_megabytes(|i| {
        format!("rank{i} multi gpu training torch distributed launch worker timeout error {i}\n")
    });
    let start = Instant::now();
    let x = e.explain(&log, None, None);
    let took = start.elapsed();
    assert!(x.recognised.is_empty());
    if let Some(top) = x.top() {
        assert_eq!(top.signature, "words");
        assert!(top.evidence.len() <= 3);
    }
    eprintln!("10 MB log for the word model explained in {took:?} (debug build)");
}
