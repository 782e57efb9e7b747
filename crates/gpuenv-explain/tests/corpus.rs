//! The corpus: real error reports (tests/corpus/<category>/<name>.txt, each with its source link
//! and expected category in a header) and this project's own captured outputs. Computes top-1
//! accuracy overall and per category, counts confident wrong answers on
//! `not-an-environment-problem`, and asserts the floors.
//!
//! `GPUENV_CORPUS_REPORT=1 cargo test -p gpuenv-explain --test corpus -- --nocapture` prints
//! every case.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use gpuenv_explain::{Category, Explainer, Level};

/// The floors this corpus reaches honestly; raise them when accuracy improves.
const MIN_TOP1: f64 = 0.85;
const HELDOUT_MIN_TOP1: f64 = 0.85;

struct Case {
    path: PathBuf,
    source: String,
    expected: Category,
    text: Vec<u8>,
}

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus")
}

fn load_cases() -> Vec<Case> {
    load_cases_from(&corpus_dir())
}

fn load_cases_from(base: &Path) -> Vec<Case> {
    let mut cases = Vec::new();
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(base)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    for dir in dirs {
        let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "txt"))
            .collect();
        files.sort();
        for path in files {
            let bytes = std::fs::read(&path).unwrap();
            let text = String::from_utf8_lossy(&bytes);
            let mut lines = text.lines();
            let source = lines
                .next()
                .and_then(|l| l.strip_prefix("# source: "))
                .unwrap_or_else(|| panic!("{}: first line must be `# source: URL`", path.display()))
                .to_string();
            let expected = lines
                .next()
                .and_then(|l| l.strip_prefix("# expected: "))
                .and_then(Category::from_id)
                .unwrap_or_else(|| {
                    panic!(
                        "{}: second line must be `# expected: CATEGORY`",
                        path.display()
                    )
                });
            let dir_name = dir.file_name().unwrap().to_string_lossy().to_string();
            assert_eq!(
                dir_name,
                expected.id(),
                "{}: directory and header disagree",
                path.display()
            );
            assert!(source.starts_with("https://") || source.starts_with("captures/"));
            let body_start = text
                .match_indices('\n')
                .nth(1)
                .map(|(i, _)| i + 1)
                .unwrap_or(0);
            cases.push(Case {
                path,
                source,
                expected,
                text: bytes[body_start..].to_vec(),
            });
        }
    }
    cases
}

#[test]
fn corpus_accuracy() {
    let cases = load_cases();
    assert!(cases.len() >= 100, "corpus has {} cases", cases.len());
    let (top1, confident_wrong_user) = measure("corpus", &cases, &corpus_dir());
    assert!(
        confident_wrong_user.is_empty(),
        "confident wrong answers on user bugs: {confident_wrong_user:?}"
    );
    assert!(
        top1 >= MIN_TOP1,
        "top-1 accuracy {:.1}% below {:.0}%",
        top1 * 100.0,
        MIN_TOP1 * 100.0
    );
}

/// Cases collected after the catalogue was written (tests/heldout/). Measured before any change
/// for them: 16/23 = 69.6% top-1, no confident wrong answer. Five signatures were then added or
/// widened for the messages they showed were missing, so they are no longer unseen; the next
/// batch of fresh reports should go here and be measured first, the same way.
#[test]
fn heldout_accuracy() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/heldout");
    let cases = load_cases_from(&dir);
    let (top1, confident_wrong_user) = measure("held-out", &cases, &dir);
    assert!(confident_wrong_user.is_empty(), "{confident_wrong_user:?}");
    assert!(
        top1 >= HELDOUT_MIN_TOP1,
        "held-out top-1 {:.1}%",
        top1 * 100.0
    );
}

/// The second batch of fresh reports (tests/heldout2/: 46 public reports, none in tests/corpus,
/// tests/heldout or the catalogue's sources), collected after the first held-out batch had been
/// folded in. Prints per-case results and per-category top-1; asserts only that no confident
/// wrong answer is given on a `not-an-environment-problem` case: accuracy on a fresh batch is a
/// measurement, not a floor. Measured before any change for it: 38/46 = 82.6% top-1, one
/// confident wrong answer overall (a cuInit failure after suspend read as a CPU-only jaxlib),
/// none on `not-an-environment-problem`. Signatures were then added or widened for the messages
/// it showed missing (WSL GPU-P, nvidia-smi crash, device-node EPERM, NCCL IB verbs, ctypes/cffi
/// libraries, CUDA_PATH, jaxlib that did try CUDA), so it is no longer unseen: 45/46 after. The
/// next fresh batch should be measured the same way before anything is tuned to it.
#[test]
fn heldout2() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/heldout2");
    let cases = load_cases_from(&dir);
    assert!(!cases.is_empty(), "tests/heldout2 has no cases");
    let (_top1, confident_wrong_user) = measure("held-out 2", &cases, &dir);
    assert!(confident_wrong_user.is_empty(), "{confident_wrong_user:?}");
}

/// Top-1 accuracy and the confident wrong answers on `not-an-environment-problem` cases.
fn measure(name: &str, cases: &[Case], base: &Path) -> (f64, Vec<String>) {
    let explainer = Explainer::builtin().unwrap();
    let verbose = std::env::var_os("GPUENV_CORPUS_REPORT").is_some();

    let mut per_category: BTreeMap<Category, (usize, usize)> = BTreeMap::new();
    let mut correct = 0;
    let mut confident_wrong_user = Vec::new();
    let mut confident_wrong_any = 0;
    let mut misses = Vec::new();
    for case in cases {
        let explanation = explainer.explain(&case.text, None, None);
        let top = explanation.top();
        let got = top.map(|d| d.category);
        let entry = per_category.entry(case.expected).or_default();
        entry.1 += 1;
        if got == Some(case.expected) {
            correct += 1;
            entry.0 += 1;
        } else {
            let confident = top.is_some_and(|d| d.level == Level::High);
            if confident {
                confident_wrong_any += 1;
            }
            if case.expected == Category::NotAnEnvironmentProblem && confident {
                confident_wrong_user.push(case.path.display().to_string());
            }
            misses.push(format!(
                "{} (expected {}, got {} {:?}) {}",
                case.path.strip_prefix(base).unwrap_or(&case.path).display(),
                case.expected,
                got.map(|c| c.id()).unwrap_or("unknown"),
                top.map(|d| d.confidence),
                case.source
            ));
        }
        if verbose {
            println!(
                "{:<70} expected {:<34} got {:<34} {:?}",
                case.path.strip_prefix(base).unwrap_or(&case.path).display(),
                case.expected.id(),
                got.map(|c| c.id()).unwrap_or("unknown"),
                top.map(|d| d.confidence)
            );
        }
    }
    let total = cases.len();
    let top1 = correct as f64 / total as f64;
    println!(
        "{name}: {total} cases, top-1 {correct}/{total} = {:.1}%",
        top1 * 100.0
    );
    for (category, (ok, n)) in &per_category {
        println!(
            "  {:<34} {ok:>3}/{n:<3} {:>5.1}%",
            category.id(),
            *ok as f64 * 100.0 / *n as f64
        );
    }
    println!("confident (high) wrong answers: {confident_wrong_any} overall, {} on not-an-environment-problem", confident_wrong_user.len());
    for m in &misses {
        println!("  miss: {m}");
    }
    (top1, confident_wrong_user)
}

#[test]
fn every_category_has_cases() {
    let cases = load_cases();
    for category in gpuenv_explain::category::ALL {
        assert!(
            cases.iter().any(|c| c.expected == category),
            "no corpus case for {category}"
        );
    }
}
