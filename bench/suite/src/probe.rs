//! The same measurement for every tool: each property calls [`check`], which
//! counts executions and, on a failure, prints to stderr
//!
//! - `BENCH-FOUND <executions> <microseconds>` the first time, measured from
//!   the first execution (so building and starting are excluded), and
//! - `BENCH-SIZE <size>` every time, so that the last one is the size of the
//!   final (shrunk) counterexample.
//!
//! Run the harness with `--nocapture` so libtest passes these lines through.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Instant;

static EXECS: AtomicU64 = AtomicU64::new(0);
static FOUND: AtomicBool = AtomicBool::new(false);
static START: OnceLock<Instant> = OnceLock::new();

/// Runs `check`; on failure reports as described above with `size` of the input.
pub fn check(
    outcome: impl FnOnce() -> Result<(), String>,
    size: impl FnOnce() -> usize,
) -> Result<(), String> {
    let start = *START.get_or_init(Instant::now);
    let execs = EXECS.fetch_add(1, Ordering::Relaxed) + 1;
    let result = outcome();
    if result.is_err() {
        if !FOUND.swap(true, Ordering::Relaxed) {
            eprintln!("BENCH-FOUND {execs} {}", start.elapsed().as_micros());
        }
        eprintln!("BENCH-SIZE {}", size());
    }
    result
}
