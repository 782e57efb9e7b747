//! L4 checks: cuDNN installs — several versions on the loader's path, broken symlink chains, a
//! build for the wrong CUDA major, and a shim mixed with another release's sub-libraries.

use std::collections::BTreeMap;

use gpuenv_facts::{CudnnInstall, LibraryFile, LinkState};

use crate::context::Context;
use crate::finding::{
    Finding, Severity, CUDNN_BROKEN_LINK, CUDNN_CUDA_MISMATCH, CUDNN_MIXED_SUBLIBRARIES,
    CUDNN_MULTIPLE_VERSIONS,
};

/// The last component of a path.
fn file_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

fn version_text(i: &CudnnInstall) -> String {
    i.version
        .as_ref()
        .map(|v| v.value.to_string())
        .unwrap_or_else(|| format!("{}.x", i.major))
}

/// `cudnn-multiple-versions`: more than one version of the same cuDNN major is reachable by the
/// system loader; which one a program gets depends on `LD_LIBRARY_PATH` and cache order.
pub fn cudnn_multiple_versions(cx: &Context, out: &mut Vec<Finding>) {
    let mut by_major: BTreeMap<u32, Vec<&CudnnInstall>> = BTreeMap::new();
    for i in cx
        .facts
        .libraries
        .cudnn
        .iter()
        .filter(|i| !i.reachable_via.is_empty())
    {
        by_major.entry(i.major).or_default().push(i);
    }
    for (major, installs) in by_major {
        let mut versions: Vec<String> = installs.iter().map(|i| version_text(i)).collect();
        versions.sort();
        versions.dedup();
        if versions.len() < 2 {
            continue;
        }
        let mut finding = Finding::new(
            &CUDNN_MULTIPLE_VERSIONS,
            Severity::Warning,
            format!(
                "{} versions of libcudnn.so.{major} are on the loader's path: {}",
                versions.len(),
                versions.join(", ")
            ),
        );
        for i in &installs {
            let picked = if i.loader_selected {
                " — the loader picks this one"
            } else {
                ""
            };
            let source = i
                .version
                .as_ref()
                .map(|v| format!(" ({})", v.source))
                .unwrap_or_default();
            finding = finding.evidence(format!(
                "cuDNN {}{source} in {} via {}{picked}",
                version_text(i),
                i.dir,
                i.reachable_via.join(", ")
            ));
        }
        let losers: Vec<&str> = installs
            .iter()
            .filter(|i| !i.loader_selected)
            .map(|i| i.dir.as_str())
            .collect();
        out.push(finding.fix(format!(
            "Keep one cuDNN {major} on the system path: remove the other package (dpkg -S / rpm -qf tells which owns {}), \
             or take its directory out of LD_LIBRARY_PATH / /etc/ld.so.conf.d and run sudo ldconfig.",
            losers
                .first()
                .map(|d| format!("{d}/libcudnn.so.{major}"))
                .unwrap_or_else(|| "it".into())
        )));
    }
}

fn broken_reason(f: &LibraryFile, expected_soname: &str, major: u32) -> Option<String> {
    match f.link_state {
        LinkState::Dangling => return Some(format!("{} is a dangling symlink", f.path)),
        LinkState::Loop => return Some(format!("{} is a symlink loop", f.path)),
        LinkState::Missing => return Some(format!("{} is missing", f.path)),
        LinkState::Ok => {}
    }
    if let Some(e) = &f.error {
        return Some(format!("{}: {e}", f.path));
    }
    let name = f.path.rsplit('/').next().unwrap_or("");
    if name != expected_soname {
        return Some(format!(
            "{expected_soname} is missing: only {} exists, so the loader cannot find it by its SONAME",
            f.real_path.as_deref().unwrap_or(&f.path)
        ));
    }
    if let Some(so) = &f.soname {
        if so != expected_soname {
            return Some(format!(
                "{} leads to {}, whose SONAME is {so}, not {expected_soname}",
                f.path,
                f.real_path.as_deref().unwrap_or("?")
            ));
        }
    }
    if let Some(v) = &f.version {
        if v.major() != major {
            return Some(format!(
                "{} leads to {}, a cuDNN {v} file",
                f.path,
                f.real_path.as_deref().unwrap_or("?")
            ));
        }
    }
    None
}

