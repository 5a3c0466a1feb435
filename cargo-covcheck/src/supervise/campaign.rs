//! The campaign of one property: workers one after another until the
//! budget is spent, a failure is found (unless `--keep-going`) or the run
//! is interrupted; every death's input reproduced and shrunk in a second
//! worker; every finding saved as a seed and sent to the reporter.

use std::cell::RefCell;
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::mpsc::Sender;
use std::time::{Duration, Instant};

use covcheck_protocol::hash::fnv1a;
use covcheck_protocol::seeds::{FailureRecord, SeedFile};
use covcheck_protocol::worker::{
    CAMPAIGN_MAX_LEN, Event as WorkerEvent, FailureKind, Finding, Progress, TargetBest, TokenUse,
    WorkerConfig, WorkerMode, top_tokens,
};

use super::Settings;
use super::death::Death;
use super::paths::{property_dirs, property_key};
use super::worker::{WorkerOutcome, run_worker, tail};
use crate::coverage::model::{FindingMark, SeriesPoint};
use crate::coverage::series::{SeriesWriter, series_path};
use crate::discover::Property;
use crate::error::{SeedNotSaved, ShrinkError};
use crate::interrupt;
use crate::report::events::{Event, Reported, Summary, Update};

/// Runs the campaign of `property` to the end of its budget.
pub fn run_property<'a>(
    index: usize,
    property: &'a Property,
    settings: &Settings,
    events: &Sender<Event<'a>>,
) -> Summary {
    let mut campaign = Campaign::start(index, property, settings, events);
    while let Some(config) = campaign.next_worker() {
        let Some(outcome) = campaign.run(&config) else {
            break;
        };
        if campaign.absorb(outcome, &config) == Step::Stop {
            break;
        }
    }
    campaign.finish()
}

/// Whether the campaign goes on with another worker.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Step {
    Continue,
    Stop,
}

/// One property's campaign in progress.
struct Campaign<'a, 's> {
    index: usize,
    property: &'a Property,
    settings: &'s Settings,
    events: &'s Sender<Event<'a>>,
    started: Instant,
    /// This run's work directory of the property.
    work: PathBuf,
    corpus_dir: PathBuf,
    dictionary: PathBuf,
    summary: Summary,
    /// The failures reported so far (kind, location): with `--keep-going`
    /// the same failure is found again and again.
    seen: HashSet<(FailureKind, String)>,
    /// Workers started so far.
    attempts: u64,
    /// When the current worker started, from the campaign's start.
    worker_began: Duration,
    /// The campaign's progress over time, for the coverage report.
    series: RefCell<SeriesWriter>,
}

impl<'a, 's> Campaign<'a, 's> {
    fn start(
        index: usize,
        property: &'a Property,
        settings: &'s Settings,
        events: &'s Sender<Event<'a>>,
    ) -> Campaign<'a, 's> {
        let (work, corpus_cache) = property_dirs(property, &settings.covcheck_dir);
        let corpus_dir = if settings.resume {
            corpus_cache
        } else {
            let dir = work.join("corpus");
            let _ = std::fs::remove_dir_all(&dir);
            dir
        };
        let dictionary =
            crate::literals::dictionary_path(&settings.covcheck_dir, &property.listing.package);
        let campaign = Campaign {
            index,
            property,
            settings,
            events,
            started: Instant::now(),
            work,
            corpus_dir,
            dictionary,
            summary: Summary::default(),
            seen: HashSet::new(),
            attempts: 0,
            worker_began: Duration::ZERO,
            series: RefCell::new(SeriesWriter::new(series_path(
                &settings.covcheck_dir,
                &property_key(property),
            ))),
        };
        campaign.send(Update::Started);
        campaign
    }

