//! The commands and environment files of a plan, per manager. Forms follow framework-facts 1.6
//! (PyTorch's previous-versions page and install selector): `--index-url` from 2.0,
//! `--extra-index-url` with local labels for 1.11–1.13, `-f torch_stable.html` for 1.7–1.10;
//! conda: `-c pytorch` only while the release row says `conda_pytorch_channel` (2.5 was the last),
//! otherwise pip inside conda (conda-forge's own builds are not in the knowledge base).

use gpuenv_kb::frameworks::TorchRelease;
use gpuenv_kb::{Kb, Version};

use super::{Choice, CommandSet, Manager, Plan};

/// The one-line check after installing torch.
pub(super) const TORCH_VERIFY: &str = "python -c \"import torch; print(torch.__version__, torch.version.cuda, torch.cuda.is_available(), torch.cuda.get_arch_list())\"";

/// What `--emit` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EmitKind {
    Requirements,
    EnvironmentYml,
    PixiToml,
    Dockerfile,
}

impl EmitKind {
    /// The file name it is written to.
    pub fn file_name(self) -> &'static str {
        match self {
            EmitKind::Requirements => "requirements.txt",
            EmitKind::EnvironmentYml => "environment.yml",
            EmitKind::PixiToml => "pixi.toml",
            EmitKind::Dockerfile => "Dockerfile",
        }
    }
}

/// The pip requirement lines of a choice: index option first, then the pins (`extra`: more
/// requirements, such as `deeplabcut[gui]==3.0.2`).
pub(super) fn pip_lines(choice: &Choice, minor: &Version, extra: &[String]) -> Vec<String> {
    let mut lines = Vec::new();
    let variant = choice.variant.clone().unwrap_or_default();
    let old = minor.major() < 2;
    let local = |v: &str| {
        if old || !extra.is_empty() {
            format!("{v}+{variant}")
        } else {
            v.to_string()
        }
    };
    if let Some(url) = &choice.index_url {
        if old && minor.minor() <= 10 {
            lines.push("-f https://download.pytorch.org/whl/torch_stable.html".into());
        } else if old || !extra.is_empty() {
            lines.push(format!("--extra-index-url {url}"));
        } else {
            lines.push(format!("--index-url {url}"));
        }
    }
    let pinned = choice.index_url.is_some();
    lines.push(format!(
        "{}=={}",
        choice.framework,
        if pinned {
            local(choice.version.as_str())
        } else {
            choice.version.to_string()
        }
    ));
    for c in &choice.companions {
        let v = if pinned && c.name == "torchvision" {
            local(&c.version)
        } else {
            c.version.clone()
        };
        lines.push(format!("{}=={v}", c.name));
    }
    lines.extend(extra.iter().cloned());
    lines
}

fn quote(arg: &str) -> String {
    if arg.contains(['[', ']', '<', '>', '*', ' ']) {
        format!("'{arg}'")
    } else {
        arg.to_string()
    }
}

/// `pip install` with the lines: pins as arguments, index options after them.
pub(super) fn pip_command(prefix: &str, lines: &[String], flags: &[&str]) -> String {
    let (opts, reqs): (Vec<&String>, Vec<&String>) = lines.iter().partition(|l| l.starts_with('-'));
    let mut parts: Vec<String> = vec![prefix.to_string()];
    parts.extend(flags.iter().map(|f| f.to_string()));
    parts.extend(reqs.iter().map(|r| quote(r)));
    parts.extend(opts.iter().map(|o| o.to_string()));
    parts.join(" ")
}

/// The environment's name for new environments.
pub(super) fn env_name(p: &Plan) -> String {
    match &p.target.environment {
        Some(e) => e.name.clone(),
        None => p.framework.name().to_string(),
    }
}

/// The torch commands for every manager (the plan's manager first).
pub(super) fn torch_commands(
    _kb: &Kb,
    choice: &Choice,
    release: &TorchRelease,
    p: &Plan,
    flags: &[&str],
) -> Vec<CommandSet> {
    let lines = pip_lines(choice, &release.minor, &[]);
    generic_commands(choice, Some(release), p, &lines, flags)
}

