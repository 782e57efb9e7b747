//! The small glob matcher `--ignore` patterns use: `*` any run of characters, `?` one character.

/// Whether `text` matches `pattern` as a whole (`*` any run, `?` one character, nothing else
/// special). Iterative with one backtrack point, so linear-ish and never exponential.
pub fn glob_match(pattern: &str, text: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let t: Vec<char> = text.chars().collect();
    let (mut pi, mut ti) = (0usize, 0usize);
    let mut star: Option<(usize, usize)> = None;
    while ti < t.len() {
        if pi < p.len() && (p[pi] == '?' || p[pi] == t[ti]) {
            pi += 1;
            ti += 1;
        } else if pi < p.len() && p[pi] == '*' {
            star = Some((pi, ti));
            pi += 1;
        } else if let Some((sp, st)) = star {
            pi = sp + 1;
            ti = st + 1;
            star = Some((sp, st + 1));
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|&c| c == '*')
}

#[cfg(test)]
mod tests {
    use super::glob_match;

    #[test]
    fn globs() {
        assert!(glob_match("*", ""));
        assert!(glob_match("L5:*", "L5:dist:numpy"));
        assert!(glob_match("*numpy*", "L5:dist:numpy"));
        assert!(glob_match("lib?", "libc"));
        assert!(!glob_match("lib?", "lib"));
        assert!(!glob_match("L4:*", "L5:dist:numpy"));
        assert!(glob_match("a*b*c", "aXXbYYc"));
        assert!(!glob_match("a*b*c", "aXXbYY"));
    }
}
