//! gpuenv-explain: from an error message to its most likely root causes.
//!
//! ```text
//! error text ──normalise──▶ lines ──one automaton pass──▶ signatures ──causes──▶ categories
//!                                                          ──refined by Facts──▶ ranked Diagnoses
//! ```
//!
//! Category hints (a WSL kernel string, `CUDA_VISIBLE_DEVICES=-1`) re-rank the causes of the
//! signatures found and, when nothing gives an answer, are offered as a weak one of their own
//! (`Diagnosis::hint`, never above `low`). When neither answers, the word model ([`words`]: which
//! category's public reports the log's words resemble most) may offer a weak guess, labelled as
//! one. A log that none of them answers is "unknown".
//!
//! Pure: no file system, no environment. The caller hands in the bytes, and optionally the facts
//! of the machine the log came from (doctor's probes) and the knowledge base.

pub mod catalogue;
pub mod category;
pub mod extract;
pub mod libraries;
pub mod matcher;
pub mod normalize;
pub mod provenance;
pub mod refine;
pub mod words;

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::sync::OnceLock;

use serde::Serialize;
use thiserror::Error;

use gpuenv_facts::Facts;
use gpuenv_kb::Kb;

pub use catalogue::{Catalogue, CatalogueError, Cause, Hint, Signature};
pub use category::Category;
pub use extract::{Extracted, TextCheck};
pub use refine::{Effect, FactCheck, FactEvidence};
pub use words::{Resemblance, WordModel, WordModelError};

use matcher::{Hits, Matcher};
use normalize::Text;

/// Below this, a category is not an answer ("unknown" beats a guess).
pub const ANSWER_FLOOR: f64 = 0.3;
/// At or above this, a diagnosis is `high` confidence.
pub const HIGH: f64 = 0.7;
/// At or above this, `medium`.
pub const MEDIUM: f64 = 0.45;
/// Log lines shown per diagnosis.
const MAX_LOG_EVIDENCE: usize = 6;
/// Characters of one evidence line shown.
const SNIPPET: usize = 240;

/// Why the explainer could not be built.
#[derive(Debug, Error)]
pub enum ExplainError {
    #[error(transparent)]
    Catalogue(#[from] CatalogueError),
    #[error(transparent)]
    Matcher(#[from] matcher::MatcherError),
    #[error(transparent)]
    Words(#[from] WordModelError),
}

/// A log normalised and scanned by [`Explainer::scan`], ready for [`Explainer::conclude`].
#[derive(Debug)]
pub struct ScannedLog {
    text: Text,
    hits: Hits,
}

/// The catalogue and its automaton, built once.
#[derive(Debug, Clone)]
pub struct Explainer {
    catalogue: Catalogue,
    matcher: Matcher,
    /// The last resort when no signature or hint answers ([`words`]); none when not given.
    words: Words,
}

/// The word model of an [`Explainer`]: none, one given, or the built-in one. Most logs are
/// answered by a signature and never need it; a log that does reads only the built-in model's
/// lines for its own words ([`WordModel::builtin_for`]). The whole built-in model is parsed only
/// when [`Explainer::words`] asks for it.
#[derive(Debug, Clone)]
enum Words {
    None,
    Given(WordModel),
    Builtin(OnceLock<Option<WordModel>>),
}

/// How sure a diagnosis is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Level {
    High,
    Medium,
    Low,
}

impl Level {
    fn of(confidence: f64) -> Level {
        if confidence >= HIGH {
            Level::High
        } else if confidence >= MEDIUM {
            Level::Medium
        } else {
            Level::Low
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Level::High => "high",
            Level::Medium => "medium",
            Level::Low => "low",
        }
    }
}

/// One piece of evidence: a log line, or a fact of the machine.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Evidence {
    Log { line: usize, text: String },
    Fact(FactEvidence),
}

/// One candidate root cause, ranked.
#[derive(Debug, Clone, Serialize)]
pub struct Diagnosis {
    pub category: Category,
    pub layer: &'static str,
    /// 0..=1.
    pub confidence: f64,
    pub level: Level,
    /// The signature that speaks most for it.
    pub signature: String,
    pub explanation: String,
    pub evidence: Vec<Evidence>,
    pub fix: String,
    /// Public reports the signature was collected from.
    pub sources: Vec<String>,
    /// True when no error message was recognised for it and it rests only on a category hint
    /// (words of the log such as a WSL kernel string) or on the word model (`signature`
    /// "words"): a weak answer, never above `low`.
    pub hint: bool,
}

/// A signature found in the text.
#[derive(Debug, Clone, Serialize)]
pub struct Recognised {
    pub signature: String,
    pub lines: Vec<usize>,
    pub frameworks: Vec<String>,
}

/// The whole answer.
#[derive(Debug, Clone, Serialize)]
pub struct Explanation {
    /// Lines read.
    pub lines: usize,
    /// Whether facts of a machine were consulted.
    pub refined: bool,
    /// Most likely first; empty when nothing was recognised.
    pub diagnoses: Vec<Diagnosis>,
    pub recognised: Vec<Recognised>,
    pub values: Extracted,
    /// Why the facts of the probed machine were not used: signs in the log that it comes from
    /// another machine (see [`provenance`]). Empty when they were used or none were given.
    pub facts_not_used: Vec<String>,
}

impl Explanation {
    /// The answer, if one is sure enough to give (`ANSWER_FLOOR`).
    pub fn top(&self) -> Option<&Diagnosis> {
        self.diagnoses
            .first()
            .filter(|d| d.confidence >= ANSWER_FLOOR)
    }
}

/// One cause's contribution, before categories are merged.
struct Candidate {
    score: f64,
    signature: usize,
    cause: usize,
    log: Vec<(usize, usize)>,
}

impl Explainer {
    /// The explainer over the built-in catalogue.
    pub fn builtin() -> Result<Explainer, ExplainError> {
        let mut explainer = Explainer::new(Catalogue::builtin()?)?;
        explainer.words = Words::Builtin(OnceLock::new());
        Ok(explainer)
    }

