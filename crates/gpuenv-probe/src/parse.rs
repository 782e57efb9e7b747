//! Pure parsers for the text files probes read: `/proc/driver/nvidia/version`, `/etc/os-release`,
//! CUDA's `version.json` / `version.txt` / `cuda.h`, cuDNN's version headers, modprobe.d files,
//! `/proc/modules`, `/proc/cmdline` and `/proc/driver/nvidia/gpus/*/information`. They take `&str`,
//! never touch the file system, and return `None` rather than panic on anything unexpected.

use gpuenv_facts::Distribution;
use gpuenv_kb::Version;

/// The kernel module version and flavour from `/proc/driver/nvidia/version`:
/// `NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.104.05  Sat Aug 19 ...` (proprietary) or
/// `NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.95.05  Release Build ...` (open).
pub fn proc_driver_version(text: &str) -> Option<(Version, &'static str)> {
    let line = text.lines().find(|l| l.starts_with("NVRM version:"))?;
    let flavor = if line.contains("Open Kernel Module") {
        "open"
    } else {
        "proprietary"
    };
    let after = line.split("Kernel Module").nth(1)?;
    after
        .split_whitespace()
        .filter(|w| w.contains('.'))
        .find_map(|w| w.parse::<Version>().ok())
        .map(|v| (v, flavor))
}

/// A bare version file such as `/sys/module/nvidia/version` (`550.54.14\n`).
pub fn bare_version(text: &str) -> Option<Version> {
    text.trim().parse().ok()
}

/// `/etc/os-release` (shell-style `KEY="value"` lines).
pub fn os_release(text: &str) -> Distribution {
    let mut d = Distribution::default();
    for line in text.lines() {
        let Some((key, value)) = line.split_once('=') else {
            continue;
        };
        let value = value
            .trim()
            .trim_matches('"')
            .trim_matches('\'')
            .to_string();
        match key.trim() {
            "ID" => d.id = value,
            "VERSION_ID" => d.version_id = value,
            "PRETTY_NAME" => d.pretty_name = value,
            _ => {}
        }
    }
    d
}

/// The toolkit version from CUDA's `version.json` (`{"cuda": {"version": "12.4.1"}}`). Some
/// releases put a date in the third place (`11.8.20220929`); only `major.minor` is kept from those.
pub fn version_json(text: &str) -> Option<Version> {
    let value: serde_json::Value = serde_json::from_str(text).ok()?;
    let raw = value.get("cuda")?.get("version")?.as_str()?;
    let v: Version = raw.parse().ok()?;
    if v.patch() >= 10_000_000 {
        return Some(Version::from_parts(&[v.major(), v.minor()]));
    }
    Some(v)
}

/// The toolkit version from `version.txt` (`CUDA Version 11.0.228`, CUDA 11.0 and older).
pub fn version_txt(text: &str) -> Option<Version> {
    let rest = text.split("CUDA Version").nth(1)?;
    rest.split_whitespace().next()?.parse().ok()
}

/// The value of `#define NAME <integer>` in a C header.
pub fn c_define(text: &str, name: &str) -> Option<u64> {
    for line in text.lines() {
        let mut words = line.split_whitespace();
        if words.next() != Some("#define") || words.next() != Some(name) {
            continue;
        }
        if let Some(value) = words.next() {
            if let Ok(n) = value.trim_end_matches(['u', 'U', 'l', 'L']).parse::<u64>() {
                return Some(n);
            }
        }
    }
    None
}

/// The toolkit version from `cuda.h`'s `#define CUDA_VERSION 11080` (11.8).
pub fn cuda_h_version(text: &str) -> Option<Version> {
    let n = c_define(text, "CUDA_VERSION")?;
    if n == 0 || n > 1_000_000 {
        return None;
    }
    let n = n as u32;
    Some(Version::from_parts(&[n / 1000, (n % 1000) / 10]))
}

