//! DeepLabCut, TensorFlow and JAX plans, as far as the knowledge base's tables go.
//!
//! * DeepLabCut 3 runs on PyTorch: the torch plan, with DeepLabCut's Python range and its
//!   `torch>=2` requirement, plus `deeplabcut[gui]` from PyPI in the same environment.
//! * TensorFlow: the newest tested build configuration whose Python range holds the Python, whose
//!   PyPI wheel carries code for every GPU (the SASS/PTX measured in the wheels; PTX counts only
//!   where every fatbin container has it) and whose CUDA the driver fully supports; its official
//!   image is `tensorflow/tensorflow:<version>-gpu`.
//! * JAX: the newest release whose minimum Python holds, with the CUDA plugin (13, else 12)
//!   whose minimum driver branch and compute capability the machine meets.

use gpuenv_kb::frameworks::DlcBackend;
use gpuenv_kb::{CudaVersion, Kb, Version};

use super::channels::{code_for, code_list};
use super::commands::{generic_commands, pip_lines};
use super::torch::{driver_fit, driver_needs, DriverFit};
use super::{spec_allows, Choice, Constraint, NothingFits, Package, Plan, Request};

/// DeepLabCut 3's newest supported Python. The knowledge base's row has only
/// `requires_python = ">=3.10"`; the classifiers and the docs say 3.10–3.12
/// (framework-facts.md section 4, row 3.0.0/3.0.1; the DLC docs' "Python 3.10-3.12").
const DLC3_PYTHON_MAX: (u32, u32) = (3, 12);

/// The conda packages of DeepLabCut's `conda-environments/DEEPLABCUT.yaml` besides Python and pip
/// (framework-facts.md section 4, the file as of tag v3.0.0 and main, July 2026).
const DLC_CONDA_PACKAGES: &[&str] = &["ipython", "jupyter", "ffmpeg", "pyside6"];

pub(super) fn plan_deeplabcut(kb: &Kb, request: &Request, p: &mut Plan) {
    let fw = &kb.frameworks;
    let dlc_spec = (request.version_name.as_deref() == Some("deeplabcut"))
        .then(|| request.version_spec.clone())
        .flatten();
    // The newest DeepLabCut release on PyTorch that the specifier allows.
    let newest = fw
        .deeplabcut
        .iter()
        .filter(|r| r.backend == DlcBackend::Pytorch)
        .flat_map(|r| r.versions.iter().map(move |v| (v, r)))
        .filter(|(v, _)| spec_allows(dlc_spec.as_deref(), v))
        .max_by(|a, b| a.0.cmp(b.0));
    let Some((dlc_version, row)) = newest else {
        p.not_covered.push(
            "DeepLabCut 2.x (TensorFlow engine) plans are not covered: its TensorFlow pins depend on the extras and the platform".into(),
        );
        p.nothing_fits = Some(NothingFits {
            reason: "no DeepLabCut 3 (PyTorch engine) release matches the request".into(),
            newest_for_gpu: None,
            needs: Vec::new(),
        });
        return;
    };
    let py_max = Version::from_parts(&[DLC3_PYTHON_MAX.0, DLC3_PYTHON_MAX.1]);
    let py_min = row
        .requires_python
        .as_ref()
        .and_then(|r| r.lower_bound().cloned())
        .unwrap_or_else(|| row.conda_python.clone());
    let mut dlc_constraint = Constraint {
        kind: "deeplabcut".into(),
        rule: format!(
            "deeplabcut {dlc_version} ({}): Python {py_min}–{py_max}, torch>=2 (PyTorch engine)",
            row.date
        ),
        excluded: Vec::new(),
    };
    if let Some(py) = &p.target.python {
        let key = |v: &Version| (v.major(), v.minor());
        if key(py) < key(&py_min) || key(py) > key(&py_max) {
            dlc_constraint.excluded.push(format!(
                "Python {py} is outside DeepLabCut's {py_min}–{py_max}"
            ));
            p.constraints.push(dlc_constraint);
            p.nothing_fits = Some(NothingFits {
                reason: format!(
                    "DeepLabCut {dlc_version} supports Python {py_min}–{py_max}; this environment has {py}"
                ),
                newest_for_gpu: None,
                needs: vec![format!("a new environment with Python {py_max}")],
            });
            return;
        }
    }
    let mut torch_request = request.clone();
    if request.version_name.as_deref() == Some("deeplabcut") || request.version_spec.is_none() {
        torch_request.version_spec = Some(">=2".into());
        torch_request.version_name = Some("torch".into());
    }
    super::torch::plan_torch(kb, &torch_request, p, Some(&py_max));
    p.constraints.insert(0, dlc_constraint);
    p.verify = "python -c \"import torch, deeplabcut; print(deeplabcut.__version__, torch.__version__, torch.cuda.is_available())\"".into();
    p.conda_packages = DLC_CONDA_PACKAGES.iter().map(|s| s.to_string()).collect();
    let Some(mut choice) = p.choice.take() else {
        return;
    };
    // DeepLabCut needs torch and torchvision, not torchaudio.
    choice.companions.retain(|c| c.name != "torchaudio");
    choice.why.push(format!(
        "deeplabcut {dlc_version} runs on PyTorch; DEEPLABCUT.yaml would install torch from PyPI (the PyPI default CUDA build of the newest torch), which need not carry code for this GPU — this plan pins the build"
    ));
    let minor = Version::from_parts(&[choice.version.major(), choice.version.minor()]);
    let extra = vec![format!("deeplabcut[gui]=={dlc_version}")];
    p.requirements = pip_lines(&choice, &minor, &extra);
    let release = fw.torch_release(&choice.version);
    p.commands = generic_commands(&choice, release, p, &p.requirements, &[]);
    // Conda: DEEPLABCUT.yaml's conda packages in the new environment.
    if let Some(set) = p
        .commands
        .iter_mut()
        .find(|s| s.manager == super::Manager::Conda)
    {
        if let Some(first) = set.commands.first_mut() {
            if first.starts_with("conda create") {
                first.push(' ');
                first.push_str(&DLC_CONDA_PACKAGES.join(" "));
            }
        }
    }
    choice.companions.push(Package {
        name: "deeplabcut".into(),
        version: dlc_version.to_string(),
    });
    p.choice = Some(choice);
}

