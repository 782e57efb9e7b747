//! `gpuenv plan` end to end: the real binary with explicit inputs (another machine), its JSON
//! document, `--emit` (atomic, never overwriting without `--force`), and a fake machine root where
//! plan reads the machine as doctor does.
//!
//! Every expected answer is written from the reference tables, not from the program's output:
//! `FF` is ../shared/reference/framework-facts.md (1.1 releases: Pythons, variants, companions;
//! 1.3 cuDNN; 1.4 arch lists; 4 DeepLabCut), `NV` is nvidia-facts.md (1a Toolkit Driver Version,
//! 1b minor-version compatibility, 1c branch -> CUDA, 2 compute capabilities / last branch).
//! The plan's driver rule is full support (NV 1a), as doctor's `driver_vs_cuda` judges it.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::process::{Command, Output};

use serde_json::Value;

fn gpuenv(args: &[&str], dir: Option<&std::path::Path>) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_gpuenv"));
    cmd.arg("plan")
        .args(args)
        .env("GPUENV_NO_NVML", "1")
        .env_remove("GPUENV_GPU_CC")
        .env_remove("GPUENV_DRIVER_VERSION")
        .env_remove("GPUENV_CUDA_DRIVER_VERSION");
    if let Some(d) = dir {
        cmd.current_dir(d);
    }
    cmd.output().expect("run gpuenv")
}

fn plan_json(args: &[&str]) -> (Value, i32) {
    let mut all = vec!["--format", "json"];
    all.extend_from_slice(args);
    let out = gpuenv(&all, None);
    let text = String::from_utf8_lossy(&out.stdout);
    let v: Value = serde_json::from_str(&text)
        .unwrap_or_else(|e| panic!("{e}\n{text}\n{}", String::from_utf8_lossy(&out.stderr)));
    (v, out.status.code().unwrap_or(-1))
}

fn choice(v: &Value) -> (String, String) {
    let c = &v["choice"];
    (
        c["version"].as_str().unwrap_or("").to_string(),
        c["variant"].as_str().unwrap_or("").to_string(),
    )
}

