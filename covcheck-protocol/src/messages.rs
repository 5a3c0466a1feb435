//! What `cargo covcheck --message-format json` prints: one [`Message`] per
//! line on stdout, each a JSON object whose `event` field says which kind it
//! is. This is the interface for CI systems, editors and scripts; read it
//! with [`parse_message`] rather than by string keys.
//!
//! ```text
//! {"event":"started","property":"demo::tests::p"}
//! {"event":"status","property":"demo::tests::p","progress":{"execs":51234,...,"tokens":[{"token":"GET ","entries":12}]},"workers":1}
//! {"event":"finding","property":"demo::tests::p","finding":{...},"seed":"/…/covcheck-seeds/…toml",...}
//! {"event":"finished","property":"demo::tests::p","execs":…,"findings":1,...}
//! ```
//!
//! Every command prints them: a campaign (`cargo covcheck`, `run`), `list`,
//! `minimize`, `replay` and `report`; each variant says which command
//! prints it.
//!
//! ## Stability
//!
//! Every type here is this module's own, apart from the worker wire
//! format (which may change in any release): a field or a variant is only
//! added in a minor release of this crate, and removed, renamed or changed
//! only in a major one. Readers should ignore fields they do not know, and
//! `match`es on [`Message`] need a wildcard arm (it is `#[non_exhaustive]`).
//! The tests of this module hold one line of every variant in a snapshot,
//! so that no change to a field goes unseen.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

pub use crate::failure::FailureKind;

