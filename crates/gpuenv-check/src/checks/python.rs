//! L5 checks on the environments themselves: unsatisfied requirements, duplicate metadata,
//! clobbered modules, conda and pip mixed, `python` and `pip` from different environments, and
//! Qt plugin clashes. They run on the environments doctor read in full.

use std::collections::BTreeMap;

use gpuenv_facts::PythonEnvironment;
use gpuenv_python::requirements::{evaluate_requirement, MarkerContext, RequirementStatus};

use crate::context::Context;
use crate::finding::{
    Finding, Severity, CONDA_PIP_MIXED, DUPLICATE_DISTRIBUTION, INTERPRETER_MISMATCH,
    MODULE_CLOBBERED, QT_PLUGIN_CONFLICT, REQUIREMENT_UNSATISFIED,
};

/// How a command runs this environment's pip (`/prefix/bin/python -m pip`).
pub fn pip_of(e: &PythonEnvironment) -> String {
    format!("{}/bin/python -m pip", e.prefix.trim_end_matches('/'))
}

/// `requirement-unsatisfied`: like `pip check`: a `Requires-Dist` whose marker applies here is
/// missing or out of range. Markers are evaluated for this environment's Python on Linux.
pub fn requirement_unsatisfied(cx: &Context, out: &mut Vec<Finding>) {
    for e in cx.full_environments() {
        let python = e
            .python_version
            .as_ref()
            .map(|v| v.value.to_string())
            .unwrap_or_else(|| "3".into());
        let Some(markers) = MarkerContext::linux(&python, cx.machine()) else {
            continue;
        };
        let installed: BTreeMap<&str, &str> = e
            .distributions
            .iter()
            .map(|d| (d.key.as_str(), d.version.as_str()))
            .collect();
        let mut problems = Vec::new();
        for d in &e.distributions {
            for req in &d.requires_dist {
                match evaluate_requirement(req, &markers, |n| installed.get(n).copied()) {
                    RequirementStatus::Missing { name, specifier } => problems.push((
                        d,
                        format!(
                            "{} {} requires {name}{specifier}, which is not installed",
                            d.name, d.version
                        ),
                        format!("{name}{specifier}"),
                    )),
                    RequirementStatus::WrongVersion {
                        name,
                        installed,
                        specifier,
                    } => problems.push((
                        d,
                        format!(
                            "{} {} requires {name}{specifier}, but {name} {installed} is installed",
                            d.name, d.version
                        ),
                        format!("{name}{specifier}"),
                    )),
                    _ => {}
                }
            }
        }
        if problems.is_empty() {
            continue;
        }
        let mut finding = Finding::new(
            &REQUIREMENT_UNSATISFIED,
            Severity::Warning,
            format!(
                "{} requirement(s) unsatisfied in environment {}",
                problems.len(),
                e.name
            ),
        )
        .in_environment(&e.prefix);
        let mut wanted: Vec<String> = Vec::new();
        for (_, text, want) in &problems {
            finding = finding.evidence(text.clone());
            if !wanted.contains(want) {
                wanted.push(want.clone());
            }
        }
        let quoted: Vec<String> = wanted.iter().map(|w| format!("'{w}'")).collect();
        out.push(finding.fix(format!(
            "{} install {}   # then `{} check` must be clean",
            pip_of(e),
            quoted.join(" "),
            pip_of(e)
        )));
    }
}

/// `duplicate-distribution`: two metadata directories for one distribution (an interrupted
/// upgrade, or pip and another installer writing the same package).
pub fn duplicate_distribution(cx: &Context, out: &mut Vec<Finding>) {
    for e in cx.full_environments() {
        let mut by_key: BTreeMap<&str, Vec<&gpuenv_facts::PythonDistribution>> = BTreeMap::new();
        for d in &e.distributions {
            by_key.entry(d.key.as_str()).or_default().push(d);
        }
        for (key, dists) in by_key.into_iter().filter(|(_, d)| d.len() > 1) {
            let mut finding = Finding::new(
                &DUPLICATE_DISTRIBUTION,
                Severity::Error,
                format!(
                    "{key} is installed {} times in environment {}",
                    dists.len(),
                    e.name
                ),
            )
            .in_environment(&e.prefix);
            for d in &dists {
                finding = finding.evidence(format!(
                    "{} {} ({}{})",
                    d.name,
                    d.version,
                    d.metadata_dir,
                    d.installer
                        .as_deref()
                        .map(|i| format!(", installed by {i}"))
                        .unwrap_or_default()
                ));
            }
            out.push(finding.fix(format!(
                "{pip} uninstall -y {key}   # repeat until none is left, then\n{pip} install {key}",
                pip = pip_of(e)
            )));
        }
    }
}

