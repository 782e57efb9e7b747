//! The PyTorch choice: every release × variant in the knowledge base, filtered by the version
//! specifier, the Python, the GPUs' code, the driver and confirmation (in that order; each
//! exclusion is recorded with the first constraint that excluded it), newest release first, then
//! the best variant; its companions and cuDNN; the smallest change for a broken environment.

use gpuenv_kb::frameworks::{BuildVariant, TorchArchRow, TorchRelease};
use gpuenv_kb::{ComputeCapability, CudaVersion, Kb, Version};

use super::commands::{torch_commands, TORCH_VERIFY};
use super::{spec_allows, Choice, Constraint, NothingFits, Package, Plan, PlanOption, Request};

/// How a build meets the driver requirement.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum DriverFit {
    Full,
    Mvc,
    NoDriverGiven,
    NotNeeded,
}

impl DriverFit {
    fn name(self) -> &'static str {
        match self {
            DriverFit::Full => "full",
            DriverFit::Mvc => "minor-version-compatibility",
            DriverFit::NoDriverGiven => "no-driver-given",
            DriverFit::NotNeeded => "not-needed",
        }
    }
}

/// A build that passed every constraint.
#[derive(Debug, Clone)]
pub(super) struct Candidate<'a> {
    pub release: &'a TorchRelease,
    pub patch: Version,
    pub variant: BuildVariant,
    pub driver_fit: DriverFit,
    pub arch_confirmed: bool,
}

/// Exclusions, grouped by (constraint, group, reason), with the minors each one hit.
#[derive(Default)]
struct Exclusions {
    rows: Vec<(&'static str, String, String, Vec<String>)>,
}

impl Exclusions {
    fn add(&mut self, kind: &'static str, group: String, reason: String, minor: &Version) {
        let minor = minor.to_string();
        match self
            .rows
            .iter_mut()
            .find(|r| r.0 == kind && r.1 == group && r.2 == reason)
        {
            Some(r) => {
                if !r.3.contains(&minor) {
                    r.3.push(minor);
                }
            }
            None => self.rows.push((kind, group, reason, vec![minor])),
        }
    }

