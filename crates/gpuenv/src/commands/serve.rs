//! `gpuenv serve`: a small read-only HTTP exporter on `std::net`. `GET /metrics` answers doctor's
//! Prometheus text, `GET /report.json` the `gpuenv.report/1` object; both come from a cache that a
//! background thread refreshes every `--interval` seconds, so a scrape never costs a probe.
//!
//! Robustness: a request is read within 5 s and 8 KiB (else 408 / 431), at most 32 connections
//! are served at once (the rest get 503 and are closed), only `GET` and `HEAD` of the two paths
//! are answered (a query string is ignored), every response closes the connection.

use std::io::{self, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

use anyhow::{bail, Context as _, Result};

use crate::cli::{DoctorArgs, GlobalArgs, ServeArgs};
use crate::commands::doctor::Probed;
use crate::render;

const MAX_REQUEST_BYTES: usize = 8 * 1024;
const REQUEST_TIMEOUT: Duration = Duration::from_secs(5);
const WRITE_TIMEOUT: Duration = Duration::from_secs(10);
const MAX_CONNECTIONS: usize = 32;

/// One probe's output, rendered once.
struct Snapshot {
    metrics: Arc<Vec<u8>>,
    json: Arc<Vec<u8>>,
}

type Cache = Arc<RwLock<Option<Snapshot>>>;

pub fn run(global: &GlobalArgs, args: &ServeArgs) -> Result<ExitCode> {
    if args.doctor.output.is_some() {
        bail!("-o/--output is for `gpuenv doctor`; serve answers over HTTP");
    }
    let listener = TcpListener::bind(&args.listen)
        .with_context(|| format!("cannot listen on {}", args.listen))?;
    let interval = Duration::from_secs(args.interval.max(1));
    let cache: Cache = Arc::new(RwLock::new(None));
    // The first probe before answering anything, so that the first scrape has data.
    refresh(global, &args.doctor, &cache)?;
    eprintln!(
        "gpuenv serve: http://{}/metrics and /report.json (re-probing every {} s)",
        listener.local_addr()?,
        interval.as_secs()
    );
    std::thread::scope(|scope| -> Result<()> {
        let probe_cache = Arc::clone(&cache);
        std::thread::Builder::new()
            .name("gpuenv-probe".into())
            .spawn_scoped(scope, move || loop {
                std::thread::sleep(interval);
                if let Err(e) = refresh(global, &args.doctor, &probe_cache) {
                    eprintln!("gpuenv serve: probe failed, serving the previous result: {e:#}");
                }
            })?;
        accept_loop(&listener, &cache);
        Ok(())
    })?;
    Ok(ExitCode::SUCCESS)
}

/// Answers connections forever, each on its own thread, at most `MAX_CONNECTIONS` at once.
fn accept_loop(listener: &TcpListener, cache: &Cache) {
    let active = Arc::new(AtomicUsize::new(0));
    for stream in listener.incoming() {
        let Ok(stream) = stream else { continue };
        if active.fetch_add(1, Ordering::SeqCst) >= MAX_CONNECTIONS {
            active.fetch_sub(1, Ordering::SeqCst);
            let _ = stream.set_write_timeout(Some(Duration::from_secs(1)));
            let _ = respond(&stream, 503, "text/plain", b"busy\n", false);
            continue;
        }
        let (cache, counter) = (Arc::clone(cache), Arc::clone(&active));
        let spawned = std::thread::Builder::new()
            .name("gpuenv-http".into())
            .spawn(move || {
                handle(stream, &cache);
                counter.fetch_sub(1, Ordering::SeqCst);
            });
        if spawned.is_err() {
            // The thread never ran: give its slot back (the stream was dropped with the closure).
            active.fetch_sub(1, Ordering::SeqCst);
            eprintln!("gpuenv serve: cannot start a connection thread");
        }
    }
}

/// Probes as `gpuenv doctor` does and renders both answers.
fn refresh(global: &GlobalArgs, args: &DoctorArgs, cache: &Cache) -> Result<()> {
    let probed = Probed::run(global, args, false)?;
    let report = probed.report();
    let mut metrics = Vec::new();
    render::prometheus::render(&mut metrics, &report)?;
    let mut json = Vec::new();
    render::json::render(&mut json, &report)?;
    let snapshot = Snapshot {
        metrics: Arc::new(metrics),
        json: Arc::new(json),
    };
    match cache.write() {
        Ok(mut slot) => *slot = Some(snapshot),
        Err(poisoned) => *poisoned.into_inner() = Some(snapshot),
    }
    Ok(())
}

/// Where the request head ends (`\r\n\r\n`, or a bare `\n\n`).
fn head_end(buf: &[u8]) -> Option<usize> {
    let crlf = buf.windows(4).position(|w| w == b"\r\n\r\n");
    let lf = buf.windows(2).position(|w| w == b"\n\n");
    match (crlf, lf) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

fn handle(mut stream: TcpStream, cache: &Cache) {
    let _ = stream.set_write_timeout(Some(WRITE_TIMEOUT));
    let _ = stream.set_nodelay(true);
    let deadline = Instant::now() + REQUEST_TIMEOUT;
    let mut buf = vec![0u8; MAX_REQUEST_BYTES];
    let mut len = 0;
    while head_end(buf.get(..len).unwrap_or(&[])).is_none() {
        if len >= MAX_REQUEST_BYTES {
            let _ = respond(&stream, 431, "text/plain", b"request too large\n", false);
            return;
        }
        let now = Instant::now();
        if now >= deadline {
            let _ = respond(&stream, 408, "text/plain", b"request timeout\n", false);
            return;
        }
        let _ = stream.set_read_timeout(Some(deadline - now));
        match stream.read(buf.get_mut(len..).unwrap_or(&mut [])) {
            Ok(0) => return,
            Ok(n) => len += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(_) => {
                let _ = respond(&stream, 408, "text/plain", b"request timeout\n", false);
                return;
            }
        }
    }
    let head = buf.get(..len).unwrap_or(&[]);
    let line_end = head.iter().position(|&b| b == b'\n').unwrap_or(head.len());
    let line = String::from_utf8_lossy(head.get(..line_end).unwrap_or(&[]));
    let mut parts = line.split_whitespace();
    let (Some(method), Some(target), Some(version), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        let _ = respond(&stream, 400, "text/plain", b"bad request\n", false);
        return;
    };
    if !version.starts_with("HTTP/1.") {
        let _ = respond(&stream, 400, "text/plain", b"bad request\n", false);
        return;
    }
    let head_only = match method {
        "GET" => false,
        "HEAD" => true,
        _ => {
            let _ = respond(&stream, 405, "text/plain", b"only GET and HEAD\n", false);
            return;
        }
    };
    let path = target.split('?').next().unwrap_or("");
    let snapshot = match cache.read() {
        Ok(slot) => slot
            .as_ref()
            .map(|s| (Arc::clone(&s.metrics), Arc::clone(&s.json))),
        Err(_) => None,
    };
    let Some((metrics, json)) = snapshot else {
        let _ = respond(&stream, 503, "text/plain", b"no probe yet\n", head_only);
        return;
    };
    let _ = match path {
        "/metrics" => respond(
            &stream,
            200,
            "text/plain; version=0.0.4; charset=utf-8",
            &metrics,
            head_only,
        ),
        "/report.json" => respond(&stream, 200, "application/json", &json, head_only),
        _ => respond(
            &stream,
            404,
            "text/plain",
            b"not found: gpuenv serves /metrics and /report.json\n",
            head_only,
        ),
    };
}

fn respond(
    mut stream: &TcpStream,
    status: u16,
    content_type: &str,
    body: &[u8],
    head_only: bool,
) -> io::Result<()> {
    let reason = match status {
        200 => "OK",
        400 => "Bad Request",
        404 => "Not Found",
        405 => "Method Not Allowed",
        408 => "Request Timeout",
        431 => "Request Header Fields Too Large",
        _ => "Service Unavailable",
    };
    let mut head = format!(
        "HTTP/1.1 {status} {reason}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\nCache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n",
        body.len()
    );
    if status == 405 {
        head.push_str("Allow: GET, HEAD\r\n");
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes())?;
    if !head_only {
        stream.write_all(body)?;
    }
    stream.flush()?;
    let _ = stream.shutdown(std::net::Shutdown::Write);
    Ok(())
}
