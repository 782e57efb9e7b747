//! Turns what people paste into plain lines: lossy UTF-8, CRLF and lone CR, ANSI escape
//! sequences, TensorFlow/XLA (absl) log prefixes, Jupyter's traceback arrows, and a log pasted
//! as one JSON string with literal `\n`s, and the C library's translated loader messages
//! (`无法打开共享对象文件: 没有那个文件或目录` from a zh_CN locale) as the English the catalogue
//! matches. Line numbers stay those of the input; where a Docker Compose service column was
//! stripped is remembered.

use std::borrow::Cow;
use std::sync::OnceLock;

use aho_corasick::{AhoCorasick, MatchKind};

/// The normalised text: one string, lines joined by `\n`, with where each line starts.
#[derive(Debug, Clone, Default)]
pub struct Text {
    pub text: String,
    /// Byte offset in `text` where each line starts; line `i` (0-based) is input line `i + 1`.
    pub line_starts: Vec<usize>,
    /// The first line (1-based) that carried Docker Compose's service column (`app-1  | `),
    /// stripped like the other prefixes, or one of Compose's status lines (`Creating app_run ...
    /// done`, `Container app-1  Started`): the log came from a container Compose started.
    pub compose_line: Option<usize>,
    /// The first line (1-based) that carried vLLM's engine process tag (`(EngineCore_DP0 pid=68) `,
    /// stripped like the other process tags): the log came from a vLLM server.
    pub engine_core_line: Option<usize>,
    /// The lines (1-based) whose C library messages were translated to English, each as it was
    /// pasted (without ANSI escapes): what evidence quotes, so the user sees their own words.
    pub translated: Vec<(usize, String)>,
}

impl Text {
    /// The number of lines.
    pub fn line_count(&self) -> usize {
        self.line_starts.len()
    }

    /// The 1-based line number that holds byte `offset` of `text`.
    pub fn line_of(&self, offset: usize) -> usize {
        match self.line_starts.binary_search(&offset) {
            Ok(i) => i + 1,
            Err(i) => i.max(1),
        }
    }

    /// Line `number` as pasted when its C library messages were translated, else `None`.
    pub fn as_pasted(&self, number: usize) -> Option<&str> {
        self.translated
            .iter()
            .find(|(line, _)| *line == number)
            .map(|(_, pasted)| pasted.as_str())
    }

    /// Line `number` (1-based) without its newline; empty when out of range.
    pub fn line(&self, number: usize) -> &str {
        let Some(start) = number.checked_sub(1).and_then(|i| self.line_starts.get(i)) else {
            return "";
        };
        let end = self
            .line_starts
            .get(number)
            .map(|e| e.saturating_sub(1))
            .unwrap_or(self.text.len());
        let line = self.text.get(*start..end.max(*start)).unwrap_or("");
        line.strip_suffix('\n').unwrap_or(line)
    }
}