    fn lines(&self, kind: &str) -> Vec<String> {
        self.rows
            .iter()
            .filter(|r| r.0 == kind)
            .map(|(_, group, reason, minors)| {
                let minors = minors.join(", ");
                if group.is_empty() {
                    format!("torch {minors}: {reason}")
                } else {
                    format!("{group} of torch {minors}: {reason}")
                }
            })
            .collect()
    }
}

/// Which code of an arch row runs on a GPU: SASS of the same major with minor <= the GPU's, else
/// PTX for any capability <= the GPU's (NVIDIA's rules, nvidia-facts 6b; `gpuenv_kb::gpu_code`).
pub(super) fn arch_covers(row: &TorchArchRow, gpu: ComputeCapability) -> Option<String> {
    let ptx: &[ComputeCapability] = if row.ptx_confirmed { &row.ptx } else { &[] };
    super::channels::code_for(&row.sass, ptx, gpu)
}

fn sm_list(row: &TorchArchRow) -> String {
    super::channels::code_list(&row.sass, &row.ptx)
}

/// The driver a CUDA version needs: full support, and minor-version compatibility (11+).
pub(super) fn driver_needs(kb: &Kb, cuda: CudaVersion) -> (Option<Version>, Option<Version>) {
    let full = kb
        .min_driver_for_cuda(cuda)
        .and_then(|r| r.min_driver.clone());
    let mvc = (cuda.major >= 11)
        .then(|| {
            kb.mvc_min_driver(cuda.major)
                .map(|r| r.mvc_min_driver.clone())
        })
        .flatten();
    (full, mvc)
}

/// How a driver meets a CUDA version (`None`: it does not).
pub(super) fn driver_fit(
    kb: &Kb,
    driver: Option<(&Version, Option<CudaVersion>)>,
    cuda: CudaVersion,
) -> Option<DriverFit> {
    let Some((d, ceiling)) = driver else {
        return Some(DriverFit::NoDriverGiven);
    };
    let (full, mvc) = driver_needs(kb, cuda);
    let fully = match &full {
        Some(m) => d >= m,
        None => ceiling.is_some_and(|c| c >= cuda),
    };
    if fully {
        return Some(DriverFit::Full);
    }
    if mvc.is_some_and(|m| *d >= m) {
        return Some(DriverFit::Mvc);
    }
    None
}

fn python_range_text(kb: &Kb, patch: &Version) -> Option<String> {
    kb.frameworks
        .torch_python(patch)
        .map(|r| format!("{}–{}", r.min, r.max))
}

fn py_tag(python: &Version) -> String {
    format!("cp{}{}", python.major(), python.minor())
}

/// The newest companion release (torchvision or torchaudio) of the release's list whose torch
/// requirement accepts this build and which has a wheel for the Python.
fn companion(
    kb: &Kb,
    versions: &[Version],
    audio: bool,
    patch: &Version,
    variant: &BuildVariant,
    python: Option<&Version>,
) -> Option<String> {
    let local = variant.to_string();
    versions.iter().rev().find_map(|v| {
        let row = if audio {
            kb.frameworks.torchaudio(v)
        } else {
            kb.frameworks.torchvision(v)
        }?;
        if let Some(req) = &row.torch {
            if !req.matches(patch, Some(&local)) && !req.matches(patch, None) {
                return None;
            }
        }
        if let Some(py) = python {
            let tag = py_tag(py);
            if !row
                .python_tags
                .iter()
                .any(|t| *t == tag || t.starts_with("py3"))
            {
                return None;
            }
        }
        Some(v.to_string())
    })
}

/// The Python a new environment gets: the given one, else the newest the build and its
/// companions have wheels for, at most `cap`.
fn python_for_new_env(
    kb: &Kb,
    release: &TorchRelease,
    patch: &Version,
    variant: &BuildVariant,
    cap: Option<&Version>,
) -> Option<Version> {
    let range = kb.frameworks.torch_python(patch)?;
    let mut minor = range.max.minor();
    if let Some(c) = cap {
        if c.major() == 3 {
            minor = minor.min(c.minor());
        }
    }
    while minor >= range.min.minor() {
        let py = Version::from_parts(&[3, minor]);
        let tv = companion(kb, &release.torchvision, false, patch, variant, Some(&py));
        if tv.is_some() || release.torchvision.is_empty() {
            return Some(py);
        }
        if minor == 0 {
            break;
        }
        minor -= 1;
    }
    Some(range.max.clone())
}

/// The variant order within a release: CPU first without a GPU; otherwise confirmed arch rows,
/// the PyPI default (the most used build; plain `pip install`), non-experimental, newest CUDA.
fn rank(c: &Candidate, no_gpu: bool) -> (bool, bool, bool, bool, Option<CudaVersion>) {
    (
        no_gpu && c.variant == BuildVariant::Cpu,
        c.arch_confirmed,
        c.variant == c.release.pypi_default,
        !c.release.experimental.contains(&c.variant),
        c.variant.cuda(),
    )
}

/// Builds the `Choice` for a candidate.
pub(super) fn choice_for(
    kb: &Kb,
    c: &Candidate,
    python: Option<&Version>,
    python_cap: Option<&Version>,
) -> Choice {
    let release = c.release;
    let tv = kb
        .frameworks
        .torch_variant(&c.patch, &c.variant.to_string());
    let cudnn = tv.as_ref().and_then(|t| t.cudnn_version().cloned());
    let new_py = match python {
        Some(p) => Some(p.clone()),
        None => python_for_new_env(kb, release, &c.patch, &c.variant, python_cap),
    };
    let py_for_companions = python.or(new_py.as_ref());
    let mut companions = Vec::new();
    if let Some(v) = companion(
        kb,
        &release.torchvision,
        false,
        &c.patch,
        &c.variant,
        py_for_companions,
    ) {
        companions.push(Package {
            name: "torchvision".into(),
            version: v,
        });
    }
    if let Some(v) = companion(
        kb,
        &release.torchaudio,
        true,
        &c.patch,
        &c.variant,
        py_for_companions,
    ) {
        companions.push(Package {
            name: "torchaudio".into(),
            version: v,
        });
    }
    let cuda = c.variant.cuda();
    let (driver_full, driver_mvc) = match cuda {
        Some(cu) => driver_needs(kb, cu),
        None => (None, None),
    };
    let index_url = (c.variant != release.pypi_default)
        .then(|| format!("https://download.pytorch.org/whl/{}", c.variant));
    let mut why = Vec::new();
    if let Some(range) = python_range_text(kb, &c.patch) {
        why.push(format!("torch {} has wheels for Python {range}", c.patch));
    }
    if let (Some(t), Some(arch)) = (tv.as_ref(), tv.as_ref().and_then(|t| t.arch)) {
        why.push(format!(
            "its {} build carries {}{}",
            t.variant,
            sm_list(arch),
            if arch.confirmed {
                ""
            } else {
                " (UNCONFIRMED arch list)"
            }
        ));
    }
    match (cuda, c.driver_fit) {
        (Some(cu), DriverFit::Full) => why.push(format!(
            "CUDA {cu} is fully supported by the driver (needs ≥ {})",
            driver_full
                .as_ref()
                .map(|d| d.to_string())
                .unwrap_or_else(|| "the branch table's ceiling".into())
        )),
        (Some(cu), DriverFit::Mvc) => why.push(format!(
            "CUDA {cu} runs on this driver only under minor-version compatibility (≥ {}; no PTX JIT): chosen because --allow-mvc",
            driver_mvc.as_ref().map(|d| d.to_string()).unwrap_or_default()
        )),
        (Some(cu), DriverFit::NoDriverGiven) => why.push(format!(
            "CUDA {cu}: install driver ≥ {} (full support){}",
            driver_full.as_ref().map(|d| d.to_string()).unwrap_or_else(|| "?".into()),
            driver_mvc
                .as_ref()
                .map(|m| format!(", or ≥ {m} under minor-version compatibility"))
                .unwrap_or_default()
        )),
        _ => {}
    }
    if c.variant == release.pypi_default {
        why.push(format!(
            "{} is the PyPI default of torch {}: plain `pip install torch=={}` gets it on Linux x86_64",
            c.variant, release.minor, c.patch
        ));
    }
    if let Some(d) = &cudnn {
        why.push(format!("it brings cuDNN {d}"));
    }
    Choice {
        framework: "torch".into(),
        version: c.patch.clone(),
        variant: Some(c.variant.to_string()),
        cuda,
        cudnn,
        companions,
        python: python_range_text(kb, &c.patch),
        python_for_new_env: new_py,
        driver_full,
        driver_mvc,
        driver_fit: c.driver_fit.name().into(),
        index_url,
        confirmed: c.arch_confirmed && tv.as_ref().is_none_or(|t| t.confirmed()),
        why,
    }
}

/// The result of the search.
pub(super) struct Search<'a> {
    pub candidates: Vec<Candidate<'a>>,
    /// The newest builds that passed everything but the driver: (candidate, needs-MVC-only).
    pub driver_only: Vec<(Candidate<'a>, bool)>,
    pub constraints: Vec<Constraint>,
}

/// Every release × variant through the constraints. `python_cap`: an upper bound on the Python
/// from another requirement (DeepLabCut), applied when the Python is not given.
pub(super) fn search<'a>(kb: &'a Kb, request: &Request, p: &Plan) -> Search<'a> {
    let fw = &kb.frameworks;
    let t = &p.target;
    let no_gpu = t.cpu_only();
    let driver = t.driver.as_ref().map(|d| (&d.version, d.ceiling));
    let spec = request.version_spec.as_deref();
    let mut ex = Exclusions::default();
    let mut candidates = Vec::new();
    let mut driver_only = Vec::new();
    for release in fw.torch_releases.iter().rev() {
        let patches: Vec<&Version> = release
            .patches
            .iter()
            .rev()
            .filter(|v| spec_allows(spec, v))
            .collect();
        if patches.is_empty() {
            ex.add(
                "version",
                String::new(),
                format!("outside {}", spec.unwrap_or("")),
                &release.minor,
            );
            continue;
        }
        let patch = match &t.python {
            None => patches[0].clone(),
            Some(py) => {
                match patches
                    .iter()
                    .find(|v| fw.torch_python(v).is_some_and(|r| r.contains(py)))
                {
                    Some(v) => (*v).clone(),
                    None => {
                        let range = python_range_text(kb, patches[0]).unwrap_or_default();
                        ex.add(
                            "python",
                            String::new(),
                            format!("no wheels for Python {py} (wheels for {range})"),
                            &release.minor,
                        );
                        continue;
                    }
                }
            }
        };
        let variants = release
            .variants
            .iter()
            .map(|v| (v, true))
            .chain(release.unconfirmed_variants.iter().map(|v| (v, false)));
        for (variant, variant_confirmed) in variants {
            match variant {
                BuildVariant::Rocm(_) | BuildVariant::Xpu => continue,
                BuildVariant::Cpu if !no_gpu => continue,
                BuildVariant::Cuda(_) if no_gpu && *variant != release.pypi_default => continue,
                _ => {}
            }
            let group = format!("{variant} builds");
            if !variant_confirmed {
                ex.add(
                    "confirmation",
                    group.clone(),
                    "whether this build exists is UNCONFIRMED in the knowledge base".into(),
                    &release.minor,
                );
                continue;
            }
            let tv = fw.torch_variant(&patch, &variant.to_string());
            let arch = tv.as_ref().and_then(|t| t.arch);
            let mut arch_confirmed = arch.is_none_or(|a| a.confirmed);
            if let (BuildVariant::Cuda(_), false) = (variant, no_gpu) {
                let Some(arch) = arch else {
                    ex.add(
                        "gpu",
                        group,
                        "its GPU architectures are not in the knowledge base".into(),
                        &release.minor,
                    );
                    continue;
                };
                arch_confirmed = arch.confirmed;
                let missing: Vec<String> = t
                    .gpus
                    .iter()
                    .filter(|g| arch_covers(arch, g.cc).is_none())
                    .map(|g| {
                        if t.gpus.len() == 1 {
                            g.cc.sm()
                        } else {
                            format!("{} ({})", g.cc.sm(), g.label)
                        }
                    })
                    .collect();
                if !missing.is_empty() {
                    ex.add(
                        "gpu",
                        group,
                        format!(
                            "no code for {} — they carry {}{}",
                            missing.join(", "),
                            sm_list(arch),
                            if arch.confirmed {
                                ""
                            } else {
                                " (UNCONFIRMED list)"
                            }
                        ),
                        &release.minor,
                    );
                    continue;
                }
            }
            let fit = match (variant.cuda(), no_gpu) {
                (Some(cuda), false) => driver_fit(kb, driver, cuda),
                _ => Some(DriverFit::NotNeeded),
            };
            let cand = Candidate {
                release,
                patch: patch.clone(),
                variant: variant.clone(),
                driver_fit: fit.unwrap_or(DriverFit::Full),
                arch_confirmed,
            };
            match fit {
                Some(DriverFit::Mvc) if !request.allow_mvc => {
                    let cuda = variant.cuda().unwrap_or(CudaVersion::new(0, 0));
                    let (full, mvc) = driver_needs(kb, cuda);
                    ex.add(
                        "driver",
                        group,
                        format!(
                            "CUDA {cuda} needs driver ≥ {} for full support; this driver ({}) runs it only under minor-version compatibility (≥ {}, no PTX JIT)",
                            full.map(|v| v.to_string()).unwrap_or_else(|| "?".into()),
                            driver.map(|d| d.0.to_string()).unwrap_or_default(),
                            mvc.map(|v| v.to_string()).unwrap_or_else(|| "?".into()),
                        ),
                        &release.minor,
                    );
                    driver_only.push((cand, true));
                }
                None => {
                    let cuda = variant.cuda().unwrap_or(CudaVersion::new(0, 0));
                    let (full, mvc) = driver_needs(kb, cuda);
                    ex.add(
                        "driver",
                        group,
                        format!(
                            "CUDA {cuda} needs driver ≥ {}{}; this driver is {}",
                            full.as_ref()
                                .map(|v| v.to_string())
                                .unwrap_or_else(|| "? (not in the knowledge base)".into()),
                            mvc.filter(|m| full.as_ref().is_none_or(|f| m < f))
                                .map(|m| format!(" (≥ {m} under minor-version compatibility)"))
                                .unwrap_or_default(),
                            driver.map(|d| d.0.to_string()).unwrap_or_default(),
                        ),
                        &release.minor,
                    );
                    driver_only.push((cand, false));
                }
                Some(_) => candidates.push(cand),
            }
        }
    }
    // Newest release first, then the best variant of each release.
    candidates.sort_by(|a, b| {
        let key = |c: &Candidate| (c.release.minor.major(), c.release.minor.minor());
        key(b)
            .cmp(&key(a))
            .then_with(|| rank(b, no_gpu).cmp(&rank(a, no_gpu)))
    });
    let mut constraints = Vec::new();
    let mut push = |kind: &str, rule: String| {
        constraints.push(Constraint {
            kind: kind.into(),
            rule,
            excluded: ex.lines(kind),
        })
    };
    if let Some(s) = spec {
        push("version", format!("the requested versions: torch{s}"));
    }
    match &t.python {
        Some(py) => push(
            "python",
            format!("wheels for Python {py} ({})", t.python_from),
        ),
        None => push("python", "any Python (none given or found)".into()),
    }
    if no_gpu {
        push(
            "gpu",
            "no NVIDIA GPU: a CPU build (or the PyPI default, which also runs without a GPU)"
                .into(),
        );
    } else {
        let gpus: Vec<String> = t.gpus.iter().map(|g| g.label.clone()).collect();
        push(
            "gpu",
            format!(
                "code for every GPU — SASS of the same major with minor ≤ the GPU's, or PTX ≤ it: {}",
                gpus.join("; ")
            ),
        );
        match &t.driver {
            Some(d) => push(
                "driver",
                format!(
                    "driver {} ({}{}) must fully support the build's CUDA (NVIDIA's Toolkit Driver Version){}",
                    d.version,
                    d.ceiling.map(|c| format!("CUDA ≤ {c}, ")).unwrap_or_default(),
                    d.source,
                    if request.allow_mvc {
                        "; --allow-mvc: minor-version compatibility accepted"
                    } else {
                        ""
                    }
                ),
            ),
            None => push("driver", "no driver given: the plan names the driver each build needs".into()),
        }
    }
    push(
        "confirmation",
        "only builds the knowledge base confirms are chosen".into(),
    );
    constraints.retain(|c| c.kind != "confirmation" || !c.excluded.is_empty());
    // Keep the newest driver-only candidate per kind (MVC, upgrade).
    let mut kept: Vec<(Candidate, bool)> = Vec::new();
    for (c, mvc) in driver_only {
        if !kept.iter().any(|(_, m)| *m == mvc) {
            kept.push((c, mvc));
        }
    }
    Search {
        candidates,
        driver_only: kept,
        constraints,
    }
}

