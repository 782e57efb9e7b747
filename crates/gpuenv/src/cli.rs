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
    /// A report to paste into an issue tracker: the summary table, the findings, the facts in a
    /// collapsed block (`doctor` only; add `--redact` before sharing).
    Markdown,
    /// The Prometheus text exposition format (`doctor` only): findings, stack info and per-GPU
    /// metrics, for node_exporter's textfile collector (write it with `-o FILE`).
    Prometheus,
    /// One self-contained HTML page (`fleet` only): the node × layer matrix, filterable.
    Html,
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

    /// Replace the home directory, user name, host name and anything that looks like a secret
    /// (tokens, keys, passwords in URLs) before printing, in every format.
    #[arg(long)]
    pub redact: bool,

    /// Write the report to FILE atomically (a temporary file in the same directory, then a
    /// rename), as node_exporter's textfile collector requires; default: standard output.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<PathBuf>,

    /// Also store this run in the history database (see `gpuenv history`).
    #[arg(long)]
    pub record: bool,

    /// The history database (default: $XDG_STATE_HOME/gpuenv/history.sqlite).
    #[arg(long, value_name = "PATH", env = "GPUENV_HISTORY_DB")]
    pub db: Option<PathBuf>,
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
    /// one TOML file holding any of the built-in tables — NVIDIA's `[[toolkit]]`, `[[cuda_major]]`,
    /// `[[branch]]`, `[[cc]]`, `[[release]]`, `[[layout]]`, `[[dlopen]]`, `[[ptx_isa]]` and the
    /// frameworks' `[[torch_release]]`, `[[torch_cudnn]]`, `[[torch_arch]]`, `[[torch_wheel]]`,
    /// `[[torchvision]]`, `[[torchaudio]]`, `[[tensorflow]]`, `[[tensorflow_arch]]`,
    /// `[[jax_release]]`, `[[jax_plugin]]`, `[[deeplabcut]]`, `[[conflict]]`, `[[torch_docker]]`,
    /// `[[conda_forge_torch]]` — each of which replaces the built-in table of that name, whole, plus
    /// `[[source]]` rows that every row's `sources` must cite, and an optional `as_of`. The built-in
    /// files (crates/gpuenv-kb/data/*.toml and data/frameworks/*.toml) show every field.
    Kb,
    /// List every check and `explain` category with its id, layer and one line; with an ID, print
    /// its full explanation, what triggers it and the fix (the text of docs/rules/ID.md).
    Rules(RulesArgs),
    /// Print a shell completion script (bash, zsh, fish) generated from the command line.
    ///
    /// bash: `gpuenv completions bash > ~/.local/share/bash-completion/completions/gpuenv`;
    /// zsh: into a directory on `$fpath` as `_gpuenv`; fish: `~/.config/fish/completions/gpuenv.fish`.
    Completions(CompletionsArgs),
    /// Print the man page (roff), generated from the command line: `gpuenv man > gpuenv.1`.
    Man,
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
    /// Choose the newest framework build that fits the GPUs, the driver and the Python — from
    /// the knowledge base's tables — and print why, what each constraint excluded, and the exact
    /// commands (pip, uv, conda, pixi, docker) with a verification command.
    ///
    /// Reads this machine (or --root) as doctor does, unless --gpu, --no-gpu or --driver describe
    /// another machine. Exit status: 0 a build fits, 1 nothing fits, 2 usage or internal failure.
    #[command(disable_version_flag = true)]
    Plan(PlanArgs),
    /// Prove the stack works: run a small GPU workload (import, the framework's CUDA view, a
    /// matrix product and a cuDNN convolution per GPU, peak memory, the CUDA libraries really
    /// mapped) with the environment's own Python, in a child process with a timeout; explain a
    /// failure with this machine's facts and name doctor's finding behind it. Runs only when asked.
    ///
    /// Exit status: 0 every step passed, 1 a step failed, timed out or crashed, 2 usage or
    /// internal failure (no such environment, no framework, no interpreter).
    Verify(VerifyArgs),
    /// Merge many nodes' doctor reports: each node's stack in one row, the majority of every
    /// layer and the nodes that differ, nodes with error findings, groups of identical stacks.
    ///
    /// PATH is a report file (one JSON document, or JSON lines), a directory of them (`*.json`,
    /// `*.jsonl`, recursively), or `-` for JSON lines on stdin. Malformed reports, other schema
    /// versions and duplicate hosts are listed, not fatal. `--format human|json|markdown|html`.
    ///
    /// Exit status: 0 no node has an error finding and every report was used, 1 otherwise, 2
    /// usage or internal failure.
    Fleet(FleetArgs),
    /// A read-only Prometheus exporter: `GET /metrics` (doctor's `--format prometheus`) and
    /// `GET /report.json` (the `gpuenv.report/1` object), probing this machine (or --root) at most
    /// every --interval seconds and serving the cached result in between.
    ///
    /// Loopback only unless --listen says otherwise. Requests are bounded (8 KiB, 5 s); nothing
    /// but these two paths is served.
    Serve(ServeArgs),
    /// Save the whole stack as observed — every fact doctor has, per layer and per environment
    /// (all environments read in full), with the findings, time and host — as `gpuenv.snapshot/1`
    /// JSON, written atomically (`-o FILE`; default: standard output).
    Snapshot(SnapshotArgs),
    /// Show what changed between two snapshots (files, saved doctor JSON reports, or `now`),
    /// grouped by layer and environment, and the contracts the changes broke (findings present
    /// in B and not in A), with their fixes. `--format json` for the `gpuenv.diff/1` object.
    ///
    /// Exit status: 0 nothing changed, 1 something changed, 2 a file cannot be read.
    Diff(DiffArgs),
    /// Compare this machine (or --root) with a baseline snapshot, for cron, systemd timers and CI.
    ///
    /// Exit status: 0 nothing that matters changed (after --ignore), 1 something did (the diff is
    /// printed), 2 the baseline cannot be read or another error.
    Check(CheckArgs),
    /// List the recorded runs (`doctor --record`, `snapshot --record`) and what changed between
    /// consecutive runs of the same machine.
    History(HistoryArgs),
}

