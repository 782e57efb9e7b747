//! `gpuenv serve` end to end: the exporter on a fake host tree (`--root`, as the Kubernetes
//! DaemonSet runs it), spoken to by raw TCP clients — good requests, HEAD, unknown paths and
//! methods, garbage, oversized and stalled requests, a crowd of idle connections — and then
//! scraped by a real Prometheus (with a real node_exporter reading doctor's textfile output)
//! whose HTTP API is asked for the gpuenv series.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use support::{FakeRoot, Scenario};

/// A child process killed (by its own id) when the test ends, however it ends.
struct Killed(Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts `gpuenv serve` on an ephemeral loopback port; returns it and its address.
fn serve(
    root: &Path,
    env: &std::collections::BTreeMap<String, String>,
    interval: &str,
) -> (Killed, SocketAddr) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_gpuenv"));
    cmd.env_clear()
        .env("GPUENV_NO_NVML", "1")
        .envs(env)
        .arg("--root")
        .arg(root)
        .args(["serve", "--listen", "127.0.0.1:0", "--interval", interval])
        .stderr(Stdio::piped())
        .stdout(Stdio::null());
    let mut child = cmd.spawn().unwrap();
    let stderr = child.stderr.take().unwrap();
    let mut line = String::new();
    BufReader::new(stderr).read_line(&mut line).unwrap();
    let addr = line
        .split("http://")
        .nth(1)
        .and_then(|r| r.split('/').next())
        .unwrap_or_else(|| panic!("no address in {line:?}"))
        .parse()
        .unwrap();
    (Killed(child), addr)
}

/// Sends raw bytes, returns the whole response (the server closes every connection).
fn raw(addr: SocketAddr, request: &[u8]) -> String {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    s.write_all(request).unwrap();
    let mut out = Vec::new();
    let _ = s.read_to_end(&mut out);
    String::from_utf8_lossy(&out).into_owned()
}

fn get(addr: SocketAddr, path: &str) -> (String, String) {
    let r = raw(
        addr,
        format!("GET {path} HTTP/1.1\r\nHost: x\r\n\r\n").as_bytes(),
    );
    let (head, body) = r.split_once("\r\n\r\n").unwrap_or((&r, ""));
    (head.to_string(), body.to_string())
}

fn healthy_root() -> Option<(FakeRoot, Scenario)> {
    if !support::have_cc() {
        eprintln!("SKIPPED: no C compiler for the scenario fixtures");
        return None;
    }
    let s = Scenario::load(&support::scenarios_dir().join("healthy-rtx3090-cuda124.toml"));
    Some((FakeRoot::build(&s), s))
}

