//! What `cargo covcheck --message-format json` prints: one [`Message`] per
//! line on stdout, each a JSON object whose `event` field says which kind it
//! is. This is the interface for CI systems, editors and scripts; read it
//! with [`parse_message`] rather than by string keys.
//!
//! ```text
//! {"event":"started","property":"demo::tests::p"}
//! {"event":"status","property":"demo::tests::p","progress":{"execs":51234,...,"tokens":[{"token":"GET ","entries":12}]}}
//! {"event":"finding","property":"demo::tests::p","finding":{...},"seed":"/…/covcheck-seeds/…toml",...}
//! {"event":"finished","property":"demo::tests::p","execs":…,"findings":1,...}
//! ```
//!
//! Fields are only added in minor releases of this crate; readers should
//! ignore fields they do not know.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::worker::{
    CostPoint, CostliestInput, FailureKind, Finding, Progress, TargetBest, TokenUse,
};

/// One line of `--message-format json` output.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "event")]
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
    /// The property could not be run (its campaign ended).
    Error { property: String, message: String },
    /// Something to fix that did not stop the campaign.
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
    pub costliest: Option<CostliestInput>,
    /// The performance seed saved for the costliest input, if one was.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<PathBuf>,
    /// The cost-against-size plot (SVG).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plot: Option<PathBuf>,
}

impl Message {
    /// The property the message is about (none for [`Message::Interrupted`]).
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

/// Parses one line of `--message-format json` output; `None` for a line
/// that is not a JSON object (cargo's own output, blank lines).
pub fn parse_message(line: &str) -> Option<Result<Message, serde_json::Error>> {
    let line = line.trim();
    line.starts_with('{').then(|| serde_json::from_str(line))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_keep_their_wire_names() {
        let line = Message::WorkerDied {
            property: "d::p".into(),
            kind: FailureKind::StackOverflow,
        }
        .to_line();
        assert_eq!(
            line,
            r#"{"event":"worker-died","property":"d::p","kind":"stack-overflow"}"#
        );
        let parsed = parse_message(&line).unwrap().unwrap();
        assert_eq!(parsed.property(), Some("d::p"));
        assert!(parse_message("   Compiling demo v0.1.0").is_none());
    }
}
