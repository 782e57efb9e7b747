//! The word model: the last resort for a log that matches no signature and no hint. A
//! multinomial logistic regression over the words and adjacent word pairs of the corpus's
//! labelled public reports (each log a set of words, weighted by how rare each word is) says
//! which category's reports the log resembles most. Its answer is a weak guess, labelled as one
//! and never above `low` confidence: on logs no signature recognised it is right about four
//! times in ten (measured on reports collected after the model was built; tests/corpus.rs).
//!
//! `data/words.tsv` is generated from tests/corpus by the corpus test (`word_model_is_current`),
//! never edited by hand; `data/words.toml` holds what is chosen by people: the training
//! settings, the gates (an error word must be present, enough known words) and a first fix per
//! category.
//!
//! Pure: text in, a category out.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use serde::Deserialize;
use thiserror::Error;

use crate::category::{Category, ALL};

/// The built-in model, generated from tests/corpus.
pub const BUILTIN_MODEL: &str = include_str!("../data/words.tsv");
/// The built-in settings.
pub const BUILTIN_SETTINGS: &str = include_str!("../data/words.toml");

/// Only the end of a long log is read: that is where a program says what killed it, and the
/// corpus's reports are short.
const REGION: usize = 256 * 1024;

/// The key of the line with the reports per category (words never start with `@`).
const REPORTS: &str = "@reports";
/// The key of the line with the per-category constant terms.
const BIAS: &str = "@bias";

/// How many categories there are.
const N: usize = ALL.len();

