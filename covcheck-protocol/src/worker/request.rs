//! The request that turns a property's test into a campaign worker: a JSON
//! [`WorkerConfig`] file named by [`WORKER_ENV`], and the limits and exit
//! statuses both sides agree on.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// Path of a JSON [`WorkerConfig`]: turns the named property into a worker.
pub const WORKER_ENV: &str = "COVCHECK_WORKER";

/// The size limit of campaigns (the longest open-ended collection or
/// string), far past plain `cargo test`'s default of 100: bugs that need a
/// long run of bytes or a long operation sequence must be reachable. Fresh
/// inputs start far smaller and grow towards it as coverage stalls, and
/// what a campaign saves records it ([`crate::seeds::SeedFile::size`]).
pub const CAMPAIGN_MAX_LEN: usize = 4096;

/// Exit status of a worker whose memory use passed `--rss-limit-mb`.
pub const EXIT_OUT_OF_MEMORY: i32 = 77;
/// Exit status LibAFL's in-process executor uses after a per-execution timeout.
pub const EXIT_TIMEOUT: i32 = 55;

/// What a worker is asked to do.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct WorkerConfig {
    /// The property's test name; other properties in the binary ignore the request.
    pub test_name: String,
    pub mode: WorkerMode,
    /// Seed of every random decision the worker makes.
    pub rng_seed: u64,
    /// Stop after this many executions.
    pub runs: Option<u64>,
    /// Stop after this many milliseconds.
    pub time_ms: Option<u64>,
    /// Per-execution timeout.
    pub timeout_ms: u64,
    /// Memory limit of one execution (resident set), in MiB.
    pub rss_limit_mb: u64,
    /// Where coverage-increasing inputs are kept between runs.
    pub corpus_dir: PathBuf,
    /// A file of [`crate::inflight::inflight_len`] bytes the worker maps into memory and into
    /// which it copies every input before running it, so that the supervisor
    /// can recover the input of a worker that died.
    pub inflight_path: PathBuf,
    /// Mutations that replace a draw by an operand it was compared against.
    pub cmp_mutations: bool,
    /// Stop after the first failure (the default) instead of going on.
    pub stop_on_failure: bool,
    /// Grow the size bound of fresh inputs in steps (seed 004's iterative
    /// deepening); off, fresh inputs use the full bound from the start.
    #[serde(default = "yes")]
    pub size_steps: bool,
    /// With size steps, where the bound starts, as a share of the doublings
    /// from the smallest bound to the full size: 0 the smallest, 1 the full
    /// size. One worker steps up from the smallest; the workers of a
    /// property on several spread over the steps, so that the sizes one
    /// worker would reach one after another are searched side by side.
    #[serde(default)]
    pub size_start: f64,
    /// Tokens for the mutator, in libFuzzer's dictionary format
    /// ([`crate::dictionary`]): the literals of the crates under test.
    #[serde(default)]
    pub dictionary: Option<PathBuf>,
    /// Give the mutator the property's own tokens
    /// (`#[covcheck(dict = [...], dict_file = "...")]`), ahead of
    /// [`WorkerConfig::dictionary`]'s; off with `--no-dict`, which turns
    /// every dictionary off.
    #[serde(default = "yes")]
    pub property_dictionary: bool,
    /// Let the property's `target()` values steer the campaign: an input
    /// that raises a label's best value enters the corpus, as one with new
    /// coverage does. Off with `--no-target`, which still records and
    /// reports the best values, to measure what the steering brings.
    #[serde(default = "yes")]
    pub steer_targets: bool,
    /// Keep inputs that bring a comparison with a wide constant closer to
    /// equality (libFuzzer's value profile): `--value-profile`.
    #[serde(default)]
    pub value_profile: bool,
    /// The campaign engine library (covcheck-engine) a campaign loads;
    /// `cargo covcheck` builds it once per machine.
    #[serde(default)]
    pub engine: Option<PathBuf>,
    /// The local port of the property's LLMP broker when it runs on more
    /// than one worker (or machine): the worker shares its corpus entries
    /// through it. `None`: a worker alone.
    #[serde(default)]
    pub broker_port: Option<u16>,
    /// Performance mode: the worker runs the build that counts the edges
    /// each execution runs, and the campaign looks for the costliest input
    /// of each size as well as for new coverage
    /// ([`Progress::costs`](super::Progress::costs)).
    #[serde(default)]
    pub perf: bool,
    /// The counters of the code a change touched (`cargo covcheck
    /// --since`), by counter index: the corpus entries that reach them are
    /// favoured, and the worker says which of them its corpus reached
    /// ([`Progress::focus`](super::Progress::focus)).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub focus: Vec<u32>,
}

fn yes() -> bool {
    true
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "mode")]
pub enum WorkerMode {
    /// Run a coverage-guided campaign.
    Campaign,
    /// Reproduce an input that killed a worker, in a forked child per try,
    /// find out what kind of failure it is, and shrink it.
    ShrinkCrash { choices: Vec<u64> },
    /// Measure the coverage features of the corpus cache and the saved seeds,
    /// select a covering subset and shrink it (`cargo covcheck minimize`).
    /// The inputs in `skip` ended an earlier worker of the same run (a crash
    /// or a hang): they are not run again.
    Minimize {
        #[serde(default)]
        skip: Vec<Vec<u64>>,
    },
    /// Replay the saved seeds one by one, each reported as its own result
    /// (`cargo covcheck replay`); seeds whose file names are in `skip` were
    /// reported by an earlier worker that died on a later one.
    Replay { skip: Vec<String> },
    /// Run the corpus cache and the saved seeds once each and report which
    /// coverage counters they reach (`cargo covcheck report`); with `pcs`,
    /// also the program counter of every counter, for symbolising.
    Reach { pcs: bool },
}

impl WorkerMode {
    pub fn is_shrink(&self) -> bool {
        matches!(self, WorkerMode::ShrinkCrash { .. })
    }
}