/// Commands for every manager from the pip lines of a plan.
pub(super) fn generic_commands(
    choice: &Choice,
    release: Option<&TorchRelease>,
    p: &Plan,
    lines: &[String],
    flags: &[&str],
) -> Vec<CommandSet> {
    let name = env_name(p);
    let py = choice
        .python_for_new_env
        .as_ref()
        .map(|v| format!("{}.{}", v.major(), v.minor()))
        .unwrap_or_else(|| "3".into());
    let existing = p.target.environment.is_some();
    let mut sets = Vec::new();
    sets.push(CommandSet {
        manager: Manager::Pip,
        commands: {
            let mut c = Vec::new();
            if !existing {
                c.push(format!(
                    "python{py} -m venv {name} && . {name}/bin/activate"
                ));
            }
            c.push(pip_command("python -m pip install", lines, flags));
            c
        },
        notes: Vec::new(),
    });
    sets.push(CommandSet {
        manager: Manager::Uv,
        commands: {
            let mut c = Vec::new();
            if !existing {
                c.push(format!("uv venv --python {py} {name} && . {name}/bin/activate"));
            }
            c.push(pip_command("uv pip install", lines, flags));
            c
        },
        notes: match &choice.variant {
            Some(v) if choice.framework == "torch" || choice.framework == "deeplabcut" => vec![format!(
                "or `uv pip install ... --torch-backend={v}` where your uv knows that backend (never `--torch-backend=auto`: it picks by driver alone, not by the GPU's architecture)"
            )],
            _ => Vec::new(),
        },
    });
    let mut conda_notes = Vec::new();
    if let (Some(r), Some(cuda)) = (release, choice.cuda) {
        if r.conda_pytorch_channel && choice.framework == "torch" {
            let companions: Vec<String> = choice
                .companions
                .iter()
                .map(|c| format!("{}=={}", c.name, c.version))
                .collect();
            let form = if r.minor.major() < 2 && r.minor.minor() <= 12 && r.minor.major() == 1 {
                format!("cudatoolkit={cuda} -c pytorch")
            } else {
                format!("pytorch-cuda={cuda} -c pytorch -c nvidia")
            };
            conda_notes.push(format!(
                "torch {} was also published to PyTorch's conda channel: `conda install pytorch=={} {} {form}` (whether that channel has this exact CUDA build is not in the knowledge base)",
                r.minor,
                choice.version,
                companions.join(" ")
            ));
        } else if choice.framework == "torch" || choice.framework == "deeplabcut" {
            conda_notes.push(format!(
                "PyTorch stopped publishing to its conda channel after 2.5 (torch {} has no `-c pytorch` package): these commands use pip inside conda (the exact build chosen above)",
                r.minor
            ));
        }
    }
    sets.push(CommandSet {
        manager: Manager::Conda,
        commands: {
            let mut c = Vec::new();
            if !existing {
                c.push(format!(
                    "conda create -y -n {name} -c conda-forge python={py} pip"
                ));
            }
            c.push(format!("conda activate {name}"));
            c.push(pip_command("python -m pip install", lines, flags));
            c
        },
        notes: conda_notes,
    });
    sets.push(CommandSet {
        manager: Manager::Pixi,
        commands: vec![
            "gpuenv plan ... --emit pixi.toml   # this plan as pixi.toml".into(),
            "pixi install".into(),
        ],
        notes: vec![
            "pixi.toml pins the PyPI packages with a per-package `index` (pixi's pypi-dependencies)".into(),
        ],
    });
    sets.push(CommandSet {
        manager: Manager::Docker,
        commands: vec![
            "gpuenv plan ... --emit Dockerfile   # this plan as a Dockerfile".into(),
            format!("docker build -t {name} ."),
            format!("docker run --rm --gpus all {name}"),
        ],
        notes: vec![
            format!("the knowledge base has no sourced PyTorch/NGC image tags; the Dockerfile installs the same pins on python:{py}-slim. The host needs the driver above and the NVIDIA Container Toolkit"),
        ],
    });
    if let Some(i) = sets.iter().position(|s| s.manager == p.manager) {
        let s = sets.remove(i);
        sets.insert(0, s);
    }
    sets
}