/// One line of `--message-format json` output.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "event")]
#[non_exhaustive]
pub enum Message {
    /// A property's campaign started.
    Started { property: String },
    /// A property's campaign resumed from `read` saved inputs (its corpus
    /// cache and seeds); its corpus started with `kept` entries, as inputs
    /// that reach no coverage the ones before them did not are not kept.
    Resumed {
        property: String,
        read: usize,
        kept: usize,
    },
    /// Live progress of a property's campaign.
    Status {
        property: String,
        /// Summed over the property's workers.
        progress: Progress,
        /// The worker processes the property runs on.
        #[serde(default = "one")]
        workers: usize,
        /// The campaign time (as `elapsed_ms`) when its corpus or coverage
        /// last grew.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        last_new_ms: Option<u64>,
    },
    /// A failure seed of the property still fails before its campaign
    /// starts: that failure is known (`cargo test` fails on the seed), and
    /// the campaign does not report it again; its hits are counted.
    KnownFailure {
        property: String,
        seed: PathBuf,
        location: String,
    },
    /// A worker died; its input is being reproduced and shrunk, and a
    /// [`Message::Finding`] follows.
    WorkerDied { property: String, kind: FailureKind },
    /// A failure, shrunk and (unless `--no-save`) saved as a seed.
    Finding {
        property: String,
        finding: Finding,
        /// Where its seed was saved.
        seed: Option<PathBuf>,
        /// Why it was not saved.
        seed_error: Option<String>,
        /// The `cargo test` command that reruns the property.
        rerun: String,
        /// Which of the property's workers found it (from 1), when it ran
        /// on more than one.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        worker: Option<usize>,
    },
    /// The command could not do its work for the property: its campaign
    /// ended, its inputs or seeds could not be run, or what `minimize`
    /// was to write could not be written.
    Error { property: String, message: String },
    /// Something to fix that did not stop the command (a seed file that
    /// cannot be read, say).
    Warning { property: String, message: String },
    /// A property's campaign ended.
    Finished {
        property: String,
        execs: u64,
        edges: usize,
        corpus: usize,
        elapsed_ms: u64,
        findings: usize,
        /// The worker processes it ran on.
        #[serde(default = "one")]
        workers: usize,
        /// Corpus entries one worker received from another (or from
        /// another machine) and kept, summed over its workers.
        #[serde(default)]
        imported: u64,
        /// The dictionary tokens that led to the most corpus entries, as
        /// in [`Progress::tokens`].
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        tokens: Vec<TokenUse>,
        /// The best value of each `target()` label and the input that
        /// reached it, as in [`Progress::targets`].
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        targets: Vec<TargetBest>,
        /// Performance mode's conclusions (`--perf`); absent otherwise.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        perf: Option<PerfResult>,
        /// Each distinct failure found (or known from a seed) and how
        /// often it was hit; absent when none.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        failures: Vec<DistinctFailure>,
        /// With one budget for the run (`--time-total`, `--runs-total`):
        /// the slices the property ran (`elapsed_ms` is then their time),
        /// and when, from the run's start, one last found new coverage.
        #[serde(default, skip_serializing_if = "is_zero_u32")]
        slices: u32,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        last_new_ms: Option<u64>,
    },
    /// `--since`: what the change touched, after the campaigns: its lines
    /// with code, the properties whose corpus reached them before the run,
    /// and the changed lines with code no property reached.
    Change {
        /// The commit the working tree was compared with.
        base: String,
        changed_lines: usize,
        lines_with_code: usize,
        reaching: Vec<String>,
        unreached: Vec<SourceLine>,
    },
    /// The run was cut short by a signal (the last line).
    Interrupted { signal: String },
    /// `cargo covcheck report`: how much of the packages under test one
    /// property's saved inputs reach.
    Coverage {
        property: String,
        lines_reached: usize,
        lines_total: usize,
        /// Inputs run to measure it (corpus cache and seeds).
        inputs: usize,
    },
    /// `cargo covcheck report`: where the report was written (the last line).
    Report { index: PathBuf, lcov: PathBuf },
    /// `cargo covcheck list`: one property of the selected packages. Each
    /// of its seed files that cannot be read is named by a
    /// [`Message::Warning`] after it.
    Listed {
        property: String,
        /// The package that holds it.
        package: String,
        /// Its libtest name (`module::name`), what `cargo test -- --exact`
        /// takes.
        test_name: String,
        /// The `cargo test` command that runs just this property.
        rerun: String,
        /// The directory of its seed files.
        seed_dir: PathBuf,
        /// How many of its seed files could be read.
        seeds: usize,
        /// Marked `#[covcheck(perf)]`: campaigns run it in performance mode.
        perf: bool,
    },
    /// `cargo covcheck minimize`: one property's covering suite, measured
    /// and (with `--save`) kept. A property whose suite could not be
    /// measured gets a [`Message::Error`] instead; one whose suite could
    /// not all be saved gets this message, then a [`Message::Error`].
    Minimized {
        property: String,
        /// The corpus cache entries and saved seeds that were run.
        measured: SuiteStats,
        /// Of the measured inputs, entries of the corpus cache.
        corpus_inputs: usize,
        /// Failure seeds: always kept in the suite, their features count
        /// as covered.
        failure_seeds: usize,
        /// Failure seeds of crash kinds (abort, timeout, ...), kept without
        /// being run, as they would take the worker down.
        unmeasured_failure_seeds: usize,
        /// Corpus entries or covering seeds that now fail: left out of the
        /// suite (a campaign finds and saves the failure).
        failing_inputs: usize,
        /// What libFuzzer's `-merge=1` rule (smallest first, keep an input
        /// if it adds a feature) keeps of the measured inputs.
        forward_pass: SuiteStats,
        /// What greedy set cover keeps, before shrinking.
        set_cover: SuiteStats,
        /// The suite: the covering inputs after shrinking, with the
        /// failure seeds' coverage (shrinking may reach features the
        /// measured inputs did not).
        shrunk: SuiteStats,
        /// Of the measured features, how many the suite keeps.
        kept_features: usize,
        /// Inputs that crashed or hung a minimize worker: left out of the
        /// suite.
        #[serde(default)]
        left_out: Vec<LeftOut>,
        /// What became of the suite.
        suite: SuiteFate,
        /// The covering seeds `--save` wrote; absent without `--save`, or
        /// when writing them failed (a [`Message::Error`] follows).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        saved: Option<SavedSeeds>,
        /// With `--save`: covering seeds outside the suite that now fail,
        /// kept since each shows a bug.
        #[serde(default)]
        failing_seeds: Vec<PathBuf>,
        /// With `--save`, without `--prune`: covering seeds the suite no
        /// longer needs, left on disk.
        #[serde(default)]
        stale_seeds: Vec<PathBuf>,
        /// With `--save --prune`: the covering seeds deleted, as the suite
        /// no longer needs them.
        #[serde(default)]
        deleted_seeds: Vec<PathBuf>,
        /// What the property's seeds on disk now cover, as `replay`
        /// reports it.
        coverage: SuiteCoverage,
    },
    /// `cargo covcheck replay`: one seed ran (properties replay in
    /// parallel, so the lines of several interleave).
    SeedReplayed {
        property: String,
        /// The seed file.
        seed: PathBuf,
        /// The seed's kind, as its file says: `failure`, `covering` or
        /// `performance`.
        kind: String,
        passed: bool,
        /// When it failed: the failure's message, or how the test binary
        /// died and its last output.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        message: Option<String>,
        /// When it failed where a failure has a place: the panic's
        /// location.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        location: Option<String>,
        /// How long it ran, in microseconds.
        elapsed_us: u64,
    },
    /// `cargo covcheck replay`: what a property's seeds on disk cover, for
    /// each property with seeds, after its seeds ran.
    SeedCoverage {
        property: String,
        /// Absent until `cargo covcheck minimize` has measured the
        /// property's seeds.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        coverage: Option<SuiteCoverage>,
    },
    /// `cargo covcheck replay`: every seed ran. A property whose seeds
    /// could not be replayed has a [`Message::Error`] before it.
    Replayed {
        /// The properties selected.
        properties: usize,
        /// The seeds that ran, and how many of them passed and failed.
        seeds: usize,
        passed: usize,
        failed: usize,
        /// Properties whose seeds could not be replayed.
        errors: usize,
        elapsed_ms: u64,
    },
    /// `cargo covcheck replay --junit`: where the JUnit report was written
    /// (the last line).
    Junit { path: PathBuf },
}