/// Why a word model or its settings were rejected.
#[derive(Debug, Error)]
pub enum WordModelError {
    #[error("words.toml: {0}")]
    Settings(#[from] toml::de::Error),
    #[error("words.toml: {0}")]
    InvalidSettings(String),
    #[error("words.tsv line {line}: {message}")]
    Model { line: usize, message: String },
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct SettingsFile {
    penalty: f64,
    iterations: usize,
    step: f64,
    momentum: f64,
    min_weight: f64,
    min_reports: u32,
    min_known_words: usize,
    confidence_floor: f64,
    confidence_ceiling: f64,
    error_words: Vec<String>,
    fix: BTreeMap<String, String>,
}

/// The people-chosen part of the model (`data/words.toml`).
#[derive(Debug, Clone)]
pub struct Settings {
    /// The L2 penalty on the weights, per report (larger: smoother, less sure answers).
    pub penalty: f64,
    /// Training: rounds of gradient descent, the step of each, and its (Nesterov) momentum.
    pub iterations: usize,
    pub step: f64,
    pub momentum: f64,
    /// Weights smaller than this (in absolute value) are stored as 0, to keep the model small.
    pub min_weight: f64,
    /// A word counts only when at least this many reports contain it.
    pub min_reports: u32,
    /// At least this many words of the log must be known to the model.
    pub min_known_words: usize,
    /// The confidence of an answer the model gives a probability of 0.2 or less; it grows with
    /// the probability up to the ceiling (at 0.6).
    pub confidence_floor: f64,
    pub confidence_ceiling: f64,
    /// One of these (case-insensitive) must be in the log: without one it is not an error report.
    pub error_words: Vec<String>,
    /// A first fix per category.
    pub fix: BTreeMap<Category, String>,
}

impl Settings {
    pub fn parse(text: &str) -> Result<Settings, WordModelError> {
        let file: SettingsFile = toml::from_str(text)?;
        let mut fix = BTreeMap::new();
        for (id, text) in file.fix {
            let category = Category::from_id(&id).ok_or_else(|| {
                WordModelError::InvalidSettings(format!("fix for unknown category `{id}`"))
            })?;
            fix.insert(category, text);
        }
        if let Some(missing) = ALL.into_iter().find(|c| !fix.contains_key(c)) {
            return Err(WordModelError::InvalidSettings(format!(
                "no fix for category `{missing}`"
            )));
        }
        let floor_ok = file.confidence_floor >= crate::ANSWER_FLOOR;
        let ceiling_ok = file.confidence_ceiling < crate::MEDIUM
            && file.confidence_ceiling >= file.confidence_floor;
        if !floor_ok || !ceiling_ok {
            return Err(WordModelError::InvalidSettings(format!(
                "confidence must lie between the answer floor ({}) and medium ({})",
                crate::ANSWER_FLOOR,
                crate::MEDIUM
            )));
        }
        let training_ok = file.penalty > 0.0
            && file.iterations > 0
            && file.step > 0.0
            && (0.0..1.0).contains(&file.momentum)
            && file.min_weight >= 0.0;
        if !training_ok || file.min_reports == 0 {
            return Err(WordModelError::InvalidSettings(
                "penalty and step must be > 0, iterations and min_reports >= 1, \
                 0 <= momentum < 1, min_weight >= 0"
                    .to_string(),
            ));
        }
        Ok(Settings {
            penalty: file.penalty,
            iterations: file.iterations,
            step: file.step,
            momentum: file.momentum,
            min_weight: file.min_weight,
            min_reports: file.min_reports,
            min_known_words: file.min_known_words,
            confidence_floor: file.confidence_floor,
            confidence_ceiling: file.confidence_ceiling,
            error_words: file
                .error_words
                .iter()
                .map(|w| w.to_ascii_lowercase())
                .collect(),
            fix,
        })
    }
}

/// What the model says of a log.
#[derive(Debug, Clone, PartialEq)]
pub struct Resemblance {
    pub category: Category,
    /// How many reports of that category the model was built from.
    pub reports: u32,
    /// The model's probability for the category.
    pub probability: f64,
    /// 0..=1, between the settings' floor and ceiling.
    pub confidence: f64,
    /// The log's words that speak most for the category, strongest first.
    pub strongest: Vec<String>,
}

/// One word of the model: how rare it is among the reports, and its weight for each category.
#[derive(Debug, Clone, PartialEq)]
struct Word {
    idf: f64,
    weights: [f64; N],
}

/// Reports per category, the constant terms, and every word's rarity and weights.
#[derive(Debug, Clone)]
pub struct WordModel {
    reports: [u32; N],
    bias: [f64; N],
    words: HashMap<String, Word>,
    settings: Settings,
}

fn index(category: Category) -> usize {
    ALL.iter().position(|c| *c == category).unwrap_or(0)
}

/// The end of `text` that the model reads, cut at a character boundary.
fn region(text: &str) -> &str {
    if text.len() <= REGION {
        return text;
    }
    let mut start = text.len() - REGION;
    while !text.is_char_boundary(start) {
        start += 1;
    }
    &text[start..]
}

/// The words of a text, lowercased: runs of ASCII letters, digits and `_` with leading digits
/// dropped, three characters or more; and every pair of adjacent words, joined by a space.
pub fn tokens(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut previous: Option<String> = None;
    for word in words(region(text)) {
        if let Some(p) = previous.take() {
            out.insert(format!("{p} {word}"));
        }
        out.insert(word.clone());
        previous = Some(word);
    }
    out
}

fn words(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .map(|run| run.trim_start_matches(|c: char| c.is_ascii_digit()))
        .filter(|run| run.len() >= 3)
        .map(|run| run.to_ascii_lowercase())
}

/// Stored numbers keep three decimals, so a model trained here and one read back from its TSV
/// are the same model.
fn rounded(x: f64) -> f64 {
    let r = (x * 1e3).round() / 1e3;
    if r == 0.0 {
        0.0
    } else {
        r
    }
}

/// A log as the model reads it: its known words' rarities, scaled to unit length.
fn features<'m>(words: &'m HashMap<String, Word>, text: &str) -> Vec<(&'m String, &'m Word, f64)> {
    let mut known: Vec<(&String, &Word, f64)> = tokens(text)
        .into_iter()
        .filter_map(|t| words.get_key_value(&t).map(|(k, w)| (k, w, w.idf)))
        .collect();
    let norm = known.iter().map(|(_, _, x)| x * x).sum::<f64>().sqrt();
    if norm > 0.0 {
        for entry in &mut known {
            entry.2 /= norm;
        }
    }
    known
}

/// Softmax of `z` in place (over the categories `present` marks; the others get 0).
fn softmax(z: &mut [f64; N], present: &[bool; N]) {
    let max = z
        .iter()
        .zip(present)
        .filter(|(_, p)| **p)
        .map(|(v, _)| *v)
        .fold(f64::NEG_INFINITY, f64::max);
    let mut sum = 0.0;
    for (v, p) in z.iter_mut().zip(present) {
        *v = if *p { (*v - max).exp() } else { 0.0 };
        sum += *v;
    }
    if sum > 0.0 {
        for v in z.iter_mut() {
            *v /= sum;
        }
    }
}

impl WordModel {
    /// The model generated from tests/corpus, with the built-in settings.
    pub fn builtin() -> Result<WordModel, WordModelError> {
        WordModel::parse(BUILTIN_MODEL, Settings::parse(BUILTIN_SETTINGS)?)
    }

