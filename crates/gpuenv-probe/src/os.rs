//! L0 probe: kernel release, distribution, container and WSL markers, Secure Boot, nouveau, the
//! NVIDIA kernel module files, the `/dev/nvidia*` device nodes and whether this user may open them.
//! Device nodes are only `stat`ed: opening one can wake or initialise a GPU.

use gpuenv_facts::{
    DeviceNode, ModuleFile, NouveauFacts, OsFacts, ProbeError, Source, Sourced, UserIdentity,
    WslFacts,
};

use crate::parse;
use crate::root::{join, SystemRoot};
use crate::vars::{self, Environment};

/// The EFI variable holding the Secure Boot state (4 attribute bytes, then 1 = on).
const SECURE_BOOT_VAR: &str =
    "/sys/firmware/efi/efivars/SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c";

pub fn probe(root: &SystemRoot, env: &Environment, errors: &mut Vec<ProbeError>) -> OsFacts {
    let mut os = OsFacts {
        machine: std::env::consts::ARCH.to_string(),
        hostname: read_trimmed(root, "/proc/sys/kernel/hostname")
            .or_else(|| read_trimmed(root, "/etc/hostname")),
        kernel_release: read_trimmed(root, "/proc/sys/kernel/osrelease"),
        ..OsFacts::default()
    };
    for path in ["/etc/os-release", "/usr/lib/os-release"] {
        if let Ok(text) = root.read_to_string(path) {
            os.distribution = Some(Sourced::new(
                parse::os_release(&text),
                Source::File(path.into()),
            ));
            break;
        }
    }
    os.container = container(root, env);
    os.wsl = wsl(
        root,
        env,
        os.kernel_release.as_ref().map(|k| k.value.as_str()),
    );
    os.secure_boot = secure_boot(root);
    os.nouveau = nouveau(root);
    os.nvidia_module_files = module_files(
        root,
        os.kernel_release.as_ref().map(|k| k.value.as_str()),
        errors,
    );
    os.user = user(env);
    os.device_nodes = device_nodes(root, os.user.as_ref().map(|u| &u.value));
    os
}

fn read_trimmed(root: &SystemRoot, path: &str) -> Option<Sourced<String>> {
    let text = root.read_to_string(path).ok()?;
    let t = text.trim();
    (!t.is_empty()).then(|| Sourced::new(t.to_string(), Source::File(path.into())))
}

fn container(root: &SystemRoot, env: &Environment) -> Option<Sourced<String>> {
    if env.get_nonempty(vars::KUBERNETES_SERVICE_HOST).is_some() {
        return Some(Sourced::new(
            "kubernetes".into(),
            Source::Env(vars::KUBERNETES_SERVICE_HOST.into()),
        ));
    }
    if root.exists("/var/run/secrets/kubernetes.io/serviceaccount") {
        return Some(Sourced::new(
            "kubernetes".into(),
            Source::Path("/var/run/secrets/kubernetes.io/serviceaccount".into()),
        ));
    }
    if root.exists("/.dockerenv") {
        return Some(Sourced::new(
            "docker".into(),
            Source::Path("/.dockerenv".into()),
        ));
    }
    if root.exists("/run/.containerenv") {
        return Some(Sourced::new(
            "podman".into(),
            Source::Path("/run/.containerenv".into()),
        ));
    }
    if let Some(name) = env.get_nonempty(vars::CONTAINER) {
        return Some(Sourced::new(
            name.to_string(),
            Source::Env(vars::CONTAINER.into()),
        ));
    }
    if let Ok(text) = root.read_to_string("/proc/1/cgroup") {
        for (marker, name) in [
            ("kubepods", "kubernetes"),
            ("docker", "docker"),
            ("libpod", "podman"),
            ("lxc", "lxc"),
        ] {
            if text.contains(marker) {
                return Some(Sourced::new(
                    name.into(),
                    Source::File("/proc/1/cgroup".into()),
                ));
            }
        }
    }
    None
}