/// `gpuenv snapshot [-o FILE] [--record]`
#[derive(Debug, Clone, Default, Args)]
pub struct SnapshotArgs {
    /// Write the snapshot to FILE (atomically); default: standard output.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<PathBuf>,

    /// Also inspect this Python environment (a prefix or an interpreter); repeatable.
    #[arg(long = "python", value_name = "PATH")]
    pub python: Vec<String>,

    /// Read only these environments in full (name or prefix; default: every environment).
    #[arg(long = "env", value_name = "NAME|PATH")]
    pub env: Vec<String>,

    /// Also store it in the history database.
    #[arg(long)]
    pub record: bool,

    /// The history database (default: $XDG_STATE_HOME/gpuenv/history.sqlite).
    #[arg(long, value_name = "PATH", env = "GPUENV_HISTORY_DB")]
    pub db: Option<PathBuf>,
}

/// `gpuenv diff A B`
#[derive(Debug, Clone, Args)]
pub struct DiffArgs {
    /// The earlier side: a snapshot file, a saved doctor JSON report, or `now`.
    #[arg(value_name = "A")]
    pub a: String,

    /// The later side: a snapshot file, a saved doctor JSON report, or `now`.
    #[arg(value_name = "B")]
    pub b: String,

    /// Leave out changes whose key, subject or environment matches this glob (`*` and `?`), and
    /// new findings with a matching id; repeatable. Keys look like `L5:/home/u/venv:dist:numpy`.
    #[arg(long, value_name = "PATTERN")]
    pub ignore: Vec<String>,
}

/// `gpuenv check --baseline FILE`
#[derive(Debug, Clone, Args)]
pub struct CheckArgs {
    /// The snapshot (or doctor JSON report) to compare this machine with.
    #[arg(long, value_name = "FILE")]
    pub baseline: PathBuf,

    /// Let what matches this glob drift (see `gpuenv diff --help`); repeatable.
    #[arg(long, value_name = "PATTERN")]
    pub ignore: Vec<String>,
}

/// `gpuenv history [--since 7d] [--env NAME] [--keep 90d]`
#[derive(Debug, Clone, Args)]
pub struct HistoryArgs {
    /// Only runs newer than this age (`7d`, `12h`, `2w`).
    #[arg(long, value_name = "AGE")]
    pub since: Option<String>,

    /// Only changes of this Python environment (name or prefix).
    #[arg(long, value_name = "NAME|PATH")]
    pub env: Option<String>,

    /// Delete runs older than this age first (`90d`); retention for cron jobs.
    #[arg(long, value_name = "AGE")]
    pub keep: Option<String>,

    /// The history database (default: $XDG_STATE_HOME/gpuenv/history.sqlite).
    #[arg(long, value_name = "PATH", env = "GPUENV_HISTORY_DB")]
    pub db: Option<PathBuf>,
}

/// `gpuenv verify [--env NAME|PATH] [--framework F] [--timeout SECONDS]`
#[derive(Debug, Clone, Args)]
pub struct VerifyArgs {
    /// The environment to verify: a conda environment's name or a prefix (default: the active
    /// one, else the one `python` on PATH belongs to).
    #[arg(long, value_name = "NAME|PATH")]
    pub env: Option<String>,

