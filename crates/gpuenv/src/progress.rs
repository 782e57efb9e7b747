//! Progress for long work, on stderr and only on a terminal: a status line appears when the work
//! takes longer than a moment and is erased when it ends. Piped or redirected output (and
//! `GPUENV_NO_PROGRESS=1`, `TERM=dumb`) gets nothing, so logs and reports stay clean.

use std::io::{IsTerminal, Write};
use std::sync::mpsc::{self, RecvTimeoutError, Sender};
use std::thread::JoinHandle;
use std::time::Duration;

/// How long work runs before its status line appears.
const DELAY: Duration = Duration::from_millis(250);
const SPINNER: [char; 4] = ['|', '/', '-', '\\'];

/// A status line for as long as this value lives.
pub struct Progress {
    stop: Option<Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

/// Whether progress may be shown: stderr is a terminal and nothing turned it off.
pub fn enabled() -> bool {
    std::io::stderr().is_terminal()
        && std::env::var_os(gpuenv_probe::vars::GPUENV_NO_PROGRESS)
            .is_none_or(|v| v.is_empty() || v == "0")
        && std::env::var_os("TERM").is_none_or(|t| t != "dumb")
}

impl Progress {
    /// Shows `message` (with a spinner) on stderr if the work outlasts a moment.
    pub fn start(message: &str) -> Progress {
        if !enabled() {
            return Progress {
                stop: None,
                thread: None,
            };
        }
        let (tx, rx) = mpsc::channel::<()>();
        let message = message.to_string();
        let thread = std::thread::Builder::new()
            .name("gpuenv-progress".into())
            .spawn(move || {
                if !matches!(rx.recv_timeout(DELAY), Err(RecvTimeoutError::Timeout)) {
                    return;
                }
                let mut err = std::io::stderr();
                let mut i = 0;
                loop {
                    let _ = write!(err, "\r\x1b[2K{} {message}", SPINNER[i % SPINNER.len()]);
                    let _ = err.flush();
                    i += 1;
                    if !matches!(
                        rx.recv_timeout(Duration::from_millis(120)),
                        Err(RecvTimeoutError::Timeout)
                    ) {
                        break;
                    }
                }
                let _ = write!(err, "\r\x1b[2K");
                let _ = err.flush();
            })
            .ok();
        Progress {
            stop: Some(tx),
            thread,
        }
    }

    /// Ends the status line (also done on drop).
    pub fn finish(mut self) {
        self.end();
    }

    fn end(&mut self) {
        if let Some(tx) = self.stop.take() {
            let _ = tx.send(());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.end();
    }
}
