//! Inputs that kill the process: reproduced and shrunk with one forked child
//! per try, so that a crash, an abort, a stack overflow, a hang or runaway
//! memory only ends the child.
//!
//! The kind is read from how the child ended and what it printed: Rust's own
//! runtime reports a stack overflow ("has overflowed its stack") and a failed
//! allocation ("memory allocation of N bytes failed") before aborting.
//! Shrinking reuses the core shrinker: a candidate "fails" when its child
//! dies of the same kind.

use std::io::Read;
use std::os::fd::FromRawFd;
use std::time::{Duration, Instant};

use crate::config::Config;
use crate::engine::{campaign_limits, finding_from_shrunk};
use crate::info::PropertyInfo;
use crate::property::{PropertyFn, Status, execute};
use crate::shrink::{ShrinkBudget, shrink};
use crate::source::{Limits, Source};
use covcheck_protocol::limits::resident_mb;
use covcheck_protocol::worker::{Event, FailureKind, WorkerConfig, emit};

/// How a forked run ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    Passed,
    /// A panic (caught in the child: not a crash).
    Panicked,
    /// The property's cost bound failed (`max_cost`, in performance mode).
    PastCostBound,
    Died {
        kind: FailureKind,
        detail: String,
    },
}

/// How a forked child reports that the property passed or panicked. Not 0:
/// a property that calls `std::process::exit(0)` must not look like a pass.
const CHILD_PASSED: i32 = 90;
const CHILD_PANICKED: i32 = 101;
const CHILD_PAST_COST_BOUND: i32 = 102;

/// Runs `indices` in a forked child with a time and memory limit.
pub fn run_forked(
    property: &PropertyFn<'_>,
    indices: &[u64],
    limits: Limits,
    timeout: Duration,
    rss_limit_mb: u64,
) -> Outcome {
    let mut fds = [0i32; 2];
    // The child may allocate up to the memory limit beyond what the worker
    // holds already; past it an allocation fails at once ("memory
    // allocation of N bytes failed"), so running out of memory is told from
    // a hang however fast the memory grows.
    let data_limit = (data_segment_bytes() + rss_limit_mb * 1024 * 1024) as libc::rlim_t;
    // SAFETY: plain libc calls; the child only runs the property and exits.
    unsafe {
        if libc::pipe(fds.as_mut_ptr()) != 0 {
            return Outcome::Died {
                kind: FailureKind::Crash,
                detail: "pipe() failed".to_string(),
            };
        }
        let pid = libc::fork();
        if pid == 0 {
            run_child(property, indices, limits, data_limit, fds);
        }
        libc::close(fds[1]);
        libc::fcntl(fds[0], libc::F_SETFL, libc::O_NONBLOCK);
        let stderr = std::fs::File::from_raw_fd(fds[0]);
        let (status, killed_for, text) = watch_child(pid, stderr, timeout, rss_limit_mb);
        if let Some(kind) = killed_for {
            let detail = match kind {
                FailureKind::Timeout => format!("ran longer than {} ms", timeout.as_millis()),
                _ => format!("used more than {rss_limit_mb} MiB of memory"),
            };
            return Outcome::Died { kind, detail };
        }
        classify(status, &text)
    }
}

/// The forked child: runs the input with its data segments limited to
/// `data_limit` bytes and its stderr sent to the pipe `fds`, and exits with
/// a status that says whether the property passed or panicked.
///
/// # Safety
/// Only in the child of a `fork`, with `fds` from `pipe`.
unsafe fn run_child(
    property: &PropertyFn<'_>,
    indices: &[u64],
    limits: Limits,
    data_limit: libc::rlim_t,
    fds: [i32; 2],
) -> ! {
    // SAFETY: plain libc calls in the child, which only runs the property.
    unsafe {
        // A child left behind by a worker that was killed would run on.
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
        let limit = libc::rlimit {
            rlim_cur: data_limit,
            rlim_max: data_limit,
        };
        libc::setrlimit(libc::RLIMIT_DATA, &limit);
        libc::close(fds[0]);
        libc::dup2(fds[1], 2);
        let case = execute(property, Source::replay(indices.to_vec(), limits), false);
        let code = match case.status {
            Status::Failed(f) if crate::cost::is_past_bound(&f.message) => CHILD_PAST_COST_BOUND,
            Status::Failed(_) => CHILD_PANICKED,
            _ => CHILD_PASSED,
        };
        libc::_exit(code)
    }
}

