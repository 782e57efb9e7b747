//! One pass over the text with one multi-pattern automaton (Aho-Corasick) holding every string
//! the catalogue mentions: signature patterns, same-line requirements, the context words of
//! the causes, the category hints' words, the frameworks' advice texts, and the markers `provenance` reads. The pass records, per string, where it occurs.

use std::collections::HashMap;

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};

use crate::catalogue::Catalogue;
use crate::normalize::{fold_quotes, Text};

/// How many occurrences of one string are kept (the first ones, plus always the last).
const KEEP: usize = 16;

/// The automaton and the catalogue's strings, by index.
#[derive(Debug, Clone)]
pub struct Matcher {
    automaton: AhoCorasick,
    index: HashMap<String, usize>,
    /// The byte length of each string as matched (folded quotes, ASCII lower case).
    lengths: Vec<usize>,
    count: usize,
}

/// Where one string occurs: the first few byte offsets, the last one, and how often.
#[derive(Debug, Clone, Default)]
pub struct Occurrences {
    pub first: Vec<usize>,
    pub last: usize,
    pub count: usize,
}

/// The result of a pass: occurrences per string index.
#[derive(Debug, Clone)]
pub struct Hits {
    pub by_string: Vec<Occurrences>,
}

/// The automaton could not be built (too many or too long strings).
#[derive(Debug, thiserror::Error)]
#[error("cannot build the pattern automaton: {0}")]
pub struct MatcherError(#[from] aho_corasick::BuildError);

impl Matcher {
    /// Builds the automaton over every string of the catalogue.
    pub fn new(catalogue: &Catalogue) -> Result<Matcher, MatcherError> {
        let mut index: HashMap<String, usize> = HashMap::new();
        let mut strings: Vec<String> = Vec::new();
        let mut add = |s: &str| {
            let key = fold_quotes(s).to_ascii_lowercase();
            if !index.contains_key(&key) {
                index.insert(key.clone(), strings.len());
                strings.push(key);
            }
        };
        for sig in &catalogue.signatures {
            sig.patterns.iter().for_each(|p| add(p));
            sig.requires_on_line.iter().for_each(|p| add(p));
            sig.unless_on_line.iter().for_each(|p| add(p));
            for cause in &sig.causes {
                cause.when.iter().for_each(|p| add(p));
                cause.unless.iter().for_each(|p| add(p));
            }
        }
        for hint in &catalogue.hints {
            hint.words.iter().for_each(|p| add(p));
        }
        catalogue.advice.iter().for_each(|a| add(&a.text));
        crate::provenance::markers().for_each(&mut add);
        crate::extract::TextCheck::markers().for_each(add);
        let automaton = AhoCorasickBuilder::new()
            .ascii_case_insensitive(true)
            .match_kind(MatchKind::Standard)
            .build(&strings)?;
        Ok(Matcher {
            automaton,
            count: strings.len(),
            lengths: strings.iter().map(String::len).collect(),
            index,
        })
    }

    /// The index of a catalogue string (any case).
    pub fn id(&self, s: &str) -> Option<usize> {
        self.index
            .get(&fold_quotes(s).to_ascii_lowercase())
            .copied()
    }

    /// The byte spans `[start, end)` of the kept occurrences of string `id`.
    pub fn spans(&self, id: Option<usize>, hits: &Hits) -> Vec<(usize, usize)> {
        let Some((occ, len)) = self.occurrences(id, hits) else {
            return Vec::new();
        };
        occ.first
            .iter()
            .chain(std::iter::once(&occ.last))
            .map(|start| (*start, start + len))
            .collect()
    }

    /// The kept occurrences of string `id` (as `Hits::lines` gives them) that can count as context
    /// around a message: those that start a word (`hang` in `changing` is not the word `hang`,
    /// nor `root` in `chroot`; a word after `_`, `-`, `/` or `.` still starts one) and lie outside
    /// every span of `quiet` (the advice a framework prints with its own message is not context).
    pub fn context_lines(
        &self,
        id: Option<usize>,
        quiet: &[(usize, usize)],
        hits: &Hits,
        text: &Text,
    ) -> Vec<(usize, usize)> {
        let bytes = text.text.as_bytes();
        let starts_word = |offset: usize| {
            let first = bytes.get(offset).copied().unwrap_or(b' ');
            let before = offset
                .checked_sub(1)
                .and_then(|o| bytes.get(o))
                .copied()
                .unwrap_or(b' ');
            !first.is_ascii_alphanumeric() || !before.is_ascii_alphanumeric()
        };
        self.kept_lines(id, hits, text, |offset, len| {
            starts_word(offset) && !inside(quiet, offset, len)
        })
    }

    /// The kept occurrences of string `id` that lie outside every span of `quiet`: a message
    /// quoted inside a framework's advice (`If you see CUPTI_ERROR_INSUFFICIENT_PRIVILEGES,
    /// refer to ...`) is not that message.
    pub fn lines_outside(
        &self,
        id: Option<usize>,
        quiet: &[(usize, usize)],
        hits: &Hits,
        text: &Text,
    ) -> Vec<(usize, usize)> {
        self.kept_lines(id, hits, text, |offset, len| !inside(quiet, offset, len))
    }

    /// The kept occurrences of string `id` for which `keep(offset, length)` holds, as (line,
    /// offset), one per line. When more occurrences were seen than kept, the unkept ones are
    /// assumed to count, so all of them are.
    fn kept_lines(
        &self,
        id: Option<usize>,
        hits: &Hits,
        text: &Text,
        keep: impl Fn(usize, usize) -> bool,
    ) -> Vec<(usize, usize)> {
        let Some((occ, len)) = self.occurrences(id, hits) else {
            return Vec::new();
        };
        let kept_all = occ.count <= occ.first.len() + 1;
        let mut lines: Vec<(usize, usize)> = occ
            .first
            .iter()
            .chain(std::iter::once(&occ.last))
            .filter(|offset| !kept_all || keep(**offset, len))
            .map(|offset| (text.line_of(*offset), *offset))
            .collect();
        lines.sort_unstable();
        lines.dedup_by_key(|(line, _)| *line);
        lines
    }

    /// Where string `id` occurs and its length; None when it does not occur.
    fn occurrences<'h>(
        &self,
        id: Option<usize>,
        hits: &'h Hits,
    ) -> Option<(&'h Occurrences, usize)> {
        let i = id?;
        let occ = hits.by_string.get(i).filter(|o| o.count > 0)?;
        Some((occ, *self.lengths.get(i)?))
    }

    /// The number of distinct strings in the automaton.
    pub fn len(&self) -> usize {
        self.count
    }

    /// Whether the automaton is empty.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// One pass over the text.
    pub fn scan(&self, text: &Text) -> Hits {
        let mut by_string = vec![Occurrences::default(); self.count];
        for m in self.automaton.find_overlapping_iter(&text.text) {
            let Some(occ) = by_string.get_mut(m.pattern().as_usize()) else {
                continue;
            };
            if occ.first.len() < KEEP {
                occ.first.push(m.start());
            }
            occ.last = m.start();
            occ.count += 1;
        }
        Hits { by_string }
    }
}

impl Hits {
    /// Whether string `id` occurs anywhere.
    pub fn any(&self, id: Option<usize>) -> bool {
        id.and_then(|i| self.by_string.get(i))
            .is_some_and(|o| o.count > 0)
    }

    /// The kept occurrences of string `id` as (1-based line number, byte offset), sorted, one
    /// per line.
    pub fn lines(&self, id: Option<usize>, text: &Text) -> Vec<(usize, usize)> {
        let Some(occ) = id.and_then(|i| self.by_string.get(i)) else {
            return Vec::new();
        };
        if occ.count == 0 {
            return Vec::new();
        }
        let mut lines: Vec<(usize, usize)> =
            occ.first.iter().map(|o| (text.line_of(*o), *o)).collect();
        lines.push((text.line_of(occ.last), occ.last));
        lines.sort_unstable();
        lines.dedup_by_key(|(line, _)| *line);
        lines
    }
}

/// Whether `[offset, offset + len)` lies inside one of `spans` and is shorter than it: a string
/// that is the whole span is that text itself, not something quoted inside it.
fn inside(spans: &[(usize, usize)], offset: usize, len: usize) -> bool {
    spans
        .iter()
        .any(|(start, end)| offset >= *start && offset + len <= *end && len < end - start)
}