/// Progress of a campaign, summed over its workers.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Progress {
    /// Executions run.
    pub execs: u64,
    /// Inputs in the corpus (those that reached new coverage).
    pub corpus: usize,
    /// Distinct coverage counters hit so far.
    pub edges: usize,
    pub elapsed_ms: u64,
    /// Corpus entries received from the property's other workers (or
    /// machines) that were new here and kept; absent when none.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub imported: u64,
    /// The dictionary tokens that led to the most corpus entries, most
    /// first (at most five); absent without a dictionary.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tokens: Vec<TokenUse>,
    /// The best value of each label the property's `target()` calls
    /// reported, in the order first reached; absent for a property that
    /// calls none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub targets: Vec<TargetBest>,
    /// Performance mode's cost profile; absent in other campaigns.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub costs: Option<CostProfile>,
    /// With `--keep-going`: how often each failure already found (or known
    /// from a seed) was hit again; absent when none was.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hits: Vec<FailureHits>,
}

/// A line of a source file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SourceLine {
    pub file: PathBuf,
    pub line: u32,
}

/// One distinct failure of a campaign: its kind, location and call path
/// tell it from the others.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DistinctFailure {
    pub kind: FailureKind,
    pub location: String,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub call_path: u64,
    /// Its message when it was found (empty for a known one).
    pub message: String,
    /// Executions that hit it: the one that found it and each one after.
    pub hits: u64,
    /// Its seed: where it was saved, or the seed that showed it known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<PathBuf>,
    /// A failure seed showed it before the campaign started: not new.
    pub known: bool,
}

/// How often one failure was hit again.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FailureHits {
    /// Its location, as in [`Finding::location`].
    pub location: String,
    /// Its call path, as in [`Finding::call_path`].
    #[serde(default, skip_serializing_if = "is_zero")]
    pub call_path: u64,
    pub hits: u64,
}

