//! The campaign of one property: on each of its workers, worker processes
//! one after another until the budget is spent, a failure is found (unless
//! `--keep-going`) or the run is interrupted; every death's input
//! reproduced and shrunk in a second worker; every finding saved as a seed
//! and sent to the reporter, once.
//!
//! A property on more than one worker (`-j` beyond the number of
//! properties) runs one *lane* per worker, side by side: each lane is the
//! loop above, with its own work directory, and all of them share corpus
//! entries through the property's LLMP broker ([`super::broker`]). The
//! first failure stops the other lanes' workers ([`Stopper`]); their status
//! is summed into one.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::mpsc::Sender;
use std::time::{Duration, Instant};

use covcheck_protocol::hash::fnv1a;
use covcheck_protocol::seeds::{FailureRecord, SeedFile};
use covcheck_protocol::worker::{
    CAMPAIGN_MAX_LEN, CostProfile, Event as WorkerEvent, FailureKind, Finding, Progress,
    TargetBest, TokenUse, WorkerConfig, WorkerMode, top_tokens,
};

use super::Settings;
use super::broker::Broker;
use super::death::Death;
use super::paths::{property_dirs, property_key};
use super::worker::{Stopper, WorkerOutcome, run_stoppable_worker, run_worker, tail};
use crate::coverage::model::{FindingMark, SeriesPoint};
use crate::coverage::series::{SeriesWriter, series_path};
use crate::discover::Property;
use crate::error::{SeedNotSaved, ShrinkError};
use crate::interrupt;
use crate::network::Network;
use crate::perf::{self, PerfReport, PerfSeed};
use crate::report::events::{Event, FoundBy, Reported, Summary, Update};

/// How the workers of one property share their corpus.
#[derive(Clone, Copy)]
pub enum Sharing<'n> {
    /// One worker, or workers that share through a broker of their own,
    /// started for this campaign when there is more than one.
    Local,
    /// Through the property's broker of a campaign across machines, whose
    /// findings are announced to the other machines.
    Network(&'n Network),
}

/// Runs the campaign of `property` on `workers` workers to the end of its
/// budget.
pub fn run_property<'a>(
    index: usize,
    property: &'a Property,
    settings: &Settings,
    workers: usize,
    sharing: Sharing<'_>,
    events: &Sender<Event<'a>>,
) -> Summary {
    let local = Stopper::default();
    let (stopper, network) = match sharing {
        Sharing::Local => (&local, None),
        Sharing::Network(network) => (&network.link(index).stopper, Some(network)),
    };
    let mut campaign = Campaign::start(
        index,
        property,
        settings,
        workers.max(1),
        (stopper, network),
        events,
    );
    let broker = match network {
        Some(network) => {
            campaign.broker_port = Some(network.link(index).broker_port);
            None
        }
        None if campaign.workers > 1 => campaign.start_broker(),
        None => None,
    };
    if let Some(broker) = &broker {
        campaign.broker_port = Some(broker.port);
    }
    let campaign = &campaign;
    std::thread::scope(|scope| {
        for lane in 0..campaign.workers {
            scope.spawn(move || campaign.run_lane(lane));
        }
    });
    drop(broker);
    campaign.finish()
}

/// Whether the campaign goes on with another worker.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Step {
    Continue,
    Stop,
}

/// One property's campaign in progress, shared by its lanes.
struct Campaign<'a, 's> {
    index: usize,
    property: &'a Property,
    settings: &'s Settings,
    events: &'s Sender<Event<'a>>,
    started: Instant,
    /// This run's work directory of the property (lane 0's; lane `n` uses
    /// `worker-<n>` in it).
    work: PathBuf,
    corpus_dir: PathBuf,
    dictionary: PathBuf,
    workers: usize,
    /// The port of the property's broker, when its workers share a corpus.
    broker_port: Option<u16>,
    totals: Mutex<Totals>,
    /// The campaign's progress over time, for the coverage report.
    series: Mutex<SeriesWriter>,
    /// Stops every lane's worker when one found a failure (here, or on
    /// another machine).
    stopper: &'s Stopper,
    /// The campaign across machines this one is part of.
    network: Option<&'s Network>,
}

