//! Tests of the built-in tables against the values NVIDIA's documents give, and of the queries.

use super::*;

fn kb() -> Kb {
    Kb::builtin().expect("built-in knowledge base parses and validates")
}

fn v(s: &str) -> Version {
    s.parse().unwrap()
}

fn cc(s: &str) -> ComputeCapability {
    s.parse().unwrap()
}

fn cuda(s: &str) -> CudaVersion {
    s.parse().unwrap()
}

#[test]
fn builtin_tables_are_populated_and_cite_known_sources() {
    let kb = kb();
    assert!(kb.toolkits.len() >= 60);
    assert!(kb.branches.len() >= 28);
    assert_eq!(kb.cuda_majors.len(), 3);
    assert!(kb.ccs.len() >= 26);
    assert!(kb.source_count() >= 50);
    assert_eq!(kb.as_of, "2026-11-30");
}

#[test]
fn toolkit_minimum_drivers_match_release_notes() {
    let kb = kb();
    let min = |s: &str| {
        kb.toolkit(&v(s))
            .and_then(|r| r.min_driver.clone())
            .map(|d| d.to_string())
    };
    assert_eq!(min("12.4.0").as_deref(), Some("550.54.14"));
    assert_eq!(min("12.4.1").as_deref(), Some("550.54.15"));
    assert_eq!(min("11.8.0").as_deref(), Some("520.61.05"));
    assert_eq!(min("12.8.0").as_deref(), Some("570.26"));
    assert_eq!(min("13.0.0").as_deref(), Some("580.65.06"));
    // A patch release the table does not list falls back to the newest listed one below it.
    assert_eq!(min("12.4.99").as_deref(), Some("550.54.15"));
    // 11.8.89 (a cudart component version) maps to the 11.8 row.
    assert_eq!(min("11.8.89").as_deref(), Some("520.61.05"));
    // Unconfirmed rows carry only the branch.
    let r = kb.toolkit(&v("13.4.1")).unwrap();
    assert!(!r.confirmed);
    assert_eq!(r.min_driver, None);
    assert_eq!(r.min_driver_branch, Some(615));
}

#[test]
fn minor_version_compatibility_minimums() {
    let kb = kb();
    assert_eq!(
        kb.mvc_min_driver(11).unwrap().mvc_min_driver,
        v("450.80.02")
    );
    assert_eq!(
        kb.mvc_min_driver(12).unwrap().mvc_min_driver,
        v("525.60.13")
    );
    assert_eq!(
        kb.mvc_min_driver(13).unwrap().mvc_min_driver,
        v("580.65.06")
    );
    assert!(kb.mvc_min_driver(10).is_none());
}

#[test]
fn driver_ceilings() {
    let kb = kb();
    assert_eq!(
        kb.max_cuda_for_driver(&v("535.261.03")),
        DriverCeiling::Known {
            max_cuda: cuda("12.2"),
            branch: 535
        }
    );
    assert_eq!(
        kb.max_cuda_for_driver(&v("470.239.06")),
        DriverCeiling::Known {
            max_cuda: cuda("11.4"),
            branch: 470
        }
    );
    // 565 has no toolkit of its own but reports 12.7.
    assert_eq!(
        kb.max_cuda_for_driver(&v("565.57.01")),
        DriverCeiling::Known {
            max_cuda: cuda("12.7"),
            branch: 565
        }
    );
    // A branch between rows takes the row below it (e.g. 536 is a 535-family Windows number).
    assert!(matches!(
        kb.max_cuda_for_driver(&v("999.1")),
        DriverCeiling::NewerThanKb { .. }
    ));
    assert_eq!(
        kb.max_cuda_for_driver(&v("390.157")),
        DriverCeiling::OlderThanKb
    );
    assert_eq!(kb.first_branch_for_cuda(cuda("12.4")).unwrap().branch, 550);
    assert_eq!(kb.first_branch_for_cuda(cuda("12.8")).unwrap().branch, 570);
}

#[test]
fn architecture_support_per_toolkit() {
    let kb = kb();
    assert_eq!(
        kb.arch_support(cc("8.6"), cuda("12.4")),
        ArchSupport::Supported
    );
    assert_eq!(
        kb.arch_support(cc("12.0"), cuda("12.4")),
        ArchSupport::GpuTooNew {
            first_cuda: cuda("12.8")
        }
    );
    assert_eq!(
        kb.arch_support(cc("3.5"), cuda("12.0")),
        ArchSupport::GpuDropped {
            last_cuda: cuda("11.8")
        }
    );
    assert_eq!(
        kb.arch_support(cc("6.1"), cuda("13.0")),
        ArchSupport::GpuDropped {
            last_cuda: cuda("12.9")
        }
    );
    assert_eq!(
        kb.arch_support(cc("6.1"), cuda("12.9")),
        ArchSupport::Supported
    );
    assert_eq!(
        kb.arch_support(cc("7.5"), cuda("13.5")),
        ArchSupport::Supported
    );
    assert_eq!(
        kb.arch_support(cc("2.1"), cuda("12.0")),
        ArchSupport::Unknown
    );
    assert_eq!(kb.cc(cc("6.1")).unwrap().last_driver_branch, Some(580));
    assert_eq!(kb.cc(cc("3.7")).unwrap().last_driver_branch, Some(470));
    assert_eq!(kb.cc(cc("8.9")).unwrap().architecture, "Ada Lovelace");
}

