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

use std::path::PathBuf;
use std::sync::Mutex;
use std::sync::mpsc::Sender;
use std::time::{Duration, Instant};

use covcheck_protocol::hash::fnv1a;
use covcheck_protocol::worker::{
    Event as WorkerEvent, Finding, Progress, WorkerConfig, WorkerMode,
};

mod policy;

use policy::{Ended, MAX_FRUITLESS_WORKERS, Step, after_worker, lane_share, size_start};

use super::Settings;
use super::broker::Broker;
use super::conclusion;
use super::findings::Findings;
use super::outlet::Outlet;
use super::paths::property_dirs;
use super::progress::LaneProgresses;
use super::schedule::{Schedule, Slice, SliceResult};
use super::worker::{Stopper, WorkerOutcome, run_stoppable_worker};
use crate::discover::Property;
use crate::error::WorkerError;
use crate::events::{Event, Summary, Update};
use crate::interrupt;
use crate::network::Network;

/// Where a property's campaign gets its workers and its budget from.
#[derive(Clone, Copy)]
pub struct Seat<'s> {
    /// How its workers share their corpus.
    pub sharing: Sharing<'s>,
    /// The run's shared budget, when there is one: the campaign then runs
    /// one slice at a time, when the schedule gives it a slot.
    pub schedule: Option<&'s Schedule>,
    /// The counters of changed code in its test binary (`--since`).
    pub focus: &'s [u32],
}

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
    seat: Seat<'_>,
    events: &Sender<Event<'a>>,
) -> Summary {
    let sharing = seat.sharing;
    let local = Stopper::default();
    let (stopper, network) = match sharing {
        Sharing::Local => (&local, None),
        Sharing::Network(network) => (&network.link(index).stopper, Some(network)),
    };
    let out = Outlet::new(index, property, settings, events);
    out.send(Update::Started);
    let unreadable_seeds = property.seed_store().load_valid().1;
    let mut workers = workers.max(1);
    let mut broker = None;
    let mut broker_port = network.map(|n| n.link(index).broker_port);
    if network.is_none() && workers > 1 {
        match start_broker(settings, property) {
            Ok(started) => {
                broker_port = Some(started.port);
                broker = Some(started);
            }
            Err(problem) => {
                out.send(Update::Warning(format!(
                    "{problem}; the property runs on one worker"
                )));
                workers = 1;
            }
        }
    }
    let mut campaign = Campaign::new(
        (&out, settings, stopper),
        workers,
        broker_port,
        Findings::new(index, settings, network, workers),
    );
    campaign.schedule = seat.schedule.map(|schedule| (schedule, index));
    campaign.focus = seat.focus;
    for error in unreadable_seeds {
        // `cargo test` fails on it: so does the campaign, which goes on
        // without it meanwhile.
        campaign.error(WorkerError::Seed(error));
    }
    let campaign = &campaign;
    std::thread::scope(|scope| {
        let lanes: Vec<_> = (0..campaign.workers)
            .map(|lane| scope.spawn(move || campaign.run_lane(lane)))
            .collect();
        if let Some(broker) = &broker {
            // A broker that dies leaves its workers waiting for it: stop
            // them, and say why.
            scope.spawn(move || {
                if let Some(problem) = broker.watch(|| campaign.stopper.stop()) {
                    campaign.error(WorkerError::Broker(problem));
                }
            });
        }
        for lane in lanes {
            let _ = lane.join();
        }
        if let Some(broker) = &broker {
            broker.stop();
        }
    });
    drop(broker);
    campaign.finish(network)
}

/// Starts the broker through which a property's workers share their
/// corpus.
fn start_broker(settings: &Settings, property: &Property) -> Result<Broker, String> {
    let program = settings
        .broker
        .as_deref()
        .ok_or_else(|| "no corpus broker was built with the campaign engine".to_string())?;
    let (work, _) = property_dirs(property, &settings.covcheck_dir);
    std::fs::create_dir_all(&work).map_err(|e| format!("cannot create {}: {e}", work.display()))?;
    Broker::start_local(program, &work.join("broker.log"))
}