/// The cuDNN version from `cudnn_version.h` (8.x, 9.x) or `cudnn.h` (7.x): the three defines.
pub fn cudnn_header_version(text: &str) -> Option<Version> {
    let major = c_define(text, "CUDNN_MAJOR")?;
    let minor = c_define(text, "CUDNN_MINOR")?;
    let patch = c_define(text, "CUDNN_PATCHLEVEL")?;
    let part = |n: u64| u32::try_from(n).ok();
    Some(Version::from_parts(&[
        part(major)?,
        part(minor)?,
        part(patch)?,
    ]))
}

/// Whether a modprobe.d file blacklists `module` (`blacklist nouveau`, or `install nouveau /bin/false`).
pub fn modprobe_blacklists(text: &str, module: &str) -> bool {
    text.lines().any(|line| {
        let line = line.split('#').next().unwrap_or("");
        let mut words = line.split_whitespace();
        match (words.next(), words.next(), words.next()) {
            (Some("blacklist"), Some(m), _) => m == module,
            (Some("install"), Some(m), Some(cmd)) => {
                m == module && (cmd.ends_with("/false") || cmd.ends_with("/true"))
            }
            _ => false,
        }
    })
}

/// Whether the kernel command line keeps `module` out (`modprobe.blacklist=a,nouveau`,
/// `module_blacklist=`, `rd.driver.blacklist=`, or `nouveau.modeset=0` for nouveau).
pub fn cmdline_blacklists(text: &str, module: &str) -> bool {
    text.split_whitespace().any(|arg| {
        let Some((key, value)) = arg.split_once('=') else {
            return false;
        };
        match key {
            "modprobe.blacklist" | "module_blacklist" | "rd.driver.blacklist" => {
                value.split(',').any(|m| m == module)
            }
            k if k == format!("{module}.modeset") => value == "0",
            _ => false,
        }
    })
}

/// The module names in `/proc/modules`.
pub fn proc_modules(text: &str) -> Vec<&str> {
    text.lines()
        .filter_map(|l| l.split_whitespace().next())
        .collect()
}

/// Fields of `/proc/driver/nvidia/gpus/<bus>/information` (`Model:`, `GPU UUID:`, `Bus Location:`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProcGpuInformation {
    pub model: Option<String>,
    pub uuid: Option<String>,
    pub bus_location: Option<String>,
}

pub fn proc_gpu_information(text: &str) -> ProcGpuInformation {
    let mut info = ProcGpuInformation::default();
    for line in text.lines() {
        let Some((key, value)) = line.split_once(':') else {
            continue;
        };
        let value = value.trim().to_string();
        match key.trim() {
            "Model" => info.model = Some(value),
            "GPU UUID" => info.uuid = Some(value),
            "Bus Location" => info.bus_location = Some(value),
            _ => {}
        }
    }
    info
}

/// A hexadecimal sysfs attribute such as `0x10de`.
pub fn sysfs_hex(text: &str) -> Option<u32> {
    let t = text.trim();
    let t = t.strip_prefix("0x").unwrap_or(t);
    u32::from_str_radix(t, 16).ok()
}

/// The `version=` field of a kernel module's `.modinfo` section (NUL-separated `key=value`).
pub fn modinfo_version(modinfo: &[u8]) -> Option<Version> {
    modinfo
        .split(|b| *b == 0)
        .filter_map(|field| field.strip_prefix(b"version="))
        .find_map(|v| std::str::from_utf8(v).ok()?.parse().ok())
}

/// The version in a library file name: `libcudnn.so.8.9.2` -> `8.9.2` for stem `libcudnn`.
pub fn so_version(file_name: &str, stem: &str) -> Option<Version> {
    let rest = file_name.strip_prefix(stem)?.strip_prefix(".so.")?;
    rest.parse().ok()
}

