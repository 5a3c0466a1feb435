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
/// kills it once it runs past `timeout` (with its memory standing still) or
/// past `rss_limit_mb`. Returns its wait status, the limit it was killed
/// for, if any, and its stderr.
fn watch_child(
    pid: libc::pid_t,
    mut stderr: std::fs::File,
    timeout: Duration,
    rss_limit_mb: u64,
) -> (i32, Option<FailureKind>, String) {
    let mut output = Vec::new();
    let started = Instant::now();
    let mut status = 0;
    let mut memory = MemoryTrend::default();
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
        memory.observe(resident);
        let over = if resident > rss_limit_mb {
            Some(FailureKind::OutOfMemory)
        } else if started.elapsed() > timeout && !memory.still_growing(started, timeout) {
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

/// Whether a child's memory is still growing. A run past the timeout whose
/// memory grows is on its way to the memory limit: it gets up to
/// [`MEMORY_GRACE`] timeouts to reach it, so that running out of memory is
/// named so however slowly the machine is (two workers on two cores page
/// in memory at half the speed of one), while a hang, whose memory stands
/// still, is named at the timeout.
#[derive(Default)]
struct MemoryTrend {
    peak_mb: u64,
    grew_at: Option<Instant>,
}

const MEMORY_GRACE: u32 = 10;

impl MemoryTrend {
    fn observe(&mut self, resident_mb: u64) {
        if resident_mb > self.peak_mb {
            self.peak_mb = resident_mb;
            self.grew_at = Some(Instant::now());
        }
    }

    /// Growth within the last timeout counts: a loaded machine may not run
    /// the child for tens of milliseconds at a time, while a hang's memory
    /// stands still for the whole timeout.
    fn still_growing(&self, started: Instant, timeout: Duration) -> bool {
        started.elapsed() < timeout * MEMORY_GRACE
            && self.grew_at.is_some_and(|t| t.elapsed() < timeout)
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