/// A dictionary token and how much new coverage it led to.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TokenUse {
    /// The token as a libFuzzer dictionary spells it between its quotes
    /// ([`crate::dictionary::escape`]).
    pub token: String,
    /// Corpus entries (inputs that found new coverage) whose creating
    /// mutation wrote the token.
    pub entries: u64,
}

/// The highest value a campaign's executions reached for one `target()`
/// label, and the input that reached it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TargetBest {
    /// The label given to `target()`.
    pub label: String,
    pub value: f64,
    /// The input's choices, as a seed file stores them.
    pub choices: Vec<u64>,
    /// Each argument's name and `Debug` rendering, in order; absent when
    /// the worker did not get to render them (a status sent before it
    /// died).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub args: Vec<(String, String)>,
}

/// What a performance campaign found out about its property's cost (edges
/// executed per execution) against input size (choices drawn).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CostProfile {
    /// One point per size class (sizes within a quarter of a doubling of
    /// each other), smallest first.
    pub points: Vec<CostPoint>,
    /// The costliest input of all.
    pub costliest: Option<CostliestInput>,
}

/// The costs of the inputs of one size class.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CostPoint {
    /// The size of the costliest input of the class.
    pub size: usize,
    /// The highest cost an input of the class reached.
    pub max: u64,
    /// The median cost of the fresh (random, not mutated) inputs of the
    /// class the campaign ran, within an eighth of a doubling; 0 when it
    /// ran none.
    pub median: u64,
    /// How many fresh inputs of the class the campaign ran.
    pub fresh: u64,
}

/// The costliest input a performance campaign ran.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CostliestInput {
    /// Its size: the choices it drew.
    pub size: usize,
    /// Its cost: the edges of instrumented code one execution of it ran.
    pub cost: u64,
    /// The median cost of the fresh inputs of its size class ([`CostPoint`]).
    pub median: u64,
    /// How many fresh inputs that median is of.
    pub fresh: u64,
    /// Its choices, as a seed file stores them.
    pub choices: Vec<u64>,
    /// The size limit (`COVCHECK_SIZE`) it ran under, when that was not the
    /// default: its seed replays under it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size_limit: Option<usize>,
    /// Each argument's name and `Debug` rendering, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub args: Vec<(String, String)>,
}

/// What performance mode concluded about a property.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct PerfResult {
    /// The growth fitted to the costliest input of each size: `linear`,
    /// `n log n`, `quadratic`, `cubic` or `exponential`; absent when too few
    /// sizes were seen.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub growth: Option<String>,
    /// The slope of log cost against log size (2.0 for a clean quadratic).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exponent: Option<f64>,
    /// The costliest input of each size class, with the median random one.
    pub points: Vec<CostPoint>,
    /// The costliest input of all.
    pub costliest: Option<CostliestInput>,
    /// The performance seed saved for the costliest input, if one was.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<PathBuf>,
    /// The cost-against-size plot (SVG).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plot: Option<PathBuf>,
}

/// A failure, shrunk.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Finding {
    pub kind: FailureKind,
    /// The input's choices, as a seed file stores them: what replays it.
    pub choices: Vec<u64>,
    /// The panic message, or what ended the process.
    pub message: String,
    /// Where it panicked (`file:line:column`); empty when it did not.
    pub location: String,
    /// Each argument's name and `Debug` rendering, in order.
    pub args: Vec<(String, String)>,
    /// Executions of the campaign until the failure was first hit.
    pub execs_to_find: u64,
    /// Microseconds from the campaign's start until the failure was first hit.
    pub found_after_us: u64,
    /// Executions spent shrinking it.
    pub shrink_runs: usize,
    /// Set when shrinking ran out of budget.
    pub shrink_note: Option<String>,
    /// The input failed once but passed when replayed: the property is not
    /// deterministic (it depends on time, randomness or state outside its
    /// arguments). Still a finding; it was not shrunk.
    #[serde(default)]
    pub flaky: bool,
    /// The size limit the input was found under (its seed replays under
    /// it).
    #[serde(default)]
    pub size: Option<usize>,
    /// A hash of the frames that led to the panic (0: not a panic): two
    /// findings at one location with different call paths are two bugs.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub call_path: u64,
}