    /// Builds a model from labelled texts: the vocabulary (words at least `min_reports`
    /// reports contain) and each word's rarity, then the weights by gradient descent with
    /// Nesterov momentum on the penalised log-loss, from zero, in a fixed order (the same
    /// reports always give the same model).
    pub fn train<'a>(
        reports: impl IntoIterator<Item = (Category, &'a str)>,
        settings: Settings,
    ) -> WordModel {
        let docs: Vec<(usize, BTreeSet<String>)> = reports
            .into_iter()
            .map(|(c, text)| (index(c), tokens(text)))
            .collect();
        let mut counts = [0u32; N];
        let mut frequency: HashMap<&str, u32> = HashMap::new();
        for (c, doc) in &docs {
            counts[*c] += 1;
            for token in doc {
                *frequency.entry(token.as_str()).or_default() += 1;
            }
        }
        let mut vocabulary: Vec<(&str, u32)> = frequency
            .into_iter()
            .filter(|(_, n)| *n >= settings.min_reports)
            .collect();
        vocabulary.sort_unstable();
        let n = docs.len().max(1) as f64;
        let position: HashMap<&str, usize> = vocabulary
            .iter()
            .enumerate()
            .map(|(i, (w, _))| (*w, i))
            .collect();
        let idf: Vec<f64> = vocabulary
            .iter()
            .map(|(_, df)| rounded(((1.0 + n) / (1.0 + f64::from(*df))).ln() + 1.0))
            .collect();
        // Each report as (category, [(word, weight)]) with unit length.
        let rows: Vec<(usize, Vec<(usize, f64)>)> = docs
            .iter()
            .map(|(c, doc)| {
                let mut row: Vec<(usize, f64)> = doc
                    .iter()
                    .filter_map(|t| position.get(t.as_str()).map(|i| (*i, idf[*i])))
                    .collect();
                let norm = row.iter().map(|(_, x)| x * x).sum::<f64>().sqrt();
                if norm > 0.0 {
                    for entry in &mut row {
                        entry.1 /= norm;
                    }
                }
                (*c, row)
            })
            .collect();
        let present: [bool; N] = std::array::from_fn(|c| counts[c] > 0);

        let s = &settings;
        let mut weights = vec![[0.0f64; N]; vocabulary.len()];
        let mut bias = [0.0f64; N];
        let mut velocity = vec![[0.0f64; N]; vocabulary.len()];
        let mut bias_velocity = [0.0f64; N];
        let mut ahead = vec![[0.0f64; N]; vocabulary.len()];
        let mut gradient = vec![[0.0f64; N]; vocabulary.len()];
        for _ in 0..s.iterations {
            // The gradient at the look-ahead point (Nesterov).
            for ((a, w), v) in ahead.iter_mut().zip(&weights).zip(&velocity) {
                for c in 0..N {
                    a[c] = w[c] + s.momentum * v[c];
                }
            }
            let bias_ahead: [f64; N] =
                std::array::from_fn(|c| bias[c] + s.momentum * bias_velocity[c]);
            for g in gradient.iter_mut() {
                *g = [0.0; N];
            }
            let mut bias_gradient = [0.0f64; N];
            for (label, row) in &rows {
                let mut z = bias_ahead;
                for (i, x) in row {
                    for c in 0..N {
                        z[c] += x * ahead[*i][c];
                    }
                }
                softmax(&mut z, &present);
                z[*label] -= 1.0;
                for (i, x) in row {
                    for c in 0..N {
                        gradient[*i][c] += x * z[c];
                    }
                }
                for c in 0..N {
                    bias_gradient[c] += z[c];
                }
            }
            for ((w, v), (g, a)) in weights
                .iter_mut()
                .zip(velocity.iter_mut())
                .zip(gradient.iter().zip(&ahead))
            {
                for c in 0..N {
                    v[c] = s.momentum * v[c] - s.step * (g[c] + s.penalty * a[c]) / n;
                    w[c] += v[c];
                }
            }
            for c in 0..N {
                bias_velocity[c] = s.momentum * bias_velocity[c] - s.step * bias_gradient[c] / n;
                bias[c] += bias_velocity[c];
            }
        }
        let min_weight = s.min_weight;
        let words = vocabulary
            .iter()
            .zip(idf)
            .zip(weights)
            .map(|(((word, _), idf), w)| {
                let weights = w.map(|x| {
                    if x.abs() < min_weight {
                        0.0
                    } else {
                        rounded(x)
                    }
                });
                (word.to_string(), Word { idf, weights })
            })
            .filter(|(_, w)| w.weights.iter().any(|x| *x != 0.0))
            .collect();
        WordModel {
            reports: counts,
            bias: bias.map(rounded),
            words,
            settings,
        }
    }

