//! `gpuenv rules [ID]`: the catalogue of checks (from `gpuenv_check::RULES`, with the trigger
//! text read from each check's doc comment) and of `explain` categories (with the catalogue's
//! signatures that lead to each). The same text is rendered to `docs/rules/*.md`; a test keeps
//! those files up to date.

use std::fmt::Write as _;
use std::io::{self, Write};
use std::process::ExitCode;

use std::path::Path;

use anyhow::{bail, Context as _, Result};

use gpuenv_check::{rule_doc, rule_docs, RuleDoc};
use gpuenv_explain::category::{Category, ALL as CATEGORIES};
use gpuenv_explain::Catalogue;

use crate::cli::{Format, GlobalArgs, RulesArgs};

pub fn run(global: &GlobalArgs, args: &RulesArgs) -> Result<ExitCode> {
    if let Some(dir) = &args.write_docs {
        write_docs(dir)?;
        return Ok(ExitCode::SUCCESS);
    }
    let text = match &args.id {
        None => match global.format {
            Format::Json => list_json()?,
            _ => list_text(),
        },
        Some(id) => match page(id)? {
            Some(page) => page,
            None => bail!(
                "no check or explain category is called `{id}`; `gpuenv rules` lists them all"
            ),
        },
    };
    let mut out = io::stdout().lock();
    out.write_all(text.as_bytes())?;
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// The one-line list: every check, then every explain category.
pub fn list_text() -> String {
    let mut s = String::from("Checks (gpuenv doctor):\n");
    let docs = rule_docs();
    let width = docs.iter().map(|d| d.rule.id.len()).max().unwrap_or(0);
    for d in &docs {
        let _ = writeln!(
            s,
            "  {:width$}  {}  {}",
            d.rule.id,
            d.rule.layer.code(),
            d.rule.summary
        );
    }
    s.push_str("\nCategories (gpuenv explain):\n");
    let width = CATEGORIES.iter().map(|c| c.id().len()).max().unwrap_or(0);
    for c in CATEGORIES {
        let code = c.layer().split(' ').next().unwrap_or("");
        let _ = writeln!(s, "  {:width$}  {code}  {}", c.id(), c.summary());
    }
    s.push_str("\n`gpuenv rules ID` prints one in full.\n");
    s
}

fn list_json() -> Result<String> {
    let checks: Vec<serde_json::Value> = rule_docs()
        .iter()
        .map(|d| {
            serde_json::json!({
                "id": d.rule.id, "kind": "check", "layer": d.rule.layer.code(),
                "summary": d.rule.summary, "explanation": d.explanation,
                "trigger": d.trigger, "fix": d.fix,
            })
        })
        .collect();
    let categories: Vec<serde_json::Value> = CATEGORIES
        .iter()
        .map(|c| {
            serde_json::json!({
                "id": c.id(), "kind": "category", "layer": c.layer(), "summary": c.summary(),
            })
        })
        .collect();
    let mut text = serde_json::to_string_pretty(
        &serde_json::json!({"checks": checks, "categories": categories}),
    )?;
    text.push('\n');
    Ok(text)
}

/// The full page of a check or category id (Markdown, also `docs/rules/ID.md`).
/// An id that is both a check and a category (`driver-missing`) gets both, check first.
pub fn page(id: &str) -> Result<Option<String>> {
    page_with(id, &Catalogue::builtin()?)
}

fn page_with(id: &str, catalogue: &Catalogue) -> Result<Option<String>> {
    let check = rule_doc(id).map(|d| check_page(&d));
    let category = Category::from_id(id).map(|c| category_page(c, catalogue));
    Ok(match (check, category) {
        (Some(a), Some(b)) => Some(format!("{a}\n{b}")),
        (a, b) => a.or(b),
    })
}

fn check_page(d: &RuleDoc) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "# `{}` (check, {} {})\n",
        d.rule.id,
        d.rule.layer.code(),
        d.rule.layer.title()
    );
    let _ = writeln!(s, "{}\n", d.rule.summary);
    let _ = writeln!(s, "## Why it matters\n\n{}\n", d.explanation);
    let _ = writeln!(s, "## When it fires\n\n{}\n", d.trigger);
    let _ = writeln!(s, "## Fix\n\n{}\n", d.fix);
    let _ = writeln!(
        s,
        "Each finding names its evidence (with the file, variable or call each fact came from) and the exact commands for this machine: run `gpuenv doctor`."
    );
    s
}

