//! Version strings carried in shared-library file names (`libcuda.so.535.261.03`).
//!
//! Pure string functions: no file system, no ELF parsing.

/// The version suffix of `file_name` after `<stem>.so.`, e.g.
/// (`libcudnn.so.8.9.2`, `libcudnn`) gives `8.9.2` and (`libcuda.so.535.261.03`, `libcuda`)
/// gives `535.261.03`.
///
/// Returns `None` when the name does not start with exactly `<stem>.so.` (so
/// `libcudnn_ops.so.8` does not match stem `libcudnn`), when nothing follows, or when the
/// suffix is not dot-separated, non-empty runs of ASCII digits (`libfoo.so.1.debug`).
pub fn soname_version(file_name: &str, stem: &str) -> Option<String> {
    let rest = file_name.strip_prefix(stem)?.strip_prefix(".so.")?;
    if rest.is_empty() {
        return None;
    }
    let all_numeric = rest
        .split('.')
        .all(|part| !part.is_empty() && part.bytes().all(|b| b.is_ascii_digit()));
    if !all_numeric {
        return None;
    }
    Some(rest.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_from_names() {
        assert_eq!(
            soname_version("libcudnn.so.8.9.2", "libcudnn").as_deref(),
            Some("8.9.2")
        );
        assert_eq!(
            soname_version("libcuda.so.535.261.03", "libcuda").as_deref(),
            Some("535.261.03")
        );
        assert_eq!(
            soname_version("libcuda.so.1", "libcuda").as_deref(),
            Some("1")
        );
        assert_eq!(
            soname_version("libnvidia-ml.so.550.54.15", "libnvidia-ml").as_deref(),
            Some("550.54.15")
        );
    }

    #[test]
    fn non_matches() {
        assert_eq!(soname_version("libcudnn.so", "libcudnn"), None);
        assert_eq!(soname_version("libcudnn.so.", "libcudnn"), None);
        assert_eq!(soname_version("libcudnn_ops.so.8", "libcudnn"), None);
        assert_eq!(soname_version("libcudnn.so.8", "libcuda"), None);
        assert_eq!(soname_version("libcudnn.so.8..1", "libcudnn"), None);
        assert_eq!(soname_version("libcudnn.so.8.", "libcudnn"), None);
        assert_eq!(soname_version("libfoo.so.1.debug", "libfoo"), None);
        assert_eq!(soname_version("libfoo.so.1.2~rc", "libfoo"), None);
        assert_eq!(soname_version("", ""), None);
        assert_eq!(soname_version("libcudnn.so.٣", "libcudnn"), None);
    }
}