/// `cudnn-broken-link`: `libcudnn.so.N` (or a sub-library's link) is missing, dangling, or leads to
/// another version than its SONAME says; or sub-libraries the shim loads are missing.
pub fn cudnn_broken_link(cx: &Context, out: &mut Vec<Finding>) {
    for i in &cx.facts.libraries.cudnn {
        let shim_name = format!("libcudnn.so.{}", i.major);
        let mut problems = Vec::new();
        match &i.shim {
            Some(s) => problems.extend(broken_reason(s, &shim_name, i.major)),
            None => problems.push(format!("{shim_name} is missing from {}", i.dir)),
        }
        if let Some(layout) = cx.kb.cudnn_layout(i.major) {
            for sub in &layout.sublibraries {
                match i
                    .sublibraries
                    .iter()
                    .find(|s| s.path.ends_with(&format!("/{sub}")))
                {
                    Some(s) => problems.extend(broken_reason(s, sub, i.major)),
                    None if i.shim.is_some() => {
                        problems.push(format!("{sub} is missing: the shim loads it at run time"))
                    }
                    None => {}
                }
            }
        }
        if let Some(dev) = &i.dev_link {
            if dev.state != LinkState::Ok {
                problems.push(
                    format!("{} is {:?} (only builds need it)", dev.path, dev.state).to_lowercase(),
                );
            }
        }
        if problems.is_empty() {
            continue;
        }
        let mut finding = Finding::new(
            &CUDNN_BROKEN_LINK,
            Severity::Error,
            format!(
                "the cuDNN {} install in {} is broken",
                version_text(i),
                i.dir
            ),
        );
        for p in problems {
            finding = finding.evidence(p);
        }
        finding = finding.evidence(
            "programs fail with \"libcudnn.so.N: cannot open shared object file\", a symbol-version error, \
             or CUDNN_STATUS_NOT_INITIALIZED",
        );
        let reinstall = match &i.version {
            Some(v) => format!(
                "Reinstall cuDNN {} from its package (apt/dnf reinstall, or pip install --force-reinstall of the wheel)",
                v.value
            ),
            None => "Reinstall cuDNN from its package so that every libcudnn*.so.N link is intact".into(),
        };
        // Recreating the SONAME link helps only when it is missing and the real file is there.
        let relink = i
            .shim
            .as_ref()
            .filter(|s| s.link_state == LinkState::Ok && file_name(&s.path) != shim_name)
            .map(|s| file_name(&s.path).to_string());
        let fix = match relink {
            Some(real) => format!(
                "{reinstall}, or recreate the link: sudo ln -sfn {real} {}/{shim_name} && sudo ldconfig",
                i.dir
            ),
            None => format!("{reinstall}, then run sudo ldconfig."),
        };
        out.push(finding.fix(fix));
    }
}

/// The CUDA major of the runtime that goes with a cuDNN install: a `libcudart` in the same
/// directory, else the system's (loader-reachable) runtime, else the `/usr/local/cuda` toolkit.
fn runtime_major_beside(cx: &Context, install: &CudnnInstall) -> Option<(u32, String)> {
    let f = cx.facts;
    let major_of = |r: &LibraryFile| {
        r.soname
            .as_deref()
            .or(Some(r.path.rsplit('/').next().unwrap_or("")))
            .and_then(|s| s.strip_prefix("libcudart.so."))
            .and_then(|s| s.split('.').next())
            .and_then(|m| m.parse::<u32>().ok())
    };
    fn real_dir(r: &LibraryFile) -> Option<&str> {
        r.real_path
            .as_deref()
            .map(|p| p.rsplit_once('/').map(|x| x.0).unwrap_or(""))
    }
    if let Some(r) = f
        .cuda
        .runtimes
        .iter()
        .find(|r| r.dir == install.dir || real_dir(r) == Some(install.dir.as_str()))
    {
        if let Some(m) = major_of(r) {
            return Some((m, format!("CUDA runtime {} in the same directory", r.path)));
        }
    }
    if let Some(t) = f
        .cuda
        .toolkits
        .iter()
        .find(|t| install.dir.starts_with(&format!("{}/", t.real_root)) && t.layout == "nvidia")
    {
        if let Some(v) = &t.version {
            return Some((
                v.value.major(),
                format!("toolkit {} at {} holds it", v.value, t.root),
            ));
        }
    }
    if !install.reachable_via.is_empty() {
        if let Some(r) = f
            .cuda
            .runtimes
            .iter()
            .find(|r| !r.reachable_via.is_empty() && r.link_state == LinkState::Ok)
        {
            if let Some(m) = major_of(r) {
                return Some((
                    m,
                    format!(
                        "the system's CUDA runtime {} ({})",
                        r.path,
                        r.reachable_via.join(", ")
                    ),
                ));
            }
        }
    }
    let link = f.cuda.usr_local_cuda.as_ref()?.resolved.as_deref()?;
    let t = f.cuda.toolkits.iter().find(|t| t.real_root == link)?;
    let v = t.version.as_ref()?;
    Some((
        v.value.major(),
        format!("/usr/local/cuda -> {link} (CUDA {})", v.value),
    ))
}