/// Normalises raw bytes (any encoding; invalid UTF-8 becomes U+FFFD).
pub fn normalize(input: &[u8]) -> Text {
    // Checking valid UTF-8 first is much faster than the lossy decoder on a clean log.
    let decoded = match std::str::from_utf8(input) {
        Ok(text) => Cow::Borrowed(text),
        Err(_) => String::from_utf8_lossy(input),
    };
    let expanded;
    let source: &str = if looks_like_escaped_log(&decoded) {
        expanded = decoded.replace("\\r\\n", "\n").replace("\\n", "\n");
        &expanded
    } else {
        &decoded
    };
    // One pass over the whole text; line breaks stay where they are.
    let source = fold_quotes(source);
    let english = translate_libc_messages(&source);
    let translated = match &english {
        Cow::Borrowed(_) => Vec::new(),
        // Newlines are never translated: the lines pair up.
        Cow::Owned(english) => source
            .split('\n')
            .zip(english.split('\n'))
            .enumerate()
            .filter(|(_, (pasted, english))| pasted != english)
            .map(|(i, (pasted, _))| {
                let pasted = progress_bar_tail(pasted.strip_suffix('\r').unwrap_or(pasted));
                (i + 1, strip_ansi(pasted))
            })
            .collect(),
    };
    let source = english;
    let mut out = Text {
        text: String::with_capacity(source.len()),
        line_starts: Vec::with_capacity(source.len() / 60 + 1),
        compose_line: None,
        engine_core_line: None,
        translated,
    };
    // A coloured line is cleaned in here, one buffer for all of them.
    let mut scratch = String::new();
    for raw in lines(&source) {
        out.line_starts.push(out.text.len());
        let line = raw.strip_suffix('\r').unwrap_or(raw);
        let line = progress_bar_tail(line);
        let clean = if memchr::memchr(0x1b, line.as_bytes()).is_some() {
            scratch.clear();
            strip_ansi_into(&mut scratch, line);
            scratch.as_str()
        } else {
            line
        };
        // `strip_prefixes`, with a note of the first line that carried a Compose column.
        let unquoted = strip_quote(clean);
        let after_compose = strip_compose(unquoted);
        if out.compose_line.is_none()
            && (after_compose.len() < unquoted.len() || is_compose_status(unquoted))
        {
            out.compose_line = Some(out.line_starts.len());
        }
        if out.engine_core_line.is_none() && has_engine_core_tag(after_compose) {
            out.engine_core_line = Some(out.line_starts.len());
        }
        out.text.push_str(strip_after_compose(after_compose));
        out.text.push('\n');
    }
    // `split` yields a last empty piece after a trailing newline; drop its line.
    if source.ends_with('\n') {
        out.line_starts.pop();
        out.text.pop();
    }
    out
}

/// Typographic quotes (‘ ’ ‚ ‛ “ ” „ ‟ ′ ″, from a word processor, a web page or a chat client)
/// as the ASCII quotes a program printed. Catalogue strings are folded the same way.
pub fn fold_quotes(text: &str) -> Cow<'_, str> {
    const SINGLE: [char; 5] = ['\u{2018}', '\u{2019}', '\u{201a}', '\u{201b}', '\u{2032}'];
    const DOUBLE: [char; 5] = ['\u{201c}', '\u{201d}', '\u{201e}', '\u{201f}', '\u{2033}'];
    // All of them encode as E2 80 xx in UTF-8: most logs have no 0xE2 byte at all.
    if memchr::memchr(0xe2, text.as_bytes()).is_none()
        || !text
            .chars()
            .any(|c| SINGLE.contains(&c) || DOUBLE.contains(&c))
    {
        return Cow::Borrowed(text);
    }
    Cow::Owned(
        text.chars()
            .map(|c| {
                if SINGLE.contains(&c) {
                    '\''
                } else if DOUBLE.contains(&c) {
                    '"'
                } else {
                    c
                }
            })
            .collect(),
    )
}

/// glibc's translations of the loader messages (data/libc-messages.tsv, read from the libc.mo
/// catalogues of Debian's `locales` package by tools/locales/libc_messages.py).
const LIBC_MESSAGES: &str = include_str!("../data/libc-messages.tsv");

/// The translations and the English each stands for, longest first among overlapping ones.
struct LibcMessages {
    matcher: AhoCorasick,
    english: Vec<&'static str>,
}

/// Built on first use from `LIBC_MESSAGES`; `None` if the table is unusable (a test checks it
/// is not).
fn libc_messages() -> Option<&'static LibcMessages> {
    static TABLE: OnceLock<Option<LibcMessages>> = OnceLock::new();
    TABLE
        .get_or_init(|| {
            let mut translated = Vec::new();
            let mut english = Vec::new();
            for line in LIBC_MESSAGES.lines() {
                if line.starts_with('#') || line.trim().is_empty() {
                    continue;
                }
                let mut fields = line.split('\t');
                let (Some(msgid), Some(_locale), Some(translation)) =
                    (fields.next(), fields.next(), fields.next())
                else {
                    continue;
                };
                translated.push(translation);
                english.push(msgid);
            }
            let matcher = AhoCorasick::builder()
                .match_kind(MatchKind::LeftmostLongest)
                .build(&translated)
                .ok()?;
            Some(LibcMessages { matcher, english })
        })
        .as_ref()
}