#[test]
fn cudnn_release_cuda_majors() {
    let kb = kb();
    assert_eq!(kb.cudnn_release(&v("8.6.0")).unwrap().cuda_majors, vec![11]);
    assert_eq!(
        kb.cudnn_release(&v("8.9.2")).unwrap().cuda_majors,
        vec![11, 12]
    );
    assert_eq!(
        kb.cudnn_release(&v("9.26.0")).unwrap().cuda_majors,
        vec![12, 13]
    );
    assert!(kb.cudnn_release(&v("10.0.0")).is_none());
    let l9 = kb.cudnn_layout(9).unwrap();
    assert_eq!(l9.version_multiplier, 10000);
    assert_eq!(l9.sublibraries.len(), 7);
    assert_eq!(kb.cudnn_layout(8).unwrap().version_multiplier, 1000);
}

#[test]
fn override_replaces_a_table_and_keeps_the_others() {
    let text = r#"
as_of = "2027-01-01"
[[source]]
id = "MY-NOTES"
description = "site notes"

[[branch]]
branch = 700
max_cuda = "14.0"
confirmed = true
sources = ["MY-NOTES"]
"#;
    let kb = Kb::with_override("site.toml", text, None).unwrap();
    assert_eq!(kb.as_of, "2027-01-01");
    assert_eq!(kb.branches.len(), 1);
    assert_eq!(
        kb.max_cuda_for_driver(&v("700.1")),
        DriverCeiling::Known {
            max_cuda: cuda("14.0"),
            branch: 700
        }
    );
    assert!(kb.toolkits.len() >= 60, "other tables stay built-in");
    assert!(kb
        .origins
        .iter()
        .any(|(t, n)| t == "branch" && n == "site.toml"));
}

#[test]
fn override_with_unknown_source_or_field_is_rejected() {
    let bad_source =
        "[[branch]]\nbranch = 1\nmax_cuda = \"1.0\"\nconfirmed = true\nsources = [\"NOPE\"]\n";
    let err = Kb::with_override("x.toml", bad_source, None).unwrap_err();
    assert!(err.to_string().contains("NOPE"), "{err}");
    let bad_field = "[[branch]]\nbranch = 1\nmax_cuda = \"1.0\"\nconfirmed = true\nsources = [\"PYPI\"]\ncolour = 3\n";
    assert!(Kb::with_override("x.toml", bad_field, None).is_err());
    assert!(Kb::with_override("x.toml", "this is = not toml [", None).is_err());
}

#[test]
fn gpus_tsv_parses_and_rejects_malformed_rows() {
    let text = "# c\ndevice_id\tchip\tcompute_capability\tname\tlegacy_branch\tsources\n2204\tGA102\t8.6\tNVIDIA GeForce RTX 3090\t\tX\n102d\tGK210\t3.7\tTesla K80\t470.xx\tX;Y\n";
    let rows = parse_gpus_tsv("t", text).unwrap();
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0].device_id, 0x102d);
    assert_eq!(rows[0].legacy_branch.as_deref(), Some("470.xx"));
    assert_eq!(rows[1].cc, Some(cc("8.6")));
    for bad in [
        "",
        "device_id\tchip\n",
        "device_id\tchip\tcompute_capability\tname\tlegacy_branch\tsources\nzzzz\ta\t\tn\t\tX\n",
        "device_id\tchip\tcompute_capability\tname\tlegacy_branch\tsources\n2204\ta\t8\tn\t\tX\n",
        "device_id\tchip\tcompute_capability\tname\tlegacy_branch\tsources\n2204\ta\t8.6\tn\t\t\n",
    ] {
        assert!(parse_gpus_tsv("t", bad).is_err(), "{bad:?}");
    }
}

#[test]
fn builtin_gpu_table_parses() {
    let kb = kb();
    let rows = kb.gpus().expect("gpus.tsv parses");
    for r in rows {
        for s in &r.sources {
            assert!(
                kb.source(s).is_some() || gpu_table_defines_source(s),
                "gpu row {:04x} cites unknown source {s}",
                r.device_id
            );
        }
    }
}

/// gpus.tsv defines its own sources in its comment header.
fn gpu_table_defines_source(id: &str) -> bool {
    BUILTIN_GPUS
        .lines()
        .take_while(|l| l.starts_with('#'))
        .any(|l| l.contains(id))
}

#[test]
fn builtin_summary_agrees_with_the_loaded_knowledge_base() {
    let kb = kb();
    assert_eq!(builtin_summary(), (kb.as_of.clone(), kb.source_count()));
}

#[test]
fn builtin_documents_hold_only_known_tables() {
    for (name, text) in crate::BUILTIN_DOCUMENTS {
        let table: toml::Table = toml::from_str(text).unwrap();
        for key in table.keys() {
            assert!(
                crate::tables::DOCUMENT_KEYS.contains(&key.as_str()),
                "{name}: `{key}`"
            );
        }
    }
    // Each listed key is a field: a value of the wrong type is rejected (an unknown top-level
    // key would be ignored).
    for key in crate::tables::DOCUMENT_KEYS {
        let doc: Result<KbDocument, _> = toml::from_str(&format!("{key} = 5"));
        assert!(doc.is_err(), "{key} is not a KbDocument field");
    }
}