fn companion(v: &Value, name: &str) -> String {
    v["choice"]["companions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == name)
        .map(|c| c["version"].as_str().unwrap().to_string())
        .unwrap_or_default()
}

fn excluded_text(v: &Value, kind: &str) -> String {
    v["constraints"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["kind"] == kind)
        .flat_map(|c| c["excluded"].as_array().unwrap().iter())
        .map(|e| e.as_str().unwrap().to_string())
        .collect::<Vec<_>>()
        .join("\n")
}

fn pip_command(v: &Value) -> String {
    v["commands"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["manager"] == "pip")
        .unwrap()["commands"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap().to_string())
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn blackwell_rtx_50xx_on_driver_570() {
    // RTX 5090 = CC 12.0 (NV 2). Driver 570.133.07: R570, CUDA <= 12.8 (NV 1c); CUDA 12.8 needs
    // >= 570.26 (KB toolkit row), 12.9 needs 575.51.03, 13.x needs >= 580 (NV 1a, 1b).
    // sm_120 is only in cu128/cu129/cu13x builds (FF 1.4). cu128 exists through 2.11 (FF 1.1:
    // 2.12 "cu128/cu129 no longer built"), so: torch 2.11.0+cu128, torchvision 0.26.0 (FF 1.1),
    // cuDNN 9.17.1.4 (FF 1.3, 2.11 cu128).
    let (v, code) = plan_json(&["--gpu", "12.0", "--driver", "570.133.07"]);
    assert_eq!(code, 0);
    assert_eq!(choice(&v), ("2.11.0".into(), "cu128".into()));
    assert_eq!(companion(&v, "torchvision"), "0.26.0");
    assert_eq!(v["choice"]["cudnn"], "9.17.1.4");
    assert!(pip_command(&v).contains("--index-url https://download.pytorch.org/whl/cu128"));
    let gpu = excluded_text(&v, "gpu");
    assert!(gpu.contains("cu126 builds of torch 2.14"), "{gpu}");
    assert!(gpu.contains("no code for sm_120"), "{gpu}");
    let driver = excluded_text(&v, "driver");
    assert!(driver.contains("cu130 builds"), "{driver}");
    assert!(driver.contains("this driver is 570.133.07"), "{driver}");
}

#[test]
fn gtx_1080_on_driver_535() {
    // GTX 1080 = CC 6.1 (NV 2). Driver 535: CUDA <= 12.2 (NV 1c); 12.4 needs 550.54.14, 12.6
    // 560.28.03 (NV 1a). sm_60 (same major, 0 <= 1) is in cu118 and cu12x <= cu126 builds, never
    // in cu128+ (FF 1.4 "sm_50/sm_60 absent from every cu128, cu129 and cu13x build"). The
    // newest fully supported: cu118 (needs 520.61.05) of 2.7 — whose arch list FF 1.4 marks
    // UNCONFIRMED — so 2.7.1+cu118 flagged unconfirmed; torchvision 0.22.1, torchaudio 2.7.1
    // (FF 1.1); cuDNN 9.1.0.70 (FF 1.3, 2.4-2.7 cu118).
    let (v, code) = plan_json(&["--gpu", "6.1", "--driver", "535.104.05"]);
    assert_eq!(code, 0);
    assert_eq!(choice(&v), ("2.7.1".into(), "cu118".into()));
    assert_eq!(v["choice"]["confirmed"], false);
    assert_eq!(companion(&v, "torchvision"), "0.22.1");
    assert_eq!(v["choice"]["cudnn"], "9.1.0.70");
    let gpu = excluded_text(&v, "gpu");
    assert!(
        gpu.contains("cu128 builds of torch 2.10, 2.9, 2.8"),
        "{gpu}"
    );
    assert!(gpu.contains("no code for sm_61"), "{gpu}");
    // 2.14.1+cu126 (the newest with sm_60, FF 1.4 "went through 2.14") runs under MVC (>= 525.60.13).
    let alternatives = v["alternatives"].to_string();
    assert!(alternatives.contains("2.14.1+cu126"), "{alternatives}");
    // With --allow-mvc it is the choice.
    let (v, _) = plan_json(&["--gpu", "6.1", "--driver", "535.104.05", "--allow-mvc"]);
    assert_eq!(choice(&v), ("2.14.1".into(), "cu126".into()));
}

#[test]
fn tesla_k80_on_driver_470() {
    // K80 = CC 3.7, last branch R470 (NV 2, 3); R470: CUDA <= 11.4 (NV 1c). sm_37 is in CUDA 10.x
    // and 11.x builds through cu118, never in CUDA 12 (FF 1.4). cu113 (11.3, needs 465.19.01) and
    // cu102 (10.2, needs 440.33) fit fully; cu116+ need >= 510 (NV 1a). Newest: torch 1.12.1
    // (FF 1.1: cu102, cu113; Python 3.7-3.10); the PyPI default cu102 is taken.
    let (v, code) = plan_json(&["--gpu", "3.7", "--driver", "470.256.02"]);
    assert_eq!(code, 0);
    let (version, variant) = choice(&v);
    assert_eq!(version, "1.12.1");
    assert!(variant == "cu102" || variant == "cu113", "{variant}");
    assert_eq!(companion(&v, "torchvision"), "0.13.1");
    // With a current framework nothing fits: the newest confirmed build with sm_37 is 2.5.1+cu118
    // (FF 1.4 "through cu118 (2.5 confirmed)"), needing CUDA 11.8 (520.61.05 full, 450.80.02 MVC).
    let (v, code) = plan_json(&[
        "--gpu",
        "3.7",
        "--driver",
        "470.256.02",
        "--version",
        "torch>=2",
    ]);
    assert_eq!(code, 1);
    assert!(v["choice"].is_null());
    let nf = &v["nothing_fits"];
    assert_eq!(nf["newest_for_gpu"]["version"], "2.5.1");
    assert_eq!(nf["newest_for_gpu"]["variant"], "cu118");
    let needs = nf["needs"].to_string();
    assert!(
        needs.contains("520.61.05") && needs.contains("R470"),
        "{needs}"
    );
}

#[test]
fn h100_on_driver_580() {
    // H100 = CC 9.0 (NV 2). R580: CUDA <= 13.0 (NV 1c); 13.0 needs 580.65.06, 13.2 595.45.04
    // (NV 1a). 2.15 is cu132 only (its cu130 is UNCONFIRMED, FF 1.1) -> only under MVC. 2.14 has
    // cu130 with sm_90 (FF 1.4): torch 2.14.1+cu130, torchvision 0.29.1, torchaudio 2.11.1,
    // cuDNN 9.24.0.43 (FF 1.3). cu130 is 2.14's PyPI default: installed from PyPI.
    let (v, code) = plan_json(&["--gpu", "9.0", "--driver", "580.95.05"]);
    assert_eq!(code, 0);
    assert_eq!(choice(&v), ("2.14.1".into(), "cu130".into()));
    assert_eq!(companion(&v, "torchvision"), "0.29.1");
    assert_eq!(companion(&v, "torchaudio"), "2.11.1");
    assert_eq!(v["choice"]["cudnn"], "9.24.0.43");
    assert!(v["choice"]["index_url"].is_null());
    assert!(pip_command(&v).contains("torch==2.14.1 torchvision==0.29.1 torchaudio==2.11.1"));
    assert!(v["alternatives"].to_string().contains("2.15.0+cu132"));
}

#[test]
fn no_gpu() {
    // Without a GPU every build runs; the newest release is 2.15 (FF 1.1) whose cpu variant is
    // UNCONFIRMED, so its PyPI default (cu132) is taken and 2.14.1+cpu is named.
    let (v, code) = plan_json(&["--no-gpu"]);
    assert_eq!(code, 0);
    assert_eq!(v["choice"]["version"], "2.15.0");
    assert!(v["alternatives"].to_string().contains("2.14.1+cpu"));
    // With a Python only 2.14 has wheels for... 2.15 is cp311-cp315: 3.10 gets 2.14.1+cpu.
    let (v, _) = plan_json(&["--no-gpu", "--python", "3.10"]);
    assert_eq!(choice(&v), ("2.14.1".into(), "cpu".into()));
    assert!(pip_command(&v).contains("https://download.pytorch.org/whl/cpu"));
}

#[test]
fn python_313_and_38() {
    // RTX 3090 = CC 8.6 on R580 (13.0). Python 3.13: 2.15 (cp311-cp315) is cu132 only (MVC);
    // 2.14 has cp310-cp314 and cu130 -> 2.14.1+cu130 (FF 1.1).
    let (v, _) = plan_json(&["--gpu", "8.6", "--driver", "580.95.05", "--python", "3.13"]);
    assert_eq!(choice(&v), ("2.14.1".into(), "cu130".into()));
    // Python 3.8: the last release with cp38 is 2.4 (cp38-cp312; 2.5 is cp39-cp313) (FF 1.1).
    // 2.4's cu118/cu121/cu124 all carry sm_86 and are fully supported by 580: 2.4.1, any of them.
    let (v, _) = plan_json(&["--gpu", "8.6", "--driver", "580.95.05", "--python", "3.8"]);
    let (version, variant) = choice(&v);
    assert_eq!(version, "2.4.1");
    assert!(["cu118", "cu121", "cu124"].contains(&variant.as_str()));
    assert_eq!(companion(&v, "torchvision"), "0.19.1");
    let python = excluded_text(&v, "python");
    assert!(
        python.contains("2.6, 2.5: no wheels for Python 3.8 (wheels for 3.9–3.13)"),
        "{python}"
    );
    assert!(python.contains("no wheels for Python 3.8"), "{python}");
}

#[test]
fn deeplabcut_3_in_a_fresh_conda_env() {
    // DLC 3.0.2 (FF 4): PyTorch engine, Python 3.10-3.12, torch>=2, torchvision. GTX 1080 (6.1) on
    // R580 (13.0): only cu126 builds carry sm_60 from 2.8 on, through 2.14 (FF 1.4) ->
    // torch 2.14.1+cu126, torchvision 0.29.1, in a new conda env with Python 3.12, pip inside
    // conda (no -c pytorch after 2.5, FF 1.6). DEEPLABCUT.yaml's PyPI torch would be cu132 (no sm_61).
    let (v, code) = plan_json(&[
        "--framework",
        "deeplabcut",
        "--gpu",
        "6.1",
        "--driver",
        "580.95.05",
        "--manager",
        "conda",
    ]);
    assert_eq!(code, 0);
    assert_eq!(choice(&v), ("2.14.1".into(), "cu126".into()));
    assert_eq!(companion(&v, "torchvision"), "0.29.1");
    assert_eq!(companion(&v, "deeplabcut"), "3.0.2");
    assert_eq!(companion(&v, "torchaudio"), "");
    assert_eq!(v["choice"]["python_for_new_env"], "3.12");
    let conda = v["commands"][0].to_string();
    assert!(
        conda.contains("conda create -y -n deeplabcut -c conda-forge python=3.12"),
        "{conda}"
    );
    assert!(conda.contains("torch==2.14.1+cu126"), "{conda}");
    assert!(conda.contains("deeplabcut[gui]==3.0.2"), "{conda}");
    assert!(
        conda.contains("stopped publishing to its conda channel"),
        "{conda}"
    );
    // Python 3.13 is outside DeepLabCut 3's range.
    let (v, code) = plan_json(&[
        "--framework",
        "deeplabcut",
        "--gpu",
        "8.6",
        "--python",
        "3.13",
    ]);
    assert_eq!(code, 1);
    assert!(v["nothing_fits"]["reason"]
        .as_str()
        .unwrap()
        .contains("3.10–3.12"));
}

#[test]
fn emit_writes_atomically_and_never_overwrites() {
    let dir = tempfile::tempdir().unwrap();
    let args = [
        "--gpu",
        "9.0",
        "--driver",
        "580.95.05",
        "--emit",
        "requirements",
    ];
    let out = gpuenv(&args, Some(dir.path()));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(dir.path().join("requirements.txt")).unwrap();
    assert!(text.contains("torch==2.14.1\n"), "{text}");
    // A second run refuses; --force replaces.
    let out = gpuenv(&args, Some(dir.path()));
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--force"));
    let mut forced = args.to_vec();
    forced.push("--force");
    assert!(gpuenv(&forced, Some(dir.path())).status.success());
    for (kind, file, needle) in [
        ("environment.yml", "environment.yml", "    - torch==2.14.1"),
        (
            "pixi.toml",
            "pixi.toml",
            "torch = { version = \"==2.14.1\" }",
        ),
        ("Dockerfile", "Dockerfile", "FROM python:3.14-slim"),
    ] {
        let out = gpuenv(
            &["--gpu", "9.0", "--driver", "580.95.05", "--emit", kind],
            Some(dir.path()),
        );
        assert!(
            out.status.success(),
            "{kind}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = std::fs::read_to_string(dir.path().join(file)).unwrap();
        assert!(text.contains(needle), "{kind}:\n{text}");
    }
    // No temporary files are left behind.
    let names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(names.iter().all(|n| !n.ends_with(".tmp")), "{names:?}");
}

#[test]
fn plan_reads_the_machine_and_proposes_the_smallest_change_first() {
    // The scenario torch-cu128-on-pascal-driver-535: GTX 1080 Ti (6.1), driver 535.183.01, venv
    // with Python 3.12 and torch 2.8.0+cu128 (no sm_61; CUDA 12.8 only under MVC). 2.8 has cu126
    // with sm_60 (FF 1.4), but 12.6 needs 560.28.03 for full support (NV 1a), so the same-version
    // reinstall is not a fully supported option; the plan picks 2.7.1+cu118 (Python 3.12 is in
    // 2.7's cp39-cp313) and says what the broken build is.
    if !support::have_cc() {
        eprintln!("SKIPPED: needs the system C compiler for the fake root");
        return;
    }
    let path = support::scenarios_dir().join("torch-cu128-on-pascal-driver-535.toml");
    let scenario = support::Scenario::load(&path);
    let root = support::FakeRoot::build(&scenario);
    let run = support::run_gpuenv(root.path(), &scenario.env, &["plan", "--format", "json"]);
    let v: Value = serde_json::from_str(&run.stdout)
        .unwrap_or_else(|e| panic!("{e}\n{}\n{}", run.stdout, run.stderr));
    assert_eq!(v["target"]["gpus_from"], "probe");
    assert_eq!(v["target"]["python"], "3.12.3");
    assert_eq!(v["target"]["environment"]["torch"], "2.8.0+cu128");
    let broken = v["broken"].to_string();
    assert!(broken.contains("framework-lacks-gpu-arch"), "{broken}");
    assert_eq!(choice(&v), ("2.7.1".into(), "cu118".into()));
    // Smallest change first: reinstall 2.8.0 from cu126 (sm_60, FF 1.4), which runs on R535 under
    // minor-version compatibility (NV 1b: 12.x needs >= 525.60.13) — the cost says so.
    let first = &v["options"][0];
    assert!(
        first["title"]
            .as_str()
            .unwrap()
            .contains("reinstall torch 2.8.0"),
        "{first}"
    );
    assert!(
        first["cost"]
            .as_str()
            .unwrap()
            .contains("minor-version compatibility"),
        "{first}"
    );
    let last = v["options"].as_array().unwrap().last().unwrap().to_string();
    assert!(last.contains("2.7.1+cu118"), "{last}");
    // The machine's manager is the venv's: pip.
    assert_eq!(v["manager"], "pip");
    let human = support::run_gpuenv(root.path(), &scenario.env, &["plan"]);
    assert!(
        human.stdout.contains("The environment is broken"),
        "{}",
        human.stdout
    );
    assert!(
        human.stdout.contains("no code for sm_61"),
        "{}",
        human.stdout
    );
    // With minor-version compatibility allowed, the smallest change is reinstalling 2.8.0 from cu126.
    let run = support::run_gpuenv(
        root.path(),
        &scenario.env,
        &["plan", "--format", "json", "--allow-mvc"],
    );
    let v: Value = serde_json::from_str(&run.stdout).unwrap();
    let first = &v["options"][0];
    assert!(
        first["title"]
            .as_str()
            .unwrap()
            .contains("reinstall torch 2.8.0"),
        "{first}"
    );
    assert!(
        first["commands"].to_string().contains("--force-reinstall"),
        "{first}"
    );
    assert!(
        first["commands"].to_string().contains("whl/cu126"),
        "{first}"
    );
}

#[test]
fn plan_for_a_deeplabcut_environment_with_a_cpu_torch() {
    // The scenario torch-cpu-wheel-with-deeplabcut3: RTX 3090 (8.6), driver 550.x (CUDA <= 12.4,
    // NV 1c), venv with Python 3.11, deeplabcut 3.0.2 and torch 2.3.0+cpu. The framework is
    // DeepLabCut (what the environment has). Smallest change: reinstall torch 2.3.0 from cu121
    // (2.3 variants cu118/cu121, FF 1.1; sm_86 in cu121, FF 1.4; 12.1 needs 530.30.02, NV 1a).
    if !support::have_cc() {
        eprintln!("SKIPPED: needs the system C compiler for the fake root");
        return;
    }
    let path = support::scenarios_dir().join("torch-cpu-wheel-with-deeplabcut3.toml");
    let scenario = support::Scenario::load(&path);
    let root = support::FakeRoot::build(&scenario);
    let run = support::run_gpuenv(root.path(), &scenario.env, &["plan", "--format", "json"]);
    let v: Value = serde_json::from_str(&run.stdout)
        .unwrap_or_else(|e| panic!("{e}\n{}\n{}", run.stdout, run.stderr));
    assert_eq!(v["framework"], "deeplabcut");
    assert!(v["broken"].to_string().contains("torch-cpu-only"));
    let first = &v["options"][0];
    assert!(
        first["title"]
            .as_str()
            .unwrap()
            .contains("reinstall torch 2.3.0 (and its companions) from the cu121 build"),
        "{first}"
    );
    // The choice carries sm_86 and a CUDA the driver fully supports (<= 12.4).
    let cuda: f64 = v["choice"]["cuda"].as_str().unwrap().parse().unwrap();
    assert!(cuda <= 12.4, "{cuda}");
    assert_eq!(companion(&v, "deeplabcut"), "3.0.2");
}