fn newer(a: &TorchRelease, b: &TorchRelease) -> bool {
    (a.minor.major(), a.minor.minor()) > (b.minor.major(), b.minor.minor())
}

/// The oldest driver branch that fully supports a CUDA version.
fn branch_for(kb: &Kb, cuda: CudaVersion) -> Option<u32> {
    kb.first_branch_for_cuda(cuda).map(|b| b.branch)
}

/// The newest confirmed CUDA build that carries code for every GPU, ignoring everything else.
fn newest_for_gpus<'a>(kb: &'a Kb, p: &Plan) -> Option<Candidate<'a>> {
    for release in kb.frameworks.torch_releases.iter().rev() {
        let patch = release.patches.last()?.clone();
        let mut best: Option<Candidate> = None;
        for variant in &release.variants {
            let Some(_) = variant.cuda() else { continue };
            let Some(tv) = kb.frameworks.torch_variant(&patch, &variant.to_string()) else {
                continue;
            };
            let Some(arch) = tv.arch.filter(|a| a.confirmed) else {
                continue;
            };
            if p.target
                .gpus
                .iter()
                .all(|g| arch_covers(arch, g.cc).is_some())
            {
                let c = Candidate {
                    release,
                    patch: patch.clone(),
                    variant: variant.clone(),
                    driver_fit: DriverFit::NoDriverGiven,
                    arch_confirmed: arch.confirmed,
                };
                if best.as_ref().is_none_or(|b| {
                    (c.arch_confirmed, c.variant.cuda()) > (b.arch_confirmed, b.variant.cuda())
                }) {
                    best = Some(c);
                }
            }
        }
        if best.is_some() {
            return best;
        }
    }
    None
}