/// One property's campaign in progress, shared by its lanes.
struct Campaign<'o, 'a, 's> {
    out: &'o Outlet<'a, 's>,
    property: &'a Property,
    settings: &'s Settings,
    /// This run's work directory of the property (lane 0's; lane `n` uses
    /// `worker-<n>` in it).
    work: PathBuf,
    corpus_dir: PathBuf,
    dictionary: PathBuf,
    workers: usize,
    /// The port of the property's broker, when its workers share a corpus.
    broker_port: Option<u16>,
    /// Each lane's progress and the campaign's errors.
    totals: Mutex<Totals>,
    findings: Findings<'s>,
    /// Stops every lane's worker when one found a failure (here, or on
    /// another machine), or when their broker died.
    stopper: &'s Stopper,
    /// The run's shared budget and this property's place in it.
    schedule: Option<(&'s Schedule, usize)>,
    /// The counters of changed code (`--since`).
    focus: &'s [u32],
}

/// What the lanes have done so far.
#[derive(Debug, Default)]
struct Totals {
    /// Errors of covcheck's own.
    errors: usize,
    lanes: LaneProgresses,
    /// With a shared budget: the time of the slices that ended, and when
    /// the running one began.
    busy: Duration,
    slice_began: Option<Instant>,
    /// The largest corpus and edge count seen, and the campaign time when
    /// either last grew.
    most: (usize, usize),
    last_new: Option<Duration>,
}

/// One lane's state between its workers.
struct Lane {
    index: usize,
    /// Its work directory.
    work: PathBuf,
    /// Workers started so far.
    attempts: u64,
    /// Workers in a row that ended before their campaign started.
    fruitless: u32,
    /// When the current worker started, from the campaign's start.
    worker_began: Duration,
    /// Where the size steps of its last worker stood: the next one of a
    /// scheduled campaign goes on from there.
    size_step: f64,
    /// The corpus size when the current slice began.
    corpus_before: usize,
}

/// What a lane heard from its current worker while it ran.
#[derive(Default)]
struct Heard {
    /// The campaign started (the worker loaded its corpus).
    started: bool,
    /// It found a failure that comes back when replayed.
    failed: bool,
}

impl<'o, 'a, 's> Campaign<'o, 'a, 's> {
    fn new(
        (out, settings, stopper): (&'o Outlet<'a, 's>, &'s Settings, &'s Stopper),
        workers: usize,
        broker_port: Option<u16>,
        findings: Findings<'s>,
    ) -> Campaign<'o, 'a, 's> {
        let property = out.property;
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
        Campaign {
            out,
            property,
            settings,
            work,
            corpus_dir,
            dictionary,
            workers,
            broker_port,
            totals: Mutex::new(Totals {
                errors: 0,
                lanes: LaneProgresses::new(workers),
                busy: Duration::ZERO,
                slice_began: None,
                most: (0, 0),
                last_new: None,
            }),
            findings,
            stopper,
            schedule: None,
            focus: &[],
        }
    }