/// The PTX a TensorFlow wheel runs a GPU with: only when every fatbin container has PTX (up to
/// 2.19 one container of each library has SASS only, so PTX JIT leaves kernels missing).
fn tf_ptx(arch: &gpuenv_kb::frameworks::TensorflowArchRow) -> &[gpuenv_kb::ComputeCapability] {
    if arch.ptx_in_every_container {
        &arch.ptx
    } else {
        &[]
    }
}

fn tf_choice(version: &Version, cuda: Option<CudaVersion>, cudnn: Option<Version>) -> Choice {
    Choice {
        framework: "tensorflow".into(),
        version: version.clone(),
        variant: None,
        cuda,
        cudnn,
        companions: Vec::new(),
        python: None,
        python_for_new_env: None,
        driver_full: None,
        driver_mvc: None,
        driver_fit: "not-needed".into(),
        index_url: None,
        confirmed: true,
        why: Vec::new(),
    }
}

pub(super) fn plan_tensorflow(kb: &Kb, request: &Request, p: &mut Plan) {
    let t = p.target.clone();
    let driver = t.driver.as_ref().map(|d| (&d.version, d.ceiling));
    let mut ex_version = Vec::new();
    let mut ex_python = Vec::new();
    let mut ex_driver = Vec::new();
    let mut ex_gpu = Vec::new();
    let mut unmeasured = Vec::new();
    let mut chosen = None;
    for row in kb.frameworks.tensorflow.iter().rev() {
        if !spec_allows(request.version_spec.as_deref(), &row.version) {
            ex_version.push(format!("tensorflow {}", row.version));
            continue;
        }
        if let Some(py) = &t.python {
            if !row.python().contains(py) {
                ex_python.push(format!(
                    "tensorflow {}: Python {}–{}",
                    row.version, row.python_min, row.python_max
                ));
                continue;
            }
        }
        if !t.gpus.is_empty() {
            match kb.frameworks.tensorflow_arch(&row.version) {
                Some(arch) => {
                    let missing: Vec<String> = t
                        .gpus
                        .iter()
                        .filter(|g| code_for(&arch.sass, tf_ptx(arch), g.cc).is_none())
                        .map(|g| g.cc.sm())
                        .collect();
                    if !missing.is_empty() {
                        ex_gpu.push(format!(
                            "tensorflow {}: no code for {} — its wheel carries {}",
                            row.version,
                            missing.join(", "),
                            code_list(&arch.sass, &arch.ptx)
                        ));
                        continue;
                    }
                }
                None => unmeasured.push(row.version.to_string()),
            }
        }
        if !t.cpu_only() {
            match driver_fit(kb, driver, row.cuda) {
                Some(DriverFit::Full) | Some(DriverFit::NoDriverGiven) => {}
                Some(DriverFit::Mvc) if request.allow_mvc => {}
                _ => {
                    let (full, _) = driver_needs(kb, row.cuda);
                    ex_driver.push(format!(
                        "tensorflow {} (CUDA {}): needs driver ≥ {} for full support",
                        row.version,
                        row.cuda,
                        full.map(|v| v.to_string()).unwrap_or_else(|| "?".into())
                    ));
                    continue;
                }
            }
        }
        chosen = Some(row);
        break;
    }
    let mut push = |kind: &str, rule: String, excluded: Vec<String>| {
        p.constraints.push(Constraint {
            kind: kind.into(),
            rule,
            excluded,
        })
    };
    if let Some(s) = &request.version_spec {
        push("version", format!("tensorflow{s}"), ex_version);
    }
    push(
        "python",
        match &t.python {
            Some(py) => format!("Python {py} ({})", t.python_from),
            None => "any Python".into(),
        },
        ex_python,
    );
    if !t.gpus.is_empty() {
        push(
            "gpu",
            "the wheel must carry code for every GPU (SASS of the same major with minor ≤ the GPU's, or PTX ≤ it), as measured in its PyPI wheel".into(),
            ex_gpu,
        );
    }
    if !t.cpu_only() {
        push(
            "driver",
            "the driver must fully support the tested configuration's CUDA".into(),
            ex_driver,
        );
    }
    let chosen_unmeasured = chosen.is_some_and(|r| unmeasured.contains(&r.version.to_string()));
    if chosen_unmeasured {
        p.not_covered.push(
            "the GPU code of the chosen TensorFlow wheel was not measured: whether it carries code for this GPU is not checked".into(),
        );
    }
    p.verify = "python -c \"import tensorflow as tf; print(tf.__version__, tf.config.list_physical_devices('GPU'))\"".into();
    let Some(row) = chosen else {
        p.nothing_fits = Some(NothingFits {
            reason: "no TensorFlow tested configuration satisfies every constraint".into(),
            newest_for_gpu: None,
            needs: Vec::new(),
        });
        return;
    };
    let gpu = !t.cpu_only();
    let mut choice = tf_choice(
        &row.version,
        gpu.then_some(row.cuda),
        gpu.then(|| row.cudnn.clone()),
    );
    choice.python = Some(format!("{}–{}", row.python_min, row.python_max));
    choice.python_for_new_env = Some(t.python.clone().unwrap_or_else(|| row.python_max.clone()));
    choice.confirmed = row.confirmed;
    let (full, mvc) = driver_needs(kb, row.cuda);
    if gpu {
        choice.driver_full = full;
        choice.driver_mvc = mvc;
        choice.driver_fit = match driver_fit(kb, driver, row.cuda) {
            Some(DriverFit::Full) => "full",
            Some(DriverFit::Mvc) => "minor-version-compatibility",
            _ => "no-driver-given",
        }
        .into();
    }
    choice.why.push(format!(
        "tensorflow {} is tested with Python {}–{}, CUDA {}, cuDNN {}",
        row.version, row.python_min, row.python_max, row.cuda, row.cudnn
    ));
    let req = match (&row.and_cuda, gpu) {
        (Some(a), true) => {
            choice.why.push(format!(
                "`tensorflow[and-cuda]` installs the CUDA {} wheels (cuDNN {})",
                a.cuda_major, a.cudnn
            ));
            format!("tensorflow[and-cuda]=={}", row.version)
        }
        (None, true) => {
            p.not_covered.push(format!(
                "tensorflow {} has no [and-cuda] extra: install CUDA {} and cuDNN {} on the system",
                row.version, row.cuda, row.cudnn
            ));
            format!("tensorflow=={}", row.version)
        }
        _ => format!("tensorflow=={}", row.version),
    };
    p.requirements = vec![req];
    p.commands = generic_commands(&choice, None, p, &p.requirements, &[]);
    if gpu {
        let py = choice
            .python_for_new_env
            .as_ref()
            .map(|v| format!("{}.{}", v.major(), v.minor()))
            .unwrap_or_else(|| "3".into());
        tensorflow_docker(p, &row.version, &py);
    }
    p.choice = Some(choice);
}

