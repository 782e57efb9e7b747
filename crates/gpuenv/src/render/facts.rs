//! `-v`: every fact, one per line, with where it came from.

use std::io::{self, Write};

use gpuenv_facts::{Facts, LibraryFile, Sourced};

fn line<T: std::fmt::Display>(
    out: &mut dyn Write,
    key: &str,
    s: &Option<Sourced<T>>,
) -> io::Result<()> {
    match s {
        Some(s) => writeln!(out, "    {key}: {}   ({})", s.value, s.source),
        None => writeln!(out, "    {key}: unknown"),
    }
}

fn lib(out: &mut dyn Write, f: &LibraryFile) -> io::Result<()> {
    let real = f
        .real_path
        .as_deref()
        .map(|r| format!(" -> {r}"))
        .unwrap_or_default();
    let version = f
        .version
        .as_ref()
        .map(|v| format!(" version {v}"))
        .unwrap_or_default();
    let soname = f
        .soname
        .as_deref()
        .map(|s| format!(" SONAME {s}"))
        .unwrap_or_default();
    let via = if f.reachable_via.is_empty() {
        " (not on the loader's path)".to_string()
    } else {
        format!(" (via {})", f.reachable_via.join(", "))
    };
    writeln!(
        out,
        "      {}{real}{version}{soname} [{:?}]{via}",
        f.path, f.link_state
    )?;
    if let Some(e) = &f.error {
        writeln!(out, "        error: {e}")?;
    }
    Ok(())
}