/// The text of an environment file for a plan (`None`: nothing was chosen).
pub fn emit_file(p: &Plan, kind: EmitKind) -> Option<String> {
    let choice = p.choice.as_ref()?;
    let lines = p.requirements.clone();
    let name = env_name(p);
    let py = choice
        .python_for_new_env
        .as_ref()
        .map(|v| format!("{}.{}", v.major(), v.minor()))
        .unwrap_or_else(|| "3.12".into());
    let header = format!(
        "gpuenv plan: {} {}{} for {}; Python {}",
        choice.framework,
        choice.version,
        choice
            .variant
            .as_ref()
            .map(|v| format!(" ({v})"))
            .unwrap_or_default(),
        target_text(p),
        py,
    );
    Some(match kind {
        EmitKind::Requirements => {
            let mut s = format!("# {header}\n");
            for l in &lines {
                s.push_str(l);
                s.push('\n');
            }
            s
        }
        EmitKind::EnvironmentYml => {
            let mut s = format!(
                "# {header}\nname: {name}\nchannels:\n  - conda-forge\ndependencies:\n  - python={py}\n  - pip\n"
            );
            for c in &p.conda_packages {
                s.push_str(&format!("  - {c}\n"));
            }
            s.push_str("  - pip:\n");
            for l in &lines {
                s.push_str(&format!("    - {l}\n"));
            }
            s
        }
        EmitKind::PixiToml => {
            let mut s = format!(
                "# {header}\n[workspace]\nname = \"{name}\"\nchannels = [\"conda-forge\"]\nplatforms = [\"linux-64\"]\n\n[dependencies]\npython = \"{py}.*\"\n"
            );
            for c in &p.conda_packages {
                s.push_str(&format!("{c} = \"*\"\n"));
            }
            s.push_str("\n[pypi-dependencies]\n");
            let index = choice.index_url.clone();
            for l in lines.iter().filter(|l| !l.starts_with('-')) {
                let (pkg, version) = split_requirement(l);
                let pkg_name = pkg.split('[').next().unwrap_or(pkg);
                let extras: Vec<&str> = pkg
                    .split_once('[')
                    .map(|(_, e)| e.trim_end_matches(']').split(',').collect())
                    .unwrap_or_default();
                let mut fields = vec![format!("version = \"{version}\"")];
                if !extras.is_empty() {
                    fields.push(format!(
                        "extras = [{}]",
                        extras
                            .iter()
                            .map(|e| format!("\"{e}\""))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ));
                }
                let from_index = matches!(pkg_name, "torch" | "torchvision" | "torchaudio");
                if let (Some(url), true) = (&index, from_index) {
                    fields.push(format!("index = \"{url}\""));
                }
                s.push_str(&format!("{pkg_name} = {{ {} }}\n", fields.join(", ")));
            }
            s
        }
        EmitKind::Dockerfile => {
            let base = match &p.docker_image {
                Some(img) if img.same_as_choice => img.image.clone(),
                _ => format!("python:{py}-slim"),
            };
            let mut s = format!(
                "# {header}\n# The host needs the NVIDIA driver and the NVIDIA Container Toolkit; run with --gpus all.\nFROM {base}\n"
            );
            s.push_str(&format!(
                "RUN {}\n",
                pip_command("python -m pip install --no-cache-dir", &lines, &[])
            ));
            s.push_str(&format!("CMD {}\n", docker_cmd(&p.verify)));
            s
        }
    })
}

fn split_requirement(line: &str) -> (&str, String) {
    match line.find(['<', '>', '=', '!', '~']) {
        Some(i) => (line[..i].trim(), line[i..].trim().to_string()),
        None => (line.trim(), "*".to_string()),
    }
}

fn docker_cmd(verify: &str) -> String {
    // `python -c "..."` as an exec-form JSON array.
    match verify.strip_prefix("python -c ") {
        Some(code) => {
            let code = code
                .trim_matches('"')
                .replace('\\', "\\\\")
                .replace('"', "\\\"");
            format!("[\"python\", \"-c\", \"{code}\"]")
        }
        None => format!("[\"sh\", \"-c\", \"{}\"]", verify.replace('"', "\\\"")),
    }
}

/// The target in words, for file headers.
pub(super) fn target_text(p: &Plan) -> String {
    let gpus = if p.target.gpus.is_empty() {
        "no GPU".to_string()
    } else {
        p.target
            .gpus
            .iter()
            .map(|g| g.cc.sm())
            .collect::<Vec<_>>()
            .join(", ")
    };
    match &p.target.driver {
        Some(d) => format!("{gpus}, driver {}", d.version),
        None => gpus,
    }
}
