//! The same measurement for every tool: each property calls [`check`], which
//! counts executions (calls of the property's body) and reports
//!
//! - `BENCH-FOUND <executions> <microseconds>` at the first failure, counted
//!   from the first execution (so building and starting are excluded);
//! - `BENCH-SIZE <size>` at every failure, so that the last one is the size
//!   of the final (shrunk) counterexample;
//! - `BENCH-EXECS <executions> <microseconds>` about every 10 ms: at least
//!   that many executions had ended by then. A run that finds nothing tells
//!   with these how many executions it made within its budget.
//!
//! The first two go to stderr (run the harness with `--nocapture` so that
//! libtest passes them through). All three are appended to the file that
//! `BENCH_PROBE_OUT` names, if it is set: `cargo xtask bench` reads that file
//! for every tool, because under `cargo covcheck` the property runs in a
//! worker process whose stderr goes to a log that the supervisor owns, and
//! the campaign's JSON events carry the engine's own execution counter, not
//! this probe's.

use std::fs::File;
use std::io::Write;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::Instant;

static EXECS: AtomicU64 = AtomicU64::new(0);
static FOUND: AtomicBool = AtomicBool::new(false);
static START: OnceLock<Instant> = OnceLock::new();
/// When the next `BENCH-EXECS` line is due, in µs since the first execution.
static NEXT_TICK: AtomicU64 = AtomicU64::new(0);
static OUT: OnceLock<Option<Mutex<File>>> = OnceLock::new();

/// Microseconds between `BENCH-EXECS` lines.
const TICK_MICROS: u64 = 10_000;
/// The clock is read after every execution among the first 16, then after
/// every 16th, so that reading it costs the fastest tools next to nothing.
const TICK_EXECS: u64 = 16;

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
            let line = format!("BENCH-FOUND {execs} {}", start.elapsed().as_micros());
            eprintln!("{line}");
            record(&line);
        }
        let line = format!("BENCH-SIZE {}", size());
        eprintln!("{line}");
        record(&line);
    }
    if execs <= TICK_EXECS || execs.is_multiple_of(TICK_EXECS) {
        let micros = start.elapsed().as_micros() as u64;
        if micros >= NEXT_TICK.load(Ordering::Relaxed) {
            NEXT_TICK.store(micros + TICK_MICROS, Ordering::Relaxed);
            record(&format!("BENCH-EXECS {execs} {micros}"));
        }
    }
    result
}

/// Appends `line` to the file `BENCH_PROBE_OUT` names, if any.
fn record(line: &str) {
    let out = OUT.get_or_init(|| {
        let path = std::env::var_os("BENCH_PROBE_OUT")?;
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .ok()?;
        Some(Mutex::new(file))
    });
    if let Some(file) = out {
        let mut file = file.lock().unwrap_or_else(|e| e.into_inner());
        // One write per line: with O_APPEND, lines from processes that share
        // the file do not interleave.
        let _ = file.write_all(format!("{line}\n").as_bytes());
    }
}