/// The C library's loader messages in another language (`无法打开共享对象文件`, `Kann die
/// Shared-Object-Datei nicht öffnen`) as glibc's English, which is what the catalogue matches.
/// A loader message names the library it failed on, so only lines with `.so` in them are
/// scanned; a log without any is returned as it is.
pub fn translate_libc_messages(text: &str) -> Cow<'_, str> {
    let bytes = text.as_bytes();
    let mut out: Option<String> = None;
    // `text[..copied]` is in `out`; a `.so` before `next_line` is on a line already read.
    let mut copied = 0;
    let mut next_line = 0;
    for hit in memchr::memmem::find_iter(bytes, ".so") {
        if hit < next_line {
            continue;
        }
        let line_start = memchr::memrchr(b'\n', &bytes[..hit]).map_or(0, |i| i + 1);
        let line_end = memchr::memchr(b'\n', &bytes[hit..]).map_or(text.len(), |i| hit + i);
        next_line = line_end;
        let line = &text[line_start..line_end];
        // The table is built the first time a line names a library.
        let Some(table) = libc_messages() else {
            return Cow::Borrowed(text);
        };
        let mut found = table.matcher.find_iter(line).peekable();
        if found.peek().is_none() {
            continue;
        }
        let buffer = out.get_or_insert_with(|| String::with_capacity(text.len() + 64));
        buffer.push_str(&text[copied..line_start]);
        let mut last = 0;
        for m in found {
            buffer.push_str(&line[last..m.start()]);
            buffer.push_str(table.english[m.pattern().as_usize()]);
            last = m.end();
        }
        buffer.push_str(&line[last..]);
        copied = line_end;
    }
    match out {
        Some(mut buffer) => {
            buffer.push_str(&text[copied..]);
            Cow::Owned(buffer)
        }
        None => Cow::Borrowed(text),
    }
}

/// The `\n`-separated pieces of `text` (as `str::split('\n')` gives them, a last empty one
/// after a trailing newline included), found with the SIMD `memchr`.
fn lines(text: &str) -> impl Iterator<Item = &str> {
    let ends = memchr::memchr_iter(b'\n', text.as_bytes()).chain(std::iter::once(text.len()));
    let mut start = 0;
    // `\n` is ASCII: every cut is a character boundary.
    ends.map(move |end| {
        let line = text.get(start..end).unwrap_or("");
        start = end + 1;
        line
    })
}

/// Where the first `first` directly followed by `second` is in `window`.
fn find_pair(window: &[u8], first: u8, second: u8) -> Option<usize> {
    memchr::memchr_iter(first, window).find(|&i| window.get(i + 1) == Some(&second))
}

/// A whole log pasted as one escaped string (from JSON, a notebook, a Python repr): few real
/// lines, many literal `\n`.
fn looks_like_escaped_log(text: &str) -> bool {
    let few_lines = memchr::memchr_iter(b'\n', text.as_bytes()).nth(3).is_none();
    few_lines
        && memchr::memmem::find_iter(text.as_bytes(), b"\\n")
            .nth(1)
            .is_some()
}

/// A line rewritten in place with `\r` (progress bars): the last version is what was shown.
fn progress_bar_tail(line: &str) -> &str {
    // `\r` is ASCII: the bytes around it are character boundaries.
    match memchr::memrchr(b'\r', line.as_bytes()) {
        Some(i) if i + 1 < line.len() => &line[i + 1..],
        Some(i) => &line[..i],
        None => line,
    }
}

/// Removes ANSI escape sequences (CSI `ESC [ ... final`, OSC `ESC ] ... BEL|ESC \`, and
/// two-byte escapes).
pub fn strip_ansi(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    strip_ansi_into(&mut out, line);
    out
}

/// [`strip_ansi`], appending to `out`.
fn strip_ansi_into(out: &mut String, line: &str) {
    let mut rest = line;
    // Copy the runs between escapes whole; most of a coloured line is text.
    while let Some(esc) = memchr::memchr(0x1b, rest.as_bytes()) {
        out.push_str(&rest[..esc]);
        rest = after_escape(&rest[esc + 1..]);
    }
    out.push_str(rest);
}

