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
//! A campaign (`cargo covcheck`, `run`) and `report` print them; each
//! variant says which command prints it when it is not a campaign.
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
    /// ended, or its inputs could not be run.
    Error { property: String, message: String },
    /// Something to fix that did not stop the command.
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
            | Message::Coverage { property, .. } => Some(property),
            Message::Interrupted { .. } | Message::Report { .. } => None,
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