/// Waits for the child `pid`, collecting what it writes to `stderr`, and
/// kills it once it runs past `timeout` of its own time (with its memory
/// standing still) or past `rss_limit_mb`. Returns its wait status, the
/// limit it was killed for, if any, and its stderr.
///
/// The timeout counts the child's own time ([`ChildClock`]), not the
/// clock's: on a machine
/// busy with other work a child waits for a core, and a wall-clock timeout
/// would expire before a run that allocates its way to the memory limit
/// got there, and name it a hang. The same input then fails the same way
/// however busy the machine is.
fn watch_child(
    pid: libc::pid_t,
    mut stderr: std::fs::File,
    timeout: Duration,
    rss_limit_mb: u64,
) -> (i32, Option<FailureKind>, String) {
    let mut output = Vec::new();
    let mut status = 0;
    let mut memory = MemoryTrend::default();
    let mut clock = ChildClock::new(pid);
    let killed_for = loop {
        let mut chunk = [0u8; 4096];
        while let Ok(n @ 1..) = stderr.read(&mut chunk) {
            if output.len() < 65536 {
                output.extend_from_slice(&chunk[..n]);
            }
        }
        // SAFETY: `pid` is this process's child.
        if unsafe { libc::waitpid(pid, &mut status, libc::WNOHANG) } == pid {
            break None;
        }
        let resident = resident_mb(pid);
        let ran = clock.ran();
        memory.observe(resident, ran);
        let over = if resident > rss_limit_mb {
            Some(FailureKind::OutOfMemory)
        } else if ran > timeout && !memory.still_growing(ran, timeout) {
            Some(FailureKind::Timeout)
        } else {
            None
        };
        if let Some(kind) = over {
            // SAFETY: as above.
            unsafe {
                libc::kill(pid, libc::SIGKILL);
                libc::waitpid(pid, &mut status, 0);
            }
            break Some(kind);
        }
        std::thread::sleep(Duration::from_micros(200));
    };
    let _ = stderr.read_to_end(&mut output);
    (
        status,
        killed_for,
        String::from_utf8_lossy(&output).into_owned(),
    )
}

/// Whether a child's memory is still growing, on the child's own clock (its
/// CPU time). A run past the timeout whose memory grew within the last
/// timeout is on its way to the memory limit: it gets up to
/// [`MEMORY_GRACE`] timeouts to reach it, while a hang, whose memory stands
/// still, is named at the timeout.
#[derive(Default)]
struct MemoryTrend {
    peak_mb: u64,
    /// The child's CPU time when its memory last grew.
    grew_at: Option<Duration>,
}

const MEMORY_GRACE: u32 = 10;

impl MemoryTrend {
    fn observe(&mut self, resident_mb: u64, ran: Duration) {
        if resident_mb > self.peak_mb {
            self.peak_mb = resident_mb;
            self.grew_at = Some(ran);
        }
    }

    fn still_growing(&self, ran: Duration, timeout: Duration) -> bool {
        ran < timeout * MEMORY_GRACE && self.grew_at.is_some_and(|t| ran - t < timeout)
    }
}

/// How long a child has run, on its own clock: its CPU time, plus the time
/// it spent asleep (waiting on a lock, a sleep, I/O), which a hang may
/// spend all its time in. The time it waited for a core while runnable
/// counts for nothing: that is the machine's business, not the input's.
struct ChildClock {
    pid: libc::pid_t,
    slept: Duration,
    last: Instant,
}

impl ChildClock {
    fn new(pid: libc::pid_t) -> ChildClock {
        ChildClock {
            pid,
            slept: Duration::ZERO,
            last: Instant::now(),
        }
    }

