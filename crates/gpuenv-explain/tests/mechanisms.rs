//! The ranking mechanisms beyond plain signatures: category hints (re-ranking a matched
//! signature's causes, and the weak fallback answer when nothing else answers), signatures
//! that count only when two different versions are stated, and the nearest-neighbour
//! similarity fallback for logs that match no signature.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use gpuenv_explain::neighbours::{self, Neighbours, Row};
use gpuenv_explain::{Catalogue, Category, Explainer, Level, ANSWER_FLOOR, MEDIUM};
use gpuenv_facts::Facts;

fn explainer() -> Explainer {
    Explainer::builtin().unwrap()
}

#[test]
fn a_hint_alone_is_a_weak_labelled_answer() {
    let x = explainer().explain(
        b"$ export CUDA_VISIBLE_DEVICES=-1\n$ python train.py\nSegmentation fault (core dumped)\n",
        None,
        None,
    );
    assert!(x.recognised.is_empty());
    let top = x.top().expect("the hint is an answer");
    assert_eq!(top.category, Category::EnvVarMisconfiguration);
    assert!(top.hint);
    assert_eq!(top.level, Level::Low);
    assert!(top.confidence >= ANSWER_FLOOR && top.confidence < MEDIUM);
    assert!(top.signature.starts_with("hint:"), "{}", top.signature);
    assert!(
        top.explanation.starts_with("Weak hint only")
            && top.explanation.contains("CUDA_VISIBLE_DEVICES=-1"),
        "{}",
        top.explanation
    );
}

#[test]
fn a_hint_does_not_answer_when_a_signature_does() {
    let x = explainer().explain(
        b"export CUDA_VISIBLE_DEVICES=-1\ntorch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\n",
        None,
        None,
    );
    assert_eq!(x.top().unwrap().category, Category::OutOfMemory);
    assert!(x.diagnoses.iter().all(|d| !d.hint));
}

#[test]
fn hints_of_different_categories_give_no_answer() {
    let x = explainer().explain(
        b"Linux 5.15.153.1-microsoft-standard-WSL2\nexport CUDA_VISIBLE_DEVICES=-1\nit does not work\n",
        None,
        None,
    );
    // `microsoft-standard-WSL2` is itself a signature (wsl-lib-path); without it, the two hints
    // disagree.
    let y = explainer().explain(
        b"WSL 2 Ubuntu\nexport CUDA_VISIBLE_DEVICES=-1\nit does not work\n",
        None,
        None,
    );
    assert_eq!(x.top().unwrap().category, Category::Wsl);
    assert!(y.top().is_none(), "{:?}", y.top());
    assert!(y.diagnoses.iter().all(|d| d.hint && d.level == Level::Low));
}

#[test]
fn facts_can_rule_a_hint_out() {
    let facts = Facts {
        live: true,
        ..Facts::default()
    };
    let text = b"WSL 2 Ubuntu 22.04\nsomething unrelated failed\n";
    assert_eq!(
        explainer()
            .explain(text, None, None)
            .top()
            .unwrap()
            .category,
        Category::Wsl
    );
    // A live machine that is not WSL: the hint falls below the answer floor.
    assert!(explainer()
        .explain(text, Some(&facts), None)
        .top()
        .is_none());
}

#[test]
fn a_hint_reranks_the_causes_of_a_matched_signature() {
    let smi = "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest NVIDIA driver is installed and running.\n";
    let native = explainer().explain(smi.as_bytes(), None, None);
    assert_eq!(native.top().unwrap().category, Category::DriverMissing);
    let wsl1 = format!(
        "{smi}Error! Your kernel headers for kernel 4.4.0-19041-Microsoft cannot be found.\n"
    );
    let x = explainer().explain(wsl1.as_bytes(), None, None);
    let top = x.top().unwrap();
    assert_eq!(top.category, Category::Wsl);
    assert!(!top.hint, "a matched signature's cause, not a fallback");
    assert_eq!(top.signature, "nvidia-smi-cannot-communicate");
}

#[test]
fn two_stated_toolkit_versions_are_two_installs() {
    let two = b"-- got cuda version 7.5\n-- Found CUDA with FP16 support\nnvcc: NVIDIA (R) Cuda compiler driver\nCuda compilation tools, release 8.0, V8.0.61\n";
    let x = explainer().explain(two, None, None);
    let top = x.top().unwrap();
    assert_eq!(top.category, Category::MultipleInstallsConflict);
    assert_eq!(top.signature, "cuda-toolkit-versions-differ");

    let one = b"-- Found CUDA: /usr/local/cuda (found version \"11.8\")\n-- Found PythonInterp: /usr/bin/python3 (found version \"3.10.12\")\nCuda compilation tools, release 11.8, V11.8.89\n";
    let y = explainer().explain(one, None, None);
    assert!(
        y.recognised
            .iter()
            .all(|r| r.signature != "cuda-toolkit-versions-differ"),
        "{:?}",
        y.recognised
    );
}