/// `GPUENV_AS_USER` / user ids: `UID:GID[,GROUP...]`.
pub fn user_spec(text: &str) -> Option<(u32, u32, Vec<u32>)> {
    let (uid, rest) = text.trim().split_once(':')?;
    let mut ids = rest.split(',');
    let gid = ids.next()?.trim().parse().ok()?;
    let groups = ids
        .map(|g| g.trim().parse().ok())
        .collect::<Option<Vec<u32>>>()?;
    Some((uid.trim().parse().ok()?, gid, groups))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &str) -> Version {
        s.parse().unwrap()
    }

    #[test]
    fn proc_driver_version_proprietary_and_open() {
        // Verbatim lines quoted in public repositories (nvidia-facts.md, PROC-VERSION).
        let prop = "NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.104.05  Sat Aug 19 01:15:15 UTC 2023\nGCC version:  gcc version 12.2.0 (Debian 12.2.0-14)\n";
        assert_eq!(
            proc_driver_version(prop),
            Some((v("535.104.05"), "proprietary"))
        );
        let open = "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.95.05  Release Build  (dvs-builder@U16-I3-B03-4-3)  Tue Sep 23 09:55:41 UTC 2025\nGCC version:  gcc version 13.3.0\n";
        assert_eq!(proc_driver_version(open), Some((v("580.95.05"), "open")));
        let two_part = "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.135  Fri Nov  1 2024\n";
        assert_eq!(
            proc_driver_version(two_part).map(|x| x.0),
            Some(v("550.135"))
        );
        assert_eq!(proc_driver_version("garbage"), None);
        assert_eq!(
            proc_driver_version("NVRM version: NVIDIA UNIX Kernel Module"),
            None
        );
    }

    #[test]
    fn os_release_fields() {
        let d = os_release("PRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\nNAME=\"Debian GNU/Linux\"\nVERSION_ID=\"12\"\nID=debian\n");
        assert_eq!(d.id, "debian");
        assert_eq!(d.version_id, "12");
        assert_eq!(d.pretty_name, "Debian GNU/Linux 12 (bookworm)");
    }

    #[test]
    fn toolkit_version_files() {
        let json = r#"{"cuda" : {"name" : "CUDA SDK", "version" : "11.5.2"}, "cuda_cudart" : {"name" : "CUDA Runtime (cudart)", "version" : "11.5.117"}}"#;
        assert_eq!(version_json(json), Some(v("11.5.2")));
        let dated = r#"{"cuda": {"name": "CUDA SDK", "version": "11.8.20220929"}}"#;
        assert_eq!(
            version_json(dated).map(|x| x.to_string()).as_deref(),
            Some("11.8")
        );
        assert_eq!(version_json("{"), None);
        assert_eq!(version_json("{\"cuda\": 3}"), None);
        assert_eq!(version_txt("CUDA Version 10.0.130\n"), Some(v("10.0.130")));
        assert_eq!(version_txt("nothing"), None);
        assert_eq!(
            cuda_h_version("#ifndef X\n#define CUDA_VERSION 11080\n")
                .map(|x| x.to_string())
                .as_deref(),
            Some("11.8")
        );
        assert_eq!(
            cuda_h_version("#define CUDA_VERSION 12040").unwrap(),
            v("12.4")
        );
    }

    #[test]
    fn cudnn_headers_both_encodings() {
        let h9 = "#define CUDNN_MAJOR 9\n#define CUDNN_MINOR 3\n#define CUDNN_PATCHLEVEL 0\n\n#define CUDNN_VERSION (CUDNN_MAJOR * 10000 + CUDNN_MINOR * 100 + CUDNN_PATCHLEVEL)\n";
        assert_eq!(cudnn_header_version(h9), Some(v("9.3.0")));
        let h8 = "#define CUDNN_MAJOR 8\n#define CUDNN_MINOR 6\n#define CUDNN_PATCHLEVEL 0\n#define CUDNN_VERSION (CUDNN_MAJOR * 1000 + CUDNN_MINOR * 100 + CUDNN_PATCHLEVEL)\n";
        assert_eq!(cudnn_header_version(h8), Some(v("8.6.0")));
        assert_eq!(cudnn_header_version("#define CUDNN_MAJOR 9\n"), None);
    }

    #[test]
    fn nouveau_blacklists() {
        assert!(modprobe_blacklists(
            "blacklist nouveau\noptions nouveau modeset=0\n",
            "nouveau"
        ));
        assert!(modprobe_blacklists("install nouveau /bin/false", "nouveau"));
        assert!(!modprobe_blacklists(
            "# blacklist nouveau\nblacklist nouveaux",
            "nouveau"
        ));
        assert!(cmdline_blacklists(
            "BOOT_IMAGE=/vmlinuz ro modprobe.blacklist=nvidiafb,nouveau quiet",
            "nouveau"
        ));
        assert!(cmdline_blacklists("ro nouveau.modeset=0", "nouveau"));
        assert!(!cmdline_blacklists("ro quiet splash", "nouveau"));
    }

    #[test]
    fn proc_files() {
        assert_eq!(
            proc_modules("nvidia_uvm 1network 0 - Live 0x0\nnvidia 5 1 nvidia_uvm, Live 0x0\n"),
            vec!["nvidia_uvm", "nvidia"]
        );
        let info = proc_gpu_information("Model: \t\t NVIDIA GeForce RTX 3090\nIRQ:   \t\t 130\nGPU UUID: \t GPU-1b2c3d4e\nBus Location: \t 0000:01:00.0\n");
        assert_eq!(info.model.as_deref(), Some("NVIDIA GeForce RTX 3090"));
        assert_eq!(info.uuid.as_deref(), Some("GPU-1b2c3d4e"));
        assert_eq!(info.bus_location.as_deref(), Some("0000:01:00.0"));
        assert_eq!(sysfs_hex("0x10de\n"), Some(0x10de));
        assert_eq!(sysfs_hex("zz"), None);
    }

    #[test]
    fn small_fields() {
        assert_eq!(
            modinfo_version(b"license=NVIDIA\0version=535.104.05\0srcversion=X\0"),
            Some(v("535.104.05"))
        );
        assert_eq!(modinfo_version(b"\0\0"), None);
        assert_eq!(
            so_version("libcudnn.so.8.9.2", "libcudnn"),
            Some(v("8.9.2"))
        );
        assert_eq!(so_version("libcudnn.so", "libcudnn"), None);
        assert_eq!(so_version("libcudnn_ops.so.9", "libcudnn"), None);
        assert_eq!(user_spec("1000:1000,44,video"), None);
        assert_eq!(user_spec("1000:1000,44"), Some((1000, 1000, vec![44])));
        assert_eq!(user_spec("0:0"), Some((0, 0, vec![])));
    }
}

