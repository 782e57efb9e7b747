//! One pass over the text with one multi-pattern automaton (Aho-Corasick) holding every string
//! the catalogue mentions: signature patterns, same-line requirements, the context words of
//! the causes, the category hints' words, the frameworks' advice texts, and the markers `provenance` reads. The pass records, per string, where it occurs.

use std::collections::HashMap;

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};

use crate::catalogue::Catalogue;
use crate::normalize::{fold_quotes, Text};

/// How many occurrences of one string are kept (the first ones, plus always the last).
const KEEP: usize = 16;

/// A text is read by several threads only when each gets at least this many bytes.
const PIECE_MIN: usize = 1 << 20;

/// At most this many threads read one text.
const MAX_THREADS: usize = 8;

/// A thread lowers and reads its piece this many bytes at a time.
const BLOCK: usize = 256 * 1024;

/// The automaton and the catalogue's strings, by index.
#[derive(Debug, Clone)]
pub struct Matcher {
    automaton: AhoCorasick,
    index: HashMap<String, usize>,
    /// The byte length of each string as matched (folded quotes, ASCII lower case).
    lengths: Vec<usize>,
    /// The longest string's length.
    longest: usize,
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
        // The strings are lower case and each piece of text is lowered before the pass: an
        // automaton that knows both cases of every letter takes about twice as long to build,
        // and building it is most of what explaining one line costs.
        let automaton = AhoCorasickBuilder::new()
            .ascii_case_insensitive(false)
            .match_kind(MatchKind::Standard)
            .build(&strings)?;
        Ok(Matcher {
            automaton,
            count: strings.len(),
            longest: strings.iter().map(String::len).max().unwrap_or(0),
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

    /// One pass over the text. A large text is cut into one piece per CPU, each piece read by
    /// its own thread and reaching into the next by the longest string's length less one, so
    /// that every occurrence starting in a piece is found there and nowhere else.
    pub fn scan(&self, text: &Text) -> Hits {
        let threads = std::thread::available_parallelism().map_or(1, usize::from);
        let pieces = (text.text.len() / PIECE_MIN).clamp(1, threads.clamp(1, MAX_THREADS));
        self.scan_in_pieces(text, pieces)
    }

    /// [`Matcher::scan`] with the text cut into `pieces` pieces.
    fn scan_in_pieces(&self, text: &Text, pieces: usize) -> Hits {
        let bytes = text.text.as_bytes();
        if pieces <= 1 {
            return self.scan_piece(bytes, 0, bytes.len());
        }
        let size = bytes.len().div_ceil(pieces);
        std::thread::scope(|scope| {
            let handles: Vec<_> = (0..pieces)
                .map(|i| {
                    let start = (i * size).min(bytes.len());
                    let end = ((i + 1) * size).min(bytes.len());
                    scope.spawn(move || self.scan_piece(bytes, start, end))
                })
                .collect();
            let mut hits = Hits {
                by_string: vec![Occurrences::default(); self.count],
            };
            for handle in handles {
                let piece = match handle.join() {
                    Ok(piece) => piece,
                    Err(panic) => std::panic::resume_unwind(panic),
                };
                hits.append(piece);
            }
            hits
        })
    }

    /// The occurrences of every string that start in `bytes[start..end]`, read a block at a time
    /// (each block lowered into one buffer, reaching into the next like the pieces do). All
    /// occurrences of one string have its length, so they come in the order they start.
    fn scan_piece(&self, bytes: &[u8], start: usize, end: usize) -> Hits {
        let mut by_string = vec![Occurrences::default(); self.count];
        let mut lowered = Vec::with_capacity(BLOCK + self.longest);
        let mut block_start = start;
        while block_start < end {
            let block_end = (block_start + BLOCK).min(end);
            let reach = (block_end + self.longest.saturating_sub(1)).min(bytes.len());
            // ASCII lower case keeps every byte where it is, so offsets stay the text's.
            lowered.clear();
            lowered.extend(
                bytes
                    .get(block_start..reach)
                    .unwrap_or_default()
                    .iter()
                    .map(u8::to_ascii_lowercase),
            );
            for m in self.automaton.find_overlapping_iter(&lowered) {
                let at = block_start + m.start();
                if at >= block_end {
                    continue;
                }
                let Some(occ) = by_string.get_mut(m.pattern().as_usize()) else {
                    continue;
                };
                if occ.first.len() < KEEP {
                    occ.first.push(at);
                }
                occ.last = at;
                occ.count += 1;
            }
            block_start = block_end;
        }
        Hits { by_string }
    }
}

impl Hits {
    /// Adds the occurrences of the piece of text that follows the one these hits cover.
    fn append(&mut self, later: Hits) {
        for (occ, more) in self.by_string.iter_mut().zip(later.by_string) {
            if more.count == 0 {
                continue;
            }
            let room = KEEP.saturating_sub(occ.first.len());
            occ.first.extend(more.first.into_iter().take(room));
            occ.last = more.last;
            occ.count += more.count;
        }
    }

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::normalize::normalize;

    /// Cut into pieces and blocks, the pass finds what one pass over the whole text finds: the same
    /// counts, first occurrences and last occurrence of every string, also of occurrences that
    /// straddle a cut.
    #[test]
    fn pieces_find_what_one_pass_finds() {
        let catalogue = Catalogue::builtin().expect("the built-in catalogue");
        let matcher = Matcher::new(&catalogue).expect("the automaton");
        let message =
            "RuntimeError: CUDA error: no kernel image is available for execution on the device\n";
        let mut log = String::new();
        // Several blocks (BLOCK) per piece, so block edges fall inside occurrences too.
        for i in 0..12_000 {
            log.push_str(&format!(
                "step {i} loss=0.1 CUDNN_STATUS_NOT_INITIALIZED out of memory\n"
            ));
            if i % 97 == 0 {
                log.push_str(message);
            }
        }
        let text = normalize(log.as_bytes());
        let whole = matcher.scan_in_pieces(&text, 1);
        // One pass of the automaton over the whole lowered text, without blocks.
        let lowered = text.text.to_ascii_lowercase();
        let mut counts = vec![0; matcher.len()];
        for m in matcher.automaton.find_overlapping_iter(&lowered) {
            counts[m.pattern().as_usize()] += 1;
        }
        let block_counts: Vec<usize> = whole.by_string.iter().map(|o| o.count).collect();
        assert_eq!(counts, block_counts, "blocks lose or add occurrences");
        let found = whole.by_string.iter().filter(|o| o.count > 0).count();
        assert!(
            found >= 3,
            "the log should hold several catalogue strings, found {found}"
        );
        // Piece sizes that put cuts inside many occurrences.
        for pieces in [2, 3, 7, 64, 1001] {
            let cut = matcher.scan_in_pieces(&text, pieces);
            for (i, (a, b)) in whole.by_string.iter().zip(&cut.by_string).enumerate() {
                assert_eq!(
                    (a.count, &a.first, a.last),
                    (b.count, &b.first, b.last),
                    "string {i} in {pieces} pieces"
                );
            }
        }
    }
}