    /// The built-in model cut down to the words of `log`: it classifies `log` exactly as the
    /// whole model does (classifying reads only the log's own words), and reading it skips most
    /// of the model's lines.
    pub fn builtin_for(log: &str) -> Result<WordModel, WordModelError> {
        let wanted = tokens(log);
        WordModel::parse_only(BUILTIN_MODEL, Settings::parse(BUILTIN_SETTINGS)?, |word| {
            wanted.contains(word)
        })
    }

    /// Reads a model (`data/words.tsv`): a `@reports` line with `category=count` fields and a
    /// `@bias` line with `category=weight` fields (no word can start with `@`), then one line
    /// per word: the word, its rarity, then its weight for each category in the order of
    /// [`ALL`] (empty for 0).
    pub fn parse(text: &str, settings: Settings) -> Result<WordModel, WordModelError> {
        WordModel::parse_only(text, settings, |_| true)
    }

    /// [`WordModel::parse`] keeping only the words `keep` accepts (the lines of the others are
    /// not read past their word).
    fn parse_only(
        text: &str,
        settings: Settings,
        keep: impl Fn(&str) -> bool,
    ) -> Result<WordModel, WordModelError> {
        let mut reports = None;
        let mut bias = None;
        let mut words = HashMap::new();
        for (i, line) in text.lines().enumerate() {
            let line_no = i + 1;
            if line.starts_with('#') || line.trim().is_empty() {
                continue;
            }
            let error = |message: String| WordModelError::Model {
                line: line_no,
                message,
            };
            let mut fields = line.split('\t');
            let word = fields.next().unwrap_or_default();
            let special = word == REPORTS || word == BIAS;
            if !special && !keep(word) {
                continue;
            }
            let idf = if special {
                None
            } else {
                let field = fields.next().unwrap_or_default();
                let idf = field
                    .parse::<f64>()
                    .ok()
                    .filter(|x| x.is_finite() && *x > 0.0)
                    .ok_or_else(|| error(format!("word `{word}`: `{field}` is not a rarity")))?;
                Some(idf)
            };
            let mut values = [0.0f64; N];
            let mut any = false;
            if special {
                for field in fields {
                    let parsed = field
                        .split_once('=')
                        .and_then(|(id, v)| Some((Category::from_id(id)?, v.parse::<f64>().ok()?)));
                    let Some((c, v)) = parsed.filter(|(_, v)| v.is_finite()) else {
                        return Err(error(format!("`{field}` is not `category=number`")));
                    };
                    values[index(c)] = v;
                }
            } else {
                let fields: Vec<&str> = fields.collect();
                if fields.len() != N {
                    return Err(error(format!(
                        "word `{word}`: {} weights, not one per category ({N})",
                        fields.len()
                    )));
                }
                for (value, field) in values.iter_mut().zip(fields) {
                    if field.is_empty() {
                        continue;
                    }
                    *value = field
                        .parse::<f64>()
                        .ok()
                        .filter(|v| v.is_finite())
                        .ok_or_else(|| error(format!("`{field}` is not a number")))?;
                    any = true;
                }
            }
            if word == REPORTS {
                let counts = values.map(|v| v.max(0.0) as u32);
                if reports.replace(counts).is_some() {
                    return Err(error(format!("a second `{REPORTS}` line")));
                }
            } else if word == BIAS {
                if bias.replace(values).is_some() {
                    return Err(error(format!("a second `{BIAS}` line")));
                }
            } else if !any {
                return Err(error(format!("word `{word}` has no weights")));
            } else if let Some(idf) = idf {
                words.insert(
                    word.to_string(),
                    Word {
                        idf,
                        weights: values,
                    },
                );
            }
        }
        let missing = |key: &str| WordModelError::Model {
            line: 0,
            message: format!("no `{key}` line"),
        };
        Ok(WordModel {
            reports: reports.ok_or_else(|| missing(REPORTS))?,
            bias: bias.ok_or_else(|| missing(BIAS))?,
            words,
            settings,
        })
    }

