//! The install channels besides PyPI: official Docker images and conda-forge builds.
//!
//! * **Docker**: the `pytorch/pytorch` images of a torch release are built from the same wheels as
//!   its pip variants (one image per CUDA version of the release matrix), so a candidate build that
//!   fits the machine fits in its image too. The plan names the image of the chosen build when the
//!   knowledge base has it, else the newest fitting candidate that has one.
//! * **conda-forge**: its `pytorch` builds are compiled by the feedstock with their own CUDA
//!   versions and arch lists (CUDA 12.9 builds keep sm_50/sm_60, which PyPI's cu128+ dropped), so
//!   they are searched on their own with the same rules: the version specifier, the Python, GPU
//!   code for every GPU (SASS of the same major with minor ≤ the GPU's, or PTX ≤ it), and a driver
//!   that fully supports the build's CUDA (minor-version compatibility only with `allow_mvc`).

use serde::Serialize;

use gpuenv_kb::frameworks::{CondaForgeTorchRow, TorchDockerRow};
use gpuenv_kb::{ComputeCapability, CudaVersion, Kb, Version};

use super::torch::{driver_fit, Candidate, DriverFit};
use super::{spec_allows, CommandSet, Manager, Plan, Request};

/// An official image for the plan.
#[derive(Debug, Clone, Serialize)]
pub struct DockerImage {
    /// `pytorch/pytorch:2.5.1-cuda12.4-cudnn9-runtime`.
    pub image: String,
    /// The `-devel` flavour (with the CUDA compiler), when published.
    pub devel: Option<String>,
    /// The torch build inside (`2.5.1+cu124`).
    pub torch: String,
    /// Whether it is the build the plan chose (else an older build that also fits).
    pub same_as_choice: bool,
    pub confirmed: bool,
    pub evidence: Vec<String>,
}

/// conda-forge's newest `pytorch` build that fits.
#[derive(Debug, Clone, Serialize)]
pub struct CondaForgeChoice {
    pub version: Version,
    pub cuda: Option<CudaVersion>,
    pub build_prefix: Option<String>,
    pub cudnn: Option<String>,
    /// The code it runs on each GPU with (`sm_61: SASS sm_60`).
    pub gpu_code: Vec<String>,
    pub python: String,
    pub driver_fit: String,
    pub confirmed: bool,
    pub uploaded_seen: bool,
    pub commands: Vec<String>,
    pub why: Vec<String>,
    pub evidence: Vec<String>,
}

/// Which code of a (SASS, PTX) list runs on a GPU.
pub(super) fn code_for(
    sass: &[ComputeCapability],
    ptx: &[ComputeCapability],
    gpu: ComputeCapability,
) -> Option<String> {
    if let Some(s) = sass
        .iter()
        .filter(|s| s.major == gpu.major && s.minor <= gpu.minor)
        .max()
    {
        return Some(format!("SASS {}", s.sm()));
    }
    ptx.iter()
        .filter(|p| **p <= gpu)
        .max()
        .map(|p| format!("PTX compute_{}{} (JIT)", p.major, p.minor))
}

/// The `pytorch/pytorch` image of a candidate build, if the knowledge base lists one.
fn image_of<'a>(kb: &'a Kb, c: &Candidate) -> Option<&'a TorchDockerRow> {
    let cuda = c.variant.cuda()?;
    kb.frameworks
        .torch_docker_images(&c.patch)
        .into_iter()
        .find(|r| r.cuda == cuda)
}

/// The official image for the plan: the chosen build's, else the newest fitting candidate's.
pub(super) fn docker_image(kb: &Kb, candidates: &[Candidate]) -> Option<DockerImage> {
    let (i, row) = candidates
        .iter()
        .enumerate()
        .find_map(|(i, c)| image_of(kb, c).map(|r| (i, r)))?;
    let c = &candidates[i];
    let flavor = |f: &str| r_has(row, f).then(|| row.image(f));
    Some(DockerImage {
        image: flavor("runtime").unwrap_or_else(|| row.image("devel")),
        devel: flavor("devel"),
        torch: format!("{}+{}", c.patch, c.variant),
        same_as_choice: i == 0,
        confirmed: row.confirmed,
        evidence: row.evidence.clone(),
    })
}

fn r_has(row: &TorchDockerRow, flavor: &str) -> bool {
    row.flavors.iter().any(|f| f == flavor)
}

