//! `gpuenv kb`: the knowledge base's date, table sizes and sources.

use std::io::{self, Write};

use gpuenv_kb::Kb;

pub fn run(kb: &Kb) -> io::Result<()> {
    let mut out = io::stdout().lock();
    writeln!(out, "{} (as of {})", kb.name, kb.as_of)?;
    let gpus = kb.gpus().map(|g| g.len()).unwrap_or(0);
    writeln!(
        out,
        "tables: {} toolkits, {} driver branches, {} CUDA majors, {} compute capabilities, {} cuDNN release ranges, {} GPUs",
        kb.toolkits.len(),
        kb.branches.len(),
        kb.cuda_majors.len(),
        kb.ccs.len(),
        kb.cudnn_releases.len(),
        gpus
    )?;
    let f = &kb.frameworks;
    writeln!(
        out,
        "        {} PTX ISA versions, {} dlopen edges; frameworks: {} torch releases ({} cuDNN, {} arch rows), {} torchvision, {} torchaudio, {} TensorFlow, {} JAX releases, {} JAX plugins, {} DeepLabCut, {} known conflicts",
        kb.ptx_isas.len(),
        kb.dlopen.len(),
        f.torch_releases.len(),
        f.torch_cudnn.len(),
        f.torch_archs.len(),
        f.torchvision.len(),
        f.torchaudio.len(),
        f.tensorflow.len(),
        f.jax_releases.len(),
        f.jax_plugins.len(),
        f.deeplabcut.len(),
        f.conflicts.len()
    )?;
    for (table, origin) in &kb.origins {
        writeln!(out, "table {table} replaced by {origin}")?;
    }
    writeln!(out, "\nsources ({}):", kb.source_count())?;
    for s in &kb.sources {
        writeln!(out, "  {:<20} {}", s.id, s.description)?;
    }
    Ok(())
}