/// `cudnn-cuda-mismatch`: the cuDNN was built for another CUDA major than the runtime beside it
/// (its NEEDED cuBLAS names the major), or its release was never built for that major at all.
pub fn cudnn_cuda_mismatch(cx: &Context, out: &mut Vec<Finding>) {
    for i in &cx.facts.libraries.cudnn {
        let Some((runtime_major, runtime_why)) = runtime_major_beside(cx, i) else {
            continue;
        };
        let release = i
            .version
            .as_ref()
            .and_then(|v| cx.kb.cudnn_release(&v.value));
        let built_for = i.cuda_major.as_ref();
        let mismatch_built = built_for.filter(|b| b.value != runtime_major);
        let no_build = release.filter(|r| !r.cuda_majors.contains(&runtime_major));
        if mismatch_built.is_none() && no_build.is_none() {
            continue;
        }
        let title = match (mismatch_built, no_build) {
            (Some(b), _) => format!(
                "cuDNN {} in {} was built for CUDA {}, but the CUDA runtime beside it is CUDA {runtime_major}",
                version_text(i), i.dir, b.value
            ),
            (None, Some(r)) => format!(
                "cuDNN {} has no build for CUDA {runtime_major} (only CUDA {})",
                version_text(i),
                r.cuda_majors.iter().map(|m| m.to_string()).collect::<Vec<_>>().join(", ")
            ),
            (None, None) => continue,
        };
        let mut finding =
            Finding::new(&CUDNN_CUDA_MISMATCH, Severity::Error, title).evidence(runtime_why);
        if let Some(b) = built_for {
            finding = finding.evidence(format!("built for CUDA {} ({})", b.value, b.source));
        }
        if let Some(v) = &i.version {
            finding = finding.evidence(format!("cuDNN {} ({})", v.value, v.source));
        }
        if let Some(r) = release {
            let confirmed = if r.confirmed { "" } else { "; not confirmed" };
            finding = finding.evidence(format!(
                "knowledge base: cuDNN {}-{} was built for CUDA {} [{}{confirmed}]",
                r.first,
                r.last,
                r.cuda_majors
                    .iter()
                    .map(|m| m.to_string())
                    .collect::<Vec<_>>()
                    .join(", "),
                r.sources.join(", ")
            ));
        }
        finding = finding.evidence(
            "programs fail with CUDNN_STATUS_NOT_INITIALIZED or undefined cuBLAS symbols",
        );
        out.push(finding.fix(format!(
            "Install a cuDNN build for CUDA {runtime_major} (e.g. cuDNN 9 for CUDA {runtime_major}: \
             sudo apt install cudnn9-cuda-{runtime_major} from NVIDIA's repository, or pip install nvidia-cudnn-cu{runtime_major}), \
             and remove this one from the loader's path."
        )));
    }
}

/// `cudnn-mixed-sublibraries`: the shim and its sub-libraries carry different versions, e.g. a
/// `libcudnn.so.8.9.2` with `libcudnn_cnn_infer.so.8.6.0` left over from an older install.
pub fn cudnn_mixed_sublibraries(cx: &Context, out: &mut Vec<Finding>) {
    for i in &cx.facts.libraries.cudnn {
        let Some(shim_v) = i.shim.as_ref().and_then(|s| s.version.clone()) else {
            continue;
        };
        let odd: Vec<&LibraryFile> = i
            .sublibraries
            .iter()
            .filter(|s| s.version.as_ref().is_some_and(|v| *v != shim_v))
            .collect();
        if odd.is_empty() {
            continue;
        }
        let mut finding = Finding::new(
            &CUDNN_MIXED_SUBLIBRARIES,
            Severity::Error,
            format!(
                "cuDNN in {} mixes versions: the shim is {shim_v}, some sub-libraries are not",
                i.dir
            ),
        )
        .evidence(format!(
            "{} -> {}",
            i.shim.as_ref().map(|s| s.path.as_str()).unwrap_or("?"),
            i.shim
                .as_ref()
                .and_then(|s| s.real_path.as_deref())
                .unwrap_or("?")
        ));
        for s in odd {
            finding = finding.evidence(format!(
                "{} -> {} (version {})",
                s.path,
                s.real_path.as_deref().unwrap_or("?"),
                s.version
                    .as_ref()
                    .map(|v| v.to_string())
                    .unwrap_or_default()
            ));
        }
        finding = finding.evidence("the shim loads its sub-libraries at run time and refuses other versions: CUDNN_STATUS_NOT_INITIALIZED or a version error");
        out.push(finding.fix(format!(
            "Remove the stray files and reinstall one cuDNN {shim_v} package so that all its libraries come from it; then sudo ldconfig."
        )));
    }
}
