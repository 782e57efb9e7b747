//! `gpuenv env`: every environment variable gpuenv reads, with what it does.

use std::io::{self, Write};

use gpuenv_probe::{VarKind, VARIABLES};

pub fn run() -> io::Result<()> {
    let mut out = io::stdout().lock();
    for (kind, title) in [
        (
            VarKind::Inspected,
            "Variables of the CUDA stack that gpuenv inspects",
        ),
        (
            VarKind::Override,
            "Overrides, for facts that cannot be read (CI, containers, planning)",
        ),
        (VarKind::Setting, "gpuenv settings"),
    ] {
        writeln!(out, "{title}:")?;
        for v in VARIABLES.iter().filter(|v| v.kind == kind) {
            writeln!(out, "  {:<28} {}", v.name, v.doc)?;
        }
        writeln!(out)?;
    }
    Ok(())
}
