//! Fuzz target: `gpuenv explain`'s pipeline (normalisation, the one-pass matcher, value
//! extraction, ranking) on arbitrary bytes, without facts and with default facts, and the
//! provenance check (`conclude_checked`) with facts that carry a host name.
#![no_main]

use std::sync::OnceLock;

use gpuenv_explain::Explainer;
use libfuzzer_sys::fuzz_target;

fn explainer() -> Option<&'static Explainer> {
    static E: OnceLock<Option<Explainer>> = OnceLock::new();
    E.get_or_init(|| Explainer::builtin().ok()).as_ref()
}

fuzz_target!(|data: &[u8]| {
    let Some(e) = explainer() else {
        return;
    };
    let x = e.explain(data, None, None);
    let _ = x.top();
    let mut facts = gpuenv_facts::Facts::default();
    let _ = e.explain(data, Some(&facts), None);
    facts.os.hostname = Some(gpuenv_facts::Sourced::new(
        "fuzz-host".to_string(),
        gpuenv_facts::Source::File("/proc/sys/kernel/hostname".to_string()),
    ));
    let scanned = e.scan(data);
    let _ = e.conclude_checked(&scanned, &facts, None, &|_: &str| false);
});
