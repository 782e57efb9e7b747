//! The long documentation of every rule, for `gpuenv rules ID` and `docs/rules/*.md`.
//!
//! What triggers a rule is not written here: it is read from the doc comment of the check that
//! fires it (the check files are compiled in with `include_str!`, and a check's doc comment starts
//! with the ids it reports, `` `driver-missing`: ... ``), so the text cannot drift from the code.
//! The explanation (why it matters) and the usual fix are kept here, one entry per rule; a test
//! requires every rule in `RULES` to have all three.

use crate::finding::{rule, Rule, RULES};

/// The check sources whose doc comments say when each rule fires.
const CHECK_SOURCES: &[&str] = &[
    include_str!("checks/os.rs"),
    include_str!("checks/driver.rs"),
    include_str!("checks/gpu.rs"),
    include_str!("checks/cuda.rs"),
    include_str!("checks/cudnn.rs"),
    include_str!("checks/kb.rs"),
    include_str!("checks/loading.rs"),
    include_str!("checks/python.rs"),
    include_str!("checks/frameworks.rs"),
];

/// A rule's full documentation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleDoc {
    pub rule: &'static Rule,
    /// Why it matters: what breaks, and how it looks to the user.
    pub explanation: &'static str,
    /// When the check fires, from its doc comment.
    pub trigger: String,
    /// What to do about it in general (each finding's own fix names the exact commands).
    pub fix: &'static str,
}

/// The documentation of the rule with this id.
pub fn rule_doc(id: &str) -> Option<RuleDoc> {
    let rule = rule(id)?;
    let (explanation, fix) = TEXTS
        .iter()
        .find(|(i, _, _)| *i == id)
        .map(|(_, e, f)| (*e, *f))
        .unwrap_or(("", ""));
    Some(RuleDoc {
        rule,
        explanation,
        trigger: trigger(id).unwrap_or_default(),
        fix,
    })
}

/// Every rule's documentation, in catalogue order.
pub fn rule_docs() -> Vec<RuleDoc> {
    RULES.iter().filter_map(|r| rule_doc(r.id)).collect()
}

/// The doc comments of the check sources, each as one line of text.
fn doc_blocks() -> impl Iterator<Item = String> {
    CHECK_SOURCES.iter().flat_map(|src| {
        let mut blocks = Vec::new();
        let mut current: Vec<&str> = Vec::new();
        for line in src.lines() {
            let t = line.trim_start();
            if let Some(rest) = t.strip_prefix("///") {
                current.push(rest.trim());
            } else if !current.is_empty() {
                blocks.push(current.join(" "));
                current.clear();
            }
        }
        blocks
    })
}

/// The trigger text of a rule: the doc comment that opens with its id (alone or in a list of
/// ids), after the ids and the colon.
fn trigger(id: &str) -> Option<String> {
    let tick = format!("`{id}`");
    doc_blocks().find_map(|block| {
        let (head, text) = block.split_once(": ")?;
        let head_ids: Vec<&str> = head
            .split(|c: char| c == ',' || c.is_whitespace())
            .filter(|w| w.starts_with('`'))
            .collect();
        if !block.starts_with('`') || !head_ids.contains(&tick.as_str()) {
            return None;
        }
        let severity = head
            .split_once('(')
            .and_then(|(_, s)| s.strip_suffix(')'))
            .map(|s| format!(" (reported as {s})"))
            .unwrap_or_default();
        Some(format!("{}{severity}", upper_first(text.trim())))
    })
}