fn wsl(root: &SystemRoot, env: &Environment, kernel: Option<&str>) -> Option<Sourced<WslFacts>> {
    let windows_libcuda = [
        "/usr/lib/wsl/lib/libcuda.so.1",
        "/usr/lib/wsl/lib/libcuda.so",
    ]
    .into_iter()
    .find(|p| root.exists(p))
    .map(str::to_string);
    let kernel_says = kernel.is_some_and(|k| {
        let k = k.to_ascii_lowercase();
        k.contains("microsoft") || k.contains("wsl")
    });
    let source = if kernel_says {
        Source::File("/proc/sys/kernel/osrelease".into())
    } else if env.get_nonempty(vars::WSL_DISTRO_NAME).is_some() {
        Source::Env(vars::WSL_DISTRO_NAME.into())
    } else if root.is_dir("/usr/lib/wsl/lib") {
        Source::Path("/usr/lib/wsl/lib".into())
    } else {
        return None;
    };
    Some(Sourced::new(WslFacts { windows_libcuda }, source))
}

fn secure_boot(root: &SystemRoot) -> Option<Sourced<bool>> {
    let bytes = root.read_bytes(SECURE_BOOT_VAR, 64).ok()?;
    let value = *bytes.get(4)?;
    Some(Sourced::new(
        value == 1,
        Source::File(SECURE_BOOT_VAR.into()),
    ))
}

fn nouveau(root: &SystemRoot) -> NouveauFacts {
    let loaded = if root.exists("/sys/module/nouveau") {
        Some(Sourced::new(
            true,
            Source::Path("/sys/module/nouveau".into()),
        ))
    } else if let Ok(text) = root.read_to_string("/proc/modules") {
        Some(Sourced::new(
            parse::proc_modules(&text).contains(&"nouveau"),
            Source::File("/proc/modules".into()),
        ))
    } else if root.is_dir("/sys/module") {
        Some(Sourced::new(
            false,
            Source::Path("/sys/module/nouveau".into()),
        ))
    } else {
        None
    };
    let mut blacklisted_in = Vec::new();
    for dir in [
        "/etc/modprobe.d",
        "/usr/lib/modprobe.d",
        "/lib/modprobe.d",
        "/run/modprobe.d",
    ] {
        let Ok(listing) = root.read_dir(dir) else {
            continue;
        };
        for name in listing.names.iter().filter(|n| n.ends_with(".conf")) {
            let path = join(dir, name);
            if root
                .read_to_string(&path)
                .is_ok_and(|t| parse::modprobe_blacklists(&t, "nouveau"))
            {
                blacklisted_in.push(path);
            }
        }
    }
    if root
        .read_to_string("/proc/cmdline")
        .is_ok_and(|t| parse::cmdline_blacklists(&t, "nouveau"))
    {
        blacklisted_in.push("/proc/cmdline".into());
    }
    NouveauFacts {
        loaded,
        blacklisted_in,
    }
}

/// NVIDIA module files for the running kernel: DKMS (`updates/dkms`), distribution packages
/// (`kernel/drivers/video`, `extra`, `updates`), and the open modules.
fn module_files(
    root: &SystemRoot,
    kernel: Option<&str>,
    errors: &mut Vec<ProbeError>,
) -> Vec<ModuleFile> {
    let Some(kernel) = kernel else {
        return Vec::new();
    };
    let base = format!("/lib/modules/{kernel}");
    let mut out = Vec::new();
    for sub in [
        "updates/dkms",
        "updates",
        "extra",
        "kernel/drivers/video",
        "kernel/drivers/gpu/drm/nvidia",
        "misc",
        "video",
    ] {
        let dir = join(&base, sub);
        let Ok(listing) = root.read_dir(&dir) else {
            continue;
        };
        for name in &listing.names {
            let is_nvidia = name == "nvidia.ko" || name.starts_with("nvidia.ko.");
            if !is_nvidia {
                continue;
            }
            let path = join(&dir, name);
            let compressed = name != "nvidia.ko";
            let (version, signed) = if compressed {
                (None, None)
            } else {
                match root.map(&path) {
                    Ok(map) => {
                        let version = gpuenv_elf::section_range(&map, ".modinfo")
                            .ok()
                            .flatten()
                            .and_then(|(off, size)| {
                                let start = usize::try_from(off).ok()?;
                                let end = start.checked_add(usize::try_from(size).ok()?)?;
                                map.get(start..end)
                            })
                            .and_then(parse::modinfo_version);
                        let signed = map.ends_with(b"~Module signature appended~\n");
                        (version, Some(signed))
                    }
                    Err(e) => {
                        errors.push(ProbeError {
                            probe: "os.nvidia_module_files".into(),
                            subject: path.clone(),
                            message: e.to_string(),
                        });
                        (None, None)
                    }
                }
            };
            out.push(ModuleFile {
                path,
                version,
                signed,
            });
        }
    }
    out
}