#[test]
fn serve_answers_from_the_fake_host_and_survives_bad_clients() {
    let Some((root, s)) = healthy_root() else {
        return;
    };
    let (_server, addr) = serve(root.path(), &s.env, "60");

    let (head, body) = get(addr, "/metrics");
    assert!(head.starts_with("HTTP/1.1 200 OK"), "{head}");
    assert!(
        head.contains("Content-Type: text/plain; version=0.0.4"),
        "{head}"
    );
    // The fake host's facts, read through --root.
    assert!(
        body.contains("modelName=\"NVIDIA GeForce RTX 3090\""),
        "{body}"
    );
    assert!(
        body.contains("gpuenv_driver_info{version=\"550.54.14\""),
        "{body}"
    );
    let root_label = format!("root=\"{}\"", root.path().display());
    assert!(body.contains(&root_label), "{body}");

    let (head, body) = get(addr, "/report.json?ignored=1");
    assert!(head.starts_with("HTTP/1.1 200 OK"), "{head}");
    let report: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(report["schema"], "gpuenv.report/1");
    assert_eq!(report["facts"]["live"], false);
    let first_timestamp = report["timestamp"].clone();

    let head = raw(addr, b"HEAD /metrics HTTP/1.0\r\n\r\n");
    assert!(
        head.starts_with("HTTP/1.1 200 OK") && head.ends_with("\r\n\r\n"),
        "{head}"
    );
    assert!(get(addr, "/").0.starts_with("HTTP/1.1 404"));
    assert!(get(addr, "/../../etc/passwd").0.starts_with("HTTP/1.1 404"));
    assert!(raw(
        addr,
        b"POST /metrics HTTP/1.1\r\nContent-Length: 3\r\n\r\nabc"
    )
    .starts_with("HTTP/1.1 405"));
    assert!(raw(addr, b"hello\r\n\r\n").starts_with("HTTP/1.1 400"));
    assert!(raw(addr, b"GET /metrics SPDY/9\r\n\r\n").starts_with("HTTP/1.1 400"));
    assert!(raw(addr, &[0xff, 0xfe, 0x00, b'\n', b'\n']).starts_with("HTTP/1.1 400"));
    // A head that never ends: cut off at 8 KiB.
    let mut big = b"GET /metrics HTTP/1.1\r\n".to_vec();
    big.extend(std::iter::repeat_n(b'a', 20_000));
    assert!(raw(addr, &big).starts_with("HTTP/1.1 431"));
    // A client that connects and goes away, or sends half a request and goes away.
    drop(TcpStream::connect(addr).unwrap());
    {
        let mut s = TcpStream::connect(addr).unwrap();
        s.write_all(b"GET /met").unwrap();
    }

    // A slow client (slowloris) is timed out after 5 s; meanwhile others are answered at once.
    let started = Instant::now();
    let slow = std::thread::spawn(move || {
        let mut s = TcpStream::connect(addr).unwrap();
        s.write_all(b"GET /metrics HTTP/1.1\r\n").unwrap();
        for _ in 0..20 {
            std::thread::sleep(Duration::from_millis(500));
            if s.write_all(b"X: y\r\n").is_err() {
                break;
            }
        }
        let mut out = String::new();
        let _ = s.read_to_string(&mut out);
        out
    });
    std::thread::sleep(Duration::from_millis(200));
    let t = Instant::now();
    assert!(get(addr, "/metrics").0.starts_with("HTTP/1.1 200"));
    assert!(
        t.elapsed() < Duration::from_secs(2),
        "a slow client blocked others"
    );
    let slow = slow.join().unwrap();
    assert!(slow.starts_with("HTTP/1.1 408"), "{slow:?}");
    let waited = started.elapsed();
    assert!(
        waited >= Duration::from_secs(4) && waited < Duration::from_secs(9),
        "{waited:?}"
    );

    // A crowd of idle connections: beyond 32 at once they are turned away (503), never queued
    // forever; once they go, the exporter answers again.
    let crowd: Vec<TcpStream> = (0..40).map(|_| TcpStream::connect(addr).unwrap()).collect();
    std::thread::sleep(Duration::from_millis(300));
    let busy = raw(addr, b"GET /metrics HTTP/1.1\r\n\r\n");
    assert!(busy.starts_with("HTTP/1.1 503"), "{busy:?}");
    drop(crowd);
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        if get(addr, "/metrics").0.starts_with("HTTP/1.1 200") {
            break;
        }
        assert!(Instant::now() < deadline, "the exporter did not recover");
        std::thread::sleep(Duration::from_millis(100));
    }
    // The cache: within the interval every answer is the same probe.
    let (_, body) = get(addr, "/report.json");
    let report: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(report["timestamp"], first_timestamp);
}