    /// The model as `data/words.tsv` stores it (sorted, so it diffs well).
    pub fn to_tsv(&self) -> String {
        let mut out = String::from(
            "# gpuenv-explain word model, generated from tests/corpus by\n\
             # `GPUENV_WRITE_WORD_MODEL=1 cargo test -p gpuenv-explain --test corpus word_model`.\n\
             # Do not edit: the corpus test checks that it is what the corpus gives.\n",
        );
        out.push_str(REPORTS);
        for (c, n) in ALL.iter().zip(self.reports) {
            out.push_str(&format!("\t{c}={n}"));
        }
        out.push('\n');
        out.push_str(BIAS);
        for (c, b) in ALL.iter().zip(self.bias) {
            out.push_str(&format!("\t{c}={b}"));
        }
        out.push('\n');
        let mut words: Vec<(&String, &Word)> = self.words.iter().collect();
        words.sort_by(|a, b| a.0.cmp(b.0));
        for (word, entry) in words {
            out.push_str(&format!("{word}\t{}", entry.idf));
            for w in entry.weights {
                out.push('\t');
                if w != 0.0 {
                    out.push_str(&w.to_string());
                }
            }
            out.push('\n');
        }
        out
    }

    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// How many words the model knows.
    pub fn len(&self) -> usize {
        self.words.len()
    }

    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }

    /// The first fix for a category.
    pub fn fix(&self, category: Category) -> &str {
        self.settings
            .fix
            .get(&category)
            .map(String::as_str)
            .unwrap_or_default()
    }

