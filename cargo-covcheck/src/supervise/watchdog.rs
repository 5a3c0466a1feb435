//! The watchdog of a worker: a thread of its own that kills the worker when
//! it passes its memory limit or goes silent, and says which it was.

use std::process::Child;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use covcheck_protocol::limits::resident_mb;

/// How long a worker may go without a word before it is considered hung
/// (LibAFL's own timeout handles hangs in the property; this catches the rest).
pub const SILENCE_LIMIT: Duration = Duration::from_secs(120);

/// What the watchdog saw when it was stopped.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Watched {
    /// It killed the worker for using more than its memory limit.
    pub out_of_memory: bool,
    /// It killed the worker for saying nothing for [`SILENCE_LIMIT`].
    pub silent: bool,
}

/// Watches a worker's memory and liveness from a thread of its own.
pub struct Watchdog {
    last_heard: Arc<AtomicU64>,
    stop: Arc<AtomicBool>,
    out_of_memory: Arc<AtomicBool>,
    silent: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
    epoch: Instant,
}

impl Watchdog {
    pub fn start(child: &Child, rss_limit_mb: u64) -> Watchdog {
        let pid = child.id() as i32;
        let epoch = Instant::now();
        let last_heard = Arc::new(AtomicU64::new(0));
        let stop = Arc::new(AtomicBool::new(false));
        let out_of_memory = Arc::new(AtomicBool::new(false));
        let silent = Arc::new(AtomicBool::new(false));
        let thread = {
            let (last_heard, stop, oom, silent) = (
                last_heard.clone(),
                stop.clone(),
                out_of_memory.clone(),
                silent.clone(),
            );
            std::thread::spawn(move || {
                while !stop.load(Ordering::SeqCst) {
                    std::thread::sleep(Duration::from_millis(20));
                    let quiet =
                        epoch.elapsed().as_millis() as u64 - last_heard.load(Ordering::SeqCst);
                    let over = resident_mb(pid) > rss_limit_mb;
                    if over || quiet > SILENCE_LIMIT.as_millis() as u64 {
                        if over {
                            oom.store(true, Ordering::SeqCst);
                        } else {
                            silent.store(true, Ordering::SeqCst);
                        }
                        // SAFETY: kill(2) on our own child, not yet reaped.
                        unsafe { libc::kill(pid, libc::SIGKILL) };
                        break;
                    }
                }
            })
        };
        Watchdog {
            last_heard,
            stop,
            out_of_memory,
            silent,
            thread: Some(thread),
            epoch,
        }
    }

    /// The worker said something: it is alive.
    pub fn heard(&self) {
        self.last_heard
            .store(self.epoch.elapsed().as_millis() as u64, Ordering::SeqCst);
    }

    pub fn stop(mut self) -> Watched {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
        Watched {
            out_of_memory: self.out_of_memory.load(Ordering::SeqCst),
            silent: self.silent.load(Ordering::SeqCst),
        }
    }
}