/// What follows an escape sequence, given what follows its ESC.
fn after_escape(after: &str) -> &str {
    let mut chars = after.char_indices();
    match chars.next() {
        Some((_, '[')) => {
            // Parameters and intermediates, then one final byte in '@'..='~'.
            for (i, d) in chars {
                if ('@'..='~').contains(&d) {
                    return &after[i + d.len_utf8()..];
                }
            }
            ""
        }
        Some((_, ']')) => {
            while let Some((i, d)) = chars.next() {
                if d == '\u{7}' {
                    return &after[i + d.len_utf8()..];
                }
                if d == '\u{1b}' {
                    return match chars.next() {
                        Some((j, e)) => &after[j + e.len_utf8()..],
                        None => "",
                    };
                }
            }
            ""
        }
        Some((i, c)) => &after[i + c.len_utf8()..],
        None => "",
    }
}

/// Strips the log prefixes that hide where a message starts: Docker Compose service columns
/// (`app-1  | `), syslog/journald (`Oct 04 15:02:41 host unit[394]: `), Ray/vLLM process tags and
/// level stamps (`(EngineCore_DP0 pid=68) ERROR 02-06 16:34:06 [core.py:936] `), absl/glog
/// (`E0000 00:00:1712345678.123 12345 cuda_dnn.cc:535] `, `2024-01-01 12:00:00.000000: E
/// tensorflow/.../cuda_dnn.cc:535] `), Jupyter's `----> 3 ` arrows and the quote markers of a
/// log pasted into an issue as a quotation (`> `, `>> `). With the prefix gone, a
/// `RuntimeError: ...` line is recognised as the exception the program died with.
pub fn strip_prefixes(line: &str) -> &str {
    strip_after_compose(strip_compose(strip_quote(line)))
}

/// The prefixes that can follow a quote marker and a Compose column.
fn strip_after_compose(line: &str) -> &str {
    let line = strip_syslog(line);
    let line = strip_process_tags(line);
    let line = strip_level_stamp(line);
    let line = strip_glog(line);
    strip_jupyter_arrow(line)
}

/// Docker Compose: `service-1     | message` (the service name ends in `-N` or `_N`).
fn strip_compose(line: &str) -> &str {
    let window = &line.as_bytes()[..line.len().min(96)];
    // The first ` | `: a `|` with a space on each side.
    let Some(bar) = memchr::memchr_iter(b'|', window)
        .find(|&i| i > 0 && window[i - 1] == b' ' && window.get(i + 1) == Some(&b' '))
        .map(|i| i - 1)
    else {
        return line;
    };
    let name = line[..bar].trim_end();
    let bytes = name.as_bytes();
    let digits = bytes
        .iter()
        .rev()
        .take_while(|b| b.is_ascii_digit())
        .count();
    let plausible = !name.is_empty()
        && digits > 0
        && digits < bytes.len()
        && matches!(bytes[bytes.len() - digits - 1], b'-' | b'_')
        && bytes
            .iter()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'));
    if plausible {
        // `bar + 3` follows ASCII bytes, so it is a character boundary.
        line.get(bar + 3..).unwrap_or(line)
    } else {
        line
    }
}

/// One of Docker Compose's status lines about a container: v1's `Creating app_web_1 ... done`
/// (also Starting/Recreating), v2's `Container app-web-1  Started` (also Created/Running/Recreated,
/// after a `✔` or a spinner). pip's and conda's `... done` lines name no single container.
fn is_compose_status(line: &str) -> bool {
    let line = line.trim();
    if let Some(rest) = line.strip_suffix(" ... done") {
        let mut words = rest.split_whitespace();
        let verb = words.next();
        let name = words.next();
        return matches!(verb, Some("Creating" | "Starting" | "Recreating"))
            && name.is_some_and(is_container_name)
            && words.next().is_none();
    }
    let line = line.trim_start_matches(|c: char| !c.is_ascii_alphanumeric());
    let Some(rest) = line.strip_prefix("Container ") else {
        return false;
    };
    let mut words = rest.split_whitespace();
    words.next().is_some_and(is_container_name)
        && matches!(
            words.next(),
            Some("Started" | "Created" | "Running" | "Recreated")
        )
        && words.next().is_none()
}