/// The torch plan. `python_cap`: the newest Python another requirement allows (DeepLabCut).
pub(super) fn plan_torch(kb: &Kb, request: &Request, p: &mut Plan, python_cap: Option<&Version>) {
    let s = search(kb, request, p);
    p.constraints = s.constraints.clone();
    p.verify = TORCH_VERIFY.into();
    p.docker_image = super::channels::docker_image(kb, &s.candidates);
    let best = s.candidates.first().cloned();
    if let Some(c) = &best {
        let choice = choice_for(kb, c, p.target.python.as_ref(), python_cap);
        p.commands = torch_commands(kb, &choice, c.release, p, &[]);
        p.requirements = super::commands::pip_lines(&choice, &c.release.minor, &[]);
        p.choice = Some(choice);
    }
    // Alternatives: newer builds that need only another driver (or MVC).
    for (c, mvc_only) in &s.driver_only {
        if best.as_ref().is_some_and(|b| !newer(c.release, b.release)) {
            continue;
        }
        let cuda = c.variant.cuda().unwrap_or(CudaVersion::new(0, 0));
        let (full, mvc) = driver_needs(kb, cuda);
        let full_text = full
            .as_ref()
            .map(|v| v.to_string())
            .unwrap_or_else(|| "?".into());
        if *mvc_only {
            p.alternatives.push(format!(
                "torch {}+{} also runs on this driver under CUDA minor-version compatibility (needs ≥ {}; PTX JIT and some features need full support, ≥ {full_text}); `--allow-mvc` chooses it",
                c.patch,
                c.variant,
                mvc.map(|v| v.to_string()).unwrap_or_default()
            ));
        }
        let branch = branch_for(kb, cuda);
        let blocked = p.target.gpus.iter().find(|g| {
            g.last_driver_branch
                .zip(branch)
                .is_some_and(|(last, need)| last < need)
        });
        match blocked {
            Some(g) => p.alternatives.push(format!(
                "torch {}+{} would need driver ≥ {full_text} (CUDA {cuda}), but {} is supported only up to driver branch R{}",
                c.patch,
                c.variant,
                g.label,
                g.last_driver_branch.unwrap_or(0)
            )),
            None => p.alternatives.push(format!(
                "with driver ≥ {full_text}{} torch {}+{} fits (CUDA {cuda} fully supported)",
                branch.map(|b| format!(" (branch R{b} or newer)")).unwrap_or_default(),
                c.patch,
                c.variant
            )),
        }
    }
    if best.is_none() {
        nothing_fits(kb, p);
    }
    if p.target.gpus.is_empty() && p.target.driver.is_some() {
        p.not_covered.push(
            "no GPU compute capability is known (give --gpu X.Y): whether a build carries code for the GPU is not checked".into(),
        );
    }
    if p.target.cpu_only() {
        if let Some(c) = p
            .choice
            .as_ref()
            .filter(|c| c.variant.as_deref() != Some("cpu"))
        {
            let cpu = s
                .candidates
                .iter()
                .find(|x| x.variant == BuildVariant::Cpu)
                .map(|x| format!("; the newest confirmed CPU-only build is torch {}+cpu (https://download.pytorch.org/whl/cpu)", x.patch))
                .unwrap_or_default();
            p.alternatives.push(format!(
                "torch {} has no confirmed CPU-only build in the knowledge base, so the plan takes its PyPI default ({}), which also runs without a GPU but downloads the CUDA libraries{cpu}",
                c.version,
                c.variant.as_deref().unwrap_or("?")
            ));
        }
    }
    environment_options(kb, request, p, &s.candidates);
    if let Some(c) = &best {
        if c.release.minor.major() < 2 && !p.target.gpus.is_empty() {
            p.not_covered.push(
                "torch 1.x: the knowledge base has no cuDNN/arch rows for some conda-only builds (cu113 for 1.10)".into(),
            );
        }
    }
}