/// What the lanes have done so far.
#[derive(Debug, Default)]
struct Totals {
    summary: Summary,
    /// The failures reported so far (kind, location): with `--keep-going`
    /// (or with several workers) the same failure is found again.
    seen: HashSet<(FailureKind, String)>,
    /// Each lane's progress: its finished workers' and its current one's.
    lanes: Vec<LaneProgress>,
}

#[derive(Clone, Debug, Default)]
struct LaneProgress {
    /// The totals of the lane's finished workers.
    finished: Progress,
    /// The last status of its running worker.
    current: Progress,
}

impl LaneProgress {
    /// The lane's status: its running worker's, counted on top of its
    /// finished workers'.
    fn combined(&self) -> Progress {
        Progress {
            execs: self.finished.execs + self.current.execs,
            imported: self.finished.imported + self.current.imported,
            // A restarted worker resumes from the corpus cache: until it has
            // run all of it, its own counts are lower than its lane's.
            edges: self.finished.edges.max(self.current.edges),
            corpus: self.finished.corpus.max(self.current.corpus),
            tokens: add_tokens(&self.finished.tokens, self.current.tokens.clone()),
            targets: best_targets(&self.finished.targets, self.current.targets.clone()),
            costs: perf::costlier(self.finished.costs.clone(), self.current.costs.clone()),
            ..self.current.clone()
        }
    }
}

/// One lane's state between its workers.
struct Lane {
    index: usize,
    /// Its work directory.
    work: PathBuf,
    /// Workers started so far.
    attempts: u64,
    /// When the current worker started, from the campaign's start.
    worker_began: Duration,
    /// The other lanes' executions when the current worker caught its
    /// first failure.
    others_at_catch: Option<u64>,
}