/// A Compose container name: letters, digits, `-`, `_`, `.`, ending in a replica number.
fn is_container_name(name: &str) -> bool {
    let bytes = name.as_bytes();
    bytes.len() > 2
        && bytes
            .iter()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
        && bytes.iter().any(|b| matches!(b, b'-' | b'_'))
}

/// syslog/journald: `Mon DD hh:mm:ss host tag[pid]: message`.
fn strip_syslog(line: &str) -> &str {
    let bytes = line.as_bytes();
    if bytes.len() < 20
        || !bytes[0].is_ascii_uppercase()
        || !bytes[1..3].iter().all(u8::is_ascii_lowercase)
        || bytes[3] != b' '
    {
        return line;
    }
    // Day: one or two digits, space-padded.
    let mut i = 4;
    if bytes[i] == b' ' {
        i += 1;
    }
    let day = bytes[i..].iter().take_while(|b| b.is_ascii_digit()).count();
    if !(1..=2).contains(&day) {
        return line;
    }
    i += day;
    let time = bytes.get(i..i + 9);
    let is_time = time.is_some_and(|t| {
        t[0] == b' '
            && t[3] == b':'
            && t[6] == b':'
            && [1, 2, 4, 5, 7, 8].iter().all(|&k| t[k].is_ascii_digit())
    });
    if !is_time {
        return line;
    }
    i += 9;
    // ` host tag: ` — two space-free words, the second ending in `:`.
    let rest = &bytes[i..];
    if rest.first() != Some(&b' ') {
        return line;
    }
    let Some(host_len) = rest[1..].iter().position(|b| *b == b' ') else {
        return line;
    };
    let tag_start = i + 1 + host_len + 1;
    let window = &bytes[tag_start..bytes.len().min(tag_start + 64)];
    match find_pair(window, b':', b' ') {
        Some(end) if !window[..end].contains(&b' ') && end > 0 => {
            line.get(tag_start + end + 2..).unwrap_or(line)
        }
        _ => line,
    }
}

/// Whether the line starts with process tags and one is vLLM's engine (`(APIServer pid=1)
/// (EngineCore_DP0 pid=68) ERROR ...`).
fn has_engine_core_tag(line: &str) -> bool {
    if !line.starts_with('(') {
        return false;
    }
    let tags = &line[..line.len() - strip_process_tags(line).len()];
    tags.contains("(EngineCore")
}

/// Ray/vLLM worker tags: `(EngineCore_DP0 pid=68) `, possibly several.
fn strip_process_tags(mut line: &str) -> &str {
    for _ in 0..4 {
        let Some(rest) = line.strip_prefix('(') else {
            break;
        };
        let Some(close) = rest.find(") ") else {
            break;
        };
        if close > 64 || !rest[..close].contains("pid=") {
            break;
        }
        line = &rest[close + 2..];
    }
    line
}

/// Python logging as vLLM formats it: `ERROR 02-06 16:34:06 [core.py:936] ` (or without brackets,
/// `INFO 01-11 13:09:40 engine.py:366] `).
fn strip_level_stamp(line: &str) -> &str {
    let Some((level, rest)) = line.split_once(' ') else {
        return line;
    };
    if !matches!(level, "DEBUG" | "INFO" | "WARNING" | "ERROR" | "CRITICAL") {
        return line;
    }
    let bytes = rest.as_bytes();
    let stamp = bytes.len() > 15
        && bytes[0..2].iter().all(u8::is_ascii_digit)
        && bytes[2] == b'-'
        && bytes[3..5].iter().all(u8::is_ascii_digit)
        && bytes[5] == b' '
        && bytes[8] == b':'
        && bytes[11] == b':';
    if !stamp {
        return line;
    }
    let window = &bytes[..bytes.len().min(96)];
    match find_pair(window, b']', b' ') {
        Some(i) => rest.get(i + 2..).map(str::trim_start).unwrap_or(line),
        None => line,
    }
}

