//! How to stop a change from recurring: holding the driver or library packages (`apt-mark hold`,
//! `dnf versionlock`, the unattended-upgrades blacklist) or pinning a Python environment.

use gpuenv_check::Layer;

/// Advice for the layers whose changes broke a contract, on a distribution (`/etc/os-release`
/// `ID`); `None` when no layer has a way to hold it (a GPU swapped, a kernel option).
pub fn prevention(layers: &[Layer], distribution: &str) -> Option<String> {
    let apt = matches!(
        distribution,
        "debian" | "ubuntu" | "linuxmint" | "pop" | "raspbian"
    );
    let dnf = matches!(
        distribution,
        "fedora" | "rhel" | "centos" | "rocky" | "almalinux" | "ol" | "amzn"
    );
    let mut out = Vec::new();
    let packages = |globs: &str, blacklist: &str, dnf_globs: &str| {
        let apt_text = format!(
            "hold the packages: dpkg -l {globs} | awk '/^ii/{{print $2}}' | xargs sudo apt-mark hold \
             (undo with apt-mark unhold); and keep unattended-upgrades off them: add {blacklist} to \
             Unattended-Upgrade::Package-Blacklist in /etc/apt/apt.conf.d/50unattended-upgrades"
        );
        let dnf_text = format!(
            "lock the versions: sudo dnf install 'dnf-command(versionlock)' && sudo dnf versionlock add {dnf_globs} \
             (undo with dnf versionlock delete); and exclude them from dnf-automatic"
        );
        match (apt, dnf) {
            (true, _) => apt_text,
            (_, true) => dnf_text,
            _ => format!("Debian/Ubuntu: {apt_text}. Fedora/RHEL: {dnf_text}"),
        }
    };
    if layers
        .iter()
        .any(|l| matches!(l, Layer::Os | Layer::Driver))
    {
        out.push(format!(
            "Driver: {}; upgrade the driver deliberately and reboot right after",
            packages(
                "'*nvidia*'",
                "\"nvidia-\"; \"libnvidia-\";",
                "'*nvidia*' 'kmod-nvidia*' 'akmod-nvidia*'"
            )
        ));
    }
    if layers
        .iter()
        .any(|l| matches!(l, Layer::Cuda | Layer::Libraries))
    {
        out.push(format!(
            "CUDA libraries: {}",
            packages(
                "'libcudnn*' 'cuda-*' 'libnccl*' 'libcublas*'",
                "\"libcudnn\"; \"cuda-\"; \"libnccl\";",
                "'libcudnn*' 'cuda-*' 'libnccl*'"
            )
        ));
    }
    if layers
        .iter()
        .any(|l| matches!(l, Layer::Python | Layer::Application))
    {
        out.push(
            "Python: pin the environment that worked — pip: `pip freeze > constraints.txt` and install \
             with `pip install -c constraints.txt ...`; uv: commit uv.lock; conda: `conda env export > environment.yml` \
             and `conda config --env --add pinned_packages 'pytorch=VERSION'`"
                .to_string(),
        );
    }
    (!out.is_empty()).then(|| out.join("\n"))
}