/// The official TensorFlow GPU image of a release: tensorflow/tensorflow's `<version>-gpu` tag
/// (TensorFlow's Docker docs: images for each release, `-gpu` variants with CUDA inside).
fn tensorflow_docker(p: &mut Plan, version: &Version, py: &str) {
    let verify = p.verify.clone();
    let image = format!("tensorflow/tensorflow:{version}-gpu");
    if let Some(set) = p
        .commands
        .iter_mut()
        .find(|s| s.manager == super::Manager::Docker)
    {
        set.commands
            .push(format!("docker run --rm --gpus all {image} {verify}"));
        set.notes = vec![
            format!("official image: {image} (tag scheme of TensorFlow's Docker docs, which publish `<version>-gpu` images for each release; the CUDA and cuDNN inside each image are not in the knowledge base). The Dockerfile installs the same pin on python:{py}-slim instead"),
            "the host needs the driver above and the NVIDIA Container Toolkit (`docker run --gpus all`)".into(),
        ];
    }
}

pub(super) fn plan_jax(kb: &Kb, request: &Request, p: &mut Plan) {
    let fw = &kb.frameworks;
    let t = p.target.clone();
    let mut ex_python = Vec::new();
    let version = fw
        .jax_releases
        .iter()
        .rev()
        .filter(|r| spec_allows(request.version_spec.as_deref(), &r.version))
        .find(|r| {
            let req = fw.jax_requirements(&r.version);
            match (&t.python, req.python_min) {
                (Some(py), Some((min, _)))
                    if (py.major(), py.minor()) < (min.major(), min.minor()) =>
                {
                    ex_python.push(format!("jax {}: needs Python ≥ {min}", r.version));
                    false
                }
                _ => true,
            }
        })
        .map(|r| r.version.clone());
    p.constraints.push(Constraint {
        kind: "python".into(),
        rule: match &t.python {
            Some(py) => format!("Python {py} ({}) ≥ the release's minimum", t.python_from),
            None => "any Python".into(),
        },
        excluded: ex_python,
    });
    p.not_covered.push(
        "JAX's newest supported Python is not in the knowledge base; GPU code is checked through the CUDA plugin's documented minimum compute capability (the SASS/PTX measured in 35 plugin wheels, 0.4.22–0.12.0.1, agree with it: CUDA 12 plugins carry sm_50 and newer, CUDA 13 plugins sm_75 and newer; tools/kb/research/jax-archs.toml)".into(),
    );
    p.verify = "python -c \"import jax; print(jax.__version__, jax.devices())\"".into();
    let Some(version) = version else {
        p.nothing_fits = Some(NothingFits {
            reason: "no JAX release in the knowledge base satisfies every constraint".into(),
            newest_for_gpu: None,
            needs: Vec::new(),
        });
        return;
    };
    let mut choice = tf_choice(&version, None, None);
    choice.framework = "jax".into();
    let req = fw.jax_requirements(&version);
    if let Some((min, _)) = req.python_min {
        choice.python = Some(format!("≥ {min}"));
    }
    choice.python_for_new_env = t.python.clone();
    let mut excluded = Vec::new();
    let mut extra = None;
    if !t.cpu_only() {
        for major in [13, 12] {
            let Some(plugin) = fw.jax_plugin_for_cuda(major) else {
                continue;
            };
            if version < plugin.first_version {
                excluded.push(format!(
                    "{}: first released with {}",
                    plugin.package, plugin.first_version
                ));
                continue;
            }
            if let Some(g) = t.gpus.iter().find(|g| g.cc < plugin.min_cc) {
                excluded.push(format!(
                    "{}: needs compute capability ≥ {}; {} is {}",
                    plugin.package, plugin.min_cc, g.label, g.cc
                ));
                continue;
            }
            if let Some(d) = &t.driver {
                if d.version.major() < plugin.min_driver.major() {
                    excluded.push(format!(
                        "{}: needs driver branch ≥ {}; this driver is {}",
                        plugin.package, plugin.min_driver, d.version
                    ));
                    continue;
                }
            }
            choice.cuda = Some(plugin.built_with_cuda);
            choice.why.push(format!(
                "{} (built with CUDA {}, cuDNN {}) needs driver branch ≥ {} and compute capability ≥ {}",
                plugin.package, plugin.built_with_cuda, plugin.cudnn, plugin.min_driver, plugin.min_cc
            ));
            choice.driver_full = Some(plugin.min_driver.clone());
            choice.driver_fit = if t.driver.is_some() {
                "full"
            } else {
                "no-driver-given"
            }
            .into();
            extra = Some(format!("cuda{major}"));
            break;
        }
        p.constraints.push(Constraint {
            kind: "gpu".into(),
            rule:
                "a CUDA plugin whose minimum driver branch and compute capability the machine meets"
                    .into(),
            excluded,
        });
        if extra.is_none() {
            p.nothing_fits = Some(NothingFits {
                reason: "no JAX CUDA plugin fits this GPU and driver".into(),
                newest_for_gpu: None,
                needs: Vec::new(),
            });
            return;
        }
    }
    choice.why.insert(
        0,
        format!("jax {version} is the newest release the knowledge base knows that fits"),
    );
    p.requirements = vec![match &extra {
        Some(e) => format!("jax[{e}]=={version}"),
        None => format!("jax=={version}"),
    }];
    p.commands = generic_commands(&choice, None, p, &p.requirements, &["-U"]);
    p.choice = Some(choice);
}
