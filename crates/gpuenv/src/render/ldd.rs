//! Renders a loader simulation (`gpuenv ldd`): a libtree-like tree for people, or the
//! `gpuenv.ldd/1` JSON object.

use std::io::{self, Write};

use gpuenv_probe::loader::{Attempt, Dep, Object, Outcome, Request, Simulation};
use gpuenv_probe::SystemRoot;
use serde::Serialize;

/// The JSON schema id of `gpuenv ldd --format json`.
pub const LDD_SCHEMA: &str = "gpuenv.ldd/1";

/// Indentation stops growing past this depth (a hostile chain of thousands stays printable).
const MAX_INDENT: usize = 48;

#[derive(Serialize)]
struct LddJson<'a> {
    schema: &'static str,
    root: String,
    file: &'a str,
    missing: usize,
    #[serde(flatten)]
    simulation: &'a Simulation,
}

pub fn json(out: &mut impl Write, root: &SystemRoot, sim: &Simulation) -> io::Result<()> {
    let file = sim.objects.first().map(|o| o.path.as_str()).unwrap_or("");
    let doc = LddJson {
        schema: LDD_SCHEMA,
        root: root.dir().display().to_string(),
        file,
        missing: sim.missing().len(),
        simulation: sim,
    };
    serde_json::to_writer_pretty(&mut *out, &doc)?;
    writeln!(out)
}

fn outcome_text(o: &Outcome) -> &'static str {
    match o {
        Outcome::NotFound => "not found",
        Outcome::NoCacheEntry => "no entry",
        Outcome::SkippedNodeflib => "ignored: requester has DF_1_NODEFLIB",
        Outcome::WrongClass => "skipped: wrong ELF class",
        Outcome::WrongMachine => "skipped: wrong machine",
        Outcome::Unreadable => "skipped: cannot open",
        Outcome::Fatal => "cannot load",
        Outcome::Found => "found",
    }
}

fn attempt_line(a: &Attempt) -> String {
    let mut s = format!("{} [{}] {}", a.path, a.step, outcome_text(&a.outcome));
    if let Some(d) = &a.detail {
        s.push_str(&format!(": {d}"));
    }
    s
}

/// `path`, or `path -> real` when it is a symlink.
fn shown_path(o: &Object) -> String {
    if o.path == o.real_path {
        o.path.clone()
    } else {
        format!("{} -> {}", o.path, o.real_path)
    }
}

fn request_tag(r: &Request) -> String {
    match r {
        Request::Needed => String::new(),
        Request::Preload { from } => format!(" [preload: {from}]"),
        Request::Dlopen { why, .. } => format!(" [dlopen: {why}]"),
    }
}

/// One line of the tree and the notes under it.
struct Line {
    text: String,
    notes: Vec<String>,
    children: Vec<usize>,
}

fn dep_line(sim: &Simulation, dep: &Dep, verbose: bool) -> Option<Line> {
    let tag = request_tag(&dep.request);
    if let Some(m) = &dep.missing {
        let mut notes: Vec<String> = m
            .tried
            .iter()
            .map(|a| format!("tried {}", attempt_line(a)))
            .collect();
        if let Some(e) = &m.error {
            notes.push(format!("error: {e}"));
        }
        let what = if m.error.is_some() {
            "cannot be loaded"
        } else {
            "not found"
        };
        return Some(Line {
            text: format!("{}{tag} {what}", dep.name),
            notes,
            children: Vec::new(),
        });
    }
    let idx = dep.object?;
    let o = sim.objects.get(idx)?;
    if !dep.loaded_here {
        if !verbose && !matches!(dep.request, Request::Dlopen { .. }) {
            return None;
        }
        return Some(Line {
            text: format!("{}{tag} (already loaded: {})", dep.name, o.path),
            notes: Vec::new(),
            children: Vec::new(),
        });
    }
    let mut notes = Vec::new();
    for s in &o.skipped {
        notes.push(attempt_line(s));
    }
    for s in &o.shadowed {
        let real = if s.real_path == s.path {
            String::new()
        } else {
            format!(" -> {}", s.real_path)
        };
        let version = match (&o.version, &s.version, s.version_differs) {
            (Some(mine), Some(theirs), true) => {
                format!(", a different version ({theirs}, this one {mine})")
            }
            (_, Some(theirs), false) => format!(", version {theirs}"),
            _ => String::new(),
        };
        notes.push(format!("shadows {}{real} [{}]{version}", s.path, s.step));
    }
    Some(Line {
        text: format!("{}{tag} [{}] {}", dep.name, o.found_by, shown_path(o)),
        notes,
        children: vec![idx],
    })
}