#[test]
fn hints_are_validated() {
    let hint = |confidence: f64, against: &str| {
        format!(
            r#"
[[hint]]
id = "h"
category = "wsl"
words = ["WSL"]
against = [{against}]
confidence = {confidence}
explanation = "e"
fix = "f"
sources = ["https://example.org/report"]
"#
        )
    };
    assert!(Catalogue::from_files(&[("ok.toml", &hint(0.35, ""))]).is_ok());
    // Never medium or high, never below the answer floor.
    assert!(Catalogue::from_files(&[("high.toml", &hint(0.5, ""))]).is_err());
    assert!(Catalogue::from_files(&[("low.toml", &hint(0.2, ""))]).is_err());
    assert!(Catalogue::from_files(&[("self.toml", &hint(0.35, "\"wsl\""))]).is_err());
    assert!(Catalogue::from_files(&[("bad.toml", &hint(0.35, "\"no-such\""))]).is_err());
}

/// A small model: two WSL reports and two out-of-memory reports.
fn small_model() -> Neighbours {
    let row = |case: &str, category: Category, text: &str| Row {
        case: case.to_string(),
        category,
        source: format!("https://example.org/{case}"),
        tokens: neighbours::tokens(text),
    };
    Neighbours::from_rows(vec![
        row(
            "wsl/a",
            Category::Wsl,
            "ubuntu windows insider build gpu compute dxcore hangs forever",
        ),
        row(
            "wsl/b",
            Category::Wsl,
            "windows insider dxcore gpu compute stops responding",
        ),
        row(
            "out-of-memory/c",
            Category::OutOfMemory,
            "batch size too large allocator fragmentation reserved",
        ),
        row(
            "out-of-memory/d",
            Category::OutOfMemory,
            "reduce batch size allocator reserved memory",
        ),
    ])
}

#[test]
fn a_log_like_a_labelled_report_gets_a_weak_labelled_similarity_answer() {
    let e = explainer().with_neighbours(small_model());
    let x = e.explain(
        b"my box on a windows insider build: gpu compute through dxcore hangs\n",
        None,
        None,
    );
    assert!(x.recognised.is_empty());
    let top = x.top().expect("the neighbours agree");
    assert_eq!(top.category, Category::Wsl);
    assert!(top.hint);
    assert_eq!(top.level, Level::Low);
    assert!(top.confidence >= ANSWER_FLOOR && top.confidence <= neighbours::MAX_CONFIDENCE);
    assert!(
        top.signature.starts_with("similar:wsl/"),
        "{}",
        top.signature
    );
    assert!(
        top.explanation.starts_with("Weak similarity hint only")
            && top
                .explanation
                .contains("looks like https://example.org/wsl/a, which was wsl"),
        "{}",
        top.explanation
    );
    assert_eq!(
        top.sources.first().map(String::as_str),
        Some("https://example.org/wsl/a")
    );
    assert!(!top.similar.is_empty() && top.similar[0].category == Category::Wsl);
    assert!(
        !top.evidence.is_empty(),
        "the shared words' lines are shown"
    );
    let json = serde_json::to_value(top).unwrap();
    assert_eq!(json["similar"][0]["category"], "wsl");
}

#[test]
fn the_similarity_fallback_never_speaks_where_a_signature_matched() {
    let e = explainer().with_neighbours(small_model());
    // Just like the WSL reports, but with a known (weak, below the floor) message in it.
    let x = e.explain(
        b"windows insider dxcore gpu compute hangs\nCUDA kernel errors might be asynchronously reported at some other API call\n",
        None,
        None,
    );
    assert!(!x.recognised.is_empty());
    assert!(
        x.diagnoses.iter().all(|d| d.similar.is_empty()),
        "{:?}",
        x.diagnoses
    );
}

#[test]
fn the_similarity_fallback_stays_silent_when_the_neighbours_disagree_or_nothing_is_alike() {
    let e = explainer().with_neighbours(small_model());
    let mixed = e.explain(b"dxcore insider batch allocator\n", None, None);
    assert!(mixed.top().is_none(), "{:?}", mixed.top());
    let unlike = e.explain(
        b"the printer is on fire
",
        None,
        None,
    );
    assert!(unlike.top().is_none());
}

#[test]
fn the_builtin_similarity_fallback_follows_its_switch() {
    assert_eq!(
        explainer().neighbours().is_empty(),
        !gpuenv_explain::SIMILARITY_FALLBACK
    );
    assert!(!Explainer::builtin_with_neighbours()
        .unwrap()
        .neighbours()
        .is_empty());
}