    /// The explainer over a catalogue, without a word model.
    pub fn new(catalogue: Catalogue) -> Result<Explainer, ExplainError> {
        let matcher = Matcher::new(&catalogue)?;
        Ok(Explainer {
            catalogue,
            matcher,
            words: Words::None,
        })
    }

    /// The same explainer with `words` as its last resort.
    pub fn with_words(mut self, words: WordModel) -> Explainer {
        self.words = Words::Given(words);
        self
    }

    /// The word model, parsing the built-in one the first time it is asked for (a built-in
    /// model that does not parse is none; `words::tests` keep it parsing).
    pub fn words(&self) -> Option<&WordModel> {
        match &self.words {
            Words::None => None,
            Words::Given(model) => Some(model),
            Words::Builtin(cell) => cell.get_or_init(|| WordModel::builtin().ok()).as_ref(),
        }
    }

    pub fn catalogue(&self) -> &Catalogue {
        &self.catalogue
    }

    /// Explains `input` (any bytes), refined by a machine's facts when given.
    pub fn explain(&self, input: &[u8], facts: Option<&Facts>, kb: Option<&Kb>) -> Explanation {
        self.conclude(&self.scan(input), facts, kb)
    }

    /// The text-only half of [`Explainer::explain`]: normalises the log and runs the automaton
    /// over it. Needs no facts, so a caller can probe the machine at the same time.
    pub fn scan(&self, input: &[u8]) -> ScannedLog {
        self.scan_text(normalize::normalize(input))
    }

    /// The automaton's half of [`Explainer::scan`], over a log already normalised with
    /// [`normalize::normalize`] (which needs no catalogue, so a caller can normalise the log
    /// while the explainer is built).
    pub fn scan_text(&self, text: Text) -> ScannedLog {
        let hits = self.matcher.scan(&text);
        ScannedLog { text, hits }
    }

    /// Like [`Explainer::conclude`] with the facts of a probed machine, but first reads the log
    /// for signs that it comes from another machine ([`provenance`]); when there are any, the log
    /// is explained from the text alone and `facts_not_used` says why. `path_exists` answers
    /// whether a path (absolute, or `~/...`) exists on the probed machine.
    pub fn conclude_checked(
        &self,
        scanned: &ScannedLog,
        facts: &Facts,
        kb: Option<&Kb>,
        path_exists: &dyn Fn(&str) -> bool,
    ) -> Explanation {
        let reasons = provenance::foreign_reasons(
            &scanned.text,
            &scanned.hits,
            &self.matcher,
            facts,
            path_exists,
        );
        let mut from_text = self.conclude(scanned, None, kb);
        if !reasons.is_empty() {
            from_text.facts_not_used = reasons;
            return from_text;
        }
        let refined = self.conclude(scanned, Some(facts), kb);
        if let Some(reason) = self.machine_contradicts_log(&from_text, &refined, facts, kb) {
            from_text.facts_not_used = vec![reason];
            return from_text;
        }
        refined
    }

