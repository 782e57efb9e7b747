//! Queries on the dlopen table (`data/dlopen.toml`): which rows apply to an object, and the small
//! glob matcher (`*`, `?`, `[a-z0-9]`, `[!...]`) its patterns use. Pure string functions.

use crate::{DlopenRow, Kb};

/// The longest pattern or name the matcher accepts; longer inputs never match (bounded work).
const MAX_GLOB_INPUT: usize = 4096;

impl Kb {
    /// The dlopen rows whose `library` glob matches `file_name` or `soname`, in table order.
    pub fn dlopen_rules<'a>(
        &'a self,
        file_name: &'a str,
        soname: Option<&'a str>,
    ) -> impl Iterator<Item = &'a DlopenRow> + 'a {
        self.dlopen.iter().filter(move |row| {
            glob_match(&row.library, file_name)
                || soname.is_some_and(|so| glob_match(&row.library, so))
        })
    }
}

/// Whether `name` matches the shell-style `pattern` (`*`, `?`, bracket classes with ranges and
/// `!`/`^` negation). `/` is an ordinary character: patterns are applied to one path component.
/// Runs in O(len(pattern) × len(name)).
pub fn glob_match(pattern: &str, name: &str) -> bool {
    if pattern.len() > MAX_GLOB_INPUT || name.len() > MAX_GLOB_INPUT {
        return false;
    }
    let p: Vec<char> = pattern.chars().collect();
    let n: Vec<char> = name.chars().collect();
    let (mut pi, mut ni) = (0usize, 0usize);
    // Where to resume after the last `*`: (pattern index after the star, name index).
    let mut star: Option<(usize, usize)> = None;
    while ni < n.len() {
        let step = match p.get(pi) {
            Some('*') => {
                star = Some((pi + 1, ni));
                pi += 1;
                continue;
            }
            Some('?') => Some(pi + 1),
            Some('[') if class_is_closed(&p, pi) => match_class(&p, pi, n[ni]),
            Some(c) if *c == n[ni] => Some(pi + 1),
            _ => None,
        };
        match step {
            Some(next) => {
                pi = next;
                ni += 1;
            }
            None => match star {
                Some((after, from)) => {
                    pi = after;
                    ni = from + 1;
                    star = Some((after, from + 1));
                }
                None => return false,
            },
        }
    }
    p[pi..].iter().all(|c| *c == '*')
}

/// Whether the bracket class at `p[start] == '['` has its closing `]` (else `[` is literal).
fn class_is_closed(p: &[char], start: usize) -> bool {
    let mut i = start + 1;
    if matches!(p.get(i), Some('!') | Some('^')) {
        i += 1;
    }
    // A `]` right after the opening is a member, not the end.
    i += 1;
    p.get(i.min(p.len())..)
        .is_some_and(|rest| rest.contains(&']'))
}

/// Matches `c` against the bracket class starting at `p[start] == '['`; returns the pattern
/// index after the class when it matches. An unterminated `[` matches itself literally.
fn match_class(p: &[char], start: usize, c: char) -> Option<usize> {
    let mut i = start + 1;
    let negate = matches!(p.get(i), Some('!') | Some('^'));
    if negate {
        i += 1;
    }
    let mut matched = false;
    let mut first = true;
    loop {
        let ch = *p.get(i)?;
        if ch == ']' && !first {
            break;
        }
        first = false;
        if p.get(i + 1) == Some(&'-') && p.get(i + 2).is_some_and(|e| *e != ']') {
            let end = p[i + 2];
            if ch <= c && c <= end {
                matched = true;
            }
            i += 3;
        } else {
            if ch == c {
                matched = true;
            }
            i += 1;
        }
    }
    (matched != negate).then_some(i + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_like_python_fnmatch() {
        assert!(glob_match("libcublas.so.*[0-9]", "libcublas.so.12"));
        assert!(!glob_match("libcublas.so.*[0-9]", "libcublas.so"));
        assert!(glob_match("libcudart.so.*", "libcudart.so.11.0"));
        assert!(glob_match("libtorch*.so", "libtorch_cuda.so"));
        assert!(!glob_match("libtorch*.so", "libtorch_cuda.so.1"));
        assert!(glob_match("xla_cuda1?", "xla_cuda12"));
        assert!(glob_match("[!a]bc", "xbc"));
        assert!(!glob_match("[!a]bc", "abc"));
        assert!(glob_match("a[", "a["));
        assert!(glob_match("*", ""));
        let long = "a".repeat(5000);
        assert!(!glob_match("*", &long));
        // Pathological patterns stay polynomial.
        let many = "*a".repeat(200);
        assert!(!glob_match(&many, &"a".repeat(150)));
    }

    #[test]
    fn builtin_rows_match_their_libraries() {
        let kb = Kb::builtin().unwrap();
        let ids: Vec<&str> = kb
            .dlopen_rules("libcudart.so.12.4.127", Some("libcudart.so.12"))
            .map(|r| r.id.as_str())
            .collect();
        assert_eq!(ids, vec!["cudart-driver"]);
        assert!(kb.dlopen_rules("libc.so.6", None).next().is_none());
        // The cuDNN shim rows open exactly the layout table's sub-libraries.
        for major in [8, 9] {
            let layout = kb.cudnn_layout(major).unwrap();
            let row = kb
                .dlopen_rules(&layout.shim, Some(&layout.shim))
                .next()
                .unwrap();
            assert_eq!(row.opens, layout.sublibraries, "cuDNN {major}");
        }
    }
}