pub fn render(out: &mut dyn Write, f: &Facts) -> io::Result<()> {
    writeln!(out, "  L0 OS")?;
    line(out, "hostname", &f.os.hostname)?;
    line(out, "kernel", &f.os.kernel_release)?;
    match &f.os.distribution {
        Some(d) => writeln!(
            out,
            "    distribution: {} {}   ({})",
            d.value.id, d.value.version_id, d.source
        )?,
        None => writeln!(out, "    distribution: unknown")?,
    }
    line(out, "container", &f.os.container)?;
    match &f.os.wsl {
        Some(w) => writeln!(out, "    WSL2: yes   ({})", w.source)?,
        None => writeln!(out, "    WSL2: no")?,
    }
    line(out, "Secure Boot", &f.os.secure_boot)?;
    line(out, "nouveau loaded", &f.os.nouveau.loaded)?;
    if !f.os.nouveau.blacklisted_in.is_empty() {
        writeln!(
            out,
            "    nouveau blacklisted in: {}",
            f.os.nouveau.blacklisted_in.join(", ")
        )?;
    }
    for m in &f.os.nvidia_module_files {
        writeln!(
            out,
            "    module file: {} version {} signed {}",
            m.path,
            m.version
                .as_ref()
                .map(|v| v.to_string())
                .unwrap_or_else(|| "?".into()),
            m.signed
                .map(|s| s.to_string())
                .unwrap_or_else(|| "?".into())
        )?;
    }
    for n in &f.os.device_nodes {
        if n.exists {
            writeln!(
                out,
                "    {}: mode {:o} owner {}:{} accessible {}   (path {})",
                n.path,
                n.mode.unwrap_or(0),
                n.uid.unwrap_or(0),
                n.gid.unwrap_or(0),
                n.accessible
                    .map(|a| a.to_string())
                    .unwrap_or_else(|| "?".into()),
                n.path
            )?;
        } else {
            writeln!(out, "    {}: absent", n.path)?;
        }
    }
    if let Some(u) = &f.os.user {
        writeln!(
            out,
            "    user: uid {} gid {} groups {:?}   ({})",
            u.value.uid, u.value.gid, u.value.groups, u.source
        )?;
    }

    writeln!(out, "  L1 NVIDIA driver")?;
    match &f.driver.kernel_module {
        Some(m) => writeln!(
            out,
            "    kernel module: {} {}   ({})",
            m.version.value,
            m.flavor.as_deref().unwrap_or(""),
            m.version.source
        )?,
        None => writeln!(out, "    kernel module: not loaded")?,
    }
    line(out, "userspace driver", &f.driver.userspace_version)?;
    line(out, "driver's CUDA version", &f.driver.cuda_driver_version)?;
    for l in &f.driver.userspace {
        writeln!(
            out,
            "    {} at {} -> {} version {}{}{}   (via {})",
            l.soname,
            l.path,
            l.real_path.as_deref().unwrap_or("?"),
            l.version
                .as_ref()
                .map(|v| v.to_string())
                .unwrap_or_else(|| "?".into()),
            if l.selected {
                " [loader picks this]"
            } else {
                ""
            },
            if l.wsl { " [WSL]" } else { "" },
            if l.found_via.is_empty() {
                "-".to_string()
            } else {
                l.found_via.join(", ")
            }
        )?;
    }
    if let Some(n) = &f.driver.nvml {
        writeln!(
            out,
            "    NVML: version {} driver {} init error {}",
            n.nvml_version.as_deref().unwrap_or("?"),
            n.driver_version
                .as_ref()
                .map(|v| v.to_string())
                .unwrap_or_else(|| "?".into()),
            n.init_error.as_deref().unwrap_or("none")
        )?;
    }

    writeln!(out, "  L2 GPUs")?;
    for g in &f.gpus.devices {
        writeln!(out, "    {} 10de:{:04x}", g.pci_address, g.device_id)?;
        line(out, "  name", &g.name)?;
        line(out, "  compute capability", &g.cc)?;
        line(out, "  bound driver", &g.bound_driver)?;
        line(out, "  UUID", &g.uuid)?;
    }
    line(out, "CUDA_VISIBLE_DEVICES", &f.gpus.cuda_visible_devices)?;
    line(
        out,
        "NVIDIA_VISIBLE_DEVICES",
        &f.gpus.nvidia_visible_devices,
    )?;
    for cc in &f.gpus.override_ccs {
        writeln!(
            out,
            "    assumed GPU: compute capability {}   ({})",
            cc.value, cc.source
        )?;
    }

    writeln!(out, "  L3 CUDA")?;
    for t in &f.cuda.toolkits {
        writeln!(
            out,
            "    toolkit {} (real {}, {} layout), found via {}",
            t.root,
            t.real_root,
            t.layout,
            t.found_via.join(", ")
        )?;
        line(out, "  version", &t.version)?;
    }
    if let Some(l) = &f.cuda.usr_local_cuda {
        writeln!(
            out,
            "    /usr/local/cuda -> {} [{:?}]",
            l.resolved.as_deref().or(l.target.as_deref()).unwrap_or("?"),
            l.state
        )?;
    }
    for v in [&f.cuda.cuda_home, &f.cuda.cuda_path].into_iter().flatten() {
        writeln!(
            out,
            "    {}={} [{:?}, toolkit: {}]   (environment variable {})",
            v.variable, v.value, v.state, v.is_toolkit, v.variable
        )?;
    }
    if let Some(n) = &f.cuda.nvcc_on_path {
        writeln!(
            out,
            "    nvcc on PATH: {} -> {}   (PATH entry {})",
            n.path,
            n.resolved.as_deref().unwrap_or("?"),
            n.path_entry
        )?;
    }
    if !f.cuda.runtimes.is_empty() {
        writeln!(out, "    CUDA runtimes:")?;
        for r in &f.cuda.runtimes {
            lib(out, r)?;
        }
    }

    writeln!(out, "  L4 cuDNN & CUDA libraries")?;
    for i in &f.libraries.cudnn {
        writeln!(
            out,
            "    cuDNN {} in {}{}",
            i.major,
            i.dir,
            if i.loader_selected {
                " [loader picks this]"
            } else {
                ""
            }
        )?;
        line(out, "  version", &i.version)?;
        line(out, "  built for CUDA", &i.cuda_major)?;
        if let Some(s) = &i.shim {
            lib(out, s)?;
        }
        for s in &i.sublibraries {
            lib(out, s)?;
        }
    }
    for (stem, files) in &f.libraries.other {
        writeln!(out, "    {stem}:")?;
        for file in files {
            lib(out, file)?;
        }
    }

    writeln!(out, "  L5 Python")?;
    for (what, exe) in [
        ("python on PATH", &f.python.python_on_path),
        ("pip on PATH", &f.python.pip_on_path),
    ] {
        if let Some(x) = exe {
            writeln!(
                out,
                "    {what}: {} -> {} (environment {})",
                x.path,
                x.resolved.as_deref().unwrap_or("?"),
                x.environment.as_deref().unwrap_or("unknown")
            )?;
        }
    }
    for e in &f.python.environments {
        writeln!(
            out,
            "    {} at {} [{}{}{}], found via {}",
            e.name,
            e.prefix,
            e.kind,
            if e.active { ", active" } else { "" },
            if e.full { ", read in full" } else { ", listed" },
            e.found_via.join(", ")
        )?;
        line(out, "  Python", &e.python_version)?;
        for sp in &e.site_packages {
            writeln!(out, "      site-packages: {sp}")?;
        }
        writeln!(
            out,
            "      {} distributions, {} conda packages",
            e.distributions.len(),
            e.conda_packages.len()
        )?;
        if let Some(t) = &e.frameworks.torch {
            writeln!(
                out,
                "      torch {} cuda {} CUDA libraries: {}   ({})",
                t.version.value,
                t.cuda.as_deref().unwrap_or("none"),
                t.cuda_libraries,
                t.version.source
            )?;
            for (k, v) in &t.cuda_pins {
                writeln!(out, "        pins {k}{v}")?;
            }
        }
        if let Some(tf) = &e.frameworks.tensorflow {
            writeln!(
                out,
                "      tensorflow {} cuda {} cudnn {}   (file {})",
                tf.version,
                tf.cuda_version.as_deref().unwrap_or("none"),
                tf.cudnn_version.as_deref().unwrap_or("none"),
                tf.source
            )?;
        }
        for (k, v) in &e.frameworks.packages {
            writeln!(out, "      {k} {v}")?;
        }
        // The CUDA libraries the environment holds itself, by directory.
        let mut by_dir: Vec<(&str, Vec<&str>)> = Vec::new();
        for path in &e.cuda_libraries {
            let (dir, name) = path.rsplit_once('/').unwrap_or(("", path.as_str()));
            match by_dir.iter_mut().find(|(d, _)| *d == dir) {
                Some((_, names)) => names.push(name),
                None => by_dir.push((dir, vec![name])),
            }
        }
        for (dir, names) in by_dir {
            const SHOWN: usize = 6;
            let more = names.len().saturating_sub(SHOWN);
            writeln!(
                out,
                "      own CUDA libraries in {dir} (not searched by the system loader): {}{}",
                names[..names.len().min(SHOWN)].join(", "),
                if more > 0 {
                    format!(" and {more} more")
                } else {
                    String::new()
                }
            )?;
        }
        for err in &e.errors {
            writeln!(out, "      could not read: {err}")?;
        }
    }

    writeln!(out, "  Environment")?;
    for (k, v) in &f.env.variables {
        writeln!(out, "    {k}={v}")?;
    }
    if !f.probe_errors.is_empty() {
        writeln!(out, "  Could not read")?;
        for e in &f.probe_errors {
            writeln!(out, "    {} — {}: {}", e.probe, e.subject, e.message)?;
        }
    }
    Ok(())
}