    /// When the text alone points to a state of the machine that this machine's facts rule out,
    /// and the facts confirm no other cause, the log shows a machine other than this one as it is
    /// now (another machine, or this one before a fix): refining it would only move the answer
    /// to a lesser cause. Says why, or `None` when the refined answer stands.
    fn machine_contradicts_log(
        &self,
        from_text: &Explanation,
        refined: &Explanation,
        facts: &Facts,
        kb: Option<&Kb>,
    ) -> Option<String> {
        let top = from_text.top().filter(|d| !d.hint)?;
        if !MACHINE_STATES.contains(&top.category) {
            return None;
        }
        let sig = self
            .catalogue
            .signatures
            .iter()
            .find(|s| s.id == top.signature)?;
        let mut checks: Vec<FactCheck> = sig
            .causes
            .iter()
            .filter(|c| c.category == top.category)
            .flat_map(|c| c.facts.iter().copied())
            .collect();
        checks.dedup();
        let said: Vec<FactEvidence> = checks
            .into_iter()
            .flat_map(|check| refine::evaluate(check, facts, kb, &from_text.values))
            .collect();
        if said.iter().any(|f| f.effect == Effect::Confirms) {
            return None;
        }
        let ruled_out = said.iter().find(|f| f.effect == Effect::RulesOut)?;
        let confirmed_elsewhere = refined.diagnoses.iter().any(|d| {
            d.evidence
                .iter()
                .any(|e| matches!(e, Evidence::Fact(f) if f.effect == Effect::Confirms))
        });
        if confirmed_elsewhere {
            return None;
        }
        Some(format!(
            "the log shows {} ({}), and this machine rules it out ({}) without confirming any \
             other cause: the log comes from another machine, or from this one before it changed",
            top.category.id(),
            top.signature,
            ruled_out.text
        ))
    }

    /// The second half of [`Explainer::explain`]: scores the causes of the signatures found in
    /// `scanned`, refined by the facts of the machine when there are any.
    pub fn conclude(
        &self,
        scanned: &ScannedLog,
        facts: Option<&Facts>,
        kb: Option<&Kb>,
    ) -> Explanation {
        match &self.words {
            Words::Builtin(_) => self.conclude_lazily(scanned, facts, kb, |log| {
                WordModel::builtin_for(log).ok().map(Cow::Owned)
            }),
            _ => self.conclude_lazily(scanned, facts, kb, |_| self.words().map(Cow::Borrowed)),
        }
    }

    /// [`Explainer::conclude`] with another word model as the last resort (or none): the corpus
    /// test measures with the model built without the report it explains.
    pub fn conclude_with_words(
        &self,
        scanned: &ScannedLog,
        facts: Option<&Facts>,
        kb: Option<&Kb>,
        words: Option<&WordModel>,
    ) -> Explanation {
        self.conclude_lazily(scanned, facts, kb, |_| words.map(Cow::Borrowed))
    }

