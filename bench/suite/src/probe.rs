//! The same measurement for every tool: each property calls [`check`], which
//! counts executions (calls of the property's body) and reports
//!
//! - `BENCH-FOUND <executions> <microseconds>` at the first failure, counted
//!   from the first execution (so building and starting are excluded);
//! - `BENCH-SIZE <size>` at every failure, so that the last one is the size
//!   of the final (shrunk) counterexample;
//! - `BENCH-EXECS <executions> <microseconds>` after every execution among
//!   the first 16, then every 16th, and from the 1,024th on about 64 times
//!   for each doubling of the count (every 1,024th from 65,536 on, every
//!   16,384th from 2^20): at least that many executions had ended by then.
//!   A run that finds nothing tells with these how many executions it made
//!   within its budget. The lines come at counts, not at times: a branch
//!   taken by the clock would be coverage that differs from run to run,
//!   and a campaign with a given seed would not repeat itself.
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

static EXECS: AtomicU64 = AtomicU64::new(0);
static FOUND: AtomicBool = AtomicBool::new(false);
/// The first execution's time on the monotonic clock, in µs.
static START: OnceLock<u64> = OnceLock::new();
static OUT: OnceLock<Option<Mutex<File>>> = OnceLock::new();

/// Executions after each of which a `BENCH-EXECS` line is written, then
/// the least spacing of those lines.
const TICK_EXECS: u64 = 16;

/// Runs `check`; on failure reports as described above with `size` of the input.
pub fn check(
    outcome: impl FnOnce() -> Result<(), String>,
    size: impl FnOnce() -> usize,
) -> Result<(), String> {
    let start = *START.get_or_init(now_micros);
    let execs = EXECS.fetch_add(1, Ordering::Relaxed) + 1;
    let result = outcome();
    if result.is_err() {
        if !FOUND.swap(true, Ordering::Relaxed) {
            let line = format!("BENCH-FOUND {execs} {}", now_micros().wrapping_sub(start));
            eprintln!("{line}");
            record(&line);
        }
        let line = format!("BENCH-SIZE {}", size());
        eprintln!("{line}");
        record(&line);
    }
    if execs <= TICK_EXECS || execs.is_multiple_of(tick_spacing(execs)) {
        let micros = now_micros().wrapping_sub(start);
        record(&format!("BENCH-EXECS {execs} {micros}"));
    }
    result
}

/// Microseconds on the monotonic clock. Not `Instant::elapsed`: std's time
/// arithmetic is inlined into this crate, which the tools instrument, and
/// its comparisons of nanoseconds were coverage and compared operands that
/// differ from run to run, so that a campaign with a given seed did not
/// repeat itself.
fn now_micros() -> u64 {
    let mut now = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: a clock every Unix has, and a valid pointer.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut now) };
    // Wrapping: an overflow check is a comparison too.
    (now.tv_sec as u64)
        .wrapping_mul(1_000_000)
        .wrapping_add(now.tv_nsec as u64 / 1_000)
}

/// The spacing of `BENCH-EXECS` lines around execution `execs`: a
/// 64th of its power of two, and at least [`TICK_EXECS`].
fn tick_spacing(execs: u64) -> u64 {
    1 << execs.ilog2().saturating_sub(6).max(TICK_EXECS.ilog2())
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

#[cfg(test)]
mod tests {
    use super::tick_spacing;

    #[test]
    fn lines_come_about_64_times_a_doubling_and_never_closer_than_16() {
        assert_eq!(tick_spacing(17), 16);
        assert_eq!(tick_spacing(1023), 16);
        assert_eq!(tick_spacing(2048), 32);
        assert_eq!(tick_spacing(65_536), 1024);
        assert_eq!(tick_spacing(1 << 20), 16_384);
        assert_eq!(tick_spacing(u64::MAX), 1 << 57);
    }
}
