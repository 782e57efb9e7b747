//! conda: `conda-meta/<name>-<version>-<build>.json` package records and `environments.txt`.

use serde::Deserialize;

/// One installed conda package, as its conda-meta record says.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CondaRecord {
    pub name: String,
    pub version: String,
    /// The build string; PyTorch's conda builds carry CUDA and cuDNN in it
    /// (`py3.11_cuda12.1_cudnn8.9.2_0`).
    pub build: String,
    pub channel: Option<String>,
    /// Paths the package installed, relative to the prefix (only the first few are kept).
    pub files: Vec<String>,
    pub file_count: usize,
}

#[derive(Deserialize)]
struct RawRecord {
    name: Option<String>,
    version: Option<String>,
    build: Option<String>,
    channel: Option<String>,
    #[serde(default)]
    files: Vec<String>,
}

/// Why a conda-meta record could not be read.
#[derive(Debug, thiserror::Error)]
#[error("conda-meta record: {0}")]
pub struct CondaError(String);

/// How many installed paths of a record are kept (enough to see `site-packages/torch/...`).
const KEPT_FILES: usize = 64;

pub fn parse_conda_record(text: &str) -> Result<CondaRecord, CondaError> {
    let raw: RawRecord = serde_json::from_str(text).map_err(|e| CondaError(e.to_string()))?;
    let name = raw.name.ok_or_else(|| CondaError("no name".into()))?;
    let file_count = raw.files.len();
    Ok(CondaRecord {
        name,
        version: raw.version.unwrap_or_default(),
        build: raw.build.unwrap_or_default(),
        channel: raw.channel,
        files: raw.files.into_iter().take(KEPT_FILES).collect(),
        file_count,
    })
}

/// The CUDA and cuDNN versions a conda build string names (`py3.11_cuda12.1_cudnn8.9.2_0`).
pub fn build_string_cuda(build: &str) -> (Option<String>, Option<String>) {
    let mut cuda = None;
    let mut cudnn = None;
    for part in build.split('_') {
        if let Some(v) = part.strip_prefix("cudnn") {
            cudnn = Some(v.to_string());
        } else if let Some(v) = part.strip_prefix("cuda") {
            if v.chars().next().is_some_and(|c| c.is_ascii_digit()) {
                cuda = Some(v.to_string());
            }
        }
    }
    (cuda, cudnn)
}

/// The environment prefixes listed in `~/.conda/environments.txt` (one path a line).
pub fn parse_environments_txt(text: &str) -> Vec<String> {
    text.lines()
        .map(str::trim)
        .filter(|l| l.starts_with('/'))
        .map(str::to_string)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pytorch_conda_record() {
        let text = r#"{"build": "py3.11_cuda12.1_cudnn8.9.2_0", "build_number": 0, "channel": "https://conda.anaconda.org/pytorch/linux-64", "name": "pytorch", "version": "2.1.0", "files": ["lib/python3.11/site-packages/torch/__init__.py"], "depends": ["python >=3.11,<3.12.0a0"]}"#;
        let r = parse_conda_record(text).unwrap();
        assert_eq!(r.name, "pytorch");
        assert_eq!(r.version, "2.1.0");
        assert_eq!(
            build_string_cuda(&r.build),
            (Some("12.1".into()), Some("8.9.2".into()))
        );
        assert_eq!(r.file_count, 1);
        assert!(parse_conda_record("{").is_err());
        assert!(parse_conda_record("{\"version\": \"1\"}").is_err());
    }

    #[test]
    fn environments_txt() {
        assert_eq!(
            parse_environments_txt("/home/u/miniconda3\n/home/u/miniconda3/envs/dlc\n\nrelative\n"),
            vec!["/home/u/miniconda3", "/home/u/miniconda3/envs/dlc"]
        );
    }
}
