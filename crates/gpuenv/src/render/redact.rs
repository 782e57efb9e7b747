//! `--redact`: replaces what identifies a person or a machine, and anything that looks like a
//! secret, in rendered output before it is printed (every format).
//!
//! Replaced, in this order: values that look like secrets (well-known token shapes such as
//! `ghp_…`, `hf_…`, `AKIA…`, `sk-…`, `glpat-…`, `xox?-…`; `password=`/`token=`-style assignments;
//! the password of a URL's `user:password@`; the value of every process environment variable
//! whose name says it is a secret) → `<redacted>`; the home directory → `~`; the user name →
//! `<user>`; the host name → `<host>`. Names are replaced as whole words only (a user `ann` does
//! not turn `annotation` into `<user>otation`); names shorter than 3 characters, `root` and
//! `localhost` are left alone, as is a home directory of `/`.
//!
//! The redactor knows nothing about where the values come from: `Redactor::from_process` reads
//! them from the process and `root`; tests build it by hand with hostile values.

use std::borrow::Cow;
use std::path::Path;

use regex::Regex;

/// What to replace.
#[derive(Debug, Clone, Default)]
pub struct Redactor {
    /// Exact secret values (from the environment), replaced wherever they appear.
    secrets: Vec<String>,
    homes: Vec<String>,
    users: Vec<String>,
    hosts: Vec<String>,
}

/// Variable names that say their value is a secret.
fn secret_name(name: &str) -> bool {
    let n = name.to_ascii_uppercase();
    [
        "TOKEN",
        "SECRET",
        "PASSWORD",
        "PASSWD",
        "API_KEY",
        "APIKEY",
        "ACCESS_KEY",
        "PRIVATE_KEY",
        "CREDENTIAL",
        "AUTH",
        "_KEY",
        "SESSION",
        "COOKIE",
    ]
    .iter()
    .any(|w| n.contains(w))
}

impl Redactor {
    /// A redactor for this process's user and host (and the host name of `root`, when it is
    /// another machine's file system).
    pub fn from_process(root: &Path) -> Redactor {
        let mut r = Redactor::default();
        for (name, value) in std::env::vars_os() {
            let (Some(name), Some(value)) = (name.to_str(), value.to_str()) else {
                continue;
            };
            if secret_name(name) {
                r = r.secret(value);
            }
            // A value gpuenv splits (a `:`-separated path list) can cut a URL's password off
            // its `user:`; the secret parts of every value are replaced wherever they appear.
            for part in secret_parts(value) {
                r = r.secret(&part);
            }
        }
        if let Some(home) = std::env::var_os("HOME") {
            r = r.home(&home.to_string_lossy());
        }
        for var in ["USER", "LOGNAME", "USERNAME", "SUDO_USER"] {
            if let Ok(user) = std::env::var(var) {
                r = r.user(&user);
            }
        }
        if let Ok(host) = std::env::var("HOSTNAME") {
            r = r.host(&host);
        }
        for file in [
            Path::new("/proc/sys/kernel/hostname").to_path_buf(),
            Path::new("/etc/hostname").to_path_buf(),
            root.join("etc/hostname"),
        ] {
            if let Ok(text) = std::fs::read_to_string(&file) {
                r = r.host(text.trim());
            }
        }
        r
    }

    /// Also replace this exact value (6 characters or more).
    pub fn secret(mut self, value: &str) -> Redactor {
        if value.chars().count() >= 6 && !self.secrets.iter().any(|s| s == value) {
            self.secrets.push(value.to_string());
            // Longest first, so a secret that contains another is replaced whole.
            self.secrets.sort_by_key(|s| std::cmp::Reverse(s.len()));
        }
        self
    }

    pub fn home(mut self, home: &str) -> Redactor {
        let home = home.trim_end_matches('/');
        if home.len() >= 2 && home.starts_with('/') && !self.homes.iter().any(|h| h == home) {
            self.homes.push(home.to_string());
            self.homes.sort_by_key(|s| std::cmp::Reverse(s.len()));
        }
        self
    }

