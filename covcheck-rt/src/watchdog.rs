//! A per-execution timeout for workers that run the property in-process
//! without LibAFL's executor: `cargo covcheck minimize` and `replay`.
//!
//! A thread watches when the execution in progress started and ends the
//! process with [`EXIT_TIMEOUT`] once it runs past the timeout, which the
//! supervisor reports as a timeout with the in-flight input. Without it a
//! hanging input would only be noticed by the supervisor's silence limit,
//! minutes later. Arming costs two atomic stores per execution.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use covcheck_protocol::worker::EXIT_TIMEOUT;

/// Ends the process when an armed execution runs longer than the timeout.
pub struct Watchdog {
    /// When the execution in progress started, in milliseconds since `epoch`
    /// plus one; zero while none is.
    started: Arc<AtomicU64>,
    epoch: Instant,
}

/// An execution in progress; disarms the watchdog when dropped (also when
/// the property panics and unwinds).
pub struct Armed<'a>(&'a Watchdog);

impl Watchdog {
    pub fn start(timeout: Duration) -> Watchdog {
        let started = Arc::new(AtomicU64::new(0));
        let epoch = Instant::now();
        let watched = started.clone();
        let tick = (timeout / 10).clamp(Duration::from_millis(1), Duration::from_millis(10));
        std::thread::spawn(move || {
            loop {
                std::thread::sleep(tick);
                let since = watched.load(Ordering::Acquire);
                if since == 0 {
                    continue;
                }
                let now = epoch.elapsed().as_millis() as u64 + 1;
                if now.saturating_sub(since) > timeout.as_millis() as u64 {
                    eprintln!(
                        "covcheck: an input ran longer than {} ms; ending the worker",
                        timeout.as_millis()
                    );
                    // The hung thread may hold locks; std's exit only
                    // try-locks stdout to flush it, so it cannot wait on them.
                    std::process::exit(EXIT_TIMEOUT);
                }
            }
        });
        Watchdog { started, epoch }
    }

    /// Marks the start of an execution.
    pub fn arm(&self) -> Armed<'_> {
        let now = self.epoch.elapsed().as_millis() as u64 + 1;
        self.started.store(now, Ordering::Release);
        Armed(self)
    }
}

impl Drop for Armed<'_> {
    fn drop(&mut self) {
        self.0.started.store(0, Ordering::Release);
    }
}