/// `module-clobbered`: two distributions installed the same files with different contents, so
/// the one installed last overwrote the other's (`opencv-python` + `opencv-python-headless` both
/// own `cv2`). Namespace packages whose shared files are identical are not reported.
pub fn module_clobbered(cx: &Context, out: &mut Vec<Finding>) {
    for e in cx.full_environments() {
        for c in &e.file_conflicts {
            let mut finding = Finding::new(
                &MODULE_CLOBBERED,
                Severity::Error,
                format!(
                    "{} overwrite each other's `{}` in environment {}",
                    c.distributions.join(" and "),
                    c.top_level,
                    e.name
                ),
            )
            .in_environment(&e.prefix)
            .evidence(format!(
                "{} file(s) under {}/ are listed in the RECORDs of {} with different hashes, e.g. {}",
                c.files,
                c.top_level,
                c.distributions.join(", "),
                c.example
            ));
            if c.top_level == "cv2" {
                if let Some(cv) = &e.frameworks.opencv {
                    finding = finding.evidence(format!(
                        "cv2/version.py now says headless={}, contrib={} ({})",
                        cv.headless
                            .map(|b| b.to_string())
                            .unwrap_or_else(|| "?".into()),
                        cv.contrib
                            .map(|b| b.to_string())
                            .unwrap_or_else(|| "?".into()),
                        cv.source
                    ));
                }
                finding = finding.evidence("opencv-python's README: select only one of the OpenCV packages; all use the cv2 namespace");
            }
            let keep = c
                .distributions
                .iter()
                .find(|d| d.contains("headless"))
                .unwrap_or(&c.distributions[0]);
            out.push(finding.fix(format!(
                "{pip} uninstall -y {all}\n{pip} install {keep}   # keep one of them",
                pip = pip_of(e),
                all = c.distributions.join(" ")
            )));
        }
    }
}

/// `conda-pip-mixed`: a package that conda installed was also installed by pip in the same
/// environment (conda no longer knows what is there), or pip put a CUDA framework into an
/// environment whose CUDA libraries conda manages.
pub fn conda_pip_mixed(cx: &Context, out: &mut Vec<Finding>) {
    for e in cx
        .full_environments()
        .filter(|e| !e.conda_packages.is_empty())
    {
        let conda: BTreeMap<String, &gpuenv_facts::CondaPackage> = e
            .conda_packages
            .iter()
            .map(|p| (gpuenv_python::normalize_name(&p.name), p))
            .collect();
        let mut evidence = Vec::new();
        for d in e
            .distributions
            .iter()
            .filter(|d| d.installer.as_deref() == Some("pip"))
        {
            // conda's own name for PyTorch is `pytorch`.
            let conda_name = if d.key == "torch" {
                "pytorch"
            } else {
                d.key.as_str()
            };
            if let Some(p) = conda.get(conda_name) {
                evidence.push(format!(
                    "{} {} installed by pip ({}) over conda's {} {} ({})",
                    d.name, d.version, d.metadata_dir, p.name, p.version, p.record
                ));
            }
        }
        let conda_cuda: Vec<&str> = e
            .conda_packages
            .iter()
            .filter(|p| {
                matches!(
                    p.name.as_str(),
                    "cudatoolkit" | "cuda-runtime" | "cuda-cudart" | "cudnn" | "pytorch-cuda"
                )
            })
            .map(|p| p.name.as_str())
            .collect();
        let pip_frameworks: Vec<&str> = e
            .distributions
            .iter()
            .filter(|d| {
                d.installer.as_deref() == Some("pip")
                    && matches!(
                        d.key.as_str(),
                        "torch" | "tensorflow" | "jax" | "cupy-cuda12x" | "cupy-cuda11x"
                    )
            })
            .map(|d| d.name.as_str())
            .collect();
        if !conda_cuda.is_empty() && !pip_frameworks.is_empty() {
            evidence.push(format!(
                "pip installed {} into an environment whose CUDA libraries conda manages ({})",
                pip_frameworks.join(", "),
                conda_cuda.join(", ")
            ));
        }
        if evidence.is_empty() {
            continue;
        }
        let mut finding = Finding::new(
            &CONDA_PIP_MIXED,
            Severity::Warning,
            format!(
                "conda and pip both manage packages in environment {}",
                e.name
            ),
        )
        .in_environment(&e.prefix);
        for ev in evidence {
            finding = finding.evidence(ev);
        }
        out.push(finding.fix(format!(
            "Let one installer own each package: {} uninstall the pip copies and `conda install` them, \
             or recreate the environment with conda first and pip last (conda env export > env.yml keeps a record).",
            pip_of(e)
        )));
    }
}