    /// The work of [`Explainer::conclude`]; `words` is asked for the word model (for the log's
    /// text) only when no signature or hint answers.
    fn conclude_lazily<'w>(
        &self,
        scanned: &ScannedLog,
        facts: Option<&Facts>,
        kb: Option<&Kb>,
        words: impl FnOnce(&str) -> Option<Cow<'w, WordModel>>,
    ) -> Explanation {
        let ScannedLog { text, hits } = scanned;

        // Advice printed with a message is not context, nor a message it quotes
        // (`data/advice.toml`).
        let quiet = self.advice_spans(hits);

        // Which signatures occur, and on which lines.
        let mut found: Vec<(usize, Vec<(usize, usize)>)> = Vec::new();
        for (i, sig) in self.catalogue.signatures.iter().enumerate() {
            let lines = self.signature_lines(sig, &quiet, hits, text);
            if !lines.is_empty() {
                found.push((i, lines));
            }
        }
        let values = extract::extract(
            found
                .iter()
                .flat_map(|(_, lines)| lines.iter().take(MAX_LOG_EVIDENCE))
                .map(|(line, _)| text.line(*line)),
        );

        // The exception the program died with: signatures on that line speak loudest.
        let final_error = final_exception_line(text);
        let any_on_final = final_error.is_some_and(|f| {
            found.iter().any(|(si, lines)| {
                !self.catalogue.signatures[*si].symptom && lines.iter().any(|(l, _)| *l == f)
            })
        });

        // Every cause of every signature found, scored by the words around it.
        let mut candidates: Vec<Candidate> = Vec::new();
        for (si, lines) in &found {
            let sig = &self.catalogue.signatures[*si];
            let on_final = final_error.is_some_and(|f| lines.iter().any(|(l, _)| *l == f));
            for (ci, cause) in sig.causes.iter().enumerate() {
                if cause.needs_facts && !self.facts_confirm(cause, facts, kb, &values) {
                    continue;
                }
                let mut score = sig.weight * cause.prior;
                if on_final {
                    score += (1.0 - score) * 0.3;
                } else if any_on_final {
                    // Something else is what the program died of; this was said on the way.
                    score *= 0.6;
                }
                let mut log = lines.clone();
                let mut favoured = false;
                let mut words_found = false;
                for word in &cause.when {
                    let outside =
                        self.matcher
                            .context_lines(self.matcher.id(word), &quiet, hits, text);
                    if let Some(first) = outside.first() {
                        favoured = true;
                        words_found = true;
                        score += (1.0 - score) * 0.4;
                        log.push(*first);
                    }
                }
                let mut argued = cause.unless.iter().any(|w| {
                    !self
                        .matcher
                        .context_lines(self.matcher.id(w), &quiet, hits, text)
                        .is_empty()
                });
                // Conditions that take more than a word: each counts like one.
                for check in &cause.when_text {
                    if let Some(line) = self.text_check(*check, lines, hits, text) {
                        favoured = true;
                        words_found = true;
                        score += (1.0 - score) * 0.4;
                        log.push(line);
                    }
                }
                // A cause only its words (or text checks) can name.
                if cause.needs_words && !words_found {
                    continue;
                }
                if cause
                    .unless_text
                    .iter()
                    .any(|check| self.text_check(*check, lines, hits, text).is_some())
                {
                    argued = true;
                }
                // Category hints speak where the cause's own words did not.
                for hint in &self.catalogue.hints {
                    if self.hint_line(hint, &quiet, hits, text).is_none() {
                        continue;
                    }
                    // A hint word inside the message itself (`docker: Error response ...`) is
                    // part of what matched, not more evidence for one of its causes.
                    if hint.category == cause.category && !favoured {
                        if let Some(first) = self.hint_line_beside(hint, &quiet, hits, text, lines)
                        {
                            favoured = true;
                            score += (1.0 - score) * 0.4;
                            log.push(first);
                        }
                    }
                    if hint.against.contains(&cause.category) {
                        argued = true;
                    }
                }
                if argued {
                    score *= 0.35;
                }
                candidates.push(Candidate {
                    score,
                    signature: *si,
                    cause: ci,
                    log,
                });
            }
        }

        // Merge per category: independent signals combine (noisy-or); the strongest one speaks.
        let mut by_category: BTreeMap<Category, Vec<&Candidate>> = BTreeMap::new();
        for c in &candidates {
            let category = self.catalogue.signatures[c.signature].causes[c.cause].category;
            by_category.entry(category).or_default().push(c);
        }
        let mut diagnoses: Vec<Diagnosis> = Vec::new();
        for (category, mut list) in by_category {
            list.sort_by(|a, b| b.score.total_cmp(&a.score));
            let Some(best) = list.first() else {
                continue;
            };
            let miss: f64 = list.iter().map(|c| 1.0 - c.score).product();
            let mut confidence = 1.0 - miss;
            let sig = &self.catalogue.signatures[best.signature];
            let cause = &sig.causes[best.cause];

            let mut log: Vec<(usize, usize)> =
                list.iter().flat_map(|c| c.log.iter().copied()).collect();
            log.sort_unstable();
            log.dedup_by_key(|(line, _)| *line);
            let mut evidence = log_evidence(text, &log);

            if let Some(facts) = facts {
                let mut checks: Vec<FactCheck> = list
                    .iter()
                    .flat_map(|c| {
                        self.catalogue.signatures[c.signature].causes[c.cause]
                            .facts
                            .iter()
                            .copied()
                    })
                    .collect();
                checks.dedup();
                let mut seen = Vec::new();
                let mut confirms = false;
                let mut rules_out = false;
                for check in checks {
                    if seen.contains(&check) {
                        continue;
                    }
                    seen.push(check);
                    for f in refine::evaluate(check, facts, kb, &values) {
                        confirms |= f.effect == Effect::Confirms;
                        rules_out |= f.effect == Effect::RulesOut;
                        evidence.push(Evidence::Fact(f));
                    }
                }
                if confirms {
                    confidence += (1.0 - confidence) * 0.5;
                } else if rules_out {
                    confidence *= 0.35;
                }
            }
            let confidence = confidence.clamp(0.0, 0.99);
            diagnoses.push(Diagnosis {
                category,
                layer: category.layer(),
                confidence: (confidence * 100.0).round() / 100.0,
                level: Level::of(confidence),
                signature: sig.id.clone(),
                explanation: sig.explanation.clone(),
                evidence,
                fix: cause.fix.clone(),
                sources: sig.sources.clone(),
                hint: false,
            });
        }
        let by_confidence = |a: &Diagnosis, b: &Diagnosis| {
            b.confidence
                .total_cmp(&a.confidence)
                .then(a.category.cmp(&b.category))
        };
        diagnoses.sort_by(by_confidence);
        if diagnoses
            .first()
            .is_none_or(|d| d.confidence < ANSWER_FLOOR)
        {
            diagnoses.extend(self.hint_diagnoses(hits, &quiet, text, facts, kb, &values));
            diagnoses.sort_by(by_confidence);
            // One entry per category: the stronger of a weak signature's and a hint's.
            let mut seen: Vec<Category> = Vec::new();
            diagnoses.retain(|d| {
                let first = !seen.contains(&d.category);
                seen.push(d.category);
                first
            });
        }
        if diagnoses
            .first()
            .is_none_or(|d| d.confidence < ANSWER_FLOOR)
        {
            if let Some(guess) =
                words(&text.text).and_then(|w| resemblance_diagnosis(&w, text, !found.is_empty()))
            {
                diagnoses.retain(|d| d.category != guess.category);
                diagnoses.insert(0, guess);
            }
        }
        diagnoses.retain(|d| d.confidence >= 0.1);
        diagnoses.truncate(5);

        let recognised = found
            .iter()
            .map(|(si, lines)| {
                let sig = &self.catalogue.signatures[*si];
                Recognised {
                    signature: sig.id.clone(),
                    lines: lines.iter().map(|(l, _)| *l).collect(),
                    frameworks: sig.frameworks.clone(),
                }
            })
            .collect();
        Explanation {
            lines: text.line_count(),
            refined: facts.is_some(),
            diagnoses,
            recognised,
            values,
            facts_not_used: Vec::new(),
        }
    }

