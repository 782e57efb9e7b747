//! Version numbers as NVIDIA and Python packaging write them: dotted numeric components compared
//! numerically (`535.104.05 > 535.86.10`), the original text kept for display, plus the two-part
//! types for CUDA versions (`12.4`) and compute capabilities (`8.6`).

use std::cmp::Ordering;
use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Why a version string could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("not a version number: {text:?}")]
pub struct VersionError {
    pub text: String,
}

/// A dotted numeric version such as `535.104.05`, `12.4.1` or `9.1.0`.
///
/// Equality and ordering are numeric and ignore trailing zero components (`12.4 == 12.4.0`);
/// `Display` prints the text it was parsed from.
#[derive(Debug, Clone)]
pub struct Version {
    text: String,
    parts: Vec<u32>,
}

impl Version {
    /// Builds a version from numeric parts (`[12, 4]` displays as `12.4`).
    pub fn from_parts(parts: &[u32]) -> Version {
        let text = parts
            .iter()
            .map(|p| p.to_string())
            .collect::<Vec<_>>()
            .join(".");
        Version {
            text,
            parts: parts.to_vec(),
        }
    }

    /// The numeric components.
    pub fn parts(&self) -> &[u32] {
        &self.parts
    }

    /// The first component (the driver branch for a driver version, the major otherwise).
    pub fn major(&self) -> u32 {
        self.parts.first().copied().unwrap_or(0)
    }

    /// The second component, 0 when absent.
    pub fn minor(&self) -> u32 {
        self.parts.get(1).copied().unwrap_or(0)
    }

    /// The third component, 0 when absent.
    pub fn patch(&self) -> u32 {
        self.parts.get(2).copied().unwrap_or(0)
    }

    /// The text this version was parsed from.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// `major.minor` as a CUDA version.
    pub fn cuda(&self) -> CudaVersion {
        CudaVersion {
            major: self.major(),
            minor: self.minor(),
        }
    }

    fn significant(&self) -> &[u32] {
        let mut end = self.parts.len();
        while end > 1 && self.parts[end - 1] == 0 {
            end -= 1;
        }
        &self.parts[..end]
    }
}

impl FromStr for Version {
    type Err = VersionError;

    fn from_str(text: &str) -> Result<Version, VersionError> {
        let trimmed = text.trim();
        let err = || VersionError {
            text: text.to_string(),
        };
        if trimmed.is_empty() || trimmed.len() > 64 {
            return Err(err());
        }
        let mut parts = Vec::new();
        for piece in trimmed.split('.') {
            if piece.is_empty() || !piece.bytes().all(|b| b.is_ascii_digit()) {
                return Err(err());
            }
            parts.push(piece.parse::<u32>().map_err(|_| err())?);
        }
        Ok(Version {
            text: trimmed.to_string(),
            parts,
        })
    }
}

impl PartialEq for Version {
    fn eq(&self, other: &Version) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Version {}

impl PartialOrd for Version {
    fn partial_cmp(&self, other: &Version) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Version {
    fn cmp(&self, other: &Version) -> Ordering {
        let (a, b) = (self.significant(), other.significant());
        let len = a.len().max(b.len());
        for i in 0..len {
            let x = a.get(i).copied().unwrap_or(0);
            let y = b.get(i).copied().unwrap_or(0);
            match x.cmp(&y) {
                Ordering::Equal => continue,
                other => return other,
            }
        }
        Ordering::Equal
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

impl Serialize for Version {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.text)
    }
}

impl<'de> Deserialize<'de> for Version {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Version, D::Error> {
        let text = String::deserialize(d)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

/// A CUDA version as the compatibility rules use it: `major.minor` (`12.4`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct CudaVersion {
    pub major: u32,
    pub minor: u32,
}

impl CudaVersion {
    pub const fn new(major: u32, minor: u32) -> CudaVersion {
        CudaVersion { major, minor }
    }

    /// Decodes the integer the driver API returns (`cuDriverGetVersion`: 12020 -> 12.2).
    pub fn from_driver_api(value: i32) -> Option<CudaVersion> {
        if value <= 0 {
            return None;
        }
        let value = value as u32;
        Some(CudaVersion {
            major: value / 1000,
            minor: (value % 1000) / 10,
        })
    }
}

impl FromStr for CudaVersion {
    type Err = VersionError;