/// The Docker notes of a torch plan: the image, or why there is none.
pub(super) fn docker_notes(kb: &Kb, p: &Plan) -> Vec<String> {
    let mut notes = Vec::new();
    let Some(choice) = &p.choice else {
        return notes;
    };
    let py = choice
        .python_for_new_env
        .as_ref()
        .map(|v| format!("{}.{}", v.major(), v.minor()))
        .unwrap_or_else(|| "3".into());
    match &p.docker_image {
        Some(img) if img.same_as_choice => notes.push(format!(
            "official image with this build: {}{}{} — the Dockerfile starts from it (the Python inside the image is the image's own; the knowledge base does not record it)",
            img.image,
            img.devel
                .as_ref()
                .map(|d| format!(" (with the CUDA compiler: {d})"))
                .unwrap_or_default(),
            if img.confirmed {
                ""
            } else {
                "; tag seen only in third-party Dockerfiles, not confirmed"
            }
        )),
        Some(img) => notes.push(format!(
            "no official pytorch/pytorch image of torch {} is in the knowledge base (its image list ends at {}); the newest image that fits this machine is {} (torch {}{}). The Dockerfile installs the chosen pins on python:{py}-slim",
            choice.version,
            kb.frameworks
                .torch_docker
                .last()
                .map(|r| r.version.to_string())
                .unwrap_or_default(),
            img.image,
            img.torch,
            if img.confirmed { "" } else { "; unconfirmed tag" }
        )),
        None if choice.cuda.is_some() => notes.push(format!(
            "no official pytorch/pytorch image of a build that fits is in the knowledge base; the Dockerfile installs torch {} on python:{py}-slim",
            choice.version
        )),
        None => notes.push(format!(
            "the official pytorch/pytorch images are CUDA builds; this CPU plan installs the pins on python:{py}-slim"
        )),
    }
    notes.push("the host needs the driver above and the NVIDIA Container Toolkit (`docker run --gpus all`)".into());
    notes
}

/// Searches conda-forge's `pytorch` builds (linux-64) for the newest that fits the target.
pub(super) fn conda_forge_torch(kb: &Kb, request: &Request, p: &Plan) -> Option<CondaForgeChoice> {
    let t = &p.target;
    let spec = request.version_spec.as_deref();
    let driver = t.driver.as_ref().map(|d| (&d.version, d.ceiling));
    let fits = |r: &CondaForgeTorchRow| -> Option<(DriverFit, Vec<String>)> {
        if !r.confirmed || !spec_allows(spec, &r.version) {
            return None;
        }
        if let Some(py) = &t.python {
            if !r
                .python
                .iter()
                .any(|v| v.major() == py.major() && v.minor() == py.minor())
            {
                return None;
            }
        }
        let mut code = Vec::new();
        for g in &t.gpus {
            code.push(format!(
                "{}: {}",
                g.cc.sm(),
                code_for(&r.sass, &r.ptx, g.cc)?
            ));
        }
        match driver_fit(kb, driver, r.cuda)? {
            DriverFit::Mvc if !request.allow_mvc => None,
            f => Some((f, code)),
        }
    };
    if t.cpu_only() {
        return None;
    }
    let rows = kb.frameworks.conda_forge_torch_builds();
    let (row, (fit, code)) = rows
        .iter()
        .filter_map(|r| fits(r).map(|f| (r, f)))
        // Newest version first; within it, the newest CUDA the driver fully supports.
        .max_by(|a, b| (&a.0.version, a.0.cuda).cmp(&(&b.0.version, b.0.cuda)))?;
    // The Python of a new environment: the given one, else the one the PyPI choice would get
    // (it respects caps such as DeepLabCut's) where conda-forge built for it, else its newest.
    let planned = p
        .choice
        .as_ref()
        .and_then(|c| c.python_for_new_env.as_ref());
    let py = match (&t.python, planned) {
        (Some(py), _) => format!("{}.{}", py.major(), py.minor()),
        (None, Some(pl))
            if row
                .python
                .iter()
                .any(|v| v.major() == pl.major() && v.minor() == pl.minor()) =>
        {
            format!("{}.{}", pl.major(), pl.minor())
        }
        _ => row
            .python
            .iter()
            .max()
            .map(|v| v.to_string())
            .unwrap_or_else(|| "3".into()),
    };
    let name = super::commands::env_name(p);
    let pin = format!("\"pytorch={}={}*\"", row.version, row.build_prefix);
    let existing = p.target.environment.is_some();
    let commands = if existing {
        vec![format!(
            "conda install -n {name} -c conda-forge {pin} torchvision"
        )]
    } else {
        vec![
            format!("conda create -y -n {name} -c conda-forge python={py} {pin} torchvision"),
            format!("conda activate {name}"),
        ]
    };
    let mut why = vec![
        format!(
            "conda-forge builds pytorch {} for CUDA {} with {}",
            row.version,
            row.cuda,
            code_list(&row.sass, &row.ptx)
        ),
        format!(
            "`{pin}` selects that build by its build string (conda's name=version=build form; conda-forge documents `\"pytorch=*=cuda*\"`); torchvision is solved against it"
        ),
    ];
    if fit == DriverFit::Mvc {
        why.push(format!(
            "CUDA {} runs on this driver only under minor-version compatibility (chosen because --allow-mvc)",
            row.cuda
        ));
    }
    if !row.uploaded_seen {
        why.push("the build is in the feedstock's CI matrix; its upload to anaconda.org was not checked file by file".into());
    }
    Some(CondaForgeChoice {
        version: row.version.clone(),
        cuda: Some(row.cuda),
        build_prefix: Some(row.build_prefix.clone()),
        cudnn: Some(row.cudnn.clone()),
        gpu_code: code,
        python: row
            .python
            .iter()
            .map(|v| v.to_string())
            .collect::<Vec<_>>()
            .join(", "),
        driver_fit: match fit {
            DriverFit::Full => "full",
            DriverFit::Mvc => "minor-version-compatibility",
            DriverFit::NoDriverGiven => "no-driver-given",
            DriverFit::NotNeeded => "not-needed",
        }
        .into(),
        confirmed: row.confirmed,
        uploaded_seen: row.uploaded_seen,
        commands,
        why,
        evidence: row.evidence.clone(),
    })
}

