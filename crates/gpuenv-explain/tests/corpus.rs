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

use gpuenv_explain::neighbours::{self, Neighbours, Row};
use gpuenv_explain::{normalize, Category, Explainer, Explanation, Level};

/// The floors this corpus reaches honestly; raise them when accuracy improves.
const MIN_TOP1: f64 = 0.85;
const HELDOUT_MIN_TOP1: f64 = 0.85;

struct Case {
    /// `category/file-stem`.
    id: String,
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
            let stem = path.file_stem().unwrap().to_string_lossy().to_string();
            cases.push(Case {
                id: format!("{dir_name}/{stem}"),
                path,
                source,
                expected,
                text: bytes[body_start..].to_vec(),
            });
        }
    }
    cases
}

/// The third batch of public reports (80, collected for training across all categories) was
/// measured with `extra_dir` before any change for it: 46/80 = 57.5% top-1, one confident wrong
/// answer (a WSL2 "devices are busy or unavailable" read as GPU state), none on
/// `not-an-environment-problem`. After the signatures and log-prefix handling it showed missing:
/// 77/80. It now lives in tests/corpus with seven reports collected afterwards as a check.
///
/// The fourth batch (heldout3: 81 public reports across all 22 categories, none in the tree or
/// the catalogue's sources) was measured unseen with `extra_dir`: 63/81 = 77.8% top-1, four
/// confident wrong answers overall (NCCL `unhandled system error` in a container that needed
/// `--ipc=host`, a torch cuDNN mismatch caused by LD_LIBRARY_PATH, two WSL nvidia-smi failures),
/// none on `not-an-environment-problem`. After the signatures it showed missing (XLA's kernel vs.
/// DSO version, onnxruntime's CPU package, libcuda dlopen failures, two CUDA versions stated in
/// one build log, FindCUDA without libcudart, `Target N is out of bounds`, `index out of range in
/// self`) and the category hints (data/hints.toml: a WSL kernel string re-ranks the causes of a
/// matched signature): 69/81 = 85.2%, three confident wrong answers, none on
/// `not-an-environment-problem`; most of the twelve left are messages whose text alone does not
/// name the cause. It now lives in tests/corpus too.
///
/// The fifth batch (heldout4: 81 public reports across all 22 categories) was measured unseen
/// with `extra_dir`: 58/81 = 71.6% top-1, seven confident wrong answers overall, none on
/// `not-an-environment-problem`; eleven of the misses were "unknown". After the signatures it
/// showed missing (the UVM device node never created, CUDA 802 / Fabric Manager outranking a
/// "failed to allocate", a CPU-only jaxlib's `Unknown backend gpu`, two CuPy packages, torch's
/// own libraries missing each other's symbols, CTranslate2's `Library libcublas.so.11 is not
/// found`, `device kernel image is invalid`, nvidia-docker 1's `unsupported CUDA version`, NCCL's
/// setup lines before a hang, onnxruntime's message with typographic quotes) and lower
/// confidence where the text cannot decide (a cuDNN 8 sub-library: cuDNN 8 missing, or only
/// cuDNN 9, or zlibwapi.dll; CUDA's bare `out of memory`, also WSL's memory limit; devices busy
/// under Windows; missing CUDA math libraries next to a missing cuDNN): 74/81 = 91.4%, no
/// confident wrong answer. The seven left are texts that do not name their cause (a bare
/// `no CUDA-capable device` / `CUDA_ERROR_NO_DEVICE` from a wrong CUDA_VISIBLE_DEVICES, a cuDNN 8
/// sub-library missing because cuDNN 9 or zlib was installed instead, onnxruntime's CPU and GPU
/// packages both installed, WSL's memory limit behind a plain OOM) and an LD_DEBUG listing. It
/// now lives in tests/corpus too (one of its labels, two torch installs mixed, disagrees with
/// the older corpus case pytorch-13893, labelled package-conflict for the same message).
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