    /// The child's time so far; call it often (each call judges the time
    /// since the last by the child's state now).
    fn ran(&mut self) -> Duration {
        let (state, cpu) = cpu_time(self.pid);
        let now = Instant::now();
        if matches!(state, 'S' | 'D') {
            self.slept += now - self.last;
        }
        self.last = now;
        cpu + self.slept
    }
}

/// The state letter and the CPU time (user and system) of process `pid`,
/// from `/proc/<pid>/stat`; `('?', 0)` once it is gone.
fn cpu_time(pid: libc::pid_t) -> (char, Duration) {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    // The command name (field 2) may hold spaces: count from its end. The
    // first field after it is field 3, the state; utime and stime are 14
    // and 15.
    let after_name = stat.rfind(')').map_or("", |i| &stat[i + 1..]);
    let fields: Vec<&str> = after_name.split_whitespace().collect();
    let state = fields.first().and_then(|f| f.chars().next()).unwrap_or('?');
    let ticks: u64 = fields
        .get(11..13)
        .map_or(0, |f| f.iter().filter_map(|t| t.parse::<u64>().ok()).sum());
    // SAFETY: sysconf has no preconditions.
    let per_second = unsafe { libc::sysconf(libc::_SC_CLK_TCK) }.max(1) as u64;
    let cpu = Duration::from_nanos(ticks.saturating_mul(1_000_000_000) / per_second);
    (state, cpu)
}

/// Lets this process allocate at most `rss_limit_mb` more than it holds
/// now (`RLIMIT_DATA`): past it an allocation fails at once ("memory
/// allocation of N bytes failed"), so running out of memory is named so
/// however fast the memory grows and however busy the machine is, rather
/// than depending on when a watchdog polling the resident set looks.
pub(crate) fn limit_data_segments(rss_limit_mb: u64) {
    let wanted = (data_segment_bytes() + rss_limit_mb * 1024 * 1024) as libc::rlim_t;
    // SAFETY: plain libc calls on this process. Only the soft limit: a
    // child forked later may set its own.
    unsafe {
        let mut limit: libc::rlimit = std::mem::zeroed();
        if libc::getrlimit(libc::RLIMIT_DATA, &mut limit) == 0 {
            limit.rlim_cur = wanted.min(limit.rlim_max);
            libc::setrlimit(libc::RLIMIT_DATA, &limit);
        }
    }
}

/// The size of this process's data segments (`VmData`): what an
/// `RLIMIT_DATA` counts.
fn data_segment_bytes() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmData:"))
        .and_then(|kb| kb.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map_or(0, |kb| kb * 1024)
}

fn classify(status: i32, stderr: &str) -> Outcome {
    if libc::WIFEXITED(status) {
        return match libc::WEXITSTATUS(status) {
            CHILD_PASSED => Outcome::Passed,
            CHILD_PANICKED => Outcome::Panicked,
            CHILD_PAST_COST_BOUND => Outcome::PastCostBound,
            code => Outcome::Died {
                kind: FailureKind::Exit,
                detail: format!("the property ended the process (exit status {code})"),
            },
        };
    }
    let signal = libc::WTERMSIG(status);
    let line = |needle: &str| {
        stderr
            .lines()
            .find(|l| l.contains(needle))
            .map(|l| l.trim().to_string())
    };
    let (kind, detail) = if let Some(l) = line("has overflowed its stack") {
        (FailureKind::StackOverflow, l)
    } else if let Some(l) = line("memory allocation of") {
        (FailureKind::OutOfMemory, l)
    } else {
        let kind = match signal {
            libc::SIGABRT => FailureKind::Abort,
            libc::SIGSEGV | libc::SIGBUS => FailureKind::Segfault,
            libc::SIGKILL => FailureKind::OutOfMemory,
            _ => FailureKind::Crash,
        };
        let last = stderr
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("");
        (
            kind,
            format!(
                "killed by signal {signal}{}{last}",
                if last.is_empty() { "" } else { ": " }
            ),
        )
    };
    Outcome::Died { kind, detail }
}