    /// The request of the next worker, or `None` when the budget is spent or
    /// the run was interrupted.
    fn next_worker(&mut self) -> Option<WorkerConfig> {
        let settings = self.settings;
        let runs = settings.runs.map(|r| r.saturating_sub(self.summary.execs));
        let time = settings
            .time
            .map(|t| t.saturating_sub(self.started.elapsed()));
        if runs == Some(0)
            || time.is_some_and(|t| t.is_zero())
            || interrupt::interrupted().is_some()
        {
            return None;
        }
        let listing = &self.property.listing;
        let config = WorkerConfig {
            test_name: listing.test_name.clone(),
            mode: WorkerMode::Campaign,
            rng_seed: settings.seed
                ^ fnv1a(listing.full_path.bytes())
                ^ self.attempts.wrapping_mul(0x9e37_79b9_7f4a_7c15),
            runs,
            time_ms: time.map(|t| t.as_millis() as u64),
            timeout_ms: settings.timeout.as_millis() as u64,
            rss_limit_mb: settings.rss_limit_mb,
            corpus_dir: self.corpus_dir.clone(),
            inflight_path: self.work.join("inflight"),
            cmp_mutations: settings.cmp_mutations,
            stop_on_failure: !settings.keep_going,
            size_steps: settings.size_steps,
            steer_targets: settings.steer_targets,
            dictionary: Some(self.dictionary.clone()).filter(|d| settings.dictionary && d.exists()),
            property_dictionary: settings.dictionary,
            engine: settings.engine.clone(),
        };
        self.attempts += 1;
        Some(config)
    }

    fn send(&self, update: Update) {
        let _ = self.events.send(Event::Campaign {
            index: self.index,
            property: self.property,
            update,
        });
    }

    /// Runs one campaign worker, passing its progress on; `None` (after
    /// reporting why) when it could not run.
    fn run(&mut self, config: &WorkerConfig) -> Option<WorkerOutcome> {
        let first = self.attempts == 1;
        self.worker_began = self.started.elapsed();
        let result =
            run_worker(
                self.property,
                &self.work,
                config,
                self.settings,
                |event| match event {
                    WorkerEvent::Status(p) => {
                        let progress = offset(p.clone(), &self.summary);
                        self.record(&progress);
                        self.send(Update::Progress(progress))
                    }
                    // Said by every restarted worker: once is enough.
                    WorkerEvent::Warning { message } if first => {
                        self.send(Update::Warning(message.clone()));
                    }
                    _ => {}
                },
            );
        match result {
            Ok(outcome) => Some(outcome),
            Err(error) => {
                self.summary.errors += 1;
                self.send(Update::Error(error));
                None
            }
        }
    }

    /// Counts what a worker did and reports what it found; says whether
    /// another worker should follow.
    fn absorb(&mut self, outcome: WorkerOutcome, config: &WorkerConfig) -> Step {
        let progress = outcome.last_progress;
        let execs_before = self.summary.execs;
        self.summary.execs += progress.execs;
        self.summary.edges = self.summary.edges.max(progress.edges);
        self.summary.corpus = self.summary.corpus.max(progress.corpus);
        self.summary.tokens = add_tokens(&self.summary.tokens, progress.tokens);
        self.summary.targets = best_targets(&self.summary.targets, progress.targets);
        if outcome.interrupted.is_some() {
            return Step::Stop;
        }
        for error in outcome.errors {
            self.summary.errors += 1;
            self.send(Update::Error(error));
        }
        // A worker counts time and executions from its own start.
        let began = self.worker_began;
        let mut findings: Vec<(Finding, (Duration, u64))> = outcome
            .findings
            .into_iter()
            .map(|f| (f, (began, execs_before)))
            .collect();
        if let Some(death) = outcome.death {
            // Counted from the campaign's start already.
            let finding = self.finding_of_death(&death, config);
            findings.push((finding, (Duration::ZERO, 0)));
        }
        let found = !findings.is_empty();
        for (finding, from) in findings {
            self.report_finding(finding, from);
        }
        after_worker(found, self.settings.keep_going)
    }

