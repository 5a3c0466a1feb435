//! The reporter for tools (`--message-format json`): what every command
//! says, as `covcheck_protocol::messages::Message` lines on stdout, and
//! nothing else there. Notes that have no message (nothing matched, no
//! dictionary, the engine being built) go to stderr as people read them.
//!
//! [`messages()`] turns an event into its messages without printing, so that
//! each command's JSON can be tested; the worker's own types become the
//! messages' stable ones here (through the `From` conversions that
//! `covcheck_protocol::worker` keeps beside them), and so do this crate's
//! results (a minimized suite, a replay's summary).

use covcheck_protocol::messages::{self, LeftOut, Message, SavedSeeds, SourceLine, SuiteFate};
use covcheck_protocol::worker::MinimizeReport;

use super::{HumanReporter, Reporter, text};
use crate::discover::Property;
use crate::events::{
    Event, FailureSeed, JudgedDeath, Minimized, PropertyMinimized, ReplaySummary, Stale, Suite,
    Update,
};
use crate::interrupt;
use crate::suite_reach::SuiteCoverage;

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
        match messages(event) {
            Ok(messages) => {
                for message in messages {
                    println!("{}", message.to_line());
                }
            }
            Err(note) => self.human.report(*note),
        }
    }
}

/// The messages that say what `event` says, in order; the event itself
/// when it has no JSON form, as a note for people (which the human
/// reporter prints on stderr).
pub fn messages(event: Event<'_>) -> Result<Vec<Message>, Box<Event<'_>>> {
    Ok(match event {
        Event::Listed {
            property,
            seeds,
            unreadable,
        } => {
            let listing = &property.listing;
            let listed = Message::Listed {
                property: listing.full_path.clone(),
                package: listing.package.clone(),
                test_name: listing.test_name.clone(),
                rerun: property.rerun_command(),
                seed_dir: listing.seed_dir.clone(),
                seeds,
                perf: listing.perf,
            };
            let warnings = unreadable.iter().map(|error| Message::Warning {
                property: listing.full_path.clone(),
                message: error.to_string(),
            });
            std::iter::once(listed).chain(warnings).collect()
        }
        Event::Campaign {
            property, update, ..
        } => vec![campaign(property, update)],
        Event::CampaignsFinished(summary) => summary
            .interrupted
            .map(|signal| Message::Interrupted {
                signal: interrupt::signal_name(signal).to_string(),
            })
            .into_iter()
            .collect(),
        Event::Minimized(minimized) => minimize(minimized),
        Event::SeedReplayed { property, seed } => vec![Message::SeedReplayed {
            property: property.listing.full_path.clone(),
            seed: property.listing.seed_dir.join(&seed.file),
            kind: seed.kind,
            message: (!seed.passed).then_some(seed.message),
            location: (!seed.location.is_empty()).then_some(seed.location),
            passed: seed.passed,
            elapsed_us: seed.micros,
        }],
        Event::ReplayFinished(summary) => replay_summary(summary),
        Event::JunitWritten(path) => vec![Message::Junit {
            path: path.to_path_buf(),
        }],
        Event::CoverageWritten(written) => {
            let reached = written
                .report
                .properties
                .iter()
                .map(|property| Message::Coverage {
                    property: property.name.clone(),
                    lines_reached: property.lines_reached,
                    lines_total: property.lines_total,
                    inputs: property.inputs,
                });
            let failed = written
                .failed
                .iter()
                .map(|(property, problem)| Message::Error {
                    property: property.listing.full_path.clone(),
                    message: problem.clone(),
                });
            let report = Message::Report {
                index: written.index.clone(),
                lcov: written.lcov.clone(),
            };
            reached.chain(failed).chain([report]).collect()
        }
        Event::ChangeReached(change) => vec![Message::Change {
            base: change.base.clone(),
            changed_lines: change.changed,
            lines_with_code: change.with_code,
            reaching: change.reaching.clone(),
            unreached: (change.unreached.iter())
                .map(|(file, line)| SourceLine {
                    file: file.clone(),
                    line: *line,
                })
                .collect(),
        }],
        // The status line of people: the messages carry its numbers.
        Event::CampaignsStarting { .. } => Vec::new(),
        note @ (Event::NothingMatched { .. }
        | Event::NoDictionary(_)
        | Event::Warning(_)
        | Event::EngineDamaged(_)
        | Event::EngineBuilding { .. }
        | Event::Network(_)
        | Event::Aimed(_)) => return Err(Box::new(note)),
    })
}

/// The message of a campaign's update.
fn campaign(property: &Property, update: Update) -> Message {
    let name = property.listing.full_path.clone();
    match update {
        Update::Started => Message::Started { property: name },
        Update::Resumed { read, kept } => Message::Resumed {
            property: name,
            read,
            kept,
        },
        Update::Progress {
            progress,
            workers,
            last_new,
        } => Message::Status {
            property: name,
            progress: progress.into(),
            workers,
            last_new_ms: last_new.map(|at| at.as_millis() as u64),
        },
        Update::KnownFailure { seed, location } => Message::KnownFailure {
            property: name,
            seed,
            location,
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
            failures: summary.bugs.into_iter().map(distinct_failure).collect(),
            slices: summary.slices,
            last_new_ms: summary.last_new.map(|d| d.as_millis() as u64),
        },
    }
}

fn distinct_failure(bug: crate::events::BugCount) -> covcheck_protocol::messages::DistinctFailure {
    covcheck_protocol::messages::DistinctFailure {
        kind: bug.kind,
        location: bug.location,
        call_path: bug.path,
        message: bug.message,
        hits: bug.hits,
        seed: bug.seed,
        known: bug.known,
    }
}

/// One property's `minimize`: its suite, then what stopped the saving and
/// why the coverage record could not be kept; or why there is no suite.
fn minimize(minimized: &PropertyMinimized<'_>) -> Vec<Message> {
    let property = minimized.property.listing.full_path.clone();
    let m = match &minimized.result {
        Ok(m) => m,
        Err(problem) => {
            return vec![Message::Error {
                property,
                message: problem.to_string(),
            }];
        }
    };
    let mut messages = vec![suite(property.clone(), m)];
    if let Suite::Saved(saving) = &m.suite
        && let Some(problem) = &saving.error
    {
        messages.push(Message::Error {
            property: property.clone(),
            message: problem.to_string(),
        });
    }
    if let Some(problem) = &m.record_error {
        messages.push(Message::Warning {
            property,
            message: problem.to_string(),
        });
    }
    messages
}

/// The `minimized` message of a measured suite.
fn suite(property: String, m: &Minimized) -> Message {
    // Every field named, none with `..`: a field the worker adds to its
    // report is shown to tools, or not, by a decision made here.
    let MinimizeReport {
        measured,
        corpus_inputs,
        failure_seeds,
        unmeasured_failure_seeds,
        failing_inputs,
        failing_seeds: _,
        forward_pass,
        set_cover,
        after,
        kept_features,
        seeds_before: _,
        selected: _,
        seed_features: _,
    } = *m.report.clone();
    let (mut saved, mut failing_seeds, mut stale_seeds, mut deleted_seeds) =
        (None, Vec::new(), Vec::new(), Vec::new());
    let fate = match &m.suite {
        Suite::NoCorpus => SuiteFate::NoCorpus,
        Suite::NotSaved => SuiteFate::NotSaved,
        Suite::Saved(saving) => {
            saved = saving.written.as_ref().map(|written| SavedSeeds {
                seeds: written.seeds,
                new: written.new,
                dir: written.dir.clone(),
            });
            failing_seeds.clone_from(&saving.failing);
            match &saving.stale {
                Stale::Listed(stale) => stale_seeds.clone_from(stale),
                Stale::Deleted(deleted) => deleted_seeds.clone_from(deleted),
            }
            SuiteFate::Saved
        }
    };
    Message::Minimized {
        property,
        measured: measured.into(),
        corpus_inputs,
        failure_seeds,
        unmeasured_failure_seeds,
        failing_inputs,
        forward_pass: forward_pass.into(),
        set_cover: set_cover.into(),
        shrunk: after.into(),
        kept_features,
        left_out: m.deaths.iter().map(left_out).collect(),
        suite: fate,
        saved,
        failing_seeds,
        stale_seeds,
        deleted_seeds,
        coverage: suite_reach(&m.coverage),
    }
}

/// An input that ended a minimize worker, as it was judged run alone.
fn left_out(judged: &JudgedDeath) -> LeftOut {
    let (death, finding, seed, seed_error, passed_alone) = match judged {
        JudgedDeath::Failure {
            death,
            finding,
            seed,
        } => {
            let (seed, seed_error) = match seed {
                FailureSeed::Existing(path) | FailureSeed::Saved(path) => {
                    (Some(path.clone()), None)
                }
                FailureSeed::NotSaved => (None, None),
                FailureSeed::Failed(problem) => (None, Some(problem.clone())),
            };
            let finding = Some(finding.as_ref().clone().into());
            (death, finding, seed, seed_error, None)
        }
        JudgedDeath::PassedAlone { death, problem } => {
            (death, None, None, None, Some(problem.clone()))
        }
    };
    LeftOut {
        kind: death.kind,
        detail: death.detail.clone(),
        choices: death.choices.clone(),
        finding,
        seed,
        seed_error,
        passed_alone,
    }
}

fn suite_reach(coverage: &SuiteCoverage) -> messages::SuiteCoverage {
    messages::SuiteCoverage {
        covered: coverage.covered,
        features: coverage.features,
        unmeasured: coverage.unmeasured,
    }
}

/// The end of `replay`: the properties whose seeds could not be replayed,
/// what each property's seeds cover, and the counts.
fn replay_summary(summary: &ReplaySummary<'_>) -> Vec<Message> {
    let errors = summary.results.iter().filter_map(|(property, result)| {
        let problem = result.as_ref().err()?;
        Some(Message::Error {
            property: property.listing.full_path.clone(),
            message: problem.to_string(),
        })
    });
    let coverage = summary
        .coverage
        .iter()
        .map(|(property, coverage)| Message::SeedCoverage {
            property: property.listing.full_path.clone(),
            coverage: coverage.as_ref().map(suite_reach),
        });
    let (seeds, failed) = (summary.seeds(), summary.failed());
    let counts = Message::Replayed {
        properties: summary.results.len(),
        seeds,
        passed: seeds - failed,
        failed,
        errors: summary.errors(),
        elapsed_ms: summary.elapsed.as_millis() as u64,
    };
    errors.chain(coverage).chain([counts]).collect()
}