/// Size and coverage of a set of inputs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SuiteStats {
    pub inputs: usize,
    /// Total length of the inputs as seed files store them (their
    /// `choices` text).
    pub bytes: usize,
    /// Distinct coverage features (an edge and the bucket of its hit
    /// count) they reach.
    pub features: usize,
}

/// What became of a minimized suite.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SuiteFate {
    /// There was no corpus cache to minimize: run a campaign first.
    NoCorpus,
    /// Shown only: `--save` was not given.
    NotSaved,
    /// `--save`: written as covering seeds (as far as the message's
    /// `saved` says).
    Saved,
}

/// The covering seeds `minimize --save` wrote.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SavedSeeds {
    /// The covering seeds of the suite.
    pub seeds: usize,
    /// Of them, those that were not on disk already.
    pub new: usize,
    /// The property's seed directory.
    pub dir: PathBuf,
}

/// An input that crashed or hung a minimize worker, run again alone.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LeftOut {
    /// How it ended the worker.
    pub kind: FailureKind,
    /// What ended it, in words (`ran longer than 500 ms`).
    pub detail: String,
    /// Its choices.
    pub choices: Vec<u64>,
    /// The failure it shows run alone too, reproduced and shrunk: a bug,
    /// which no covering seed can hold. Absent when it passed alone
    /// (twice): see `passed_alone`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finding: Option<Finding>,
    /// The seed that replays the failure: a seed file that held the input
    /// already, or the failure seed `--save` wrote.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<PathBuf>,
    /// Why the failure seed could not be written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed_error: Option<String>,
    /// It passed when run alone, twice (a machine too busy to run it in
    /// time, or something outside killed the worker): what happened. It is
    /// left out of this suite only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub passed_alone: Option<String>,
}

/// How much of what the campaigns (and seeds) reached a property's seed
/// files on disk cover, by the features `minimize` measured.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SuiteCoverage {
    /// Features the seed files reach.
    pub covered: usize,
    /// Features the corpus cache and the seeds reached when `minimize`
    /// last measured them.
    pub features: usize,
    /// Seed files added since, whose features are not known.
    pub unmeasured: usize,
}

impl Message {
    /// The property the message is about (none for the messages about a
    /// whole run).
    pub fn property(&self) -> Option<&str> {
        match self {
            Message::Started { property }
            | Message::Resumed { property, .. }
            | Message::Status { property, .. }
            | Message::WorkerDied { property, .. }
            | Message::Finding { property, .. }
            | Message::Error { property, .. }
            | Message::Warning { property, .. }
            | Message::Finished { property, .. }
            | Message::Coverage { property, .. }
            | Message::Listed { property, .. }
            | Message::Minimized { property, .. }
            | Message::SeedReplayed { property, .. }
            | Message::KnownFailure { property, .. }
            | Message::SeedCoverage { property, .. } => Some(property),
            Message::Interrupted { .. }
            | Message::Report { .. }
            | Message::Replayed { .. }
            | Message::Junit { .. }
            | Message::Change { .. } => None,
        }
    }

    /// The message as one line of JSON.
    pub fn to_line(&self) -> String {
        serde_json::to_string(self).expect("messages serialize")
    }
}

fn one() -> usize {
    1
}

fn is_zero_u32(n: &u32) -> bool {
    *n == 0
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// Parses one line of `--message-format json` output; `None` for a line
/// that is not a JSON object (cargo's own output, blank lines).
pub fn parse_message(line: &str) -> Option<Result<Message, serde_json::Error>> {
    let line = line.trim();
    line.starts_with('{').then(|| serde_json::from_str(line))
}

#[cfg(test)]
mod tests;