fn nothing_fits(kb: &Kb, p: &mut Plan) {
    let newest = newest_for_gpus(kb, p);
    let mut needs = Vec::new();
    let choice = newest.as_ref().map(|c| {
        let ch = choice_for(kb, c, None, None);
        if let Some(py) = &ch.python {
            needs.push(format!("Python {py}"));
        }
        if let Some(cu) = ch.cuda {
            needs.push(format!(
                "CUDA {cu}: driver ≥ {}{}",
                ch.driver_full.as_ref().map(|d| d.to_string()).unwrap_or_else(|| "?".into()),
                ch.driver_mvc
                    .as_ref()
                    .map(|m| format!(" for full support, or ≥ {m} under minor-version compatibility"))
                    .unwrap_or_default()
            ));
            for g in &p.target.gpus {
                if let Some(last) = g.last_driver_branch {
                    let ceiling = kb
                        .branches
                        .iter()
                        .rfind(|b| b.branch <= last)
                        .map(|b| b.max_cuda.to_string())
                        .unwrap_or_else(|| "?".into());
                    needs.push(format!(
                        "{}: supported only up to driver branch R{last} (CUDA ≤ {ceiling} fully; newer CUDA of the same major only under minor-version compatibility)",
                        g.label
                    ));
                }
            }
        }
        ch
    });
    let reason = match &choice {
        Some(c) => format!(
            "no torch build satisfies every constraint; the newest that still carries code for {} is torch {}+{}",
            if p.target.gpus.len() == 1 { "this GPU" } else { "these GPUs" },
            c.version,
            c.variant.as_deref().unwrap_or("?")
        ),
        None => "no torch build in the knowledge base carries code for these GPUs".into(),
    };
    p.nothing_fits = Some(NothingFits {
        reason,
        newest_for_gpu: choice,
        needs,
    });
}