fn category_page(c: Category, catalogue: &Catalogue) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "# `{}` (explain category, {})\n", c.id(), c.layer());
    let _ = writeln!(s, "{}\n", c.summary());
    let _ = writeln!(s, "## Messages that point here\n");
    let mut fixes: Vec<&str> = Vec::new();
    let mut any = false;
    for sig in &catalogue.signatures {
        let causes: Vec<_> = sig.causes.iter().filter(|k| k.category == c).collect();
        if causes.is_empty() {
            continue;
        }
        any = true;
        let pattern = sig.patterns.first().map(String::as_str).unwrap_or("");
        let _ = writeln!(
            s,
            "- `{}`: \"{}\" — {}",
            sig.id,
            pattern.trim(),
            sig.explanation.trim()
        );
        for k in causes {
            let fix = k.fix.trim();
            if !fix.is_empty() && !fixes.contains(&fix) {
                fixes.push(fix);
            }
        }
    }
    if !any {
        let _ = writeln!(
            s,
            "- (no signature of the catalogue names this category yet)"
        );
    }
    let hints: Vec<_> = catalogue.hints.iter().filter(|h| h.category == c).collect();
    if !hints.is_empty() {
        let _ = writeln!(
            s,
            "\n## Hints (weak: they re-rank causes, or answer at a low level when no message matched)\n"
        );
        for h in hints {
            let words: Vec<String> = h.words.iter().map(|w| format!("`{}`", w.trim())).collect();
            let _ = writeln!(
                s,
                "- `hint:{}`: {} — {}",
                h.id,
                words.join(", "),
                h.explanation.trim()
            );
        }
    }
    let _ = writeln!(s, "\n## Fix\n");
    if fixes.is_empty() {
        let _ = writeln!(s, "Depends on the message: `gpuenv explain LOG` names it.");
    }
    for f in fixes {
        let _ = writeln!(s, "- {}", f.replace('\n', " "));
    }
    let _ = writeln!(
        s,
        "\n`gpuenv explain LOG` ranks the causes of a real log and checks them against this machine's facts."
    );
    s
}

/// Every page as (file name, text), for `docs/rules/`: one per id, and `README.md` with the list.
pub fn all_pages() -> Result<Vec<(String, String)>> {
    let catalogue = Catalogue::builtin()?;
    let mut ids: Vec<&str> = rule_docs().iter().map(|d| d.rule.id).collect();
    for c in CATEGORIES {
        if !ids.contains(&c.id()) {
            ids.push(c.id());
        }
    }
    let mut pages = Vec::new();
    for id in ids {
        if let Some(text) = page_with(id, &catalogue)? {
            pages.push((format!("{id}.md"), text));
        }
    }
    let mut index = String::from(
        "# gpuenv rules\n\nGenerated from the checks and the explain catalogue by \
         `gpuenv rules --write-docs docs/rules`; do not edit by hand (a test keeps these files up to \
         date). `gpuenv rules ID` prints the same pages.\n\n",
    );
    index.push_str("```text\n");
    index.push_str(&list_text());
    index.push_str("```\n");
    pages.push(("README.md".to_string(), index));
    Ok(pages)
}

/// Writes every page into `dir` (each file written whole, through a temporary file and a rename),
/// and removes `*.md` files there that no longer belong to a rule.
pub fn write_docs(dir: &Path) -> Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let pages = all_pages()?;
    for (name, text) in &pages {
        let path = dir.join(name);
        let tmp = dir.join(format!(".{name}.tmp"));
        std::fs::write(&tmp, text).with_context(|| format!("cannot write {}", tmp.display()))?;
        std::fs::rename(&tmp, &path).with_context(|| format!("cannot write {}", path.display()))?;
    }
    for entry in std::fs::read_dir(dir).with_context(|| format!("cannot list {}", dir.display()))? {
        let path = entry?.path();
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if name.ends_with(".md") && !pages.iter().any(|(n, _)| n == name) {
            std::fs::remove_file(&path)
                .with_context(|| format!("cannot remove stale {}", path.display()))?;
        }
    }
    Ok(())
}