    /// Whether one of the cause's fact checks confirms it on the machine `facts` describe (never
    /// without facts).
    fn facts_confirm(
        &self,
        cause: &Cause,
        facts: Option<&Facts>,
        kb: Option<&Kb>,
        values: &Extracted,
    ) -> bool {
        facts.is_some_and(|facts| {
            cause.facts.iter().any(|check| {
                refine::evaluate(*check, facts, kb, values)
                    .iter()
                    .any(|f| f.effect == Effect::Confirms)
            })
        })
    }

    /// Where `check` holds for a signature found on `sig_lines`: the line (with the match
    /// offset) that shows it; None when it does not hold.
    fn text_check(
        &self,
        check: TextCheck,
        sig_lines: &[(usize, usize)],
        hits: &Hits,
        text: &Text,
    ) -> Option<(usize, usize)> {
        match check {
            TextCheck::AnotherCudnnMajor => {
                let mut asked: Vec<u32> = Vec::new();
                for (line, _) in sig_lines {
                    for major in extract::cudnn_majors_asked(text.line(*line)) {
                        if !asked.contains(&major) {
                            asked.push(major);
                        }
                    }
                }
                let cudnn = hits.lines(self.matcher.id("cudnn"), text);
                let (number, _) = extract::another_cudnn_major(
                    &asked,
                    cudnn.iter().map(|(line, _)| (*line, text.line(*line))),
                )?;
                cudnn.iter().find(|(line, _)| *line == number).copied()
            }
            TextCheck::FStringSyntaxError => sig_lines.iter().find_map(|(line, _)| {
                (line.saturating_sub(3).max(1)..*line)
                    .find(|above| extract::has_fstring(text.line(*above)))
                    .map(|above| (above, text.line_starts.get(above - 1).copied().unwrap_or(0)))
            }),
            TextCheck::ComposeLogPrefix => text.compose_line.map(|line| line_evidence(text, line)),
            TextCheck::VllmEngineCoreTag => {
                text.engine_core_line.map(|line| line_evidence(text, line))
            }
            TextCheck::CapabilityNewerMinorOfSupportedMajor => sig_lines
                .iter()
                .find(|(line, _)| {
                    extract::capability_newer_minor_of_supported_major(text.line(*line))
                })
                .copied(),
            TextCheck::GgmlArchNotTheDevices => {
                let asked = sig_lines
                    .iter()
                    .find_map(|(line, _)| extract::ggml_arch_asked(text.line(*line)))?;
                let devices: Vec<((usize, usize), u32)> = hits
                    .lines(self.matcher.id("compute capability"), text)
                    .into_iter()
                    .filter_map(|(line, offset)| {
                        extract::device_arch(text.line(line)).map(|arch| ((line, offset), arch))
                    })
                    .collect();
                if devices.iter().any(|(_, arch)| *arch == asked) {
                    return None;
                }
                devices.first().map(|(at, _)| *at)
            }
            TextCheck::LdLibraryPathNamesCuda => hits
                .lines(self.matcher.id("LD_LIBRARY_PATH"), text)
                .into_iter()
                .find_map(|(line, offset)| {
                    if extract::names_cuda_directory(text.line(line)) {
                        return Some((line, offset));
                    }
                    // `echo $LD_LIBRARY_PATH` and its value on the next line.
                    let next = line + 1;
                    (next <= text.line_count() && extract::names_cuda_directory(text.line(next)))
                        .then(|| (next, text.line_starts.get(next - 1).copied().unwrap_or(0)))
                }),
        }
    }