impl<'a, 's> Campaign<'a, 's> {
    fn start(
        index: usize,
        property: &'a Property,
        settings: &'s Settings,
        workers: usize,
        (stopper, network): (&'s Stopper, Option<&'s Network>),
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
            workers,
            broker_port: None,
            totals: Mutex::new(Totals {
                lanes: vec![LaneProgress::default(); workers],
                ..Totals::default()
            }),
            series: Mutex::new(SeriesWriter::new(series_path(
                &settings.covcheck_dir,
                &property_key(property),
            ))),
            stopper,
            network,
        };
        campaign.send(Update::Started);
        campaign
    }

    /// Starts the broker of this campaign's workers; on failure says why,
    /// and the campaign runs on one worker.
    fn start_broker(&mut self) -> Option<Broker> {
        let started = self
            .settings
            .broker
            .as_deref()
            .ok_or_else(|| "no corpus broker was built with the campaign engine".to_string());
        let started = started.and_then(|program| {
            std::fs::create_dir_all(&self.work)
                .map_err(|e| format!("cannot create {}: {e}", self.work.display()))?;
            Broker::start_local(program, &self.work.join("broker.log"))
        });
        match started {
            Ok(broker) => Some(broker),
            Err(problem) => {
                self.send(Update::Warning(format!(
                    "{problem}; the property runs on one worker"
                )));
                self.workers = 1;
                self.totals
                    .get_mut()
                    .expect("not shared yet")
                    .lanes
                    .truncate(1);
                None
            }
        }
    }

    fn totals(&self) -> std::sync::MutexGuard<'_, Totals> {
        self.totals.lock().expect("no lane panics while holding it")
    }

    /// One lane: its workers one after another, until the campaign stops.
    fn run_lane(&self, index: usize) {
        let work = if index == 0 {
            self.work.clone()
        } else {
            self.work.join(format!("worker-{index}"))
        };
        let mut lane = Lane {
            index,
            work,
            attempts: 0,
            worker_began: Duration::ZERO,
            others_at_catch: None,
        };
        while let Some(config) = self.next_worker(&mut lane) {
            let Some(outcome) = self.run(&mut lane, &config) else {
                break;
            };
            if self.absorb(&lane, outcome, &config) == Step::Stop {
                break;
            }
        }
    }

    /// The request of the lane's next worker, or `None` when the budget is
    /// spent, another lane found a failure or the run was interrupted.
    fn next_worker(&self, lane: &mut Lane) -> Option<WorkerConfig> {
        let settings = self.settings;
        let done = self.totals().lanes[lane.index].finished.execs;
        let runs = settings
            .runs
            .map(|r| lane_share(r, self.workers, lane.index).saturating_sub(done));
        let time = settings
            .time
            .map(|t| t.saturating_sub(self.started.elapsed()));
        if runs == Some(0)
            || time.is_some_and(|t| t.is_zero())
            || interrupt::interrupted().is_some()
            || self.stopper.requested()
        {
            return None;
        }
        let listing = &self.property.listing;
        let config = WorkerConfig {
            test_name: listing.test_name.clone(),
            mode: WorkerMode::Campaign,
            rng_seed: settings.seed
                ^ fnv1a(listing.full_path.bytes())
                ^ lane.attempts.wrapping_mul(0x9e37_79b9_7f4a_7c15)
                ^ (lane.index as u64).wrapping_mul(0xc2b2_ae3d_27d4_eb4f),
            runs,
            time_ms: time.map(|t| t.as_millis() as u64),
            timeout_ms: settings.timeout.as_millis() as u64,
            rss_limit_mb: settings.rss_limit_mb,
            corpus_dir: self.corpus_dir.clone(),
            inflight_path: lane.work.join("inflight"),
            cmp_mutations: settings.cmp_mutations,
            stop_on_failure: !settings.keep_going,
            size_steps: settings.size_steps,
            size_start: size_start(lane.index, self.workers),
            steer_targets: settings.steer_targets,
            dictionary: Some(self.dictionary.clone()).filter(|d| settings.dictionary && d.exists()),
            property_dictionary: settings.dictionary,
            engine: settings.engine.clone(),
            broker_port: self.broker_port,
            perf: listing.perf,
        };
        lane.attempts += 1;
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
    fn run(&self, lane: &mut Lane, config: &WorkerConfig) -> Option<WorkerOutcome> {
        let first = lane.attempts == 1 && lane.index == 0;
        lane.worker_began = self.started.elapsed();
        let caught = std::cell::Cell::new(None);
        let result = run_stoppable_worker(
            self.property,
            &lane.work,
            config,
            self.settings,
            Some(self.stopper),
            |event| match event {
                WorkerEvent::Status(p) => self.status(lane.index, p),
                WorkerEvent::Caught { .. } if caught.get().is_none() => {
                    caught.set(Some(self.other_lanes_execs(lane.index)));
                }
                // Said by every restarted worker: once is enough.
                WorkerEvent::Warning { message } if first => {
                    self.send(Update::Warning(message.clone()));
                }
                _ => {}
            },
        );
        lane.others_at_catch = caught.get();
        match result {
            Ok(outcome) => Some(outcome),
            Err(error) => {
                self.totals().summary.errors += 1;
                self.send(Update::Error(error));
                None
            }
        }
    }

    /// Takes a worker's status into its lane's and reports the campaign's.
    fn status(&self, lane: usize, progress: &Progress) {
        let combined = {
            let mut totals = self.totals();
            totals.lanes[lane].current = progress.clone();
            combined(&totals.lanes)
        };
        let combined = Progress {
            elapsed_ms: self.started.elapsed().as_millis() as u64,
            ..combined
        };
        self.record(&combined);
        self.send(Update::Progress {
            progress: combined,
            workers: self.workers,
        });
    }

    /// The executions of every lane but `lane`, so far.
    fn other_lanes_execs(&self, lane: usize) -> u64 {
        let totals = self.totals();
        let others = totals.lanes.iter().enumerate().filter(|(n, _)| *n != lane);
        others.map(|(_, l)| l.combined().execs).sum()
    }

    /// Counts what a worker did and reports what it found; says whether
    /// another worker should follow in its lane.
    fn absorb(&self, lane: &Lane, outcome: WorkerOutcome, config: &WorkerConfig) -> Step {
        // Where the worker's own time and execution count start, from the
        // campaign's start: all the executions before it, of every lane.
        let others = lane
            .others_at_catch
            .unwrap_or_else(|| self.other_lanes_execs(lane.index));
        let execs_before = {
            let mut totals = self.totals();
            let lane_progress = &mut totals.lanes[lane.index];
            let before = lane_progress.finished.execs;
            lane_progress.current = outcome.last_progress.clone();
            lane_progress.finished = lane_progress.combined();
            lane_progress.current = Progress::default();
            before + others
        };
        if outcome.interrupted.is_some() || outcome.stopped {
            return Step::Stop;
        }
        for error in outcome.errors {
            self.totals().summary.errors += 1;
            self.send(Update::Error(error));
        }
        let found = !outcome.findings.is_empty() || outcome.death.is_some();
        if found && !self.settings.keep_going {
            // Before shrinking: the other workers would only find it again.
            self.stopper.stop();
        }
        let mut findings: Vec<Finding> = outcome
            .findings
            .into_iter()
            .map(|mut f| {
                f.execs_to_find += execs_before;
                f.found_after_us += lane.worker_began.as_micros() as u64;
                f
            })
            .collect();
        if let Some(death) = outcome.death {
            findings.push(self.finding_of_death(lane, &death, config));
        }
        for finding in findings {
            self.report_finding(finding, lane.index);
        }
        after_worker(found, self.settings.keep_going)
    }

    /// The finding of a worker that died: its input reproduced and shrunk
    /// by a second worker, or as it was when that fails.
    fn finding_of_death(&self, lane: &Lane, death: &Death, config: &WorkerConfig) -> Finding {
        self.send(Update::Crashed(death.kind));
        let shrunk = shrink_crash(self.property, &lane.work, config, self.settings, death);
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
        // The dead worker's executions are counted.
        finding.execs_to_find = combined(&self.totals().lanes).execs;
        finding.found_after_us = self.started.elapsed().as_micros() as u64;
        finding
    }

    /// Saves a new finding as a seed and reports it; the same failure again
    /// (with `--keep-going`, or from another worker) is dropped. Its time
    /// and execution count are the campaign's, from its start.
    fn report_finding(&self, finding: Finding, lane: usize) {
        let new = self
            .totals()
            .seen
            .insert((finding.kind, finding.location.clone()));
        // On a campaign across machines, the first machine to find it saves it.
        if !new
            || self
                .network
                .is_some_and(|n| !n.claim(self.index, finding.kind, &finding.location))
        {
            return;
        }
        self.totals().summary.failures.push(finding.kind);
        let seed = if self.settings.save {
            save_seed(self.property, &finding)
        } else {
            Err(SeedNotSaved::NoSave)
        };
        let mark = FindingMark {
            elapsed_ms: finding.found_after_us / 1000,
            execs: finding.execs_to_find,
            kind: finding.kind.describe().to_string(),
            message: finding.message.clone(),
            value: finding.args.clone(),
            rerun: self.property.rerun_command(),
            seed: seed.as_ref().ok().map(|p| p.display().to_string()),
        };
        let problem = self
            .series
            .lock()
            .expect("no panics while held")
            .finding(&mark);
        self.warn_if(problem);
        let found_by = (self.workers > 1).then_some(FoundBy {
            worker: lane + 1,
            workers: self.workers,
        });
        let reported = Box::new(Reported {
            finding,
            seed,
            found_by,
        });
        self.send(Update::Finding(reported));
    }

    /// Notes the campaign's progress in its series.
    fn record(&self, progress: &Progress) {
        let problem = self
            .series
            .lock()
            .expect("no panics while held")
            .point(SeriesPoint {
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

    /// What the other machines did to this campaign: failures they found
    /// (counted here too, as the run's verdict; saved there), or the hub
    /// lost.
    fn network_outcome(&self, network: &Network, summary: &mut Summary) {
        let seen = self.totals().seen.clone();
        for found in network.link(self.index).elsewhere() {
            if !seen.contains(&(found.kind, found.location.clone())) {
                summary.failures.push(found.kind);
                self.send(Update::FoundElsewhere(found));
            }
        }
        if network.hub_lost() {
            summary.errors += 1;
            self.send(Update::HubLost(network.address.clone()));
        }
    }

    /// Performance mode's conclusions (growth, plot, seed) from the
    /// costliest inputs of the campaign's workers.
    fn conclude_perf(&self, profile: CostProfile) -> PerfReport {
        let plot = (self.settings.covcheck_dir.join("perf"))
            .join(format!("{}.svg", property_key(self.property)));
        let report = perf::conclude(self.property, profile, &plot, self.settings.save);
        if let PerfSeed::Failed(problem) = &report.seed {
            self.send(Update::Warning(format!(
                "the costliest input of {} was not saved: {problem}",
                self.property.listing.full_path
            )));
        }
        report
    }

    fn finish(&self) -> Summary {
        let mut summary = {
            let totals = self.totals();
            let all = combined(&totals.lanes);
            Summary {
                execs: all.execs,
                imported: all.imported,
                edges: all.edges,
                corpus: all.corpus,
                tokens: all.tokens,
                targets: all.targets,
                workers: self.workers,
                perf: all
                    .costs
                    .map(|profile| Box::new(self.conclude_perf(profile))),
                ..totals.summary.clone()
            }
        };
        summary.elapsed = self.started.elapsed();
        if let Some(network) = self.network {
            self.network_outcome(network, &mut summary);
        }
        self.record(&Progress {
            execs: summary.execs,
            edges: summary.edges,
            corpus: summary.corpus,
            ..Progress::default()
        });
        self.send(Update::Finished(summary.clone()));
        summary
    }
}

/// Where lane `lane` of `workers` starts its size steps: the first at the
/// smallest bound, the last at the full size, the others spread between.
/// One worker deepens the search step by step; several search the steps
/// side by side (a property whose bug needs a large input is found by the
/// last lane at once, one with a small bug still early by the first).
fn size_start(lane: usize, workers: usize) -> f64 {
    if workers <= 1 {
        0.0
    } else {
        lane as f64 / (workers - 1) as f64
    }
}

/// The executions of `--runs` that lane `lane` of `workers` runs: an even
/// share, the first lanes taking one more when it does not divide.
fn lane_share(runs: u64, workers: usize, lane: usize) -> u64 {
    let workers = workers.max(1) as u64;
    runs / workers + u64::from((lane as u64) < runs % workers)
}

/// The campaign's status from its lanes': executions summed; edges and
/// corpus the largest (each worker counts its own, and sharing makes them
/// alike); tokens added up; each label's best target.
fn combined(lanes: &[LaneProgress]) -> Progress {
    let mut all = Progress::default();
    for lane in lanes.iter().map(LaneProgress::combined) {
        all.execs += lane.execs;
        all.imported += lane.imported;
        all.edges = all.edges.max(lane.edges);
        all.corpus = all.corpus.max(lane.corpus);
        all.tokens = add_tokens(&all.tokens, lane.tokens);
        all.targets = best_targets(&all.targets, lane.targets);
        all.costs = perf::costlier(all.costs.take(), lane.costs);
    }
    all
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
        broker_port: None,
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
    fn the_lanes_share_the_runs_and_spread_over_the_size_steps() {
        let shares: Vec<u64> = (0..3).map(|lane| lane_share(10, 3, lane)).collect();
        assert_eq!(shares, [4, 3, 3]);
        assert_eq!(lane_share(10, 1, 0), 10);
        assert_eq!(size_start(0, 1), 0.0, "one worker steps from the smallest");
        let starts: Vec<f64> = (0..3).map(|lane| size_start(lane, 3)).collect();
        assert_eq!(starts, [0.0, 0.5, 1.0]);
    }

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