fn user(env: &Environment) -> Option<Sourced<UserIdentity>> {
    if let Some(spec) = env.get_nonempty(vars::GPUENV_AS_USER) {
        if let Some((uid, gid, groups)) = parse::user_spec(spec) {
            return Some(Sourced::new(
                UserIdentity { uid, gid, groups },
                Source::Override(vars::GPUENV_AS_USER.into()),
            ));
        }
    }
    let groups = rustix::process::getgroups()
        .map(|g| g.into_iter().map(|g| g.as_raw()).collect())
        .unwrap_or_default();
    Some(Sourced::new(
        UserIdentity {
            uid: rustix::process::getuid().as_raw(),
            gid: rustix::process::getgid().as_raw(),
            groups,
        },
        Source::Process("credentials".into()),
    ))
}

/// The nodes the driver creates: the control device, one per GPU (`nvidia0..N` as listed), UVM.
fn device_nodes(root: &SystemRoot, user: Option<&UserIdentity>) -> Vec<DeviceNode> {
    let mut paths: Vec<String> = vec!["/dev/nvidiactl".into(), "/dev/nvidia-uvm".into()];
    if let Ok(listing) = root.read_dir("/dev") {
        for name in &listing.names {
            let is_gpu_node = name
                .strip_prefix("nvidia")
                .is_some_and(|rest| !rest.is_empty() && rest.bytes().all(|b| b.is_ascii_digit()));
            if is_gpu_node {
                paths.push(join("/dev", name));
            }
        }
    }
    paths
        .into_iter()
        .map(|path| match root.metadata(&path) {
            None => DeviceNode {
                path,
                exists: false,
                char_device: false,
                mode: None,
                uid: None,
                gid: None,
                accessible: None,
            },
            Some(m) => DeviceNode {
                accessible: user.map(|u| may_read_write(u, m.mode, m.uid, m.gid)),
                path,
                exists: true,
                char_device: m.is_char_device,
                mode: Some(m.mode & 0o7777),
                uid: Some(m.uid),
                gid: Some(m.gid),
            },
        })
        .collect()
}

/// Whether `user` may open a file read-write given its mode bits (root always may).
pub fn may_read_write(user: &UserIdentity, mode: u32, uid: u32, gid: u32) -> bool {
    if user.uid == 0 {
        return true;
    }
    let bits = if user.uid == uid {
        (mode >> 6) & 0o7
    } else if user.gid == gid || user.groups.contains(&gid) {
        (mode >> 3) & 0o7
    } else {
        mode & 0o7
    };
    bits & 0o6 == 0o6
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn permission_bits() {
        let alice = UserIdentity {
            uid: 1000,
            gid: 1000,
            groups: vec![44],
        };
        assert!(may_read_write(&alice, 0o666, 0, 0));
        assert!(!may_read_write(&alice, 0o660, 0, 0));
        assert!(may_read_write(&alice, 0o660, 0, 44));
        assert!(may_read_write(&alice, 0o600, 1000, 0));
        let root = UserIdentity {
            uid: 0,
            gid: 0,
            groups: vec![],
        };
        assert!(may_read_write(&root, 0o000, 5, 5));
    }
}