    /// The framework to exercise (default: torch, else tensorflow, else jax, whichever is installed).
    #[arg(long, value_enum)]
    pub framework: Option<VerifyFramework>,

    /// Kill the workload (its whole process group) after this many seconds.
    #[arg(long, value_name = "SECONDS", default_value_t = 120)]
    pub timeout: u64,
}

/// A framework `gpuenv verify` knows how to exercise.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum VerifyFramework {
    Torch,
    Tensorflow,
    Jax,
}

impl VerifyFramework {
    pub fn as_str(self) -> &'static str {
        match self {
            VerifyFramework::Torch => "torch",
            VerifyFramework::Tensorflow => "tensorflow",
            VerifyFramework::Jax => "jax",
        }
    }
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

/// `gpuenv rules [ID]`
#[derive(Debug, Clone, Args)]
pub struct RulesArgs {
    /// A check id (`driver-missing`) or explain category id (`cudnn-missing`).
    #[arg(value_name = "ID")]
    pub id: Option<String>,

    /// Write every page as Markdown into DIR (how docs/rules/ is generated).
    #[arg(long, value_name = "DIR", hide = true, conflicts_with = "id")]
    pub write_docs: Option<std::path::PathBuf>,
}

/// `gpuenv completions SHELL`
#[derive(Debug, Clone, Args)]
pub struct CompletionsArgs {
    /// The shell to generate completions for.
    #[arg(value_enum, value_name = "SHELL")]
    pub shell: CompletionShell,
}

/// A shell `gpuenv completions` writes a script for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CompletionShell {
    Bash,
    Zsh,
    Fish,
}

/// `gpuenv fleet PATH...`
#[derive(Debug, Clone, Args)]
pub struct FleetArgs {
    /// Report files, directories of them, or `-` for JSON lines on stdin.
    #[arg(value_name = "PATH", required = true)]
    pub paths: Vec<PathBuf>,

    /// Write to FILE (atomically) instead of standard output.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<PathBuf>,
}

/// `gpuenv serve [--listen ADDR] [--interval SECONDS]`
#[derive(Debug, Clone, Args)]
pub struct ServeArgs {
    /// The address to listen on (9835 is gpuenv's port; loopback unless you say otherwise, e.g.
    /// `0.0.0.0:9835` in a Kubernetes pod).
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:9835")]
    pub listen: String,

    /// Probe at most this often, in seconds; scrapes in between get the cached result.
    #[arg(long, value_name = "SECONDS", default_value_t = 60)]
    pub interval: u64,

    #[command(flatten)]
    pub doctor: DoctorArgs,
}

/// `gpuenv plan`
#[derive(Debug, Clone, Args)]
pub struct PlanArgs {
    /// The framework (default: what the environment has, else torch).
    #[arg(long, value_enum)]
    pub framework: Option<PlanFramework>,
    /// A PEP 440 specifier, e.g. 'torch>=2.4,<2.6' (or 'deeplabcut==3.0.2').
    #[arg(long, value_name = "SPEC")]
    pub version: Option<String>,
    /// Plan for this Python (X.Y) instead of the environment's.
    #[arg(long, value_name = "X.Y")]
    pub python: Option<String>,
    /// The commands to show first (default: what manages the environment, else pip).
    #[arg(long, value_enum)]
    pub manager: Option<PlanManager>,
    /// Plan for a GPU of this compute capability (repeatable); describes another machine.
    #[arg(long = "gpu", value_name = "CC")]
    pub gpu: Vec<String>,
    /// Plan for this driver version (e.g. 535.104.05); describes another machine.
    #[arg(long, value_name = "VERSION")]
    pub driver: Option<String>,
    /// Plan for a machine without an NVIDIA GPU.
    #[arg(long, conflicts_with = "gpu")]
    pub no_gpu: bool,
    /// Also choose builds that run only under CUDA minor-version compatibility.
    #[arg(long)]
    pub allow_mvc: bool,
    /// Write the plan as a file in the current directory (atomically).
    #[arg(long, value_enum)]
    pub emit: Option<PlanEmit>,
    /// Where --emit writes (default: the file's usual name in the current directory).
    #[arg(long, value_name = "PATH", requires = "emit")]
    pub output: Option<PathBuf>,
    /// Let --emit replace an existing file.
    #[arg(long, requires = "emit")]
    pub force: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum PlanFramework {
    Torch,
    Tensorflow,
    Jax,
    Deeplabcut,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum PlanManager {
    Pip,
    Uv,
    Conda,
    Pixi,
    Docker,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum PlanEmit {
    #[value(name = "requirements")]
    Requirements,
    #[value(name = "environment.yml")]
    EnvironmentYml,
    #[value(name = "pixi.toml")]
    PixiToml,
    #[value(name = "Dockerfile")]
    Dockerfile,
}
