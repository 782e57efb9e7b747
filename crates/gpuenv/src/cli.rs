//! The command line: raw flags (clap) and their resolution into settings for a run.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

/// gpuenv finds out why a GPU deep-learning stack is broken and says exactly how to fix it.
///
/// It reads files only (no nvidia-smi, no ldd, no Python import); on the running machine it may
/// also ask NVML and the CUDA driver API, each with a timeout (GPUENV_NO_NVML=1 turns that off).
#[derive(Debug, Parser)]
#[command(name = "gpuenv", version = crate::version_text(), propagate_version = true)]
pub struct Cli {
    #[command(flatten)]
    pub global: GlobalArgs,

    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Debug, Args)]
pub struct GlobalArgs {
    /// Inspect the machine whose root file system is DIR instead of this one (a container image,
    /// a chroot, a mounted disk, a test fixture). NVML and the driver API are used only for `/`.
    #[arg(long, global = true, value_name = "DIR", default_value = "/")]
    pub root: PathBuf,

    /// Load a knowledge-base file whose tables replace the built-in ones (see `gpuenv kb --help`).
    #[arg(long, global = true, value_name = "FILE", env = "GPUENV_KB")]
    pub kb: Option<PathBuf>,

    /// Output format.
    #[arg(long, global = true, value_enum, default_value_t = Format::Human)]
    pub format: Format,

    /// Show every fact with where it came from.
    #[arg(short, long, global = true)]
    pub verbose: bool,

    /// When to use colour (NO_COLOR turns it off for `auto`).
    #[arg(long, global = true, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// A summary per layer, then the findings with evidence and fixes.
    Human,
    /// The `gpuenv.report/1` JSON object (schema: schemas/report.schema.json).
    Json,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ColorChoice {
    Auto,
    Always,
    Never,
}

/// Which Python environments doctor reads in full.
#[derive(Debug, Clone, Default, Args)]
pub struct DoctorArgs {
    /// Also inspect this Python environment (a prefix or an interpreter); repeatable.
    #[arg(long = "python", value_name = "PATH")]
    pub python: Vec<String>,

    /// Report every Python environment in full (default: the active one in full, the others listed).
    #[arg(long)]
    pub all_envs: bool,

    /// Report this environment in full (a conda environment's name or a prefix); repeatable.
    #[arg(long = "env", value_name = "NAME|PATH", conflicts_with = "all_envs")]
    pub env: Vec<String>,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Probe every layer (OS, driver, GPUs, CUDA, cuDNN) and check every version contract (the default).
    ///
    /// Exit status: 0 no error findings, 1 at least one error finding, 2 usage or internal failure.
    Doctor(DoctorArgs),
    /// List the environment variables gpuenv reads, with what each does.
    Env,
    /// Show the knowledge base: its date, sources and table sizes.
    ///
    /// A newer knowledge base can be loaded without rebuilding with `--kb FILE` (or GPUENV_KB):
    /// one TOML file holding any of the built-in tables — `[[toolkit]]`, `[[cuda_major]]`,
    /// `[[branch]]`, `[[cc]]`, `[[release]]`, `[[layout]]`, `[[dlopen]]` — each of which replaces the built-in
    /// table of that name, plus `[[source]]` rows that every row's `sources` must cite, and an
    /// optional `as_of`. The built-in files (crates/gpuenv-kb/data/*.toml) show every field.
    Kb,
    /// List the GPU code a binary carries (SASS `sm_XY`, PTX `compute_XY`, from its CUDA fatbin)
    /// and say whether each GPU runs it natively, through PTX JIT (and which driver that needs), or
    /// not at all. Reads only the fatbin headers; nothing is executed or decompressed.
    ///
    /// Exit status: 0 every GPU runs it (or the file has no GPU code, or no GPU is known),
    /// 1 a GPU has no code it can run (or, on this machine, a driver too old for the PTX it
    /// needs), 2 the file cannot be read, is not ELF, or its fatbin is malformed.
    Archs(ArchsArgs),
    /// Show which file the dynamic loader would load for every library FILE needs, and why:
    /// glibc's search (RPATH chain, LD_LIBRARY_PATH, RUNPATH, ld.so.cache, default directories)
    /// simulated from files — nothing is executed — plus the knowledge base's dlopen edges
    /// (libcudart -> libcuda.so.1, cuDNN sub-libraries, torch/JAX/TensorFlow CUDA loading).
    ///
    /// Exit status: 0 everything resolves, 1 something is missing, 2 FILE cannot be read or is not
    /// an ELF executable or shared object.
    Ldd(LddArgs),
    /// Explain an error message: the most likely root causes, ranked, with the log lines that
    /// support each, what on this machine confirms or rules it out, and the exact fix.
    ///
    /// Reads FILE, `-` (stdin) or --text; or runs `gpuenv explain -- COMMAND ARGS...`, passes its
    /// output through, keeps its exit status and explains its output when it fails (the
    /// explanation goes to stderr). Unless --no-probe or --report, the machine (or --root) is
    /// probed as doctor does and its facts refine the ranking.
    ///
    /// Exit status: 0 explained (or nothing recognised), 2 the input cannot be read; with a
    /// command, the command's own exit status.
    Explain(ExplainArgs),
}

/// `gpuenv explain [FILE | - | --text TEXT | -- COMMAND ARGS...]`
#[derive(Debug, Clone, Args)]
pub struct ExplainArgs {
    /// A log file to explain, or `-` for stdin.
    #[arg(value_name = "FILE", conflicts_with = "text")]
    pub file: Option<PathBuf>,

    /// The error text itself.
    #[arg(long, value_name = "TEXT")]
    pub text: Option<String>,

    /// Explain from the text alone: do not probe this machine (for logs from elsewhere).
    #[arg(long)]
    pub no_probe: bool,

    /// Use the facts of a saved `gpuenv doctor --format json` report (the machine the log came
    /// from) instead of probing this one.
    #[arg(long, value_name = "FILE", conflicts_with = "no_probe")]
    pub report: Option<PathBuf>,

    /// The command to run and explain when it fails (after `--`).
    #[arg(last = true, value_name = "COMMAND")]
    pub command: Vec<String>,
}

/// `gpuenv ldd FILE`
#[derive(Debug, Clone, Args)]
pub struct LddArgs {
    /// The ELF executable or shared object (a path inside --root when given).
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
}

/// `gpuenv archs FILE [--gpu CC]...`
#[derive(Debug, Clone, Args)]
pub struct ArchsArgs {
    /// The ELF file (a shared library, an executable, a Python extension module).
    #[arg(value_name = "FILE")]
    pub file: PathBuf,

    /// Judge for these compute capabilities (`8.6`, `sm_90`; repeatable or comma-separated)
    /// instead of the GPUs found on this machine (or under --root).
    #[arg(long = "gpu", value_name = "CC", value_delimiter = ',')]
    pub gpus: Vec<gpuenv_kb::ComputeCapability>,
}