#[cfg(test)]
mod hostile {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// No parser panics or loops on arbitrary text (the fuzz target `text_parsers` goes further).
        #[test]
        fn parsers_never_panic(text in "\\PC{0,400}", bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
            let _ = proc_driver_version(&text);
            let _ = bare_version(&text);
            let _ = os_release(&text);
            let _ = version_json(&text);
            let _ = version_txt(&text);
            let _ = cuda_h_version(&text);
            let _ = cudnn_header_version(&text);
            let _ = modprobe_blacklists(&text, "nouveau");
            let _ = cmdline_blacklists(&text, "nouveau");
            let _ = proc_modules(&text);
            let _ = proc_gpu_information(&text);
            let _ = sysfs_hex(&text);
            let _ = modinfo_version(&bytes);
            let _ = so_version(&text, "libcudnn");
            let _ = user_spec(&text);
        }

        #[test]
        fn defines_with_huge_numbers_do_not_overflow(n in any::<u64>()) {
            let _ = cuda_h_version(&format!("#define CUDA_VERSION {n}"));
            let _ = cudnn_header_version(&format!("#define CUDNN_MAJOR {n}\n#define CUDNN_MINOR {n}\n#define CUDNN_PATCHLEVEL {n}\n"));
        }
    }

    #[test]
    fn a_huge_log_like_file_parses_quickly() {
        let big = "NVRM garbage line\n".repeat(200_000);
        assert_eq!(proc_driver_version(&big), None);
        assert_eq!(os_release(&big), Distribution::default());
    }
}