    /// The finding of a worker that died: its input reproduced and shrunk
    /// by a second worker, or as it was when that fails.
    fn finding_of_death(&self, death: &Death, config: &WorkerConfig) -> Finding {
        self.send(Update::Crashed(death.kind));
        let shrunk = shrink_crash(self.property, &self.work, config, self.settings, death);
        let mut finding = shrunk.unwrap_or_else(|problem| Finding {
            kind: death.kind,
            choices: death.choices.clone(),
            message: format!("{} ({problem})", death.detail),
            location: String::new(),
            args: Vec::new(),
            execs_to_find: 0,
            found_after_us: 0,
            shrink_runs: 0,
            shrink_note: Some("not shrunk".to_string()),
            flaky: false,
            size: Some(CAMPAIGN_MAX_LEN),
        });
        finding.execs_to_find = self.summary.execs; // the dead worker's are counted
        finding.found_after_us = self.started.elapsed().as_micros() as u64;
        finding
    }

    /// Saves a new finding as a seed and reports it; the same failure again
    /// (with `--keep-going`) is dropped.
    /// `from` is where the finding's own time and execution count start,
    /// from the campaign's start.
    fn report_finding(&mut self, finding: Finding, from: (Duration, u64)) {
        if !self.seen.insert((finding.kind, finding.location.clone())) {
            return;
        }
        self.summary.failures.push(finding.kind);
        let seed = if self.settings.save {
            save_seed(self.property, &finding)
        } else {
            Err(SeedNotSaved::NoSave)
        };
        let mark = FindingMark {
            elapsed_ms: (from.0 + Duration::from_micros(finding.found_after_us)).as_millis() as u64,
            execs: from.1 + finding.execs_to_find,
            kind: finding.kind.describe().to_string(),
            message: finding.message.clone(),
            value: finding.args.clone(),
            rerun: self.property.rerun_command(),
            seed: seed.as_ref().ok().map(|p| p.display().to_string()),
        };
        self.warn_if(self.series.borrow_mut().finding(&mark));
        let reported = Box::new(Reported { finding, seed });
        self.send(Update::Finding(reported));
    }

    /// Notes the campaign's progress in its series.
    fn record(&self, progress: &Progress) {
        let problem = self.series.borrow_mut().point(SeriesPoint {
            elapsed_ms: self.started.elapsed().as_millis() as u64,
            execs: progress.execs,
            edges: progress.edges as u64,
            corpus: progress.corpus as u64,
        });
        self.warn_if(problem);
    }

    fn warn_if(&self, problem: Option<String>) {
        if let Some(problem) = problem {
            self.send(Update::Warning(problem));
        }
    }

    fn finish(mut self) -> Summary {
        self.summary.elapsed = self.started.elapsed();
        self.record(&Progress {
            execs: self.summary.execs,
            edges: self.summary.edges,
            corpus: self.summary.corpus,
            ..Progress::default()
        });
        self.send(Update::Finished(self.summary.clone()));
        self.summary
    }
}

/// Whether another worker follows one that `found` failures (a death is
/// one): only with `--keep-going`, which restarts from the corpus cache
/// until the budget is spent. A worker that found nothing either spent the
/// budget or ended without telling why (its errors were reported).
fn after_worker(found: bool, keep_going: bool) -> Step {
    if found && keep_going {
        Step::Continue
    } else {
        Step::Stop
    }
}

/// Status from a restarted worker, counted on top of earlier workers.
fn offset(p: Progress, before: &Summary) -> Progress {
    Progress {
        execs: p.execs + before.execs,
        tokens: add_tokens(&before.tokens, p.tokens),
        targets: best_targets(&before.targets, p.targets),
        ..p
    }
}