/// `sm_50 sm_60 compute_90`: a SASS list and its PTX.
pub(super) fn code_list(sass: &[ComputeCapability], ptx: &[ComputeCapability]) -> String {
    let mut s: Vec<String> = sass.iter().map(|c| c.sm()).collect();
    s.extend(
        ptx.iter()
            .map(|c| format!("compute_{}{}", c.major, c.minor)),
    );
    s.join(" ")
}

/// Adds the Docker image and the conda-forge route to a torch (or DeepLabCut) plan's commands.
pub(super) fn apply_torch_channels(kb: &Kb, request: &Request, p: &mut Plan) {
    // A specifier that names another distribution (`deeplabcut==3.0.1`) does not constrain torch;
    // DeepLabCut 3 needs torch>=2.
    let mut torch_request = request.clone();
    if !matches!(request.version_name.as_deref(), None | Some("torch")) {
        torch_request.version_spec = None;
    }
    if p.framework == super::Framework::Deeplabcut
        && request.version_name.as_deref() != Some("torch")
    {
        torch_request.version_spec = Some(">=2".into());
    }
    p.conda_forge = conda_forge_torch(kb, &torch_request, p);
    let docker = docker_notes(kb, p);
    let verify = p.verify.clone();
    let image = p.docker_image.clone();
    if let Some(set) = find_set(&mut p.commands, Manager::Docker) {
        set.notes = docker;
        if let Some(img) = image {
            set.commands
                .push(format!("docker run --rm --gpus all {} {verify}", img.image));
        }
    }
    let dlc = p
        .choice
        .as_ref()
        .and_then(|c| c.companions.iter().find(|c| c.name == "deeplabcut"))
        .map(|c| c.version.clone());
    let choice_version = p.choice.as_ref().map(|c| c.version.clone());
    if let (Some(cf), Some(d)) = (p.conda_forge.as_mut(), &dlc) {
        cf.commands
            .push(format!("python -m pip install 'deeplabcut[gui]=={d}'"));
    }
    let cf_note = match &p.conda_forge {
        Some(cf) => format!(
            "conda-forge route (conda-forge's own build, not PyPI's): pytorch {} {} ({}) — `{}`",
            cf.version,
            cf.build_prefix.as_deref().unwrap_or(""),
            cf.gpu_code.join(", "),
            cf.commands.join(" && ")
        ),
        None if p.target.cpu_only() => {
            "conda-forge's CPU builds: `conda install -c conda-forge pytorch` picks a CPU build where conda detects no CUDA driver".into()
        }
        None => "no conda-forge pytorch build in the knowledge base fits this machine (its CUDA builds, arch lists and Pythons are read from the feedstock up to 2.13.0)".into(),
    };
    if let Some(set) = find_set(&mut p.commands, Manager::Conda) {
        set.notes.push(cf_note);
    }
    if let Some(cf) = &p.conda_forge {
        let newer = choice_version.as_ref().is_none_or(|v| cf.version > *v);
        if newer {
            p.alternatives.push(format!(
                "conda-forge has a newer build that fits: pytorch {} ({}, CUDA {}; {}) — `{}`",
                cf.version,
                cf.build_prefix.as_deref().unwrap_or(""),
                cf.cuda.map(|c| c.to_string()).unwrap_or_default(),
                cf.gpu_code.join(", "),
                cf.commands.join(" && ")
            ));
        }
    }
}

fn find_set(sets: &mut [CommandSet], manager: Manager) -> Option<&mut CommandSet> {
    sets.iter_mut().find(|s| s.manager == manager)
}