fn upper_first(s: &str) -> String {
    let mut chars = s.chars();
    match chars.next() {
        Some(c) => c.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// (id, explanation, fix) per rule.
const TEXTS: &[(&str, &str, &str)] = &[
    ("nouveau-loaded",
     "nouveau, the kernel's open-source driver, binds the GPU first; the NVIDIA kernel module then cannot load and every CUDA program fails as if no driver were installed.",
     "Blacklist nouveau (a modprobe.d file with `blacklist nouveau` and `options nouveau modeset=0`), rebuild the initramfs, and reboot."),
    ("secure-boot-blocks-module",
     "With Secure Boot on, the kernel loads only modules signed with an enrolled key. An unsigned NVIDIA module (built by DKMS or a .run installer) is refused, so the driver is installed but never loaded.",
     "Sign the module with a Machine Owner Key and enroll it (`mokutil --import`, then reboot and confirm), install the distribution's signed driver packages, or turn Secure Boot off."),
    ("device-nodes",
     "CUDA talks to the driver through /dev/nvidiactl, /dev/nvidiaN and /dev/nvidia-uvm. If a node is missing or not accessible, CUDA reports no device or 'unknown error' although the driver is loaded.",
     "Create the nodes (`nvidia-modprobe -u -c=0`, or load nvidia-uvm) and add the user to the group that owns them (often `video` or `render`); in a container, pass the devices through (`--gpus all`)."),
    ("wsl-linux-driver",
     "Under WSL2 the GPU is driven by the Windows driver, which exposes its own libcuda in /usr/lib/wsl/lib. A Linux NVIDIA driver installed inside the distribution puts a libcuda there that cannot talk to the GPU and shadows the working one.",
     "Remove the Linux driver packages from the WSL distribution (keep only the CUDA toolkit, e.g. the `cuda-toolkit-*` packages, never `cuda` or `cuda-drivers`) and update the Windows driver instead."),
    ("kernel-module-not-loaded",
     "The userspace libraries are there but the kernel side is not, so nvidia-smi 'couldn't communicate with the NVIDIA driver' and CUDA finds no device. The usual causes are a kernel upgrade without a rebuilt module, Secure Boot, or nouveau.",
     "Rebuild and load the module for the running kernel (`dkms autoinstall`, or reinstall the driver package for this kernel's headers), then `modprobe nvidia`; the evidence says which cause the facts support."),
    ("driver-missing",
     "An NVIDIA GPU is on the PCI bus but no NVIDIA driver is installed, so no CUDA program can use it.",
     "Install the distribution's NVIDIA driver packages (`ubuntu-drivers install`, `apt install nvidia-driver`, `dnf install akmod-nvidia`) or NVIDIA's, then reboot."),
    ("driver-userspace-mismatch",
     "The loaded kernel module and the userspace libraries (libcuda, libnvidia-ml) come from different driver releases, usually after a driver upgrade without a reboot. NVML says 'Driver/library version mismatch' and CUDA fails with error 803.",
     "Reboot (or unload and reload the nvidia modules) so the module matches the installed libraries; if it persists, remove the stray copy of the libraries the evidence names."),
    ("gpu-dropped-by-driver",
     "Each driver branch supports a range of GPU generations: new branches drop old GPUs (Kepler after R470) and old branches do not know new ones. The GPU is then ignored by the driver.",
     "Install a driver branch that supports the GPU (the legacy branch for old GPUs, a newer branch for new ones), with a CUDA that branch supports."),
    ("gpus-hidden",
     "CUDA_VISIBLE_DEVICES and NVIDIA_VISIBLE_DEVICES decide which GPUs a process may see. An empty value, -1, or indices that do not exist hide every GPU, and programs silently run on the CPU or fail with 'no CUDA-capable device'.",
     "Unset the variable or set it to existing GPU indices or UUIDs (`export CUDA_VISIBLE_DEVICES=0`); in a container, request the GPUs from the runtime."),
    ("driver-too-old-for-cuda",
     "A CUDA runtime needs a minimum driver. Below the CUDA major's minimum nothing works ('CUDA driver version is insufficient for CUDA runtime version'); between that and the release's own minimum it runs only under minor-version compatibility, without the newest features (PTX JIT of newer code fails).",
     "Upgrade the driver to at least the version the evidence names, or use a CUDA toolkit/runtime the installed driver supports."),
    ("gpu-arch-unsupported-by-toolkit",
     "Each CUDA toolkit compiles for a range of GPU architectures. A GPU older than the range (Kepler with CUDA 12) or newer (Blackwell before CUDA 12.8) cannot run code the toolkit builds.",
     "Use a toolkit whose architecture range includes the GPU (the evidence names the range), or build for a PTX target the driver can JIT."),
    ("cuda-link-mismatch",
     "/usr/local/cuda, the nvcc found on PATH and CUDA_HOME are three ways build tools find 'the' CUDA. When they point at different toolkits, an extension is compiled with one toolkit's nvcc and linked against another's headers and libraries.",
     "Point all three at one toolkit: update the /usr/local/cuda link (`update-alternatives` or `ln -sfn`), put that toolkit's `bin` first on PATH, and set CUDA_HOME to it."),
    ("cuda-home-invalid",
     "Build systems (PyTorch extensions, CMake, TensorFlow) take CUDA_HOME or CUDA_PATH as the toolkit root. A value that points nowhere, or at the toolkit's bin/ or lib64/, breaks every build with a missing nvcc or cuda.h.",
     "Set CUDA_HOME (and CUDA_PATH) to the toolkit's root directory, the one holding bin/nvcc and include/cuda.h, or unset it."),
    ("library-path-mixes-cuda",
     "LD_LIBRARY_PATH is searched before everything else. When it holds directories of two CUDA versions, each library is taken from whichever comes first, so one process can load cuBLAS from one CUDA and cudart from another.",
     "Keep the directories of one CUDA version in LD_LIBRARY_PATH (or none: pip wheels and conda find their own libraries)."),
    ("cuda-version-numbers",
     "nvidia-smi's 'CUDA Version' is the newest CUDA the driver supports, not an installed toolkit; nvcc's is the toolkit's own. The two differ on healthy machines, and this note says what this machine's pair means.",
     "Nothing to do unless another finding says so: a toolkit newer than the driver's CUDA is reported by driver-too-old-for-cuda."),
    ("cudnn-multiple-versions",
     "Two versions of one cuDNN major reachable by the system loader mean the one a program gets depends on LD_LIBRARY_PATH and cache order, and sub-libraries can come from different versions.",
     "Remove the copies you do not use (the evidence lists each file and its version), or make sure the one you use comes first, then run `ldconfig`."),
    ("cudnn-broken-link",
     "cuDNN is found through its SONAME link (libcudnn.so.8 or .9) and loads its sub-libraries by name. A missing or dangling link, or a link to another version, makes programs fail to load cuDNN or load a mismatched one (CUDNN_STATUS_NOT_INITIALIZED).",
     "Reinstall cuDNN from one source, or repair the links as the evidence shows (`ln -sfn libcudnn.so.X.Y.Z libcudnn.so.X`), then run `ldconfig`."),
    ("cudnn-cuda-mismatch",
     "Every cuDNN build is made for one CUDA major. Loading it beside a CUDA runtime of another major fails (missing libcublas.so.N) or crashes at initialisation.",
     "Install the cuDNN build for the CUDA major you use (the `-cudaNN` package or archive), or use the CUDA major the cuDNN was built for."),
    ("cudnn-mixed-sublibraries",
     "cuDNN's shim loads its sub-libraries (cnn, ops, adv, engines) at run time and requires the same version. Leftovers of an older install next to a newer shim give CUDNN_STATUS_VERSION_MISMATCH or symbol errors.",
     "Remove the stale sub-libraries the evidence lists, or reinstall cuDNN cleanly in one directory, then run `ldconfig`."),
    ("kb-unknown-version",
     "gpuenv judges versions only against its knowledge base, whose rows each cite a source. A version newer than the tables is reported here, and the checks that would need it stay silent rather than guess.",
     "Use a newer gpuenv (`pip install -U gpuenv`), or load newer tables with `--kb FILE`."),
    ("torch-cpu-only",
     "A CPU-only PyTorch build (`+cpu`, or the default wheel from a CPU index) never uses the GPU: torch.cuda.is_available() is False and training silently runs on the CPU.",
     "Reinstall PyTorch from a CUDA index the driver supports (`pip install torch --index-url https://download.pytorch.org/whl/cuXXX`), as the finding's fix says."),
    ("tensorflow-cpu-only",
     "A TensorFlow build without CUDA (tensorflow-cpu, or tensorflow without its CUDA libraries) lists no GPU and runs everything on the CPU.",
     "Install TensorFlow with its CUDA extra (`pip install 'tensorflow[and-cuda]'`) in a release whose CUDA the driver supports."),
    ("jax-cpu-only",
     "JAX runs on the GPU only with a CUDA plugin (jax[cuda12] installs jax-cuda12-plugin and its PJRT plugin); without it jax.devices() lists only the CPU.",
     "Install JAX with the CUDA extra matching the driver (`pip install -U 'jax[cuda12]'`)."),
    ("framework-needs-newer-driver",
     "A framework's CUDA build needs the same driver minimum as a CUDA toolkit of that version. Below it the framework finds no GPU or fails with 'driver version is insufficient'.",
     "Upgrade the driver, or install the framework's build for an older CUDA that this driver supports (the fix names the variant)."),
    ("framework-lacks-gpu-arch",
     "A framework binary carries machine code (SASS) for some GPU architectures and PTX for others to be compiled at start-up. A GPU with neither gets 'no kernel image is available for execution on the device'; PTX only means a slow first start and a driver at least as new as the PTX.",
     "Install a build that includes the GPU's architecture (a newer release for new GPUs, an older one for GPUs recent releases dropped), or build from source for it."),
    ("framework-cudnn-mismatch",
     "PyTorch and TensorFlow are built against one cuDNN and check it at run time; another major (or an older minor) fails with 'cuDNN version incompatibility' or wrong results.",
     "Install the cuDNN the framework pins (`pip install nvidia-cudnn-cuNN==...`, as the fix shows), or reinstall the framework so pip resolves its pins."),
    ("companion-version-mismatch",
     "torchvision and torchaudio are built for one torch release and CUDA variant, and jax, jaxlib and the CUDA plugins must be of one release. Out of step they fail to import ('operator torchvision::nms does not exist') or crash.",
     "Install the companions that match the framework, in one command (`pip install torch==X torchvision==Y torchaudio==Z --index-url ...`)."),
    ("python-unsupported",
     "Frameworks publish wheels for a range of Python versions. An environment whose Python is outside it holds packages built for another Python, or cannot install the release at all.",
     "Create the environment with a supported Python (`python3.X -m venv`, `conda create python=3.X`) and reinstall the framework."),
    ("requirement-unsatisfied",
     "A distribution declares requirements (Requires-Dist); a missing or out-of-range one breaks imports or behaviour in ways that show up far from the cause. This is the check `pip check` does.",
     "Install the required versions (`python -m pip install 'name>=x'`) or the versions the finding names, then run `pip check`."),
    ("duplicate-distribution",
     "Two metadata directories for one distribution mean an interrupted upgrade or two installers writing the same package; pip and importlib see different versions and uninstalls leave files behind.",
     "Remove the stale .dist-info/.egg-info directory the evidence names, then reinstall the package once."),
    ("module-clobbered",
     "When two distributions own the same files, the one installed last overwrites the other's, and uninstalling either breaks the other (opencv-python and opencv-python-headless both own cv2).",
     "Uninstall both distributions and install only the one you need."),
    ("conda-pip-mixed",
     "conda tracks what it installed; pip installing over a conda package (or a CUDA framework into an environment whose CUDA libraries conda manages) leaves conda with a wrong picture and two copies of libraries.",
     "Install the package with one installer only: remove the pip copy (`pip uninstall`) and use conda's, or rebuild the environment with pip-only CUDA packages."),
    ("interpreter-mismatch",
     "When `python` and `pip` on PATH belong to different environments, `pip install` puts packages where `python` does not look; 'I installed it but import fails' follows.",
     "Use `python -m pip` instead of `pip`, and activate the environment you mean (`source .venv/bin/activate`, `conda activate NAME`)."),
    ("application-backend-missing",
     "Applications such as DeepLabCut need a specific framework backend (DeepLabCut 3 a CUDA PyTorch, DeepLabCut 2 TensorFlow); without it they fail at start-up or train on the CPU.",
     "Install the backend the application release needs, in a version the application supports."),
    ("qt-plugin-conflict",
     "Qt loads one set of platform plugins per process. A QT_QPA_PLATFORM_PLUGIN_PATH that points nowhere, or OpenCV's bundled Qt beside PyQt/PySide, gives 'Could not load the Qt platform plugin \"xcb\"'.",
     "Unset QT_QPA_PLATFORM_PLUGIN_PATH, and replace opencv-python with opencv-python-headless where a Qt GUI toolkit is installed."),
    ("library-missing",
     "A framework needs a CUDA library (through DT_NEEDED or by loading it by name) that is nowhere the loader looks, so the import fails with 'cannot open shared object file'.",
     "Install the library (the pip wheel the framework pins, e.g. nvidia-cudnn-cu12, or the system package), or add its directory to the loader's search path."),
    ("library-shadowed",
     "A framework ships or pins its own CUDA libraries, but the loader takes another version from outside its environment first (LD_LIBRARY_PATH, the cache, a default directory); symbol errors or wrong-version failures follow.",
     "Remove the outside directory from LD_LIBRARY_PATH (or the outside copy), so the framework loads its environment's own library."),
    ("numpy-abi-mismatch",
     "Extensions compiled against NumPy 1.x cannot run with NumPy 2 ('A module that was compiled using NumPy 1.x cannot be run in NumPy 2.x'); pip check does not see it because the metadata often allows it.",
     "Pin NumPy below 2 (`pip install 'numpy<2'`) or upgrade the package to a release built against NumPy 2."),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_rule_has_an_explanation_a_trigger_and_a_fix() {
        let mut missing = Vec::new();
        for r in RULES {
            match rule_doc(r.id) {
                Some(d)
                    if !d.explanation.is_empty() && !d.trigger.is_empty() && !d.fix.is_empty() => {}
                _ => missing.push(r.id),
            }
        }
        assert!(missing.is_empty(), "rules without full docs: {missing:?}");
    }

    #[test]
    fn every_text_names_a_rule() {
        for (id, _, _) in TEXTS {
            assert!(rule(id).is_some(), "{id} is not in RULES");
        }
    }

    #[test]
    fn triggers_come_from_the_checks_doc_comments() {
        let d = rule_doc("jax-cpu-only").unwrap();
        assert!(d.trigger.contains("A build without CUDA"), "{}", d.trigger);
        let d = rule_doc("cuda-version-numbers").unwrap();
        assert!(d.trigger.ends_with("(reported as info)"), "{}", d.trigger);
    }
}