#[test]
fn serve_reprobes_after_the_interval() {
    let Some((root, s)) = healthy_root() else {
        return;
    };
    let (_server, addr) = serve(root.path(), &s.env, "1");
    let ts = |addr| {
        let (_, body) = get(addr, "/report.json");
        serde_json::from_str::<serde_json::Value>(&body).unwrap()["timestamp"]
            .as_u64()
            .unwrap()
    };
    let first = ts(addr);
    let deadline = Instant::now() + Duration::from_secs(10);
    while ts(addr) == first {
        assert!(Instant::now() < deadline, "no re-probe after the interval");
        std::thread::sleep(Duration::from_millis(200));
    }
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn have(program: &str) -> bool {
    Command::new(program)
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// Percent-encodes a PromQL query for a URL.
fn encode(q: &str) -> String {
    q.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'_' | b'-' | b'.' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// A real Prometheus scrapes `gpuenv serve` and a real node_exporter whose textfile collector
/// reads `gpuenv doctor --format prometheus -o`; the series are then read back through
/// Prometheus's HTTP API. Everything on loopback, on free ports.
#[test]
fn real_prometheus_scrapes_the_exporter_and_the_textfile() {
    let node_exporter = ["prometheus-node-exporter", "node_exporter"]
        .into_iter()
        .find(|p| have(p));
    let (true, Some(node_exporter)) = (have("prometheus"), node_exporter) else {
        eprintln!("SKIPPED: needs Debian's prometheus and prometheus-node-exporter (.ci/install-system-packages installs them)");
        return;
    };
    let Some((root, s)) = healthy_root() else {
        return;
    };
    let (_server, gpuenv_addr) = serve(root.path(), &s.env, "60");

    let work = tempfile::tempdir().unwrap();
    let textfiles = work.path().join("textfile");
    std::fs::create_dir(&textfiles).unwrap();
    let prom_file = textfiles.join("gpuenv.prom");
    let run = support::run_gpuenv(
        root.path(),
        &s.env,
        &[
            "doctor",
            "--format",
            "prometheus",
            "-o",
            &prom_file.to_string_lossy(),
        ],
    );
    assert_eq!(run.status, 0, "{}", run.stderr);

    let node_port = free_port();
    let _node = Killed(
        Command::new(node_exporter)
            .arg(format!("--web.listen-address=127.0.0.1:{node_port}"))
            .arg("--collector.disable-defaults")
            .arg("--collector.textfile")
            .arg(format!(
                "--collector.textfile.directory={}",
                textfiles.display()
            ))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let prom_port = free_port();
    let config = work.path().join("prometheus.yml");
    std::fs::write(
        &config,
        format!(
            "global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\nscrape_configs:\n  - job_name: gpuenv\n    static_configs:\n      - targets: ['{gpuenv_addr}']\n  - job_name: node\n    static_configs:\n      - targets: ['127.0.0.1:{node_port}']\n"
        ),
    )
    .unwrap();
    let _prometheus = Killed(
        Command::new("prometheus")
            .arg(format!("--config.file={}", config.display()))
            .arg(format!(
                "--storage.tsdb.path={}",
                work.path().join("data").display()
            ))
            .arg(format!("--web.listen-address=127.0.0.1:{prom_port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let prom: SocketAddr = format!("127.0.0.1:{prom_port}").parse().unwrap();
    let query = |q: &str| -> Option<serde_json::Value> {
        let r = raw_maybe(
            prom,
            &format!("GET /api/v1/query?query={} HTTP/1.0\r\n\r\n", encode(q)),
        )?;
        let body = r.split_once("\r\n\r\n")?.1.to_string();
        serde_json::from_str(&body).ok()
    };
    let deadline = Instant::now() + Duration::from_secs(90);
    let result = loop {
        if let Some(v) = query("count by (job) (gpuenv_gpu_info)") {
            let jobs: Vec<String> = v["data"]["result"]
                .as_array()
                .map(|a| {
                    a.iter()
                        .map(|r| r["metric"]["job"].as_str().unwrap_or("").to_string())
                        .collect()
                })
                .unwrap_or_default();
            if jobs.contains(&"gpuenv".to_string()) && jobs.contains(&"node".to_string()) {
                break v;
            }
        }
        assert!(
            Instant::now() < deadline,
            "Prometheus never had gpuenv_gpu_info from both jobs"
        );
        std::thread::sleep(Duration::from_millis(500));
    };
    assert_eq!(result["status"], "success");
    let v = query("gpuenv_gpu_info{job=\"gpuenv\"}").unwrap();
    let metric = &v["data"]["result"][0]["metric"];
    assert_eq!(metric["modelName"], "NVIDIA GeForce RTX 3090");
    assert_eq!(metric["pci_bus_id"], "00000000:01:00.0");
    let v = query("gpuenv_driver_info{job=\"node\"}").unwrap();
    assert_eq!(v["data"]["result"][0]["metric"]["version"], "550.54.14");
    let v = query("gpuenv_findings{severity=\"error\"}").unwrap();
    assert_eq!(v["data"]["result"].as_array().unwrap().len(), 2);
    let v = query("up{job=\"gpuenv\"}").unwrap();
    assert_eq!(v["data"]["result"][0]["value"][1], "1");
}

fn raw_maybe(addr: SocketAddr, request: &str) -> Option<String> {
    let mut s = TcpStream::connect_timeout(&addr, Duration::from_secs(2)).ok()?;
    s.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
    s.write_all(request.as_bytes()).ok()?;
    let mut out = Vec::new();
    s.read_to_end(&mut out).ok()?;
    Some(String::from_utf8_lossy(&out).into_owned())
}
