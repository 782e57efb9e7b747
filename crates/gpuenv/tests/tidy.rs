//! Tidy checks on the repository itself: every Rust module opens with a `//!` doc comment, and the
//! README's test command is the one CI runs.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::fs;
use std::path::{Path, PathBuf};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if path.is_dir() {
            if name != "target" && name != "snapshots" && !name.starts_with('.') {
                rust_files(&path, out);
            }
        } else if name.ends_with(".rs") {
            out.push(path);
        }
    }
}

#[test]
fn every_module_has_a_doc_comment() {
    let mut files = Vec::new();
    rust_files(&repo().join("crates"), &mut files);
    rust_files(&repo().join("fuzz/fuzz_targets"), &mut files);
    assert!(files.len() > 20);
    let missing: Vec<String> = files
        .iter()
        .filter(|p| {
            let text = fs::read_to_string(p).unwrap();
            !text.trim_start().starts_with("//!")
        })
        .map(|p| p.display().to_string())
        .collect();
    assert!(
        missing.is_empty(),
        "files without a //! module doc:\n{}",
        missing.join("\n")
    );
}

#[test]
fn ci_runs_the_readme_test_command() {
    let readme = fs::read_to_string(repo().join("README.md")).unwrap();
    let ci = fs::read_to_string(repo().join(".ci/run")).unwrap();
    let test = fs::read_to_string(repo().join(".ci/test")).unwrap();
    assert!(
        readme.contains("\n.ci/test "),
        "the README gives .ci/test as the test command"
    );
    assert!(
        ci.contains("exec .ci/test"),
        ".ci/run calls the README's test command"
    );
    assert!(test.contains("cargo test --workspace"));
    assert!(test.contains("cargo clippy") && test.contains("-D warnings"));
    assert!(test.contains("cargo fmt"));
}
