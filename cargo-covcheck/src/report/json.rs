//! The reporter for tools (`--message-format json`): each event of a run's
//! campaigns as one `covcheck_protocol::messages::Message` line on stdout.
//! Notes that have no message (nothing matched, no dictionary) go to
//! stderr as people read them, and so do the results of the commands that
//! have no JSON form yet (`list`, `minimize`, `replay`).

use covcheck_protocol::messages::Message;

use super::events::{Event, Update};
use super::{HumanReporter, Reporter, text};
use crate::discover::Property;
use crate::interrupt;

#[derive(Default)]
pub struct JsonReporter {
    /// For the events that have no JSON form.
    human: HumanReporter,
}

impl JsonReporter {
    pub fn new() -> JsonReporter {
        JsonReporter::default()
    }
}

impl Reporter for JsonReporter {
    fn report(&mut self, event: Event<'_>) {
        match event {
            Event::Campaign {
                property, update, ..
            } => println!("{}", message(property, update).to_line()),
            Event::CampaignsFinished(summary) => {
                if let Some(signal) = summary.interrupted {
                    let message = Message::Interrupted {
                        signal: interrupt::signal_name(signal).to_string(),
                    };
                    println!("{}", message.to_line());
                }
            }
            Event::CoverageWritten(written) => {
                for property in &written.report.properties {
                    let message = Message::Coverage {
                        property: property.name.clone(),
                        lines_reached: property.lines_reached,
                        lines_total: property.lines_total,
                        inputs: property.inputs,
                    };
                    println!("{}", message.to_line());
                }
                for (property, problem) in &written.failed {
                    let message = Message::Error {
                        property: property.listing.full_path.clone(),
                        message: problem.clone(),
                    };
                    println!("{}", message.to_line());
                }
                let message = Message::Report {
                    index: written.index.clone(),
                    lcov: written.lcov.clone(),
                };
                println!("{}", message.to_line());
            }
            // The status line of people: the messages carry its numbers.
            Event::CampaignsStarting { .. } => {}
            other => self.human.report(other),
        }
    }
}

/// The message of a campaign's update.
fn message(property: &Property, update: Update) -> Message {
    let name = property.listing.full_path.clone();
    match update {
        Update::Started => Message::Started { property: name },
        Update::Resumed { read, kept } => Message::Resumed {
            property: name,
            read,
            kept,
        },
        Update::Progress { progress, workers } => Message::Status {
            property: name,
            progress: progress.into(),
            workers,
        },
        Update::Crashed(kind) => Message::WorkerDied {
            property: name,
            kind,
        },
        Update::Finding(reported) => Message::Finding {
            property: name,
            seed_error: reported.seed.as_ref().err().map(ToString::to_string),
            seed: reported.seed.ok(),
            finding: reported.finding.into(),
            worker: reported.found_by.map(|by| by.worker),
            rerun: property.rerun_command(),
        },
        Update::Error(error) => Message::Error {
            property: name,
            message: error.to_string(),
        },
        Update::Warning(message) => Message::Warning {
            property: name,
            message,
        },
        Update::FoundElsewhere(found) => Message::Warning {
            property: name,
            message: text::found_elsewhere(&found),
        },
        Update::HubLost(address) => Message::Error {
            property: name,
            message: text::hub_lost(&address),
        },
        Update::Finished(summary) => Message::Finished {
            property: name,
            execs: summary.execs,
            edges: summary.edges,
            corpus: summary.corpus,
            elapsed_ms: summary.elapsed.as_millis() as u64,
            findings: summary.failures.len(),
            workers: summary.workers,
            imported: summary.imported,
            tokens: summary.tokens.into_iter().map(Into::into).collect(),
            targets: summary.targets.into_iter().map(Into::into).collect(),
            perf: summary.perf.map(|report| report.into_result()),
        },
    }
}
