//! Trains the word model from a corpus directory (`<category>/<name>.txt`, each with the
//! corpus's `# source:` / `# expected:` header) with the built-in settings and writes it as
//! `data/words.tsv` stores it. The corpus test generates the built-in model itself; this is for
//! measuring by time (tools/explain/timesplit.py): the model of a past commit's corpus.
//!
//! `cargo run --release -p gpuenv-explain --example train_word_model -- CORPUS_DIR OUT.tsv`

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use gpuenv_explain::normalize::normalize;
use gpuenv_explain::words::{Settings, WordModel, BUILTIN_SETTINGS};
use gpuenv_explain::Category;

/// The labelled texts of a corpus directory, in path order (the order training sees them).
fn load(corpus: &Path) -> Result<Vec<(Category, String)>> {
    let mut paths: Vec<PathBuf> = Vec::new();
    for dir in std::fs::read_dir(corpus).with_context(|| format!("reading {}", corpus.display()))? {
        let dir = dir?.path();
        if !dir.is_dir() {
            continue;
        }
        for file in std::fs::read_dir(&dir)? {
            let path = file?.path();
            if path.extension().is_some_and(|e| e == "txt") {
                paths.push(path);
            }
        }
    }
    paths.sort();
    let mut texts = Vec::new();
    for path in paths {
        let bytes = std::fs::read(&path).with_context(|| format!("reading {}", path.display()))?;
        let mut header = bytes.split(|b| *b == b'\n');
        let expected = header
            .nth(1)
            .and_then(|l| std::str::from_utf8(l).ok())
            .and_then(|l| l.trim_end().strip_prefix("# expected: "))
            .and_then(Category::from_id);
        let Some(expected) = expected else {
            bail!(
                "{}: second line is not `# expected: CATEGORY`",
                path.display()
            );
        };
        let third = header.next().unwrap_or_default();
        let header_lines = if third.starts_with(b"# facts: ") {
            3
        } else {
            2
        };
        let body_start = bytes
            .iter()
            .enumerate()
            .filter(|(_, b)| **b == b'\n')
            .nth(header_lines - 1)
            .map_or(bytes.len(), |(i, _)| i + 1);
        texts.push((expected, normalize(&bytes[body_start..]).text));
    }
    Ok(texts)
}

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [corpus, out] = args.as_slice() else {
        bail!("usage: train_word_model CORPUS_DIR OUT.tsv");
    };
    let texts = load(Path::new(corpus))?;
    if texts.is_empty() {
        bail!("{corpus}: no labelled reports");
    }
    let settings = Settings::parse(BUILTIN_SETTINGS)?;
    let model = WordModel::train(texts.iter().map(|(c, t)| (*c, t.as_str())), settings);
    std::fs::write(out, model.to_tsv()).with_context(|| format!("writing {out}"))?;
    eprintln!("{} reports, {} words -> {out}", texts.len(), model.len());
    Ok(())
}