fn strip_glog(line: &str) -> &str {
    let bytes = line.as_bytes();
    // glog: [IWEF]MMDD hh:mm:ss.uuuuuu threadid file:line]
    let glog = bytes.len() > 6
        && matches!(bytes[0], b'I' | b'W' | b'E' | b'F')
        && bytes[1..5].iter().all(u8::is_ascii_digit)
        && bytes[5] == b' ';
    // TensorFlow's Python-side C++ logging: YYYY-MM-DD hh:mm:ss.uuuuuu: [IWEF] file:line]
    let tf = bytes.len() > 20
        && bytes[0..4].iter().all(u8::is_ascii_digit)
        && bytes[4] == b'-'
        && bytes[7] == b'-'
        && bytes[10] == b' ';
    if !glog && !tf {
        return line;
    }
    // Byte search: `]` and ` ` are ASCII, so `i + 2` is a character boundary.
    let window = &bytes[..bytes.len().min(160)];
    match find_pair(window, b']', b' ') {
        Some(i) => line.get(i + 2..).map(str::trim_start).unwrap_or(line),
        None => line,
    }
}

/// Markdown quotation markers (`> RuntimeError: ...`, `>>RuntimeError: ...`) and the Python
/// prompt (`>>> `) at the start of a line.
fn strip_quote(line: &str) -> &str {
    let trimmed = line.trim_start();
    if trimmed.starts_with('>') {
        trimmed.trim_start_matches(['>', ' ', '\t'])
    } else {
        line
    }
}