/// Options for an environment that has torch: smallest change first.
fn environment_options(kb: &Kb, request: &Request, p: &mut Plan, candidates: &[Candidate]) {
    let Some(env) = p.target.environment.clone() else {
        return;
    };
    let Some(installed) = env.torch.clone() else {
        return;
    };
    let (public, local) = match installed.split_once('+') {
        Some((a, b)) => (a.to_string(), Some(b.to_string())),
        None => (installed.clone(), None),
    };
    let Ok(version) = public.parse::<Version>() else {
        return;
    };
    let same = p.choice.as_ref().is_some_and(|c| {
        c.version == version && (local.is_none() || local.as_deref() == c.variant.as_deref())
    });
    if p.broken.is_empty() {
        if same {
            p.options.push(PlanOption {
                title: format!("keep torch {installed}: it already is the plan's choice"),
                cost: "nothing".into(),
                commands: Vec::new(),
            });
        }
        return;
    }
    // (a) the same torch from another variant: fully supported, else under minor-version
    // compatibility (said in the cost).
    let driver = p.target.driver.as_ref().map(|d| (&d.version, d.ceiling));
    let same_minor = kb.frameworks.torch_release(&version).and_then(|release| {
        let python_ok = p.target.python.as_ref().is_none_or(|py| {
            kb.frameworks
                .torch_python(&version)
                .is_some_and(|r| r.contains(py))
        });
        if !python_ok {
            return None;
        }
        release
            .variants
            .iter()
            .filter_map(|variant| {
                let cuda = variant.cuda()?;
                let arch = kb
                    .frameworks
                    .torch_variant(&version, &variant.to_string())?
                    .arch?;
                if !p
                    .target
                    .gpus
                    .iter()
                    .all(|g| arch_covers(arch, g.cc).is_some())
                {
                    return None;
                }
                let fit = driver_fit(kb, driver, cuda)?;
                Some(Candidate {
                    release,
                    patch: version.clone(),
                    variant: variant.clone(),
                    driver_fit: fit,
                    arch_confirmed: arch.confirmed,
                })
            })
            .max_by_key(|c| {
                (
                    c.driver_fit == DriverFit::Full,
                    c.arch_confirmed,
                    c.variant.cuda(),
                )
            })
    });
    let _ = candidates;
    if let Some(c) = same_minor {
        if local.as_deref() != Some(&c.variant.to_string()) {
            let choice = choice_for(kb, &c, p.target.python.as_ref(), None);
            let cmds = torch_commands(kb, &choice, c.release, p, &["--force-reinstall"]);
            let commands = cmds
                .into_iter()
                .find(|s| s.manager == p.manager)
                .map(|s| s.commands)
                .unwrap_or_default();
            let mvc = if c.driver_fit == DriverFit::Mvc {
                format!(
                    "; CUDA {} runs on this driver only under minor-version compatibility (no PTX JIT)",
                    c.variant.cuda().map(|v| v.to_string()).unwrap_or_default()
                )
            } else {
                String::new()
            };
            p.options.push(PlanOption {
                title: format!(
                    "reinstall torch {} (and its companions) from the {} build",
                    c.patch, c.variant
                ),
                cost: format!(
                    "keeps torch's version and the driver; downloads the {} wheels (about 1–3 GB){mvc}",
                    c.variant
                ),
                commands,
            });
        }
    }
    // (b) a driver that runs the installed build.
    if let Some(cuda) = local
        .as_deref()
        .and_then(|l| l.parse::<BuildVariant>().ok())
        .and_then(|v| v.cuda())
    {
        let tv = kb
            .frameworks
            .torch_variant(&version, &format!("cu{}{}", cuda.major, cuda.minor));
        let covers = tv
            .as_ref()
            .and_then(|t| t.arch)
            .is_some_and(|a| p.target.gpus.iter().all(|g| arch_covers(a, g.cc).is_some()));
        let driver = p.target.driver.as_ref().map(|d| (&d.version, d.ceiling));
        let fits = driver_fit(kb, driver, cuda);
        if covers && !matches!(fits, Some(DriverFit::Full)) {
            let (full, _) = driver_needs(kb, cuda);
            let branch = branch_for(kb, cuda);
            let blocked = p.target.gpus.iter().any(|g| {
                g.last_driver_branch
                    .zip(branch)
                    .is_some_and(|(last, need)| last < need)
            });
            if let (Some(full), false) = (full, blocked) {
                p.options.push(PlanOption {
                    title: format!(
                        "upgrade the driver to ≥ {full}{} so torch {installed} runs with full CUDA {cuda} support",
                        branch.map(|b| format!(" (branch R{b} or newer)")).unwrap_or_default()
                    ),
                    cost: "needs root and a reboot; keeps the environment as it is".into(),
                    commands: Vec::new(),
                });
            }
        }
    }
    // (c) the plan's choice.
    if let Some(c) = &p.choice {
        if !same {
            let commands = p
                .commands
                .iter()
                .find(|s| s.manager == p.manager)
                .map(|s| s.commands.clone())
                .unwrap_or_default();
            p.options.push(PlanOption {
                title: format!(
                    "install torch {}+{} (the newest that fits)",
                    c.version,
                    c.variant.as_deref().unwrap_or("")
                ),
                cost: if c.version == version {
                    "keeps torch's version".into()
                } else {
                    format!(
                        "changes torch from {public} to {}: code and other packages that depend on torch may need changes",
                        c.version
                    )
                },
                commands,
            });
        }
    }
    let _ = request;
}