/// `interpreter-mismatch`: `python` and `pip` on `PATH` belong to different environments (so
/// `pip install` lands where `python` does not look), or neither is the active environment.
pub fn interpreter_mismatch(cx: &Context, out: &mut Vec<Finding>) {
    let p = &cx.facts.python;
    let (Some(python), Some(pip)) = (&p.python_on_path, &p.pip_on_path) else {
        return;
    };
    let active = p.environments.iter().find(|e| e.active);
    let mut problems = Vec::new();
    if python.environment.is_some()
        && pip.environment.is_some()
        && python.environment != pip.environment
    {
        problems.push(format!(
            "`python` is {} (environment {}) but `pip` is {} (environment {})",
            python.path,
            python.environment.as_deref().unwrap_or("?"),
            pip.path,
            pip.environment.as_deref().unwrap_or("?")
        ));
    }
    if let Some(a) = active {
        if python.environment.as_deref().is_some_and(|e| e != a.prefix) {
            problems.push(format!(
                "the active environment is {} but `python` on PATH is {} (environment {}): PATH was changed after activation",
                a.prefix,
                python.path,
                python.environment.as_deref().unwrap_or("?")
            ));
        }
    }
    if let Some(shebang) = &pip.shebang {
        if let Some(env) = &python.environment {
            if !shebang.starts_with(env.trim_end_matches('/'))
                && !shebang.contains("/env ")
                && pip.environment.as_deref() == Some(env.as_str())
            {
                problems.push(format!(
                    "`pip` ({}) runs {shebang}, not this environment's interpreter: the environment was moved or copied",
                    pip.path
                ));
            }
        }
    }
    if problems.is_empty() {
        return;
    }
    let mut finding = Finding::new(
        &INTERPRETER_MISMATCH,
        Severity::Warning,
        "`python` and `pip` on PATH do not belong to the same (active) environment",
    );
    for pr in problems {
        finding = finding.evidence(pr);
    }
    out.push(finding.fix("Always install with the interpreter you run: python -m pip install ...\n(and re-activate the environment so PATH puts its bin/ first)"));
}

/// `qt-plugin-conflict`: `QT_QPA_PLATFORM_PLUGIN_PATH` points nowhere, or a non-headless OpenCV
/// (which ships its own Qt plugins and points Qt at them on import) shares an environment with
/// PyQt/PySide/napari: "Could not load the Qt platform plugin \"xcb\"".
pub fn qt_plugin_conflict(cx: &Context, out: &mut Vec<Finding>) {
    if let Some(var) = &cx.facts.python.qt_platform_plugin_path {
        if var.state != gpuenv_facts::LinkState::Ok {
            let v = &var.value;
            out.push(
                Finding::new(&QT_PLUGIN_CONFLICT, Severity::Warning, format!("QT_QPA_PLATFORM_PLUGIN_PATH={v} does not exist"))
                    .evidence(format!("QT_QPA_PLATFORM_PLUGIN_PATH={v} (environment variable; the path is {:?})", var.state))
                    .evidence("every Qt application (DeepLabCut's GUI, napari) then fails: Could not load the Qt platform plugin \"xcb\"")
                    .fix("unset QT_QPA_PLATFORM_PLUGIN_PATH   # and remove it from ~/.bashrc or the environment's activate.d"),
            );
        }
    }
    for e in cx.full_environments() {
        let opencv_gui: Vec<&str> = e
            .distributions
            .iter()
            .filter(|d| d.key == "opencv-python" || d.key == "opencv-contrib-python")
            .map(|d| d.name.as_str())
            .collect();
        let qt: Vec<&str> = e
            .distributions
            .iter()
            .filter(|d| {
                matches!(
                    d.key.as_str(),
                    "pyqt5" | "pyqt6" | "pyside2" | "pyside6" | "napari"
                )
            })
            .map(|d| d.name.as_str())
            .collect();
        if opencv_gui.is_empty() || qt.is_empty() {
            continue;
        }
        out.push(
            Finding::new(
                &QT_PLUGIN_CONFLICT,
                Severity::Warning,
                format!("OpenCV's bundled Qt plugins clash with {} in environment {}", qt.join(", "), e.name),
            )
            .in_environment(&e.prefix)
            .evidence(format!("{} (non-headless) ships cv2/qt/plugins and sets QT_QPA_PLATFORM_PLUGIN_PATH to it on import", opencv_gui.join(", ")))
            .evidence(format!("{} bring their own Qt", qt.join(", ")))
            .evidence("symptom: qt.qpa.plugin: Could not load the Qt platform plugin \"xcb\" ... even though it was found")
            .fix(format!(
                "{pip} uninstall -y {gui}\n{pip} install opencv-python-headless",
                pip = pip_of(e),
                gui = opencv_gui.join(" ")
            )),
        );
    }
}