    fn totals(&self) -> std::sync::MutexGuard<'_, Totals> {
        self.totals.lock().expect("no lane panics while holding it")
    }

    fn error(&self, error: WorkerError) {
        self.totals().errors += 1;
        self.out.send(Update::Error(error));
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
            fruitless: 0,
            worker_began: Duration::ZERO,
            size_step: size_start(index, self.workers),
            corpus_before: 0,
        };
        while let Some(config) = self.next_worker(&mut lane) {
            let Some((outcome, heard)) = self.run(&mut lane, &config) else {
                self.end_slice(&lane, None);
                break;
            };
            let last = outcome.last_progress.clone();
            let step = self.absorb(&mut lane, outcome, &heard, &config);
            lane.size_step = last.size_step.max(lane.size_step);
            self.end_slice(&lane, Some(&last));
            if step == Step::Stop {
                break;
            }
        }
        if let Some((schedule, index)) = self.schedule {
            schedule.finish(index);
        }
    }

    /// With a shared budget: gives the slot back, with what the slice
    /// brought.
    fn end_slice(&self, lane: &Lane, last: Option<&Progress>) {
        let Some((schedule, index)) = self.schedule else {
            return;
        };
        let mut totals = self.totals();
        let busy = totals
            .slice_began
            .take()
            .map_or(Duration::ZERO, |b| b.elapsed());
        totals.busy += busy;
        drop(totals);
        let last = last.cloned().unwrap_or_default();
        schedule.release(
            index,
            SliceResult {
                busy,
                execs: last.execs,
                new_entries: last.corpus.saturating_sub(lane.corpus_before) as u64,
                reaches_change: !last.focus.is_empty(),
            },
        );
    }

    /// The campaign's time so far: since it started, or with a shared
    /// budget the time its slices ran.
    fn campaign_time(&self) -> Duration {
        if self.schedule.is_none() {
            return self.out.started.elapsed();
        }
        let totals = self.totals();
        totals.busy + totals.slice_began.map_or(Duration::ZERO, |b| b.elapsed())
    }

    /// The request of the lane's next worker, or `None` when the budget is
    /// spent, another lane found a failure or the run was interrupted.
    fn next_worker(&self, lane: &mut Lane) -> Option<WorkerConfig> {
        let settings = self.settings;
        let done = self.totals().lanes.finished_execs(lane.index);
        let (runs, time) = match self.schedule {
            Some((schedule, index)) => match schedule.acquire(index)? {
                Slice::Runs(runs) => (Some(runs), None),
                Slice::Time(time) => (None, Some(time)),
            },
            None => (
                (settings.runs)
                    .map(|r| lane_share(r, self.workers, lane.index).saturating_sub(done)),
                (settings.time).map(|t| t.saturating_sub(self.out.started.elapsed())),
            ),
        };
        if self.schedule.is_some() {
            let mut totals = self.totals();
            totals.slice_began = Some(Instant::now());
            lane.corpus_before = totals.lanes.all().corpus;
        }
        if runs == Some(0)
            || time.is_some_and(|t| t.is_zero())
            || interrupt::interrupted().is_some()
            || self.stopper.requested()
        {
            self.end_slice(lane, None);
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
            size_start: lane.size_step,
            steer_targets: settings.steer_targets,
            value_profile: settings.value_profile,
            dictionary: Some(self.dictionary.clone()).filter(|d| settings.dictionary && d.exists()),
            property_dictionary: settings.dictionary,
            engine: settings.engine.clone(),
            broker_port: self.broker_port,
            perf: listing.perf,
            focus: self.focus.to_vec(),
        };
        lane.attempts += 1;
        Some(config)
    }

    /// Runs one campaign worker, passing its progress on and its failures
    /// to the findings as they come; `None` (after reporting why) when it
    /// could not run.
    fn run(&self, lane: &mut Lane, config: &WorkerConfig) -> Option<(WorkerOutcome, Heard)> {
        let first = lane.attempts == 1 && lane.index == 0;
        lane.worker_began = self.out.started.elapsed();
        let mut heard = Heard::default();
        let result = run_stoppable_worker(
            self.property,
            &lane.work,
            config,
            self.settings,
            Some(self.stopper),
            |event| match event {
                WorkerEvent::Started {
                    corpus, resumed, ..
                } => {
                    heard.started = true;
                    if first && *resumed > 0 {
                        let (read, kept) = (*resumed, *corpus);
                        self.out.send(Update::Resumed { read, kept });
                    }
                }
                WorkerEvent::Status(p) => self.status(lane.index, p),
                WorkerEvent::KnownFailure {
                    seed,
                    location,
                    path,
                    message,
                } => (self.findings).known(self.out, seed, (location, *path), message),
                WorkerEvent::Caught(unshrunk) => {
                    let unshrunk = self.timed(lane, unshrunk);
                    self.findings.caught(self.out, lane.index, unshrunk);
                }
                WorkerEvent::Finding(finding) => {
                    // A failure that does not come back (flaky) leaves the
                    // campaign looking for one that does.
                    heard.failed |= !finding.flaky;
                    if !self.settings.keep_going && !finding.flaky {
                        // The other workers would only find it again.
                        self.stopper.stop();
                    }
                    self.findings.shrunk(self.out, lane.index, finding.clone());
                }
                // Said by every restarted worker: once is enough.
                WorkerEvent::Warning { message } if first => {
                    self.out.send(Update::Warning(message.clone()));
                }
                _ => {}
            },
        );
        match result {
            Ok(outcome) => Some((outcome, heard)),
            Err(error) => {
                self.findings.worker_ended(self.out, lane.index);
                self.error(error);
                None
            }
        }
    }

    /// `finding` of lane `lane`'s current worker, with its execution count
    /// and time from the campaign's start: every execution before it, of
    /// every lane.
    fn timed(&self, lane: &Lane, finding: &Finding) -> Finding {
        let before = self.totals().lanes.execs_before(lane.index);
        Finding {
            execs_to_find: finding.execs_to_find + before,
            found_after_us: finding.found_after_us + lane.worker_began.as_micros() as u64,
            ..finding.clone()
        }
    }

    /// Takes a worker's status into its lane's and reports the campaign's.
    fn status(&self, lane: usize, progress: &Progress) {
        let now = self.campaign_time();
        let mut totals = self.totals();
        let combined = totals.lanes.update(lane, progress);
        if (combined.corpus, combined.edges) > totals.most {
            totals.most = (combined.corpus, combined.edges);
            totals.last_new = Some(now);
        }
        let last_new = totals.last_new;
        drop(totals);
        let combined = Progress {
            elapsed_ms: now.as_millis() as u64,
            ..combined
        };
        self.out.record(&combined);
        self.out.send(Update::Progress {
            progress: combined,
            workers: self.workers,
            last_new,
        });
    }

    /// Counts what a worker did, reports how it ended and what killed it;
    /// says whether another worker should follow in its lane.
    fn absorb(
        &self,
        lane: &mut Lane,
        outcome: WorkerOutcome,
        heard: &Heard,
        config: &WorkerConfig,
    ) -> Step {
        (self.totals().lanes).worker_ended(lane.index, &outcome.last_progress);
        // Whatever ended the worker, what it caught is reported.
        self.findings.worker_ended(self.out, lane.index);
        if outcome.interrupted.is_some() || outcome.stopped {
            return Step::Stop;
        }
        let errors = !outcome.errors.is_empty();
        for error in outcome.errors {
            self.error(error);
        }
        let mut found = heard.failed;
        if let Some(death) = &outcome.death {
            if !self.settings.keep_going && !death.from_outside {
                self.stopper.stop();
            }
            // The dead worker's executions are counted.
            let at = (self.totals().lanes.all().execs, self.out.started.elapsed());
            let failed = self
                .findings
                .died(self.out, lane.index, (&lane.work, config), death, at);
            if !failed {
                // Killed from outside, and its input is innocent: the
                // lane goes on with a new worker.
                return Step::Continue;
            }
            if !self.settings.keep_going {
                self.stopper.stop();
            }
            found = true;
        }
        if heard.started {
            lane.fruitless = 0;
        } else if errors || outcome.death.is_some() {
            lane.fruitless += 1;
            if lane.fruitless >= MAX_FRUITLESS_WORKERS {
                self.error(WorkerError::Fruitless {
                    workers: lane.fruitless,
                    log_tail: super::worker::tail(&lane.work.join("campaign.log"), 20),
                });
                return Step::Stop;
            }
        }
        let ended = if found {
            Ended::Found
        } else if outcome.done && !errors {
            Ended::Done
        } else {
            Ended::Otherwise
        };
        after_worker(ended, self.settings.keep_going)
    }

    /// The campaign's summary, once every lane has ended.
    fn finish(&self, network: Option<&Network>) -> Summary {
        let all = self.totals().lanes.all();
        let errors = self.totals().errors;
        let standing = self
            .schedule
            .map(|(schedule, index)| schedule.standing(index));
        conclusion::summarise(
            self.out,
            (self.settings, &self.findings, network),
            all,
            (self.workers, self.campaign_time(), standing),
            errors,
        )
    }
}