    pub fn user(mut self, user: &str) -> Redactor {
        let user = user.trim();
        if user.chars().count() >= 3 && user != "root" && !self.users.iter().any(|u| u == user) {
            self.users.push(user.to_string());
        }
        self
    }

    pub fn host(mut self, host: &str) -> Redactor {
        let host = host.trim();
        if host.chars().count() >= 3 && host != "localhost" && !self.hosts.iter().any(|h| h == host)
        {
            self.hosts.push(host.to_string());
            // The short name of a fully qualified host name too.
            if let Some((short, _)) = host.split_once('.') {
                if short.chars().count() >= 3 && !self.hosts.iter().any(|h| h == short) {
                    self.hosts.push(short.to_string());
                }
            }
            self.hosts.sort_by_key(|s| std::cmp::Reverse(s.len()));
        }
        self
    }

    /// The text with everything replaced.
    pub fn redact(&self, text: &str) -> String {
        // Names are first replaced by private-use sentinels, so a name that equals a placeholder
        // (a host called `<user>`) or occurs inside one cannot be replaced twice.
        const USER: &str = "\u{F8F0}u\u{F8F1}";
        const HOST: &str = "\u{F8F0}h\u{F8F1}";
        let mut s = text.to_string();
        for secret in &self.secrets {
            s = s.replace(secret.as_str(), "<redacted>");
        }
        s = redact_secret_shapes(&s).into_owned();
        for home in &self.homes {
            s = replace_path_prefix(&s, home, "~");
        }
        for user in &self.users {
            s = replace_word(&s, user, USER);
        }
        for host in &self.hosts {
            s = replace_word(&s, host, HOST);
        }
        s.replace(USER, "<user>").replace(HOST, "<host>")
    }

    /// Redacts every string (not the keys) of a JSON value in place.
    pub fn redact_json(&self, value: &mut serde_json::Value) {
        match value {
            serde_json::Value::String(s) => *s = self.redact(s),
            serde_json::Value::Array(items) => items.iter_mut().for_each(|v| self.redact_json(v)),
            serde_json::Value::Object(map) => map.values_mut().for_each(|v| self.redact_json(v)),
            _ => {}
        }
    }
}

/// Redacts rendered output: JSON string by string (so the document stays valid JSON), any other
/// format as text.
pub fn redact_output(
    rendered: &[u8],
    format: crate::cli::Format,
    root: &Path,
) -> anyhow::Result<Vec<u8>> {
    let redactor = Redactor::from_process(root);
    let text = String::from_utf8_lossy(rendered);
    if format == crate::cli::Format::Json {
        let mut value: serde_json::Value = serde_json::from_str(&text)?;
        redactor.redact_json(&mut value);
        let mut out = serde_json::to_vec_pretty(&value)?;
        out.push(b'\n');
        return Ok(out);
    }
    Ok(redactor.redact(&text).into_bytes())
}

