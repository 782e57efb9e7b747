//! The signature catalogue: error signatures as data (`data/*.toml`), parsed and validated.
//!
//! A signature is a message a GPU stack prints (`no kernel image is available for execution on
//! the device`), the frameworks it appears in, the public reports it was collected from, and its
//! candidate causes. Each cause names a category, a prior, the words elsewhere in the log that
//! favour or argue against it, the facts of the machine that can confirm or rule it out, and the
//! fix. The catalogue also holds the category hints (`data/hints.toml`, see [`Hint`]): words that
//! point at a category without being an error message.

use serde::Deserialize;
use thiserror::Error;

use crate::category::Category;
use crate::extract::TextCheck;
use crate::refine::FactCheck;

/// The built-in catalogue files, by name.
pub const BUILTIN: &[(&str, &str)] = &[
    ("driver.toml", include_str!("../data/driver.toml")),
    ("cuda.toml", include_str!("../data/cuda.toml")),
    ("cudnn.toml", include_str!("../data/cudnn.toml")),
    ("python.toml", include_str!("../data/python.toml")),
    ("system.toml", include_str!("../data/system.toml")),
    ("runtime.toml", include_str!("../data/runtime.toml")),
    ("user.toml", include_str!("../data/user.toml")),
    ("hints.toml", include_str!("../data/hints.toml")),
    ("advice.toml", include_str!("../data/advice.toml")),
    ("word-sets.toml", include_str!("../data/word-sets.toml")),
];

/// Why a catalogue file was rejected.
#[derive(Debug, Error)]
pub enum CatalogueError {
    #[error("{file}: {source}")]
    Toml {
        file: String,
        #[source]
        source: toml::de::Error,
    },
    #[error("{file}: signature `{id}`: {message}")]
    Invalid {
        file: String,
        id: String,
        message: String,
    },
}

/// One catalogue file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct CatalogueFile {
    #[serde(default)]
    signature: Vec<SignatureRow>,
    #[serde(default)]
    hint: Vec<HintRow>,
    #[serde(default)]
    advice: Vec<AdviceRow>,
    #[serde(default)]
    word_set: Vec<WordSetRow>,
}

