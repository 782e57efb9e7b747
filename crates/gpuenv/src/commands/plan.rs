//! `gpuenv plan`: the target (this machine as doctor reads it, or --gpu/--no-gpu/--driver for
//! another), the pure choice (`gpuenv_check::plan`), then the human or JSON rendering and
//! `--emit`, which writes the file atomically and never replaces one without `--force`.

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{bail, Context as _, Result};

use gpuenv_check::plan::{self, EmitKind, Framework, Manager, Request, Target};
use gpuenv_check::{run_checks, Context};
use gpuenv_kb::{ComputeCapability, Version};
use gpuenv_probe::python::{FullSelection, PythonOptions};
use gpuenv_probe::{probe_all_with, Environment, ProbeOptions, SystemRoot};

use crate::cli::{Format, GlobalArgs, PlanArgs, PlanEmit, PlanFramework, PlanManager};
use crate::commands::load_kb;
use crate::render;

pub fn run(global: &GlobalArgs, args: &PlanArgs) -> Result<ExitCode> {
    let kb = load_kb(global)?;
    let explicit = !args.gpu.is_empty() || args.no_gpu || args.driver.is_some();
    let mut findings = Vec::new();
    let mut target = if explicit {
        Target::unconstrained()
    } else {
        let root = SystemRoot::new(&global.root)
            .with_context(|| format!("--root {}", global.root.display()))?;
        let env = Environment::from_process();
        let options = ProbeOptions {
            python: PythonOptions {
                extra: Vec::new(),
                full: FullSelection::Active,
            },
        };
        let facts = probe_all_with(&root, &env, &kb, &options);
        findings = run_checks(&facts, &kb);
        Target::from_context(&Context::new(&facts, &kb))
    };
    if !args.gpu.is_empty() {
        let ccs = args
            .gpu
            .iter()
            .map(|g| {
                g.parse::<ComputeCapability>()
                    .map_err(|e| anyhow::anyhow!("--gpu {g}: {e}"))
            })
            .collect::<Result<Vec<_>>>()?;
        target.set_gpus(&kb, &ccs, "--gpu");
    }
    if args.no_gpu {
        target.gpus.clear();
        target.gpus_from = "--no-gpu".into();
    }
    if let Some(d) = &args.driver {
        let v: Version = d
            .parse()
            .map_err(|e| anyhow::anyhow!("--driver {d}: {e}"))?;
        target.set_driver(&kb, v, "--driver");
    }
    if let Some(py) = &args.python {
        let v: Version = py
            .parse()
            .map_err(|e| anyhow::anyhow!("--python {py}: {e}"))?;
        if v.major() != 3 || v.parts().len() < 2 {
            bail!("--python {py}: expected 3.X");
        }
        target.python = Some(v);
        target.python_from = "--python".into();
    }
    let mut request = Request {
        framework: args.framework.map(|f| match f {
            PlanFramework::Torch => Framework::Torch,
            PlanFramework::Tensorflow => Framework::Tensorflow,
            PlanFramework::Jax => Framework::Jax,
            PlanFramework::Deeplabcut => Framework::Deeplabcut,
        }),
        manager: args.manager.map(|m| match m {
            PlanManager::Pip => Manager::Pip,
            PlanManager::Uv => Manager::Uv,
            PlanManager::Conda => Manager::Conda,
            PlanManager::Pixi => Manager::Pixi,
            PlanManager::Docker => Manager::Docker,
        }),
        allow_mvc: args.allow_mvc,
        ..Request::default()
    };
    if let Some(spec) = &args.version {
        let (name, spec) =
            plan::parse_version_spec(spec).map_err(|e| anyhow::anyhow!("--version: {e}"))?;
        if request.framework.is_none() {
            request.framework = match name.as_deref() {
                Some("deeplabcut") => Some(Framework::Deeplabcut),
                Some("tensorflow") => Some(Framework::Tensorflow),
                Some("jax") => Some(Framework::Jax),
                Some("torch") => None,
                Some(other) => bail!("--version: unknown framework {other:?}"),
                None => None,
            };
        }
        request.version_name = name;
        request.version_spec = Some(spec);
    }
    let p = plan::plan(&kb, target, &request, &findings);
    let stdout = io::stdout();
    let mut out = stdout.lock();
    if let Some(emit) = args.emit {
        let kind = match emit {
            PlanEmit::Requirements => EmitKind::Requirements,
            PlanEmit::EnvironmentYml => EmitKind::EnvironmentYml,
            PlanEmit::PixiToml => EmitKind::PixiToml,
            PlanEmit::Dockerfile => EmitKind::Dockerfile,
        };
        let Some(text) = plan::emit_file(&p, kind) else {
            render_plan(&mut out, global, &p)?;
            bail!("nothing fits: no file written");
        };
        let path = args
            .output
            .clone()
            .unwrap_or_else(|| PathBuf::from(kind.file_name()));
        write_atomically(&path, &text, args.force)?;
        if global.format == Format::Human {
            writeln!(out, "wrote {}", path.display())?;
            out.flush()?;
            return Ok(ExitCode::SUCCESS);
        }
    }
    render_plan(&mut out, global, &p)?;
    out.flush()?;
    Ok(if p.choice.is_some() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

fn render_plan(out: &mut dyn Write, global: &GlobalArgs, p: &plan::Plan) -> Result<()> {
    match global.format {
        Format::Json => {
            serde_json::to_writer_pretty(&mut *out, p)?;
            writeln!(out)?;
        }
        _ => render::plan::render(out, p)?,
    }
    Ok(())
}

/// Writes `text` to a temporary file next to `path`, then moves it into place: with `force` by
/// rename (replacing), without by hard link (which fails if `path` exists), so an existing file
/// is never replaced and a reader never sees half a file.
fn write_atomically(path: &Path, text: &str, force: bool) -> Result<()> {
    if !force && path.exists() {
        bail!("{} exists (use --force to replace it)", path.display());
    }
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "plan".into());
    let tmp = dir.join(format!(".{name}.gpuenv-{}.tmp", std::process::id()));
    {
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)
            .with_context(|| format!("cannot create {}", tmp.display()))?;
        f.write_all(text.as_bytes())?;
        f.sync_all()?;
    }
    let result = if force {
        std::fs::rename(&tmp, path)
    } else {
        std::fs::hard_link(&tmp, path)
    };
    let cleanup = if force {
        Ok(())
    } else {
        std::fs::remove_file(&tmp)
    };
    if let Err(e) = result {
        let _ = std::fs::remove_file(&tmp);
        return Err(e).with_context(|| format!("cannot write {}", path.display()));
    }
    cleanup.with_context(|| format!("cannot remove {}", tmp.display()))?;
    Ok(())
}