/// The shapes of well-known tokens, `key=value` secrets and URL passwords.
fn secret_patterns() -> &'static [(Regex, &'static str)] {
    static PATTERNS: std::sync::OnceLock<Vec<(Regex, &'static str)>> = std::sync::OnceLock::new();
    PATTERNS.get_or_init(|| {
        [
            // scheme://user:password@host -> keep the user, drop the password.
            (r"(?i)\b([a-z][a-z0-9+.-]*://[^\s:/@]*):[^\s/@]+@", "${1}:<redacted>@"),
            // scheme://token@host (a bare token as the user part, e.g. GitHub's x-access tokens).
            (r"(?i)\b([a-z][a-z0-9+.-]*://)[A-Za-z0-9_\-]{20,}@", "${1}<redacted>@"),
            (r"\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20,}\b", "<redacted>"),
            (r"\bgithub_pat_[A-Za-z0-9_]{20,}\b", "<redacted>"),
            (r"\bglpat-[A-Za-z0-9_\-]{20,}\b", "<redacted>"),
            (r"\bhf_[A-Za-z0-9]{20,}\b", "<redacted>"),
            (r"\bsk-[A-Za-z0-9_\-]{20,}\b", "<redacted>"),
            (r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b", "<redacted>"),
            (r"\bxox[abposr]-[A-Za-z0-9\-]{10,}\b", "<redacted>"),
            (r"\bAIza[0-9A-Za-z_\-]{35}\b", "<redacted>"),
            (r"\beyJ[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,}\b", "<redacted>"),
            (
                r"-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|\z)",
                "<redacted>",
            ),
            // password=..., token: ..., api_key=... (query strings, pasted configs).
            (
                r"(?i)\b([a-z0-9_]*(?:password|passwd|pwd|token|secret|api[_-]?key|access[_-]?key|auth)[a-z0-9_]*)(\s*[=:]\s*)[^\s&;,:'\x22\\]+",
                "${1}${2}<redacted>",
            ),
        ]
        .into_iter()
        .filter_map(|(re, with)| Regex::new(re).ok().map(|re| (re, with)))
        .collect()
    })
}

/// The secret parts of a value: URL passwords, well-known token shapes and `key=value` secrets.
pub fn secret_parts(value: &str) -> Vec<String> {
    static URL_PASSWORD: std::sync::OnceLock<Option<Regex>> = std::sync::OnceLock::new();
    let mut parts = Vec::new();
    if let Some(re) = URL_PASSWORD
        .get_or_init(|| Regex::new(r"(?i)\b[a-z][a-z0-9+.-]*://[^\s:/@]*:([^\s/@]+)@").ok())
    {
        parts.extend(
            re.captures_iter(value)
                .filter_map(|c| c.get(1))
                .map(|m| m.as_str().to_string()),
        );
    }
    let redacted = redact_secret_shapes(value);
    if redacted != value {
        // Each replaced span of the original is a secret part.
        for piece in diff_spans(value, &redacted) {
            parts.push(piece);
        }
    }
    parts
}

/// The spans of `original` that `redacted` replaced with `<redacted>`.
fn diff_spans(original: &str, redacted: &str) -> Vec<String> {
    let mut spans = Vec::new();
    let mut rest = original;
    let mut chunks = redacted.split("<redacted>");
    let Some(first) = chunks.next() else {
        return spans;
    };
    let Some(r) = rest.strip_prefix(first) else {
        return spans;
    };
    rest = r;
    for chunk in chunks {
        let end = if chunk.is_empty() {
            rest.len()
        } else {
            match rest.find(chunk) {
                Some(i) => i,
                None => break,
            }
        };
        spans.push(rest[..end].to_string());
        rest = &rest[end + chunk.len()..];
    }
    spans
}

fn redact_secret_shapes(text: &str) -> Cow<'_, str> {
    let mut s = Cow::Borrowed(text);
    for (re, with) in secret_patterns() {
        if re.is_match(&s) {
            s = Cow::Owned(re.replace_all(&s, *with).into_owned());
        }
    }
    s
}

fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Replaces `word` where it is not part of a longer word.
fn replace_word(text: &str, word: &str, with: &str) -> String {
    replace_bounded(text, word, with, |after| !after.is_some_and(is_word))
}

/// Replaces the path `prefix` where it is a whole path prefix (`/home/ann`, `/home/ann/x`, not
/// `/home/anna`).
fn replace_path_prefix(text: &str, prefix: &str, with: &str) -> String {
    replace_bounded(text, prefix, with, |after| {
        !after.is_some_and(|c| is_word(c) || c == '-' || c == '.')
    })
}

fn replace_bounded(
    text: &str,
    needle: &str,
    with: &str,
    ok_after: impl Fn(Option<char>) -> bool,
) -> String {
    if needle.is_empty() {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    for (i, _) in text.match_indices(needle) {
        if i < last {
            continue;
        }
        let before = text[..i].chars().next_back();
        let after = text[i + needle.len()..].chars().next();
        let starts_word = needle.chars().next().is_some_and(is_word);
        let ok_before = !starts_word || !before.is_some_and(is_word);
        if ok_before && ok_after(after) {
            out.push_str(&text[last..i]);
            out.push_str(with);
            last = i + needle.len();
        }
    }
    out.push_str(&text[last..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r() -> Redactor {
        Redactor::default()
            .home("/home/ann/")
            .user("ann")
            .host("gpu-box.corp.example")
            .secret("s3cr3t-v4lue-from-env")
    }

    #[test]
    fn home_user_host_are_replaced_as_whole_words() {
        let out = r().redact(
            "/home/ann/venv/bin/python /home/anna/x annotation ann@gpu-box gpu-box.corp.example gpu-boxes",
        );
        assert_eq!(
            out,
            "~/venv/bin/python /home/anna/x annotation <user>@<host> <host> gpu-boxes"
        );
    }

    #[test]
    fn secrets_are_replaced() {
        let text = "\
index: https://alice:hunter2pass@pypi.example.com/simple
clone https://ghp_abcdefghijklmnopqrstuvwxyz0123456789@github.com/x/y
HF_TOKEN=hf_abcdefghijklmnopqrstuvwxyzABCD
aws AKIAABCDEFGHIJKLMNOP
api_key: 12345abcde, password=pa55word&next=1
value s3cr3t-v4lue-from-env here
-----BEGIN RSA PRIVATE KEY-----
MIIEowIBAAKCAQEA
-----END RSA PRIVATE KEY-----
";
        let out = r().redact(text);
        for secret in [
            "hunter2pass",
            "ghp_abcdef",
            "hf_abcdef",
            "AKIAABCD",
            "12345abcde",
            "pa55word",
            "s3cr3t",
            "MIIEowIBAAKCAQEA",
        ] {
            assert!(!out.contains(secret), "{secret} left in:\n{out}");
        }
        assert!(
            out.contains("https://alice:<redacted>@pypi.example.com/simple"),
            "{out}"
        );
        assert!(out.contains("next=1"), "{out}");
    }

    #[test]
    fn hostile_values_do_not_break_the_text() {
        // Regex metacharacters, empty and tiny names, `/` as home, a name equal to a placeholder.
        let red = Redactor::default()
            .home("/")
            .home("")
            .user("")
            .user("a")
            .user("root")
            .user(".*+?[](){}|^$\\")
            .host("localhost")
            .host("x")
            .host("<user>")
            .secret("short");
        let text = "root at /usr/lib a .*+?[](){}|^$\\ localhost short";
        let out = red.redact(text);
        assert_eq!(out, "root at /usr/lib a <user> localhost short");
        // Unicode and multi-byte boundaries.
        let red = Redactor::default().user("jörg").home("/home/jörg");
        assert_eq!(
            red.redact("/home/jörg/ä jörg jörgen äjörg"),
            "~/ä <user> jörgen äjörg"
        );
    }

    #[test]
    fn redaction_is_idempotent_and_total_on_junk() {
        let red = r();
        let junk: String = (0u32..2000)
            .filter_map(char::from_u32)
            .chain("ann/home/ann@@://:".chars())
            .collect();
        let once = red.redact(&junk);
        assert_eq!(red.redact(&once), once);
    }

    #[test]
    fn secret_parts_survive_splitting() {
        let value = "/a:https://bob:hunter22pass@x.example/lib:/t/token=tokVal123456:/ghp_Zq1w2e3r4t5y6u7i8o9p0aSdFgHjKlZxCvBn";
        let parts = secret_parts(value);
        assert!(parts.contains(&"hunter22pass".to_string()), "{parts:?}");
        assert!(parts.contains(&"tokVal123456".to_string()), "{parts:?}");
        assert!(parts.iter().any(|p| p.starts_with("ghp_")), "{parts:?}");
        let mut red = Redactor::default();
        for p in parts {
            red = red.secret(&p);
        }
        assert_eq!(
            red.redact("hunter22pass@x.example/lib"),
            "<redacted>@x.example/lib"
        );
    }

    #[test]
    fn json_strings_are_redacted_and_keys_kept() {
        let mut v =
            serde_json::json!({"HOME": "/home/ann", "list": ["ann", 3, {"k": "/home/ann/x"}]});
        r().redact_json(&mut v);
        assert_eq!(
            v,
            serde_json::json!({"HOME": "~", "list": ["<user>", 3, {"k": "~/x"}]})
        );
    }
}