    /// The first line (with the match offset) where one of a hint's words occurs as context.
    fn hint_line(
        &self,
        hint: &Hint,
        quiet: &[(usize, usize)],
        hits: &Hits,
        text: &Text,
    ) -> Option<(usize, usize)> {
        self.hint_line_beside(hint, quiet, hits, text, &[])
    }

    /// The first line where a hint's word occurs outside the lines a signature matched.
    fn hint_line_beside(
        &self,
        hint: &Hint,
        quiet: &[(usize, usize)],
        hits: &Hits,
        text: &Text,
        matched: &[(usize, usize)],
    ) -> Option<(usize, usize)> {
        hint.words
            .iter()
            .filter_map(|w| {
                self.matcher
                    .context_lines(self.matcher.id(w), quiet, hits, text)
                    .into_iter()
                    .find(|(line, _)| !matched.iter().any(|(m, _)| m == line))
            })
            .min()
    }

    /// Where the frameworks' advice texts occur: words inside them are not context.
    fn advice_spans(&self, hits: &Hits) -> Vec<(usize, usize)> {
        self.catalogue
            .advice
            .iter()
            .flat_map(|a| self.matcher.spans(self.matcher.id(&a.text), hits))
            .collect()
    }

    /// The weak answers from category hints, for a log where no signature gives one. Hints of
    /// different categories cancel out: each stays below `ANSWER_FLOOR` (a candidate, not an
    /// answer). Facts of the machine raise or lower a hint as they do a cause, but a hint never
    /// reaches `MEDIUM`.
    fn hint_diagnoses(
        &self,
        hits: &Hits,
        quiet: &[(usize, usize)],
        text: &Text,
        facts: Option<&Facts>,
        kb: Option<&Kb>,
        values: &Extracted,
    ) -> Vec<Diagnosis> {
        let fired: Vec<(&Hint, Vec<(usize, usize)>)> = self
            .catalogue
            .hints
            .iter()
            .filter_map(|h| {
                let mut lines: Vec<(usize, usize)> = h
                    .words
                    .iter()
                    .flat_map(|w| {
                        self.matcher
                            .context_lines(self.matcher.id(w), quiet, hits, text)
                    })
                    .collect();
                lines.sort_unstable();
                lines.dedup_by_key(|(line, _)| *line);
                (!lines.is_empty()).then_some((h, lines))
            })
            .collect();
        let agree = fired
            .windows(2)
            .all(|pair| pair[0].0.category == pair[1].0.category);
        let mut out: Vec<Diagnosis> = Vec::new();
        for (hint, lines) in fired {
            if out.iter().any(|d| d.category == hint.category) {
                continue;
            }
            let mut confidence = if agree {
                hint.confidence
            } else {
                hint.confidence * 0.5
            };
            let words: Vec<String> = hint
                .words
                .iter()
                .filter(|w| {
                    !self
                        .matcher
                        .context_lines(self.matcher.id(w), quiet, hits, text)
                        .is_empty()
                })
                .map(|w| format!("`{w}`"))
                .collect();
            let mut evidence = log_evidence(text, &lines);
            if let Some(facts) = facts {
                let mut confirms = false;
                let mut rules_out = false;
                for check in &hint.facts {
                    for f in refine::evaluate(*check, facts, kb, values) {
                        confirms |= f.effect == Effect::Confirms;
                        rules_out |= f.effect == Effect::RulesOut;
                        evidence.push(Evidence::Fact(f));
                    }
                }
                if confirms {
                    confidence += (1.0 - confidence) * 0.5;
                } else if rules_out {
                    confidence *= 0.35;
                }
            }
            let confidence = confidence.clamp(0.0, MEDIUM - 0.01);
            out.push(Diagnosis {
                category: hint.category,
                layer: hint.category.layer(),
                confidence: (confidence * 100.0).round() / 100.0,
                level: Level::of(confidence),
                signature: format!("hint:{}", hint.id),
                explanation: format!(
                    "Weak hint only: no known error message was recognised, but the log mentions {}. {}",
                    words.join(", "),
                    hint.explanation
                ),
                evidence,
                fix: hint.fix.clone(),
                sources: hint.sources.clone(),
                hint: true,
            });
        }
        out
    }