    fn from_str(text: &str) -> Result<CudaVersion, VersionError> {
        let v: Version = text.parse()?;
        Ok(v.cuda())
    }
}

impl fmt::Display for CudaVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}

impl Serialize for CudaVersion {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for CudaVersion {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<CudaVersion, D::Error> {
        let text = String::deserialize(d)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

/// A GPU's CUDA compute capability (`8.6`, printed by compilers as `sm_86`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ComputeCapability {
    pub major: u32,
    pub minor: u32,
}

impl ComputeCapability {
    pub const fn new(major: u32, minor: u32) -> ComputeCapability {
        ComputeCapability { major, minor }
    }

    /// The compiler target name, e.g. `sm_86`.
    pub fn sm(&self) -> String {
        format!("sm_{}{}", self.major, self.minor)
    }
}

impl FromStr for ComputeCapability {
    type Err = VersionError;

    /// Accepts `8.6`, `86`-style `sm_86` and `compute_86`.
    fn from_str(text: &str) -> Result<ComputeCapability, VersionError> {
        let t = text.trim();
        let err = || VersionError {
            text: text.to_string(),
        };
        if let Some(digits) = t.strip_prefix("sm_").or_else(|| t.strip_prefix("compute_")) {
            let digits: String = digits.chars().take_while(|c| c.is_ascii_digit()).collect();
            if digits.len() < 2 || digits.len() > 3 {
                return Err(err());
            }
            let (maj, min) = digits.split_at(digits.len() - 1);
            return Ok(ComputeCapability {
                major: maj.parse().map_err(|_| err())?,
                minor: min.parse().map_err(|_| err())?,
            });
        }
        let v: Version = t.parse()?;
        if v.parts().len() != 2 {
            return Err(err());
        }
        Ok(ComputeCapability {
            major: v.major(),
            minor: v.minor(),
        })
    }
}

impl fmt::Display for ComputeCapability {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}

impl Serialize for ComputeCapability {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for ComputeCapability {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<ComputeCapability, D::Error> {
        let text = String::deserialize(d)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn v(s: &str) -> Version {
        s.parse().unwrap()
    }

    #[test]
    fn driver_versions_compare_numerically() {
        assert!(v("535.104.05") > v("535.86.10"));
        assert!(v("570.26") < v("570.124.06"));
        assert!(v("525.60.13") < v("535.261.03"));
        assert_eq!(v("12.4"), v("12.4.0"));
        assert_eq!(v("535.104.05").to_string(), "535.104.05");
    }

    #[test]
    fn rejects_non_versions() {
        for bad in ["", ".", "1..2", "12.x", "abc", "1.2-3", " "] {
            assert!(bad.parse::<Version>().is_err(), "{bad:?} parsed");
        }
    }

    #[test]
    fn cuda_version_from_driver_api_integer() {
        assert_eq!(
            CudaVersion::from_driver_api(12020),
            Some(CudaVersion::new(12, 2))
        );
        assert_eq!(
            CudaVersion::from_driver_api(11080),
            Some(CudaVersion::new(11, 8))
        );
        assert_eq!(CudaVersion::from_driver_api(0), None);
    }

    #[test]
    fn compute_capability_forms() {
        let cc: ComputeCapability = "8.6".parse().unwrap();
        assert_eq!(cc, ComputeCapability::new(8, 6));
        assert_eq!(cc.sm(), "sm_86");
        assert_eq!(
            "sm_120".parse::<ComputeCapability>().unwrap(),
            ComputeCapability::new(12, 0)
        );
        assert_eq!(
            "compute_90a".parse::<ComputeCapability>().unwrap(),
            ComputeCapability::new(9, 0)
        );
        assert!("8".parse::<ComputeCapability>().is_err());
    }

    proptest! {
        #[test]
        fn ordering_matches_tuple_ordering(a in proptest::collection::vec(0u32..1000, 1..4),
                                           b in proptest::collection::vec(0u32..1000, 1..4)) {
            let va = Version::from_parts(&a);
            let vb = Version::from_parts(&b);
            let pad = |x: &Vec<u32>| { let mut x = x.clone(); x.resize(4, 0); x };
            prop_assert_eq!(va.cmp(&vb), pad(&a).cmp(&pad(&b)));
        }

        #[test]
        fn parse_never_panics(s in ".{0,40}") {
            let _ = s.parse::<Version>();
            let _ = s.parse::<ComputeCapability>();
        }
    }
}