/// A batch outside the tree, for measuring fresh reports before anything is tuned to them:
/// `GPUENV_CORPUS_DIR=/path/to/batch cargo test -p gpuenv-explain --test corpus extra_dir --
/// --nocapture` (same layout and headers as tests/corpus). Does nothing when the variable is unset;
/// asserts only that no confident wrong answer is given on `not-an-environment-problem`.
#[test]
fn extra_dir() {
    let Some(dir) = std::env::var_os("GPUENV_CORPUS_DIR") else {
        return;
    };
    let dir = PathBuf::from(dir);
    let cases = load_cases_from(&dir);
    let (_top1, confident_wrong_user) = measure("extra", &cases, &dir);
    assert!(confident_wrong_user.is_empty(), "{confident_wrong_user:?}");
}

/// Top-1 accuracy and the confident wrong answers on `not-an-environment-problem` cases.
fn measure(name: &str, cases: &[Case], base: &Path) -> (f64, Vec<String>) {
    let explainer = Explainer::builtin().unwrap();
    let verbose = std::env::var_os("GPUENV_CORPUS_REPORT").is_some();
    let mut similarity_answers = (0, 0);

    let mut per_category: BTreeMap<Category, (usize, usize)> = BTreeMap::new();
    let mut correct = 0;
    let mut confident_wrong_user = Vec::new();
    let mut confident_wrong_any = 0;
    let mut misses = Vec::new();
    for case in cases {
        let explanation = explain_unseen(&explainer, case);
        let top = explanation.top();
        if let Some(d) = top.filter(|d| !d.similar.is_empty()) {
            assert!(d.level == Level::Low && explanation.recognised.is_empty());
            similarity_answers.1 += 1;
            if d.category == case.expected {
                similarity_answers.0 += 1;
            }
        }
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
    println!(
        "similarity hints (nearest neighbours, the report itself left out): {} answers, {} right",
        similarity_answers.1, similarity_answers.0
    );
    for m in &misses {
        println!("  miss: {m}");
    }
    (top1, confident_wrong_user)
}

/// Explains a case as if it were unseen: the nearest-neighbour model without it (and without
/// any report of the same source), so a case never finds itself.
fn explain_unseen(explainer: &Explainer, case: &Case) -> Explanation {
    let without = Neighbours::default();
    let first = explainer.explain_with_neighbours(&case.text, None, None, &without);
    if !first.recognised.is_empty() {
        return first;
    }
    explainer.explain_with_neighbours(
        &case.text,
        None,
        None,
        &leave_out(explainer.neighbours(), case),
    )
}

/// The model without a case and without any report of the same source.
fn leave_out(model: &Neighbours, case: &Case) -> Neighbours {
    let rows: Vec<Row> = model
        .rows()
        .iter()
        .filter(|r| r.case != case.id && r.source != case.source)
        .cloned()
        .collect();
    Neighbours::from_rows(rows)
}

/// The nearest-neighbour model's file for these cases: every public report (https source).
fn neighbours_data(cases: &[Case]) -> String {
    let mut out = String::from(neighbours::HEADER);
    out.push('\n');
    for case in cases.iter().filter(|c| c.source.starts_with("https://")) {
        let text = normalize::normalize(&case.text);
        out.push_str(&neighbours::row_line(
            &case.id,
            case.expected,
            &case.source,
            &text.text,
        ));
        out.push('\n');
    }
    out
}

/// The generator of data/neighbours.tsv, and the check that it is current: it must be what
/// tests/corpus gives. `GPUENV_UPDATE_NEIGHBOURS=1 cargo test -p gpuenv-explain --test corpus
/// neighbours_data_is_current` rewrites it.
#[test]
fn neighbours_data_is_current() {
    let want = neighbours_data(&load_cases());
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/neighbours.tsv");
    if std::env::var_os("GPUENV_UPDATE_NEIGHBOURS").is_some() {
        std::fs::write(&path, &want).unwrap();
        return;
    }
    let have = std::fs::read_to_string(&path).unwrap();
    assert!(
        have == want,
        "data/neighbours.tsv is out of date with tests/corpus: run `GPUENV_UPDATE_NEIGHBOURS=1 cargo test -p gpuenv-explain --test corpus neighbours_data_is_current`"
    );
    assert_eq!(
        Neighbours::parse(&have).unwrap().rows().len(),
        want.lines().count() - 1
    );
}

/// Leave-one-out over tests/corpus: every case explained with the nearest-neighbour model built
/// without it (and without reports of the same source). The fallback only answers where no
/// signature matched, so it cannot change another answer, and never above `low`; it is kept in
/// `Explainer::builtin` (`SIMILARITY_FALLBACK`) only if it raises top-1. Also prints how the
/// vote alone does on every public report, signatures or not (its coverage and precision).
///
/// Measured when it was built (391 cases, heldout4 included; K = 3, similarity >= 0.25,
/// agreement >= 0.75): top-1 367/391 without the fallback and 367/391 with it — of the 6 cases
/// no signature matches it answered none (at looser thresholds it answered 1-3 of them, at most
/// one right, and 2 of heldout4's 11 unknowns before its signatures, both wrong); the vote
/// alone answered 223 of the 371 public reports, 91.9% of them right, and with each report's
/// recognised lines masked out (a stand-in for an unknown message) 61 of 365, 88.5% right. It
/// does not raise top-1, so it is off.
#[test]
fn leave_one_out() {
    let cases = load_cases();
    let explainer = Explainer::builtin_with_neighbours().unwrap();
    let off = Neighbours::default();
    let (mut with, mut without, mut high_wrong_with, mut high_wrong_without) = (0, 0, 0, 0);
    let (mut unmatched, mut answered, mut right) = (0, 0, 0);
    for case in &cases {
        let plain = explainer.explain_with_neighbours(&case.text, None, None, &off);
        let fallback = explain_unseen(&explainer, case);
        for (x, ok, high_wrong) in [
            (&plain, &mut without, &mut high_wrong_without),
            (&fallback, &mut with, &mut high_wrong_with),
        ] {
            match x.top() {
                Some(d) if d.category == case.expected => *ok += 1,
                Some(d) if d.level == Level::High => *high_wrong += 1,
                _ => {}
            }
        }
        if plain.recognised.is_empty() {
            unmatched += 1;
        } else {
            // Where a signature matched, the fallback changes nothing.
            assert_eq!(
                plain.top().map(|d| (d.category, d.confidence)),
                fallback.top().map(|d| (d.category, d.confidence)),
                "{}",
                case.id
            );
        }
        for d in fallback.diagnoses.iter().filter(|d| !d.similar.is_empty()) {
            assert_eq!(d.level, Level::Low, "{}", case.id);
            assert!(d.confidence <= neighbours::MAX_CONFIDENCE, "{}", case.id);
            assert!(d.hint && d.explanation.starts_with("Weak similarity hint only"));
        }
        if plain.recognised.is_empty() {
            if let Some(d) = fallback.top().filter(|d| !d.similar.is_empty()) {
                answered += 1;
                if d.category == case.expected {
                    right += 1;
                }
            }
        }
    }
    // The vote alone, on every public report.
    let model = explainer.neighbours();
    let (mut public, mut voted, mut voted_right) = (0, 0, 0);
    for case in cases.iter().filter(|c| c.source.starts_with("https://")) {
        public += 1;
        let text = normalize::normalize(&case.text);
        if let Some(v) = leave_out(model, case).vote(&neighbours::tokens(&text.text)) {
            voted += 1;
            if v.category == case.expected {
                voted_right += 1;
            }
        }
    }
    let n = cases.len();
    println!(
        "leave-one-out over tests/corpus ({n} cases): top-1 without the fallback {without}/{n} = {:.1}%, with it {with}/{n} = {:.1}%; high wrong answers {high_wrong_without} / {high_wrong_with}",
        without as f64 * 100.0 / n as f64,
        with as f64 * 100.0 / n as f64
    );
    println!("  cases no signature matched: {unmatched}; the fallback answered {answered}, {right} right");
    println!(
        "  the vote alone on all {public} public reports: answered {voted} ({:.1}%), {voted_right} right ({:.1}% of those answered)",
        voted as f64 * 100.0 / public as f64,
        voted_right as f64 * 100.0 / voted.max(1) as f64
    );
    assert!(
        with >= without,
        "the fallback lowers top-1: {with} < {without}"
    );
    assert_eq!(high_wrong_with, high_wrong_without);
    if gpuenv_explain::SIMILARITY_FALLBACK {
        assert!(
            with > without,
            "the similarity fallback is on but does not raise leave-one-out top-1"
        );
    }
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