    /// The numbers of the lines where any of `words` occurs.
    fn word_lines(&self, words: &[String], hits: &Hits, text: &Text) -> Vec<usize> {
        words
            .iter()
            .flat_map(|w| hits.lines(self.matcher.id(w), text))
            .map(|(line, _)| line)
            .collect()
    }

    /// The lines (with the match offset) where a signature occurs: a pattern, and one of its
    /// `requires_on_line` words on the same line when it has any (or alone on the next line, as
    /// a Python prompt prints a call's result: `>>> tf.test.is_built_with_cuda()` / `False`; or
    /// on the line above when the pattern opens its line, a message wrapped in two), and none of
    /// its `unless_on_line` words on that line;
    /// for a `versions_differ`
    /// signature, the lines that state a version, and only when two of them differ.
    fn signature_lines(
        &self,
        sig: &Signature,
        quiet: &[(usize, usize)],
        hits: &Hits,
        text: &Text,
    ) -> Vec<(usize, usize)> {
        let mut lines: Vec<(usize, usize)> = sig
            .patterns
            .iter()
            .flat_map(|p| {
                self.matcher
                    .lines_outside(self.matcher.id(p), quiet, hits, text)
            })
            .collect();
        if lines.is_empty() {
            return lines;
        }
        if !sig.requires_on_line.is_empty() {
            let required = self.word_lines(&sig.requires_on_line, hits, text);
            let result_below = |line: usize| {
                let next = text.line(line + 1).trim();
                required.contains(&(line + 1))
                    && sig
                        .requires_on_line
                        .iter()
                        .any(|w| next.eq_ignore_ascii_case(w))
            };
            // A message the terminal or the paste wrapped: the pattern opens its line and the
            // line above ends the first part (`ImportError: .../_torch_sox.so: ` /
            // `undefined symbol: _ZN2at...`).
            let wrapped_from_above = |line: usize, offset: usize| {
                let start = text.line_starts.get(line.wrapping_sub(1)).copied();
                line > 1
                    && required.contains(&(line - 1))
                    && start.is_some_and(|start| {
                        text.text
                            .get(start..offset)
                            .is_some_and(|before| before.trim().is_empty())
                    })
            };
            lines.retain(|(line, offset)| {
                required.contains(line) || result_below(*line) || wrapped_from_above(*line, *offset)
            });
        }
        if !sig.unless_on_line.is_empty() {
            let excluded = self.word_lines(&sig.unless_on_line, hits, text);
            lines.retain(|(line, _)| !excluded.contains(line));
        }
        lines.sort_unstable();
        lines.dedup_by_key(|(line, _)| *line);
        if sig.versions_differ {
            let mut versions: Vec<(u32, u32)> = Vec::new();
            lines.retain(|(line, offset)| {
                let start = text
                    .line_starts
                    .get(line.wrapping_sub(1))
                    .copied()
                    .unwrap_or(0);
                match extract::stated_version(text.line(*line), offset.saturating_sub(start)) {
                    Some(v) => {
                        if !versions.contains(&v) {
                            versions.push(v);
                        }
                        true
                    }
                    None => false,
                }
            });
            if versions.len() < 2 {
                lines.clear();
            }
        }
        lines
    }
}

/// Categories that are a state of the machine the facts observe directly: whether a driver is
/// loaded, whether its kernel and userspace versions agree, whether it is new enough for the
/// CUDA in use, whether the device nodes are there.
const MACHINE_STATES: [Category; 4] = [
    Category::DriverMissing,
    Category::DriverKernelUserspaceMismatch,
    Category::DriverTooOldForRuntime,
    Category::PermissionsDeviceNodes,
];