    /// Which category's reports the text resembles most, when the gates let it say.
    pub fn classify(&self, text: &str) -> Option<Resemblance> {
        let lower = region(text).to_ascii_lowercase();
        if !self
            .settings
            .error_words
            .iter()
            .any(|w| lower.contains(w.as_str()))
        {
            return None;
        }
        let known = features(&self.words, text);
        if known.len() < self.settings.min_known_words {
            return None;
        }
        let present: [bool; N] = std::array::from_fn(|c| self.reports[c] > 0);
        let mut p = self.bias;
        for (_, word, x) in &known {
            for (c, w) in word.weights.iter().enumerate() {
                p[c] += x * w;
            }
        }
        softmax(&mut p, &present);
        let winner = (0..N)
            .filter(|c| present[*c])
            .max_by(|a, b| p[*a].total_cmp(&p[*b]).then(b.cmp(a)))?;
        // The words that speak most for the winner: their pull towards it over the strongest
        // pull towards another category.
        let mut strongest: Vec<(f64, &String)> = known
            .iter()
            .map(|(name, word, x)| {
                let other = (0..N)
                    .filter(|c| *c != winner && present[*c])
                    .map(|c| word.weights[c])
                    .fold(f64::NEG_INFINITY, f64::max);
                (x * (word.weights[winner] - other), *name)
            })
            .filter(|(w, _)| *w > 0.0)
            .collect();
        strongest.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(b.1)));
        // A winner no single word speaks for won on the constant terms, not on the log.
        if strongest.is_empty() {
            return None;
        }
        let s = &self.settings;
        // Grows with the probability, reaching the ceiling at 0.6 (on reports collected after
        // the model was built, about three answers in four at 0.4 or more were right).
        let reach = ((p[winner] - 0.2) / 0.4).clamp(0.0, 1.0);
        let confidence = s.confidence_floor + (s.confidence_ceiling - s.confidence_floor) * reach;
        Some(Resemblance {
            category: ALL[winner],
            reports: self.reports[winner],
            probability: p[winner],
            confidence: (confidence * 100.0).round() / 100.0,
            strongest: strongest
                .into_iter()
                .take(5)
                .map(|(_, w)| w.clone())
                .collect(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings() -> Settings {
        Settings::parse(BUILTIN_SETTINGS).unwrap()
    }

    #[test]
    fn tokens_are_words_and_pairs() {
        let t = tokens("RuntimeError: CUDA out of memory. Tried 20MiB x86_64 2abc");
        for w in [
            "runtimeerror",
            "cuda",
            "out",
            "memory",
            "tried",
            "mib",
            "x86_64",
            "abc",
            "cuda out",
            "out memory",
        ] {
            assert!(t.contains(w), "{w} missing from {t:?}");
        }
        assert!(!t.contains("of"));
        assert!(!t.contains("20mib"));
    }

    #[test]
    fn builtin_model_and_settings_parse() {
        let model = WordModel::builtin().unwrap();
        assert!(model.len() > 1000);
        for c in ALL {
            assert!(!model.fix(c).is_empty());
        }
    }

    #[test]
    fn classifies_by_the_words_of_its_reports() {
        let reports = [
            (
                Category::OutOfMemory,
                "error: allocator ran out of memory on the device",
            ),
            (
                Category::OutOfMemory,
                "error: memory exhausted, allocator could not reserve",
            ),
            (Category::Wsl, "error: wsl kernel dxg adapter not present"),
            (Category::Wsl, "error: wsl dxg adapter failed under windows"),
        ];
        let mut s = settings();
        s.min_known_words = 2;
        let model = WordModel::train(reports, s);
        let r = model
            .classify("fatal error: the allocator ran out of memory")
            .unwrap();
        assert_eq!(r.category, Category::OutOfMemory);
        assert!(r.probability > 0.5, "{r:?}");
        assert!(r.strongest.iter().any(|w| w.contains("memory")));
        let r = model.classify("error: dxg adapter missing in wsl").unwrap();
        assert_eq!(r.category, Category::Wsl);
        // No error word: not a report.
        assert_eq!(model.classify("wsl dxg adapter allocator memory"), None);
    }

    #[test]
    fn a_winner_no_word_speaks_for_is_no_answer() {
        // `alpha` is in every report of both categories: it pulls towards neither.
        let reports = [
            (Category::OutOfMemory, "alpha bravo"),
            (Category::OutOfMemory, "alpha bravo"),
            (Category::Wsl, "alpha delta"),
            (Category::Wsl, "alpha delta"),
        ];
        let mut s = settings();
        s.min_known_words = 1;
        let model = WordModel::train(reports, s);
        assert_eq!(model.classify("error: alpha"), None);
        let r = model.classify("error: alpha bravo").unwrap();
        assert_eq!(r.category, Category::OutOfMemory);
        assert!(r.strongest.iter().any(|w| w == "bravo"), "{r:?}");
        assert!(!r.strongest.iter().any(|w| w == "alpha"), "{r:?}");
    }

    #[test]
    fn the_builtin_model_cut_to_a_log_classifies_it_as_the_whole_one() {
        let whole = WordModel::builtin().unwrap();
        let logs = [
            "the program hangs and fails with a timeout error",
            "Error: process killed while loading the dataset, dmesg shows oom-kill",
            "RuntimeError: nccl watchdog timeout, rank 3 did not respond",
            "error: the windows subsystem for linux cannot see my GPU, nvidia-smi is empty",
            "no error words here at all",
        ];
        let mut answered = 0;
        for log in logs {
            let cut = WordModel::builtin_for(log).unwrap();
            assert!(cut.len() < whole.len() / 10, "{log}: {} words", cut.len());
            assert_eq!(cut.classify(log), whole.classify(log), "{log}");
            answered += usize::from(whole.classify(log).is_some());
        }
        // Not a comparison of two empty answers.
        assert!(answered >= 2, "{answered}");
    }

    #[test]
    fn training_is_deterministic() {
        let reports = [
            (Category::OutOfMemory, "error: allocator ran out of memory"),
            (Category::OutOfMemory, "error: memory exhausted allocator"),
            (Category::Wsl, "error: wsl dxg adapter"),
            (Category::Wsl, "error: wsl dxg memory"),
        ];
        let once = WordModel::train(reports, settings()).to_tsv();
        let again = WordModel::train(reports, settings()).to_tsv();
        assert_eq!(once, again);
        assert!(once.contains("\nallocator\t"), "{once}");
        let back = WordModel::parse(&once, settings()).unwrap();
        assert_eq!(back.to_tsv(), once);
    }

    #[test]
    fn round_trips_through_tsv() {
        let model = WordModel::builtin().unwrap();
        let again = WordModel::parse(&model.to_tsv(), settings()).unwrap();
        assert_eq!(model.to_tsv(), again.to_tsv());
    }

    #[test]
    fn bad_model_lines_are_errors() {
        let head = "@reports\tcudnn-missing=1\n@bias\tcudnn-missing=0.5\n";
        let parse = |text: &str| WordModel::parse(text, settings());
        assert!(parse(head).is_ok());
        assert!(parse("@reports\tcudnn-missing=x\n@bias\tcudnn-missing=1\n").is_err());
        assert!(parse("@bias\tcudnn-missing=1\n").is_err());
        assert!(parse("@reports\tcudnn-missing=1\n").is_err());
        let line =
            |idf: &str, first: &str| format!("{head}word\t{idf}\t{first}{}\n", "\t".repeat(N - 1));
        assert!(parse(&line("1.5", "0.25")).is_ok());
        assert!(parse(&line("1.5", "")).is_err(), "no weights");
        assert!(parse(&line("x", "0.25")).is_err());
        assert!(parse(&line("-1", "0.25")).is_err());
        assert!(parse(&line("1.5", "NaN")).is_err());
        assert!(parse(&line("1.5", "cudnn-missing=1")).is_err());
        assert!(
            parse(&format!("{head}word\t1.5\t0.25\n")).is_err(),
            "too few weights"
        );
        assert!(parse(&format!("{head}@bias\tcudnn-missing=1\n")).is_err());
        assert!(parse("@reports\tnot-a-category=1\n@bias\tcudnn-missing=1\n").is_err());
        // A word that happens to be `reports` is a word.
        let m = parse(&line("1.5", "0.25").replace("\nword\t", "\nreports\t")).unwrap();
        assert_eq!(m.len(), 1);
    }

    #[test]
    fn huge_text_reads_only_its_end() {
        let mut text = "é".repeat(REGION);
        text.push_str(" tail_word");
        let t = tokens(&text);
        assert!(t.contains("tail_word"));
    }
}
