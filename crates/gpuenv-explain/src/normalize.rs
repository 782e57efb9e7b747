//! Turns what people paste into plain lines: lossy UTF-8, CRLF and lone CR, ANSI escape
//! sequences, TensorFlow/XLA (absl) log prefixes, Jupyter's traceback arrows, and a log pasted
//! as one JSON string with literal `\n`s. Line numbers stay those of the input.

/// The normalised text: one string, lines joined by `\n`, with where each line starts.
#[derive(Debug, Clone, Default)]
pub struct Text {
    pub text: String,
    /// Byte offset in `text` where each line starts; line `i` (0-based) is input line `i + 1`.
    pub line_starts: Vec<usize>,
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
    let decoded = String::from_utf8_lossy(input);
    let expanded;
    let source: &str = if looks_like_escaped_log(&decoded) {
        expanded = decoded.replace("\\r\\n", "\n").replace("\\n", "\n");
        &expanded
    } else {
        &decoded
    };
    let mut out = Text {
        text: String::with_capacity(source.len()),
        line_starts: Vec::with_capacity(source.len() / 60 + 1),
    };
    for raw in source.split('\n') {
        out.line_starts.push(out.text.len());
        let line = raw.strip_suffix('\r').unwrap_or(raw);
        let line = progress_bar_tail(line);
        if line.contains('\u{1b}') {
            let clean = strip_ansi(line);
            out.text.push_str(strip_prefixes(&clean));
        } else {
            out.text.push_str(strip_prefixes(line));
        }
        out.text.push('\n');
    }
    // `split` yields a last empty piece after a trailing newline; drop its line.
    if source.ends_with('\n') {
        out.line_starts.pop();
        out.text.pop();
    }
    out
}

/// A whole log pasted as one escaped string (from JSON, a notebook, a Python repr): few real
/// lines, many literal `\n`.
fn looks_like_escaped_log(text: &str) -> bool {
    let real = text.bytes().filter(|b| *b == b'\n').count();
    real <= 3 && text.matches("\\n").count() >= 2
}

/// A line rewritten in place with `\r` (progress bars): the last version is what was shown.
fn progress_bar_tail(line: &str) -> &str {
    match line.rfind('\r') {
        Some(i) if i + 1 < line.len() => &line[i + 1..],
        Some(i) => &line[..i],
        None => line,
    }
}

/// Removes ANSI escape sequences (CSI `ESC [ ... final`, OSC `ESC ] ... BEL|ESC \`, and
/// two-byte escapes).
pub fn strip_ansi(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\u{1b}' {
            out.push(c);
            continue;
        }
        match chars.peek().copied() {
            Some('[') => {
                chars.next();
                // Parameters and intermediates, then one final byte in '@'..='~'.
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

/// Strips the log prefixes that hide where a message starts: absl/glog
/// (`E0000 00:00:1712345678.123 12345 cuda_dnn.cc:535] `, `2024-01-01 12:00:00.000000: E
/// tensorflow/.../cuda_dnn.cc:535] `) and Jupyter's `----> 3 ` arrows.
pub fn strip_prefixes(line: &str) -> &str {
    let line = strip_glog(line);
    strip_jupyter_arrow(line)
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
    match window.windows(2).position(|w| w == b"] ") {
        Some(i) => line.get(i + 2..).map(str::trim_start).unwrap_or(line),
        None => line,
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
    fn jupyter_arrows_and_escaped_logs() {
        let t = normalize(b"----> 3 x = torch.zeros(1).cuda()");
        assert_eq!(t.line(1), "x = torch.zeros(1).cuda()");
        let t = normalize(b"\"Traceback:\\n  File x\\nRuntimeError: boom\\n\"");
        assert_eq!(t.line(3), "RuntimeError: boom");
    }

    #[test]
    fn invalid_utf8_and_progress_bars() {
        let t = normalize(b"ok \xff\xfe end\n 10%\r 50%\r100% done");
        assert!(t.line(1).starts_with("ok "));
        assert_eq!(t.line(2), "100% done");
    }
}