/// A whole line as evidence: the line (1-based) and where it starts in the text.
fn line_evidence(text: &Text, line: usize) -> (usize, usize) {
    let start = text.line_starts.get(line.saturating_sub(1)).copied();
    (line, start.unwrap_or(0))
}

/// The last line that looks like a Python exception (`RuntimeError: ...`, `torch.cuda.OutOfMemoryError:
/// ...`) — the error the program died with; in a chained traceback, the last of the chain.
fn final_exception_line(text: &Text) -> Option<usize> {
    // Only the tail matters; bound the scan for huge logs.
    let count = text.line_count();
    let first = count.saturating_sub(2000).max(1);
    (first..=count)
        .rev()
        .find(|n| is_exception_line(text.line(*n)))
}

fn is_exception_line(line: &str) -> bool {
    let Some((head, _)) = line.split_once(": ") else {
        return line.ends_with("Error") && !line.contains(' ');
    };
    !head.is_empty()
        && !head.contains(' ')
        && head.len() < 80
        && (head.ends_with("Error") || head.ends_with("Exception") || head.ends_with("Exit"))
        && head
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '_')
}

/// The first `MAX_LOG_EVIDENCE` of `lines` (line number, match offset) as evidence from the log.
fn log_evidence(text: &Text, lines: &[(usize, usize)]) -> Vec<Evidence> {
    lines
        .iter()
        .take(MAX_LOG_EVIDENCE)
        .map(|(line, offset)| Evidence::Log {
            line: *line,
            text: snippet(text, *line, *offset),
        })
        .collect()
}

/// Line `line`, cut to `SNIPPET` characters around `offset` when it is long.
fn snippet(text: &Text, line: usize, offset: usize) -> String {
    if let Some(pasted) = text.as_pasted(line) {
        // Translated for matching: quote the user's own words, from the start of the line.
        let pasted = pasted.trim();
        return match pasted.char_indices().nth(SNIPPET) {
            Some((end, _)) => format!("{}…", &pasted[..end]),
            None => pasted.to_string(),
        };
    }
    let s = text.line(line).trim_end();
    if s.chars().count() <= SNIPPET {
        return s.trim_start().to_string();
    }
    let line_start = text
        .line_starts
        .get(line.wrapping_sub(1))
        .copied()
        .unwrap_or(0);
    let focus = offset.saturating_sub(line_start).min(s.len());
    let mut start = focus.saturating_sub(SNIPPET / 3);
    while !s.is_char_boundary(start) {
        start -= 1;
    }
    let mut end = (start + SNIPPET).min(s.len());
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    let prefix = if start > 0 { "…" } else { "" };
    let suffix = if end < s.len() { "…" } else { "" };
    format!("{prefix}{}{suffix}", &s[start..end])
}

/// The word model's guess as a weak diagnosis (`signature` "words"), with the lines that hold
/// the words speaking most for it.
fn resemblance_diagnosis(words: &WordModel, text: &Text, recognised: bool) -> Option<Diagnosis> {
    let guess = words.classify(&text.text)?;
    // The last line holding each of the strongest words (of a word pair, its first word).
    let count = text.line_count();
    let first = count.saturating_sub(4000).max(1);
    let mut lines: Vec<usize> = guess
        .strongest
        .iter()
        .filter_map(|w| {
            let word = w.split(' ').next().unwrap_or(w);
            (first..=count)
                .rev()
                .find(|n| text.line(*n).to_ascii_lowercase().contains(word))
        })
        .collect();
    lines.sort_unstable();
    lines.dedup();
    let evidence = lines
        .into_iter()
        .take(3)
        .map(|line| Evidence::Log {
            line,
            text: snippet(
                text,
                line,
                text.line_starts.get(line - 1).copied().unwrap_or(0),
            ),
        })
        .collect();
    let quoted: Vec<String> = guess.strongest.iter().map(|w| format!("`{w}`")).collect();
    Some(Diagnosis {
        category: guess.category,
        layer: guess.category.layer(),
        confidence: guess.confidence,
        level: Level::of(guess.confidence),
        signature: "words".to_string(),
        explanation: format!(
            "A weak guess: {}, but by its words the log most resembles the {} public reports of \
             {} that gpuenv was built from (the words that weigh most: {}). {}",
            if recognised {
                "the known messages recognised do not settle a cause"
            } else {
                "no known error message was recognised"
            },
            guess.reports,
            guess.category,
            quoted.join(", "),
            guess.category.summary()
        ),
        evidence,
        fix: words.fix(guess.category).to_string(),
        sources: Vec::new(),
        hint: true,
    })
}