/// A named list of words that several causes share (`data/word-sets.toml`): a cause's `when` or
/// `unless` entry `@NAME` stands for all of them.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct WordSetRow {
    id: String,
    words: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct AdviceRow {
    text: String,
    source: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct SignatureRow {
    id: String,
    patterns: Vec<String>,
    #[serde(default)]
    requires_on_line: Vec<String>,
    #[serde(default)]
    unless_on_line: Vec<String>,
    #[serde(default)]
    versions_differ: bool,
    #[serde(default)]
    symptom: bool,
    frameworks: Vec<String>,
    weight: f64,
    explanation: String,
    sources: Vec<String>,
    cause: Vec<CauseRow>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct CauseRow {
    category: String,
    prior: f64,
    #[serde(default)]
    when: Vec<String>,
    #[serde(default)]
    unless: Vec<String>,
    #[serde(default)]
    when_text: Vec<String>,
    #[serde(default)]
    unless_text: Vec<String>,
    #[serde(default)]
    facts: Vec<String>,
    #[serde(default)]
    needs_facts: bool,
    #[serde(default)]
    needs_words: bool,
    fix: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct HintRow {
    id: String,
    category: String,
    words: Vec<String>,
    #[serde(default)]
    against: Vec<String>,
    #[serde(default)]
    facts: Vec<String>,
    confidence: f64,
    explanation: String,
    fix: String,
    sources: Vec<String>,
}

/// A validated signature.
#[derive(Debug, Clone)]
pub struct Signature {
    pub id: String,
    /// Any of these (case-insensitive) is the signature.
    pub patterns: Vec<String>,
    /// When not empty, one of these must be on the same line as the pattern.
    pub requires_on_line: Vec<String>,
    /// A pattern on a line that also holds one of these does not count: the same words in a
    /// context that means something else (JAX probing a backend the machine does not have).
    pub unless_on_line: Vec<String>,
    /// When true, the signature counts only when its lines state at least two different
    /// versions (major.minor, read after the pattern by `extract::stated_version`): two
    /// toolkits named in one log.
    pub versions_differ: bool,
    /// Only the symptom (`torch.cuda.is_available()` is False, a library's own "no GPU found"):
    /// on the line the program died with it does not push the messages before it, which name
    /// why, into "said on the way".
    pub symptom: bool,
    pub frameworks: Vec<String>,
    /// How specific the message is, 0..=1.
    pub weight: f64,
    pub explanation: String,
    pub sources: Vec<String>,
    pub causes: Vec<Cause>,
}

/// One candidate cause of a signature.
#[derive(Debug, Clone)]
pub struct Cause {
    pub category: Category,
    /// How often this is the cause when nothing else is known, 0..=1.
    pub prior: f64,
    /// Words anywhere in the log that favour this cause.
    pub when: Vec<String>,
    /// Words anywhere in the log that argue against it.
    pub unless: Vec<String>,
    /// Conditions on the text that favour this cause, like a `when` word.
    pub when_text: Vec<TextCheck>,
    /// Conditions on the text that argue against it, like an `unless` word.
    pub unless_text: Vec<TextCheck>,
    /// Facts of the machine that can confirm or rule it out.
    pub facts: Vec<FactCheck>,
    /// A cause only the facts can name (a library installed where the loader does not look
    /// reads like a missing one): it is a candidate only when one of its `facts` confirms it.
    pub needs_facts: bool,
    /// A cause only its `when` words (or `when_text` checks) can name (`nvidia-smi: command not
    /// found` beside an insufficient driver): it is a candidate only when one of them is in the log.
    pub needs_words: bool,
    pub fix: String,
}

/// A category hint: words that point at a category without being an error message (a WSL
/// kernel string, `CUDA_VISIBLE_DEVICES=-1`). A hint counts as one `when` word for every cause of
/// its category and as one `unless` word for causes of the categories it argues against, where
/// the cause's own words have not already spoken; and when no signature gives an answer, it is
/// offered as a weak answer of its own (level low, never above `confidence`).
#[derive(Debug, Clone)]
pub struct Hint {
    pub id: String,
    pub category: Category,
    /// Any of these (case-insensitive) in the log is the hint.
    pub words: Vec<String>,
    /// Categories this hint argues against.
    pub against: Vec<Category>,
    /// Facts of the machine that can confirm or rule it out.
    pub facts: Vec<FactCheck>,
    /// The confidence of the hint as an answer of its own: at least `ANSWER_FLOOR`, below `MEDIUM`.
    pub confidence: f64,
    pub explanation: String,
    pub fix: String,
    pub sources: Vec<String>,
}

/// Advice a framework prints as part of its own message (`data/advice.toml`): the words inside
/// it are not context, so `when` and `unless` words and hint words do not count there.
#[derive(Debug, Clone)]
pub struct Advice {
    pub text: String,
    pub source: String,
}

/// Every signature, the category hints, and the frameworks' advice texts.
#[derive(Debug, Clone)]
pub struct Catalogue {
    pub signatures: Vec<Signature>,
    pub hints: Vec<Hint>,
    pub advice: Vec<Advice>,
}

impl Catalogue {
    /// The built-in catalogue.
    pub fn builtin() -> Result<Catalogue, CatalogueError> {
        Catalogue::from_files(BUILTIN)
    }

    /// Parses and validates catalogue files given as `(name, text)`.
    pub fn from_files(files: &[(&str, &str)]) -> Result<Catalogue, CatalogueError> {
        let mut signatures = Vec::new();
        let mut hints = Vec::new();
        let mut advice = Vec::new();
        let mut ids = std::collections::BTreeSet::new();
        let mut parsed_files = Vec::new();
        for (name, text) in files {
            let parsed: CatalogueFile =
                toml::from_str(text).map_err(|source| CatalogueError::Toml {
                    file: (*name).to_string(),
                    source,
                })?;
            parsed_files.push((*name, parsed));
        }
        let word_sets = word_sets(&mut parsed_files)?;
        for (name, parsed) in parsed_files {
            for row in parsed.signature {
                let invalid = |message: String| CatalogueError::Invalid {
                    file: name.to_string(),
                    id: row.id.clone(),
                    message,
                };
                if !ids.insert(row.id.clone()) {
                    return Err(invalid("duplicate id".to_string()));
                }
                if row.patterns.is_empty() || row.patterns.iter().any(|p| p.trim().len() < 3) {
                    return Err(invalid(
                        "needs patterns of 3 characters or more".to_string(),
                    ));
                }
                if row.sources.is_empty() || row.sources.iter().any(|s| !s.starts_with("https://"))
                {
                    return Err(invalid("needs https:// source links".to_string()));
                }
                if !(0.0..=1.0).contains(&row.weight) {
                    return Err(invalid("weight must be in 0..=1".to_string()));
                }
                if row.cause.is_empty() {
                    return Err(invalid("needs at least one cause".to_string()));
                }
                let mut causes = Vec::new();
                for c in &row.cause {
                    let category = Category::from_id(&c.category)
                        .ok_or_else(|| invalid(format!("unknown category `{}`", c.category)))?;
                    if !(0.0..=1.0).contains(&c.prior) {
                        return Err(invalid("prior must be in 0..=1".to_string()));
                    }
                    let mut facts = Vec::new();
                    for f in &c.facts {
                        facts.push(
                            FactCheck::from_id(f)
                                .ok_or_else(|| invalid(format!("unknown fact check `{f}`")))?,
                        );
                    }
                    let text_checks = |ids: &[String]| -> Result<Vec<TextCheck>, CatalogueError> {
                        ids.iter()
                            .map(|t| {
                                TextCheck::from_id(t)
                                    .ok_or_else(|| invalid(format!("unknown text check `{t}`")))
                            })
                            .collect()
                    };
                    if c.needs_facts && facts.is_empty() {
                        return Err(invalid(format!(
                            "a `{}` cause with needs_facts names no facts",
                            c.category
                        )));
                    }
                    if c.needs_words && c.when.is_empty() && c.when_text.is_empty() {
                        return Err(invalid(format!(
                            "a `{}` cause with needs_words names no `when` words or checks",
                            c.category
                        )));
                    }
                    let expand = |words: &[String]| {
                        expand_word_sets(words, &word_sets)
                            .map_err(|set| invalid(format!("unknown word set `@{set}`")))
                    };
                    causes.push(Cause {
                        category,
                        prior: c.prior,
                        when: expand(&c.when)?,
                        unless: expand(&c.unless)?,
                        when_text: text_checks(&c.when_text)?,
                        unless_text: text_checks(&c.unless_text)?,
                        facts,
                        needs_facts: c.needs_facts,
                        needs_words: c.needs_words,
                        fix: c.fix.trim().to_string(),
                    });
                }
                signatures.push(Signature {
                    id: row.id,
                    patterns: row.patterns,
                    requires_on_line: row.requires_on_line,
                    unless_on_line: row.unless_on_line,
                    versions_differ: row.versions_differ,
                    symptom: row.symptom,
                    frameworks: row.frameworks,
                    weight: row.weight,
                    explanation: row.explanation.trim().to_string(),
                    sources: row.sources,
                    causes,
                });
            }
            for row in parsed.hint {
                hints.push(validate_hint(name, row, &mut ids)?);
            }
            for row in parsed.advice {
                let invalid = |message: &str| CatalogueError::Invalid {
                    file: name.to_string(),
                    id: format!("advice `{}`", row.text),
                    message: message.to_string(),
                };
                // Short texts would silence words in ordinary context.
                if row.text.trim().len() < 20 || row.text.contains('\n') {
                    return Err(invalid("needs one line of 20 characters or more"));
                }
                if !row.source.starts_with("https://") {
                    return Err(invalid("needs an https:// source link"));
                }
                advice.push(Advice {
                    text: row.text,
                    source: row.source,
                });
            }
        }
        Ok(Catalogue {
            signatures,
            hints,
            advice,
        })
    }
}

/// The word sets of all files, by id (taken out of the parsed files).
fn word_sets(
    files: &mut [(&str, CatalogueFile)],
) -> Result<std::collections::BTreeMap<String, Vec<String>>, CatalogueError> {
    let mut sets = std::collections::BTreeMap::new();
    for (name, parsed) in files.iter_mut() {
        for row in std::mem::take(&mut parsed.word_set) {
            let invalid = |message: &str| CatalogueError::Invalid {
                file: name.to_string(),
                id: format!("word set `{}`", row.id),
                message: message.to_string(),
            };
            if row.words.is_empty() || row.words.iter().any(|w| w.trim().len() < 3) {
                return Err(invalid("needs words of 3 characters or more"));
            }
            if row.words.iter().any(|w| w.starts_with('@')) {
                return Err(invalid("cannot name another word set"));
            }
            if sets.insert(row.id.clone(), row.words).is_some() {
                return Err(invalid("duplicate id"));
            }
        }
    }
    Ok(sets)
}

/// `words` with each `@NAME` replaced by the words of that set, or the first unknown name.
fn expand_word_sets(
    words: &[String],
    sets: &std::collections::BTreeMap<String, Vec<String>>,
) -> Result<Vec<String>, String> {
    let mut expanded = Vec::with_capacity(words.len());
    for word in words {
        match word.strip_prefix('@') {
            Some(set) => expanded.extend(
                sets.get(set)
                    .ok_or_else(|| set.to_string())?
                    .iter()
                    .cloned(),
            ),
            None => expanded.push(word.clone()),
        }
    }
    Ok(expanded)
}

fn validate_hint(
    file: &str,
    row: HintRow,
    ids: &mut std::collections::BTreeSet<String>,
) -> Result<Hint, CatalogueError> {
    let invalid = |message: String| CatalogueError::Invalid {
        file: file.to_string(),
        id: row.id.clone(),
        message,
    };
    if !ids.insert(row.id.clone()) {
        return Err(invalid("duplicate id".to_string()));
    }
    if row.words.is_empty() || row.words.iter().any(|w| w.trim().len() < 3) {
        return Err(invalid("needs words of 3 characters or more".to_string()));
    }
    if row.sources.is_empty() || row.sources.iter().any(|s| !s.starts_with("https://")) {
        return Err(invalid("needs https:// source links".to_string()));
    }
    if !(crate::ANSWER_FLOOR..crate::MEDIUM).contains(&row.confidence) {
        return Err(invalid(format!(
            "a hint's confidence must be in {}..{} (an answer, never more than low)",
            crate::ANSWER_FLOOR,
            crate::MEDIUM
        )));
    }
    let category = Category::from_id(&row.category)
        .ok_or_else(|| invalid(format!("unknown category `{}`", row.category)))?;
    let mut against = Vec::new();
    for a in &row.against {
        let c = Category::from_id(a).ok_or_else(|| invalid(format!("unknown category `{a}`")))?;
        if c == category {
            return Err(invalid(
                "a hint cannot argue against its own category".to_string(),
            ));
        }
        against.push(c);
    }
    let mut facts = Vec::new();
    for f in &row.facts {
        facts.push(
            FactCheck::from_id(f).ok_or_else(|| invalid(format!("unknown fact check `{f}`")))?,
        );
    }
    Ok(Hint {
        id: row.id,
        category,
        words: row.words,
        against,
        facts,
        confidence: row.confidence,
        explanation: row.explanation.trim().to_string(),
        fix: row.fix.trim().to_string(),
        sources: row.sources,
    })
}
