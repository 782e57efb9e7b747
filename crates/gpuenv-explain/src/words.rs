//! The word model: the last resort for a log that matches no signature and no hint. A
//! (complement) naive Bayes classifier over the words and adjacent word pairs of the corpus's
//! labelled public reports says which category's reports the log resembles most. Its answer is
//! a weak guess, labelled as one and never above `low` confidence: on logs no signature
//! recognised it was right about four times in ten (measured on the held-out batches;
//! tests/corpus.rs).
//!
//! `data/words.tsv` is generated from tests/corpus by the corpus test (`word_model_is_current`),
//! never edited by hand; `data/words.toml` holds what is chosen by people: the smoothing, the
//! gates (an error word must be present, enough known words, a margin over the runner-up) and a
//! first fix per category.
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
    alpha: f64,
    min_reports: u32,
    min_known_words: usize,
    min_margin: f64,
    confidence_floor: f64,
    confidence_ceiling: f64,
    error_words: Vec<String>,
    fix: BTreeMap<String, String>,
}

/// The people-chosen part of the model (`data/words.toml`).
#[derive(Debug, Clone)]
pub struct Settings {
    /// Additive smoothing of the per-category word frequencies.
    pub alpha: f64,
    /// A word counts only when at least this many reports contain it.
    pub min_reports: u32,
    /// At least this many words of the log must be known to the model.
    pub min_known_words: usize,
    /// The winner's score must beat the runner-up's by this much.
    pub min_margin: f64,
    /// The confidence of an answer at `min_margin`; it grows with the margin up to the ceiling.
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
        if file.alpha <= 0.0 || file.min_reports == 0 || file.min_margin < 0.0 {
            return Err(WordModelError::InvalidSettings(
                "alpha must be > 0, min_reports >= 1, min_margin >= 0".to_string(),
            ));
        }
        Ok(Settings {
            alpha: file.alpha,
            min_reports: file.min_reports,
            min_known_words: file.min_known_words,
            min_margin: file.min_margin,
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
    /// The winner's score over the runner-up's (nats).
    pub margin: f64,
    /// 0..=1, between the settings' floor and ceiling.
    pub confidence: f64,
    /// The log's words that speak most for the category, strongest first.
    pub strongest: Vec<String>,
}

/// Reports per category and, for every word, how many reports of each category contain it.
#[derive(Debug, Clone)]
pub struct WordModel {
    reports: [u32; ALL.len()],
    words: HashMap<String, Vec<(Category, u32)>>,
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

impl WordModel {
    /// The model generated from tests/corpus, with the built-in settings.
    pub fn builtin() -> Result<WordModel, WordModelError> {
        WordModel::parse(BUILTIN_MODEL, Settings::parse(BUILTIN_SETTINGS)?)
    }

    /// Builds a model from labelled texts.
    pub fn train<'a>(
        reports: impl IntoIterator<Item = (Category, &'a str)>,
        settings: Settings,
    ) -> WordModel {
        let mut counts = [0u32; ALL.len()];
        let mut words: HashMap<String, Vec<(Category, u32)>> = HashMap::new();
        for (category, text) in reports {
            counts[index(category)] += 1;
            for token in tokens(text) {
                let entry = words.entry(token).or_default();
                match entry.iter_mut().find(|(c, _)| *c == category) {
                    Some((_, n)) => *n += 1,
                    None => entry.push((category, 1)),
                }
            }
        }
        let mut model = WordModel {
            reports: counts,
            words,
            settings,
        };
        model.prune();
        model
    }

    /// The model without one of the reports it was built from (for leave-one-out measurement):
    /// exactly the model built from the others.
    pub fn without(&self, text: &str, category: Category) -> WordModel {
        let mut model = self.clone();
        let i = index(category);
        model.reports[i] = model.reports[i].saturating_sub(1);
        for token in tokens(text) {
            if let Some(entry) = model.words.get_mut(&token) {
                if let Some((_, n)) = entry.iter_mut().find(|(c, _)| *c == category) {
                    *n = n.saturating_sub(1);
                }
                entry.retain(|(_, n)| *n > 0);
            }
        }
        model.prune();
        model
    }

    /// Drops the words too few reports contain.
    fn prune(&mut self) {
        let min = self.settings.min_reports;
        self.words
            .retain(|_, entry| entry.iter().map(|(_, n)| n).sum::<u32>() >= min);
        for entry in self.words.values_mut() {
            entry.sort_by_key(|(c, _)| *c);
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

    /// Reads a model (`data/words.tsv`): a `@reports` line with `category=count` fields (no word
    /// can start with `@`), then one line per word: the word, then `category=count` fields.
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
        let mut words = HashMap::new();
        for (i, line) in text.lines().enumerate() {
            let line_no = i + 1;
            if line.starts_with('#') || line.trim().is_empty() {
                continue;
            }
            let mut fields = line.split('\t');
            let word = fields.next().unwrap_or_default();
            if word != REPORTS && !keep(word) {
                continue;
            }
            let mut counts = Vec::new();
            for field in fields {
                let parsed = field
                    .split_once('=')
                    .and_then(|(id, n)| Some((Category::from_id(id)?, n.parse::<u32>().ok()?)));
                let Some(pair) = parsed else {
                    return Err(WordModelError::Model {
                        line: line_no,
                        message: format!("`{field}` is not `category=count`"),
                    });
                };
                counts.push(pair);
            }
            if word == REPORTS {
                let mut all = [0u32; ALL.len()];
                for (c, n) in counts {
                    all[index(c)] = n;
                }
                if reports.replace(all).is_some() {
                    return Err(WordModelError::Model {
                        line: line_no,
                        message: format!("a second `{REPORTS}` line"),
                    });
                }
            } else if counts.is_empty() {
                return Err(WordModelError::Model {
                    line: line_no,
                    message: format!("word `{word}` has no counts"),
                });
            } else {
                counts.sort_by_key(|(c, _)| *c);
                words.insert(word.to_string(), counts);
            }
        }
        let Some(reports) = reports else {
            return Err(WordModelError::Model {
                line: 0,
                message: format!("no `{REPORTS}` line"),
            });
        };
        Ok(WordModel {
            reports,
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
        let mut words: Vec<(&String, &Vec<(Category, u32)>)> = self.words.iter().collect();
        words.sort();
        for (word, counts) in words {
            out.push_str(word);
            for (c, n) in counts {
                out.push_str(&format!("\t{c}={n}"));
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
        let known: Vec<(&String, &Vec<(Category, u32)>)> = tokens(text)
            .into_iter()
            .filter_map(|t| self.words.get_key_value(&t))
            .collect();
        if known.len() < self.settings.min_known_words {
            return None;
        }
        // Complement naive Bayes: a category scores by how unlike the *other* categories'
        // reports the log's words are (steadier than plain naive Bayes with categories of
        // uneven size; on the held-out batches' unknown logs it was right 41% of the time where
        // plain naive Bayes was 35%).
        let alpha = self.settings.alpha;
        let total: u32 = self.reports.iter().sum();
        let count = |entry: &[(Category, u32)], category: Category| {
            entry
                .iter()
                .find(|(c, _)| *c == category)
                .map_or(0, |(_, n)| *n)
        };
        let weight = |category: Category, entry: &[(Category, u32)]| {
            let all: u32 = entry.iter().map(|(_, n)| n).sum();
            let elsewhere = f64::from(all - count(entry, category));
            let others = f64::from(total - self.reports[index(category)]);
            -((elsewhere + alpha) / (others + 2.0 * alpha)).ln()
        };
        let mut scores: Vec<(Category, f64)> = ALL
            .into_iter()
            .filter(|c| self.reports[index(*c)] > 0)
            .map(|c| (c, known.iter().map(|(_, e)| weight(c, e)).sum()))
            .collect();
        scores.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        let (winner, best) = *scores.first()?;
        let margin = scores.get(1).map_or(f64::INFINITY, |(_, s)| best - s);
        if margin < self.settings.min_margin {
            return None;
        }
        // The words that speak most for the winner: its weight over the best other one's.
        let mut strongest: Vec<(f64, &String)> = known
            .iter()
            .map(|(word, entry)| {
                let own = weight(winner, entry);
                let other = scores
                    .iter()
                    .filter(|(c, _)| *c != winner)
                    .map(|(c, _)| weight(*c, entry))
                    .fold(f64::NEG_INFINITY, f64::max);
                (own - other, *word)
            })
            .filter(|(w, _)| *w > 0.0)
            .collect();
        strongest.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(b.1)));
        // A winner no single word speaks for won on the categories' sizes, not on the log.
        if strongest.is_empty() {
            return None;
        }
        let s = &self.settings;
        // Grows with the margin, reaching the ceiling at four nats (where, on the held-out
        // batches' unknown logs, more than half the answers were right).
        let reach = ((margin - s.min_margin) / 4.0).clamp(0.0, 1.0);
        let confidence = s.confidence_floor + (s.confidence_ceiling - s.confidence_floor) * reach;
        Some(Resemblance {
            category: winner,
            reports: self.reports[index(winner)],
            margin,
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
        s.min_margin = 0.5;
        let model = WordModel::train(reports, s);
        let r = model
            .classify("fatal error: the allocator ran out of memory")
            .unwrap();
        assert_eq!(r.category, Category::OutOfMemory);
        assert!(r.strongest.iter().any(|w| w.contains("memory")));
        let r = model.classify("error: dxg adapter missing in wsl").unwrap();
        assert_eq!(r.category, Category::Wsl);
        // No error word: not a report.
        assert_eq!(model.classify("wsl dxg adapter allocator memory"), None);
    }

    #[test]
    fn a_winner_no_word_speaks_for_is_no_answer() {
        // Each word is more typical of another category than of A; A wins on the categories'
        // sizes alone (by 0.39 nats), which is no resemblance.
        let reports = [
            (Category::OutOfMemory, "bravo"),
            (Category::OutOfMemory, "alpha bravo charlie"),
            (Category::Wsl, "alpha charlie"),
            (Category::Wsl, "quebec"),
            (Category::CudnnMissing, "alpha charlie"),
            (Category::CudnnMissing, "bravo"),
            (Category::CudnnMissing, "alpha bravo"),
            (Category::CudnnMissing, "bravo"),
        ];
        let mut s = settings();
        s.min_known_words = 2;
        s.min_margin = 0.1;
        let model = WordModel::train(reports, s);
        assert_eq!(model.classify("error: charlie bravo alpha"), None);
        let r = model.classify("error: alpha charlie, quebec").unwrap();
        assert!(!r.strongest.is_empty());
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
    fn leaving_a_report_out_is_training_without_it() {
        let reports = [
            (Category::OutOfMemory, "error: allocator ran out of memory"),
            (Category::OutOfMemory, "error: memory exhausted allocator"),
            (Category::Wsl, "error: wsl dxg adapter"),
            (Category::Wsl, "error: wsl dxg memory"),
        ];
        let full = WordModel::train(reports, settings());
        let left = full.without(reports[3].1, reports[3].0);
        let trained = WordModel::train(reports[..3].iter().copied(), settings());
        assert_eq!(left.to_tsv(), trained.to_tsv());
    }

    #[test]
    fn round_trips_through_tsv() {
        let model = WordModel::builtin().unwrap();
        let again = WordModel::parse(&model.to_tsv(), settings()).unwrap();
        assert_eq!(model.to_tsv(), again.to_tsv());
    }

    #[test]
    fn bad_model_lines_are_errors() {
        assert!(WordModel::parse("@reports\tcudnn-missing=x\n", settings()).is_err());
        assert!(WordModel::parse("@reports\tcudnn-missing=1\nword\n", settings()).is_err());
        assert!(WordModel::parse("word\tcudnn-missing=1\n", settings()).is_err());
        assert!(WordModel::parse("@reports\tnot-a-category=1\n", settings()).is_err());
        assert!(WordModel::parse(
            "@reports\tcudnn-missing=1\n@reports\tcudnn-missing=1\n",
            settings()
        )
        .is_err());
        // A word that happens to be `reports` is a word.
        let m = WordModel::parse(
            "@reports\tcudnn-missing=2\nreports\tcudnn-missing=2\n",
            settings(),
        )
        .unwrap();
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
