//! PEP 508 requirements (`Requires-Dist`) evaluated for one environment: markers against its
//! Python and platform (with `pep508_rs`), versions against what is installed (with `pep440_rs`).

use std::str::FromStr;

use pep440_rs::Version;
use pep508_rs::{MarkerEnvironment, MarkerEnvironmentBuilder, Requirement, VersionOrUrl};

use crate::names::normalize_name;

/// The environment a marker is evaluated in: Linux, this machine's architecture, its Python.
#[derive(Debug, Clone)]
pub struct MarkerContext {
    env: MarkerEnvironment,
}

impl MarkerContext {
    /// A CPython environment on Linux `machine` (`x86_64`, `aarch64`) with `python` (`3.11.2`).
    pub fn linux(python: &str, machine: &str) -> Option<MarkerContext> {
        let short: String = python.split('.').take(2).collect::<Vec<_>>().join(".");
        let env = MarkerEnvironment::try_from(MarkerEnvironmentBuilder {
            implementation_name: "cpython",
            implementation_version: python,
            os_name: "posix",
            platform_machine: machine,
            platform_python_implementation: "CPython",
            platform_release: "",
            platform_system: "Linux",
            platform_version: "",
            python_full_version: python,
            python_version: &short,
            sys_platform: "linux",
        })
        .ok()?;
        Some(MarkerContext { env })
    }
}

/// The outcome of one requirement in one environment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RequirementStatus {
    /// Installed in a matching version.
    Satisfied,
    /// Its marker does not apply here (another platform, Python, or an extra not requested).
    NotApplicable,
    Missing {
        name: String,
        specifier: String,
    },
    WrongVersion {
        name: String,
        installed: String,
        specifier: String,
    },
    /// The requirement text could not be parsed.
    Unparseable(String),
}

/// Evaluates `requirement` (a `Requires-Dist` value) with no extras requested; `installed` gives
/// the installed version of a normalised distribution name.
pub fn evaluate_requirement<'a>(
    requirement: &str,
    ctx: &MarkerContext,
    installed: impl Fn(&str) -> Option<&'a str>,
) -> RequirementStatus {
    let req: Requirement = match Requirement::from_str(requirement) {
        Ok(r) => r,
        Err(e) => return RequirementStatus::Unparseable(e.to_string()),
    };
    if !req.marker.evaluate(&ctx.env, &[]) {
        return RequirementStatus::NotApplicable;
    }
    let name = normalize_name(req.name.as_ref());
    let Some(have) = installed(&name) else {
        let specifier = match &req.version_or_url {
            Some(VersionOrUrl::VersionSpecifier(spec)) => spec.to_string(),
            _ => String::new(),
        };
        return RequirementStatus::Missing { name, specifier };
    };
    match &req.version_or_url {
        Some(VersionOrUrl::VersionSpecifier(spec)) => match Version::from_str(have) {
            Ok(v) if spec.contains(&v) => RequirementStatus::Satisfied,
            _ => RequirementStatus::WrongVersion {
                name,
                installed: have.to_string(),
                specifier: spec.to_string(),
            },
        },
        _ => RequirementStatus::Satisfied,
    }
}

/// Whether `version` satisfies a PEP 440 specifier set such as `>=3.8,<3.12`.
pub fn version_satisfies(version: &str, specifiers: &str) -> Option<bool> {
    let v = Version::from_str(version).ok()?;
    let spec = pep440_rs::VersionSpecifiers::from_str(specifiers).ok()?;
    Some(spec.contains(&v))
}

/// The release part of a PEP 440 version without its local tag (`2.1.0+cu121` -> `2.1.0`).
pub fn public_version(version: &str) -> &str {
    version.split('+').next().unwrap_or(version)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctx() -> MarkerContext {
        MarkerContext::linux("3.11.2", "x86_64").unwrap()
    }

    #[test]
    fn old_and_new_pin_syntax() {
        let installed = |n: &str| match n {
            "nvidia-cudnn-cu12" => Some("8.9.2.26"),
            "nvidia-cuda-runtime-cu12" => Some("12.4.99"),
            _ => None,
        };
        let c = ctx();
        assert_eq!(
            evaluate_requirement("nvidia-cudnn-cu12 (==8.9.2.26) ; platform_system == \"Linux\" and platform_machine == \"x86_64\"", &c, installed),
            RequirementStatus::Satisfied
        );
        assert_eq!(
            evaluate_requirement(
                "nvidia-cuda-runtime-cu12==12.1.105; platform_system == \"Linux\"",
                &c,
                installed
            ),
            RequirementStatus::WrongVersion {
                name: "nvidia-cuda-runtime-cu12".into(),
                installed: "12.4.99".into(),
                specifier: "==12.1.105".into()
            }
        );
        assert_eq!(
            evaluate_requirement("triton==2.1.0; platform_system == \"Linux\"", &c, installed),
            RequirementStatus::Missing {
                name: "triton".into(),
                specifier: "==2.1.0".into()
            }
        );
        assert_eq!(
            evaluate_requirement("pywin32; sys_platform == \"win32\"", &c, installed),
            RequirementStatus::NotApplicable
        );
        assert_eq!(
            evaluate_requirement(
                "nvidia-cudnn-cu12<10.0,>=9.3.0.75; extra == \"and-cuda\"",
                &c,
                installed
            ),
            RequirementStatus::NotApplicable
        );
        assert!(matches!(
            evaluate_requirement("???", &c, installed),
            RequirementStatus::Unparseable(_)
        ));
    }

    #[test]
    fn python_ranges_and_local_tags() {
        assert_eq!(version_satisfies("3.12.1", ">=3.8,<3.12"), Some(false));
        assert_eq!(version_satisfies("3.11.2", ">=3.8.0"), Some(true));
        assert_eq!(public_version("2.1.0+cu121"), "2.1.0");
        assert_eq!(version_satisfies("2.1.0+cu121", "==2.1.0"), Some(true));
    }
}