/// Reproduces `choices` alone, names its failure kind and shrinks it.
pub fn shrink_crash(
    info: &PropertyInfo,
    property: &PropertyFn<'_>,
    request: &WorkerConfig,
    choices: &[u64],
) -> Result<(), String> {
    let base = Config::resolve(&info.attributes)?;
    let limits = campaign_limits(base.limits);
    let timeout = Duration::from_millis(request.timeout_ms.max(1));
    let rss = request.rss_limit_mb;
    let (kind, detail) = match run_forked(property, choices, limits, timeout, rss) {
        Outcome::Died { kind, detail } => (kind, detail),
        other => {
            return Err(format!(
                "the input that ended the worker did not crash when run alone ({}); \
                 it may depend on state left by earlier executions",
                match other {
                    Outcome::Passed => "it passed",
                    _ => "it panicked instead",
                }
            ));
        }
    };
    let last_detail = std::cell::RefCell::new(detail.clone());
    // A hang of a property with a cost bound, in performance mode: a
    // smaller input that costs past the bound is the same bug, and runs in
    // a moment instead of the whole timeout.
    let past_bound_too =
        kind == FailureKind::Timeout && request.perf && info.attributes.max_cost.is_some();
    let forking = |src: &mut Source| -> Result<(), String> {
        let indices = src.replayed_indices().unwrap_or_default().to_vec();
        src.set_generate_only(true);
        property(src)?;
        match run_forked(property, &indices, limits, timeout, rss) {
            Outcome::Died { kind: k, detail } if k == kind => {
                *last_detail.borrow_mut() = detail;
                Err(kind.describe().to_string())
            }
            Outcome::PastCostBound if past_bound_too => {
                *last_detail.borrow_mut() = format!(
                    "ran longer than {} ms; shrunk to a smaller input that costs past \
                     `max_cost = {}` (edges executed)",
                    timeout.as_millis(),
                    info.attributes.max_cost.unwrap_or_default()
                );
                Err(kind.describe().to_string())
            }
            _ => Ok(()),
        }
    };
    let case = execute(&forking, Source::replay(choices.to_vec(), limits), true);
    if case.failure().is_none() {
        return Err(format!(
            "the input that ended the worker crashed once ({detail}) but not a second time"
        ));
    }
    // Each try forks (and a hang costs the whole timeout), so the budget is
    // smaller than for panics.
    let budget = ShrinkBudget {
        max_runs: 2000,
        max_time: Duration::from_secs(30).min(base.shrink.max_time),
    };
    let shrunk = shrink(&forking, limits, case, budget);
    let mut finding = finding_from_shrunk(kind, &shrunk, limits, 0, 0);
    finding.message = last_detail.into_inner();
    finding.location = String::new();
    emit(&Event::Finding(finding));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_time_counts_work_done_and_nothing_for_a_process_that_is_gone() {
        let start = std::time::Instant::now();
        let mut x = 0u64;
        while start.elapsed() < Duration::from_millis(100) {
            x = std::hint::black_box(x.wrapping_add(1));
        }
        // The process's state is its main thread's (here libtest's, which
        // waits); a forked child has the one thread that forked.
        let (_, own) = cpu_time(std::process::id() as libc::pid_t);
        assert!(own >= Duration::from_millis(10), "{own:?}");
        assert_eq!(cpu_time(libc::pid_t::MAX), ('?', Duration::ZERO));
    }

    #[test]
    fn memory_that_grew_within_the_last_timeout_buys_time_up_to_the_grace() {
        let ms = Duration::from_millis;
        let mut trend = MemoryTrend::default();
        trend.observe(10, ms(0));
        trend.observe(50, ms(250));
        assert!(trend.still_growing(ms(400), ms(300)), "grew 150 ms ago");
        assert!(
            !trend.still_growing(ms(600), ms(300)),
            "flat for a timeout: a hang"
        );
        trend.observe(900, ms(2950));
        assert!(!trend.still_growing(ms(3000), ms(300)), "past the grace");
    }
}
