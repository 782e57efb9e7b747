//! `pyvenv.cfg`: the marker of a virtual environment (venv, virtualenv, uv), with the base
//! interpreter's home and, usually, the Python version.

/// What a `pyvenv.cfg` says.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PyvenvCfg {
    /// `home`: the directory of the interpreter the environment was made from.
    pub home: Option<String>,
    /// `version` (venv) or `version_info` (virtualenv, uv), trimmed to `X.Y.Z`.
    pub version: Option<String>,
    pub include_system_site_packages: bool,
    /// The tool that made it: `uv`, `virtualenv`, or `venv` when neither says.
    pub creator: String,
    pub prompt: Option<String>,
}

pub fn parse_pyvenv_cfg(text: &str) -> PyvenvCfg {
    let mut cfg = PyvenvCfg {
        creator: "venv".into(),
        ..PyvenvCfg::default()
    };
    for line in text.lines() {
        let Some((key, value)) = line.split_once('=') else {
            continue;
        };
        let value = value.trim().to_string();
        match key.trim() {
            "home" => cfg.home = Some(value),
            "version" | "version_info" => {
                // version_info looks like 3.11.7.final.0; keep the numeric part.
                let numeric: Vec<&str> = value
                    .split('.')
                    .take_while(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
                    .collect();
                if !numeric.is_empty() {
                    cfg.version = Some(numeric.join("."));
                }
            }
            "include-system-site-packages" => {
                cfg.include_system_site_packages = value.eq_ignore_ascii_case("true")
            }
            "uv" => cfg.creator = "uv".into(),
            "virtualenv" => cfg.creator = "virtualenv".into(),
            "prompt" => cfg.prompt = Some(value.trim_matches('\'').to_string()),
            _ => {}
        }
    }
    cfg
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debian_python3_venv() {
        // As `python3 -m venv` on Debian 12 writes it (real-layouts.md: home = /usr/bin).
        let cfg = parse_pyvenv_cfg("home = /usr/bin\ninclude-system-site-packages = false\nversion = 3.11.2\nexecutable = /usr/bin/python3.11\ncommand = /usr/bin/python3 -m venv /home/user/venvs/torch-new\n");
        assert_eq!(cfg.home.as_deref(), Some("/usr/bin"));
        assert_eq!(cfg.version.as_deref(), Some("3.11.2"));
        assert!(!cfg.include_system_site_packages);
        assert_eq!(cfg.creator, "venv");
    }

    #[test]
    fn uv_and_virtualenv() {
        let uv = parse_pyvenv_cfg("home = /root/.local/share/uv/python/cpython-3.12.4-linux-x86_64-gnu/bin\nimplementation = CPython\nuv = 0.4.0\nversion_info = 3.12.4\ninclude-system-site-packages = false\n");
        assert_eq!(uv.creator, "uv");
        assert_eq!(uv.version.as_deref(), Some("3.12.4"));
        let ve = parse_pyvenv_cfg("home = /usr/bin\nimplementation = CPython\nversion_info = 3.11.7.final.0\nvirtualenv = 20.25.0\ninclude-system-site-packages = true\n");
        assert_eq!(ve.creator, "virtualenv");
        assert_eq!(ve.version.as_deref(), Some("3.11.7"));
        assert!(ve.include_system_site_packages);
    }
}