pub fn human(out: &mut impl Write, sim: &Simulation, verbose: bool) -> io::Result<()> {
    let Some(main) = sim.objects.first() else {
        return Ok(());
    };
    writeln!(out, "{}", shown_path(main))?;
    render_subtrees(out, sim, verbose, &mut vec![(0, String::new(), 0)])?;
    for d in &sim.missing_preloads {
        writeln!(out, "{} [preload] not found", d.name)?;
        if let Some(m) = &d.missing {
            for a in &m.tried {
                writeln!(out, "    tried {}", attempt_line(a))?;
            }
        }
    }
    let missing = sim.missing().len();
    let dlopened = sim
        .objects
        .iter()
        .filter(|o| matches!(o.request, Request::Dlopen { .. }))
        .count();
    writeln!(out)?;
    writeln!(
        out,
        "{} objects loaded ({} through dlopen edges), {} missing",
        sim.objects.len(),
        dlopened,
        missing
    )?;
    if let Some(t) = &sim.truncated {
        writeln!(out, "warning: stopped early: {t}")?;
    }
    if verbose {
        let c = &sim.context;
        writeln!(out, "default directories: {}", c.default_dirs.join(" "))?;
        writeln!(out, "$LIB = {}, $PLATFORM = {}", c.lib, c.platform)?;
        writeln!(
            out,
            "glibc-hwcaps: {} ({})",
            c.hwcaps.join(" "),
            c.hwcaps_source
        )?;
        if let Some(cache) = &c.cache {
            writeln!(out, "cache: {cache}")?;
        }
    }
    Ok(())
}

/// Prints the dependency trees of `items` (object, prefix, depth) depth-first, with an explicit
/// stack instead of recursion so a hostile chain of thousands of objects cannot overflow it.
fn render_subtrees(
    out: &mut impl Write,
    sim: &Simulation,
    verbose: bool,
    items: &mut Vec<(usize, String, usize)>,
) -> io::Result<()> {
    // Each frame: the lines still to print for one object.
    struct Frame {
        lines: std::vec::IntoIter<Line>,
        remaining: usize,
        prefix: String,
        depth: usize,
    }
    let mut frames: Vec<Frame> = Vec::new();
    let push = |frames: &mut Vec<Frame>, idx: usize, prefix: String, depth: usize| {
        if let Some(obj) = sim.objects.get(idx) {
            let lines: Vec<Line> = obj
                .deps
                .iter()
                .filter_map(|d| dep_line(sim, d, verbose))
                .collect();
            frames.push(Frame {
                remaining: lines.len(),
                lines: lines.into_iter(),
                prefix,
                depth,
            });
        }
    };
    for (idx, prefix, depth) in items.drain(..) {
        push(&mut frames, idx, prefix, depth);
        while let Some(frame) = frames.last_mut() {
            let Some(line) = frame.lines.next() else {
                frames.pop();
                continue;
            };
            frame.remaining -= 1;
            let last = frame.remaining == 0;
            let (branch, cont) = if last {
                ("└── ", "    ")
            } else {
                ("├── ", "│   ")
            };
            writeln!(out, "{}{branch}{}", frame.prefix, line.text)?;
            for n in &line.notes {
                writeln!(out, "{}{cont}    {n}", frame.prefix)?;
            }
            let child_prefix = if frame.depth < MAX_INDENT {
                format!("{}{cont}", frame.prefix)
            } else {
                frame.prefix.clone()
            };
            let depth = frame.depth + 1;
            for c in line.children {
                push(&mut frames, c, child_prefix.clone(), depth);
            }
        }
    }
    Ok(())
}
