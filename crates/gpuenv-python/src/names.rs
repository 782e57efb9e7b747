//! Distribution names: PEP 503 normalisation and the `name-version.dist-info` directory names.

/// PEP 503 normalised name: lowercase, runs of `-`, `_`, `.` become one `-`.
pub fn normalize_name(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut last_sep = false;
    for c in name.trim().chars() {
        if c == '-' || c == '_' || c == '.' {
            if !last_sep && !out.is_empty() {
                out.push('-');
            }
            last_sep = true;
        } else {
            out.push(c.to_ascii_lowercase());
            last_sep = false;
        }
    }
    while out.ends_with('-') {
        out.pop();
    }
    out
}

/// `torch-2.1.0.dist-info` -> (`torch`, `2.1.0`); `foo_bar-1.0-py3.11.egg-info` -> (`foo_bar`,
/// `1.0`). The name part never contains `-` in these directory names (wheels escape it to `_`).
pub fn split_dist_info_name(dir_name: &str) -> Option<(&str, &str)> {
    let stem = dir_name
        .strip_suffix(".dist-info")
        .or_else(|| dir_name.strip_suffix(".egg-info"))?;
    let (name, rest) = stem.split_once('-')?;
    // egg-info names may carry `-pyX.Y` after the version.
    let version = rest.split("-py").next().unwrap_or(rest);
    (!name.is_empty() && !version.is_empty()).then_some((name, version))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalises_like_pep_503() {
        assert_eq!(normalize_name("Foo.Bar__baz"), "foo-bar-baz");
        assert_eq!(normalize_name("nvidia_cudnn_cu12"), "nvidia-cudnn-cu12");
        assert_eq!(
            normalize_name("opencv-python-headless"),
            "opencv-python-headless"
        );
    }

    #[test]
    fn splits_metadata_directory_names() {
        assert_eq!(
            split_dist_info_name("torch-2.1.0.dist-info"),
            Some(("torch", "2.1.0"))
        );
        assert_eq!(
            split_dist_info_name("nvidia_cudnn_cu12-8.9.2.26.dist-info"),
            Some(("nvidia_cudnn_cu12", "8.9.2.26"))
        );
        assert_eq!(
            split_dist_info_name("foo-1.0-py3.11.egg-info"),
            Some(("foo", "1.0"))
        );
        assert_eq!(split_dist_info_name("torch"), None);
        assert_eq!(split_dist_info_name("-1.0.dist-info"), None);
    }
}