fn strip_jupyter_arrow(line: &str) -> &str {
    let trimmed = line.trim_start();
    match trimmed.strip_prefix("---->") {
        Some(rest) => rest.trim_start_matches(|c: char| c.is_ascii_digit() || c == ' '),
        None => line,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn libc_messages_table_is_usable() {
        let table = libc_messages().expect("data/libc-messages.tsv builds a matcher");
        // Three messages in some thirty languages.
        assert!(table.english.len() > 60, "{}", table.english.len());
        for english in &table.english {
            assert!(
                [
                    "cannot open shared object file",
                    "error while loading shared libraries",
                    "No such file or directory"
                ]
                .contains(english),
                "{english}"
            );
        }
    }

    #[test]
    fn translated_loader_messages_read_as_english() {
        // An mxnet import on a zh_CN desktop (arch4edu/arch4edu#23).
        let zh = "OSError: libopenblas.so.0: 无法打开共享对象文件: 没有那个文件或目录";
        assert_eq!(
            translate_libc_messages(zh),
            "OSError: libopenblas.so.0: cannot open shared object file: No such file or directory"
        );
        let de = "./a.out: Fehler beim Laden der Shared Libraries: libcudart.so.12: Kann die \
                  Shared-Object-Datei nicht öffnen: Datei oder Verzeichnis nicht gefunden";
        assert_eq!(
            translate_libc_messages(de),
            "./a.out: error while loading shared libraries: libcudart.so.12: cannot open shared \
             object file: No such file or directory"
        );
        // Only the lines that name a library; the others stay as they were, in order.
        let mixed = format!("a.so 是库\n{zh}\nDatei oder Verzeichnis nicht gefunden\n{zh}");
        let english =
            "OSError: libopenblas.so.0: cannot open shared object file: No such file or directory";
        assert_eq!(
            translate_libc_messages(&mixed),
            format!("a.so 是库\n{english}\nDatei oder Verzeichnis nicht gefunden\n{english}")
        );
        // Nothing to translate: the same text, not a copy.
        let en = "libcudnn.so.8: cannot open shared object file: No such file or directory\n中文";
        assert!(matches!(translate_libc_messages(en), Cow::Borrowed(_)));
        // Line breaks, and so line numbers, stay where they were.
        let two = format!("{zh}\nnext line");
        let text = normalize(two.as_bytes());
        assert_eq!(text.line_count(), 2);
        assert_eq!(text.line(2), "next line");
        assert!(text.line(1).ends_with("No such file or directory"));
        // What the user pasted is kept for the evidence.
        assert_eq!(text.as_pasted(1), Some(zh));
        assert_eq!(text.as_pasted(2), None);
    }

    #[test]
    fn ansi_sequences_are_removed() {
        assert_eq!(
            strip_ansi("\u{1b}[1;31mRuntimeError\u{1b}[0m: x"),
            "RuntimeError: x"
        );
        // OSC (a hyperlink or a title) ends with BEL or with ESC \.
        assert_eq!(strip_ansi("a\u{1b}]0;title\u{7}b"), "ab");
        assert_eq!(strip_ansi("a\u{1b}]8;;http://x\u{1b}\\b"), "ab");
        // Two-byte escapes, also with a character of several bytes after ESC.
        assert_eq!(strip_ansi("a\u{1b}(b\u{1b}éc"), "abc");
        // Unterminated sequences swallow the rest; ESC at the end is dropped.
        assert_eq!(strip_ansi("é\u{1b}[31"), "é");
        assert_eq!(strip_ansi("a\u{1b}]title"), "a");
        assert_eq!(strip_ansi("a\u{1b}"), "a");
        assert_eq!(strip_ansi("中\u{1b}[32m文"), "中文");
    }

    /// The character-by-character form strip_ansi had before it copied runs whole.
    fn strip_ansi_by_char(line: &str) -> String {
        let mut out = String::new();
        let mut chars = line.chars().peekable();
        while let Some(c) = chars.next() {
            if c != '\u{1b}' {
                out.push(c);
                continue;
            }
            match chars.peek().copied() {
                Some('[') => {
                    chars.next();
                    for d in chars.by_ref() {
                        if ('@'..='~').contains(&d) {
                            break;
                        }
                    }
                }
                Some(']') => {
                    chars.next();
                    while let Some(d) = chars.next() {
                        if d == '\u{7}' {
                            break;
                        }
                        if d == '\u{1b}' {
                            chars.next();
                            break;
                        }
                    }
                }
                Some(_) => {
                    chars.next();
                }
                None => {}
            }
        }
        out
    }

    #[test]
    fn ansi_stripping_matches_the_character_by_character_form() {
        let alphabet = [
            '\u{1b}', '[', ']', '\u{7}', '\\', 'm', '1', ';', 'a', ' ', 'é', '中', '@', '~',
        ];
        let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
        for _ in 0..20_000 {
            let mut line = String::new();
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1);
            let len = (state >> 59) as usize;
            for _ in 0..len {
                state = state
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1);
                line.push(alphabet[(state >> 33) as usize % alphabet.len()]);
            }
            assert_eq!(strip_ansi(&line), strip_ansi_by_char(&line), "{line:?}");
        }
    }

    #[test]
    fn typographic_quotes_are_ascii() {
        let t = normalize("ModuleNotFoundError: No module named \u{2018}torch\u{2019}\n\u{201c}cudnn.h\u{201d}: No such file\nplain 'x'\n".as_bytes());
        assert_eq!(t.line(1), "ModuleNotFoundError: No module named 'torch'");
        assert_eq!(t.line(2), "\"cudnn.h\": No such file");
        assert_eq!(t.line(3), "plain 'x'");
        assert!(matches!(fold_quotes("no quotes"), Cow::Borrowed(_)));
    }

    #[test]
    fn crlf_and_line_numbers() {
        let t = normalize(b"a\r\nb\r\nc");
        assert_eq!(t.line_count(), 3);
        assert_eq!(t.line(2), "b");
        assert_eq!(t.line(3), "c");
        assert_eq!(t.line(4), "");
        assert_eq!(t.line_of(t.line_starts[2]), 3);
    }

    #[test]
    fn ansi_codes_are_removed() {
        let t = normalize(b"\x1b[0;31mRuntimeError\x1b[0m: CUDA error\n");
        assert_eq!(t.line(1), "RuntimeError: CUDA error");
        assert_eq!(t.line_count(), 1);
    }

    #[test]
    fn tensorflow_prefixes_are_removed() {
        let t = normalize(
            b"E0000 00:00:1712345678.123 12345 cuda_dnn.cc:535] Loaded runtime CuDNN library: 8.6.0\n\
              2023-03-01 10:00:00.123456: W tensorflow/compiler/xla/stream_executor/platform/default/dso_loader.cc:64] Could not load dynamic library 'libcudart.so.11.0'",
        );
        assert_eq!(t.line(1), "Loaded runtime CuDNN library: 8.6.0");
        assert_eq!(
            t.line(2),
            "Could not load dynamic library 'libcudart.so.11.0'"
        );
    }

    #[test]
    fn service_log_prefixes_are_removed() {
        let t = normalize(
            b"Oct 04 15:02:41 llm sd-webui-forge-start[394]: RuntimeError: CUDA error: no kernel image\n\
              Jun  3 11:07:05 gpu-0 kernel: NVRM: API mismatch\n\
              kokoro-tts-1     | RuntimeError: boom\n\
              (APIServer pid=1) (EngineCore_DP0 pid=68) ERROR 02-06 16:34:06 [core.py:936] RuntimeError: CUDA error\n\
              |   0  NVIDIA GeForce RTX 3090   | 00000000:01:00.0 Off |\n\
              name | value",
        );
        assert_eq!(t.line(1), "RuntimeError: CUDA error: no kernel image");
        assert_eq!(t.line(2), "NVRM: API mismatch");
        assert_eq!(t.line(3), "RuntimeError: boom");
        assert_eq!(t.line(4), "RuntimeError: CUDA error");
        assert_eq!(
            t.line(5),
            "|   0  NVIDIA GeForce RTX 3090   | 00000000:01:00.0 Off |"
        );
        assert_eq!(t.line(6), "name | value");
        assert_eq!(t.compose_line, Some(3));
        assert_eq!(t.engine_core_line, Some(4));
        assert_eq!(normalize(b"name | value\nx_1 y | z").compose_line, None);
        // Another process tag, or EngineCore named inside the message, is not vLLM's engine tag.
        let t =
            normalize(b"(RayWorker pid=7) boom\nRuntimeError: EngineCore failed\n(EngineCore x");
        assert_eq!(t.engine_core_line, None);
    }

    #[test]
    fn compose_status_lines_mark_a_compose_log() {
        for log in [
            &b"Creating vqgan-clip-docker_generate_run ... done\nRuntimeError: boom"[..],
            b" \xe2\x9c\x94 Container kokoro-tts-1  Started\nRuntimeError: boom",
            b"Container app-web-1  Created",
        ] {
            assert_eq!(normalize(log).compose_line, Some(1), "{log:?}");
        }
        for log in [
            &b"Preparing metadata (setup.py) ... done"[..],
            b"Building wheel for foo (setup.py) ... done",
            b"Creating environment ... done",
            b"Executing transaction: done",
            b"Container started",
        ] {
            assert_eq!(normalize(log).compose_line, None, "{log:?}");
        }
    }

    #[test]
    fn jupyter_arrows_and_escaped_logs() {
        let t = normalize(b"----> 3 x = torch.zeros(1).cuda()");
        assert_eq!(t.line(1), "x = torch.zeros(1).cuda()");
        let t = normalize(b"\"Traceback:\\n  File x\\nRuntimeError: boom\\n\"");
        assert_eq!(t.line(3), "RuntimeError: boom");
    }

    #[test]
    fn quote_markers_are_removed() {
        let t = normalize(
            b"> RuntimeError: boom\n>>RuntimeError: CUDA error\n  >>> import torch\n-> 2 x",
        );
        assert_eq!(t.line(1), "RuntimeError: boom");
        assert_eq!(t.line(2), "RuntimeError: CUDA error");
        assert_eq!(t.line(3), "import torch");
        assert_eq!(t.line(4), "-> 2 x");
    }

    #[test]
    fn invalid_utf8_and_progress_bars() {
        let t = normalize(b"ok \xff\xfe end\n 10%\r 50%\r100% done");
        assert!(t.line(1).starts_with("ok "));
        assert_eq!(t.line(2), "100% done");
    }
}