/// The best `target()` values of earlier workers and of `later`: for each
/// label, the higher value and the input that reached it (an earlier
/// worker's on a tie, as it got there first).
fn best_targets(before: &[TargetBest], later: Vec<TargetBest>) -> Vec<TargetBest> {
    let mut all = before.to_vec();
    for best in later {
        match all.iter_mut().find(|b| b.label == best.label) {
            Some(b) if best.value > b.value => *b = best,
            Some(_) => {}
            None => all.push(best),
        }
    }
    all
}

/// The token counts of earlier workers and of `later`, added up (each
/// worker counts the corpus entries it made).
fn add_tokens(before: &[TokenUse], later: Vec<TokenUse>) -> Vec<TokenUse> {
    let mut all = before.to_vec();
    for token in later {
        match all.iter_mut().find(|t| t.token == token.token) {
            Some(t) => t.entries += token.entries,
            None => all.push(token),
        }
    }
    top_tokens(all)
}

fn save_seed(property: &Property, finding: &Finding) -> Result<PathBuf, SeedNotSaved> {
    let store = property.seed_store();
    let file = SeedFile::failure(
        &property.listing.full_path,
        &finding.choices,
        finding.size,
        FailureRecord {
            message: finding.message.clone(),
            location: finding.location.clone(),
            kind: (finding.kind != FailureKind::Panic).then_some(finding.kind),
        },
        &finding.args,
    );
    store.save(&file).map_err(|source| SeedNotSaved::Io {
        dir: store.dir().to_path_buf(),
        source,
    })
}

/// Reproduces and shrinks a crash in a second worker.
fn shrink_crash(
    property: &Property,
    work: &Path,
    campaign: &WorkerConfig,
    settings: &Settings,
    death: &Death,
) -> Result<Finding, ShrinkError> {
    let config = WorkerConfig {
        mode: WorkerMode::ShrinkCrash {
            choices: death.choices.clone(),
        },
        inflight_path: work.join("inflight-shrink"),
        ..campaign.clone()
    };
    let outcome = run_worker(property, work, &config, settings, |_| {})?;
    if let Some(finding) = outcome.findings.into_iter().next() {
        return Ok(finding);
    }
    if let Some(error) = outcome.errors.into_iter().next() {
        return Err(error.into());
    }
    Err(match outcome.death {
        Some(death) => ShrinkError::DiedToo {
            kind: death.kind,
            detail: death.detail,
            log_tail: tail(&work.join("shrink.log"), 20),
        },
        None => ShrinkError::NothingReported,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_campaign_goes_on_after_a_failure_only_with_keep_going() {
        assert_eq!(after_worker(true, true), Step::Continue);
        assert_eq!(after_worker(true, false), Step::Stop, "the first failure");
        assert_eq!(after_worker(false, true), Step::Stop, "the budget is spent");
        assert_eq!(after_worker(false, false), Step::Stop);
    }

    #[test]
    fn restarted_workers_token_counts_add_up() {
        let uses = |counts: &[(&str, u64)]| -> Vec<TokenUse> {
            counts
                .iter()
                .map(|&(token, entries)| TokenUse {
                    token: token.into(),
                    entries,
                })
                .collect()
        };
        assert_eq!(
            add_tokens(&uses(&[("a", 2), ("b", 1)]), uses(&[("b", 3), ("c", 1)])),
            uses(&[("b", 4), ("a", 2), ("c", 1)])
        );
    }

    #[test]
    fn restarted_workers_keep_the_best_target_value_of_each_label() {
        let best = |label: &str, value: f64, choice: u64| TargetBest {
            label: label.into(),
            value,
            choices: vec![choice],
            args: Vec::new(),
        };
        assert_eq!(
            best_targets(
                &[best("depth", 3.0, 1), best("len", 9.0, 2)],
                vec![
                    best("len", 7.0, 3),
                    best("depth", 5.0, 4),
                    best("x", 1.0, 5)
                ]
            ),
            [
                best("depth", 5.0, 4),
                best("len", 9.0, 2),
                best("x", 1.0, 5)
            ]
        );
    }
}
