//! Runs each property's campaign in worker processes and never loses what
//! they find.
//!
//! A worker is the property's own test binary, started on that one test with
//! a [`WorkerConfig`](covcheck_protocol::worker::WorkerConfig). It reports
//! progress, and each panic it catches both as caught and as shrunk; the
//! failure is saved at the first word. When it dies instead (abort, stack
//! overflow, segfault, per-execution timeout, the memory limit), the input
//! it was running is still in its in-flight file; the supervisor reads and
//! saves it, has a second worker reproduce and shrink it in forked
//! children, and saves the result in its place. With `--keep-going` the
//! campaign then restarts from its corpus cache.
//!
//! One concept per module: [`paths`] (where state lives), [`worker`] (one
//! worker process), [`watchdog`] (its memory and liveness), [`death`] (what
//! killed it), [`campaign`] (one property's campaign, on one worker or
//! many: its lanes and their restarts), [`findings`] (what it found: saved
//! at once, shrunk, reported once), [`progress`] (its lanes' progress,
//! summed), [`outlet`] (where its news goes), [`conclusion`] (what it comes
//! to), [`broker`] (the process through which a property's workers share
//! their corpus) and [`pool`] (many properties at once).

pub mod broker;
pub mod campaign;
pub mod conclusion;
pub mod death;
pub mod findings;
pub mod outlet;
pub mod paths;
pub mod pool;
pub mod progress;
pub mod schedule;
pub mod watchdog;
pub mod worker;

use std::path::PathBuf;
use std::time::Duration;

pub use campaign::run_property;
pub use death::Death;
pub use findings::shrink_crash;
pub use paths::{property_dirs, property_key, remove_finished_work_dirs};
pub use worker::{Stopper, WorkerOutcome, run_stoppable_worker, run_worker, tail, tool_request};

/// How every campaign of this invocation runs.
#[derive(Clone, Debug)]
pub struct Settings {
    pub runs: Option<u64>,
    pub time: Option<Duration>,
    pub timeout: Duration,
    pub rss_limit_mb: u64,
    pub keep_going: bool,
    pub resume: bool,
    pub save: bool,
    pub cmp_mutations: bool,
    pub size_steps: bool,
    /// Let `target()` values steer campaigns (off with `--no-target`).
    pub steer_targets: bool,
    /// Keep inputs that come closer to a compared constant (`--value-profile`).
    pub value_profile: bool,
    /// Give campaigns their dictionaries: the crates' literals and the
    /// properties' own tokens (off with `--no-dict`).
    pub dictionary: bool,
    pub seed: u64,
    pub covcheck_dir: PathBuf,
    /// The campaign engine library campaign workers load.
    pub engine: Option<PathBuf>,
    /// The LLMP broker program (`covcheck-broker`) through which the
    /// workers of one property share their corpus.
    pub broker: Option<PathBuf>,
}

impl Settings {
    /// Settings for workers that run no campaign (minimize, replay): only
    /// the limits and the state directory matter.
    pub fn for_tools(covcheck_dir: PathBuf) -> Settings {
        Settings {
            runs: None,
            time: None,
            timeout: Duration::from_secs(1),
            rss_limit_mb: 2048,
            keep_going: false,
            resume: true,
            save: false,
            cmp_mutations: true,
            size_steps: true,
            steer_targets: true,
            value_profile: false,
            dictionary: true,
            seed: 0,
            covcheck_dir,
            engine: None,
            broker: None,
        }
    }
}
