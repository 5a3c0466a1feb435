//! A property's findings: each distinct failure saved the moment it is
//! caught, unshrunk, then replaced by its shrunk value when shrinking ends,
//! and reported once, whichever worker (or machine) found it.
//!
//! Saving before shrinking is what makes a run trustworthy when it does not
//! end as planned (Hypothesis and libFuzzer both write before they
//! minimise): Ctrl-C, a worker killed while shrinking, a shrinking worker
//! that dies too, a full disk at the end. Whatever happens after the catch,
//! the failure is on disk and in the summary.
//!
//! A failure is told from another by its kind and location; the same one
//! found again (with `--keep-going`, by another worker, after a restart) is
//! dropped. A worker reports a failure it caught in-process (a panic) as
//! [`Caught`](covcheck_protocol::worker::Event::Caught), shrinks it, then
//! as a `Finding`; a failure that killed its worker (a [`Death`]) is
//! shrunk here, in a second worker (`shrink_crash`).

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

use covcheck_protocol::hash::content_hash;
use covcheck_protocol::seeds::SeedFile;
use covcheck_protocol::worker::{
    CAMPAIGN_MAX_LEN, FailureHits, FailureKind, Finding, WorkerConfig, WorkerMode,
};

use super::Settings;
use super::death::Death;
use super::outlet::Outlet;
use super::worker::{run_worker, tail};
use crate::discover::Property;
use crate::error::{SeedNotSaved, ShrinkError};
use crate::events::{BugCount, FoundBy, Reported, Update};
use crate::interrupt;
use crate::network::Network;
use crate::reach::model::FindingMark;

/// A failure's identity: its kind, its location and its call path (the
/// hash of the frames that led to a panic; 0 for other failures). Two
/// panics at one `unwrap()` reached from two callers are two bugs.
type Key = (FailureKind, String, u64);

fn key_of(finding: &Finding) -> Key {
    (finding.kind, finding.location.clone(), finding.path)
}

/// The findings of one property's campaign, shared by its lanes.
pub struct Findings<'s> {
    index: usize,
    settings: &'s Settings,
    network: Option<&'s Network>,
    /// The property's workers, to say which one found a failure.
    workers: usize,
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    /// The failures found so far: the same again is not news.
    seen: HashSet<Key>,
    /// Each distinct failure reported or known, in order, with the hits
    /// the supervisor saw of it again (the workers count their own).
    bugs: Vec<Bug>,
    /// What each lane's worker caught and is shrinking: saved, not yet
    /// reported; `None` when what it caught was known already.
    shrinking: HashMap<usize, Option<Pending>>,
    /// The kind of each failure reported, in order.
    reported: Vec<FailureKind>,
}

/// A distinct failure of the campaign.
struct Bug {
    key: Key,
    message: String,
    seed: Option<PathBuf>,
    /// Known before the campaign: a failure seed of the property still
    /// fails with it.
    known: bool,
    /// Times it was found again by a worker that did not know it yet (a
    /// restarted or another worker, a death).
    again: u64,
}

/// A failure saved as it was caught, waiting for its shrunk value.
struct Pending {
    unshrunk: Finding,
    seed: Result<SavedSeed, SeedNotSaved>,
}

/// A seed file a finding was saved in.
struct SavedSeed {
    path: PathBuf,
    /// This run wrote it (an identical seed was not there already): only
    /// then may its shrunk value replace it.
    created: bool,
}

impl<'s> Findings<'s> {
    pub fn new(
        index: usize,
        settings: &'s Settings,
        network: Option<&'s Network>,
        workers: usize,
    ) -> Findings<'s> {
        Findings {
            index,
            settings,
            network,
            workers,
            state: Mutex::default(),
        }
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().expect("no panics while held")
    }

    /// The property's index in the run.
    pub fn index(&self) -> usize {
        self.index
    }

    /// The kind of each failure reported so far.
    pub fn reported(&self) -> Vec<FailureKind> {
        self.state().reported.clone()
    }

    /// Whether a failure of this kind and location was found here (by any
    /// call path: the machines of a campaign tell failures apart by kind
    /// and location only, as their binaries may differ).
    pub fn seen(&self, kind: FailureKind, location: &str) -> bool {
        (self.state().seen.iter()).any(|(k, l, _)| *k == kind && l == location)
    }

    /// Marks `finding`'s failure as found; whether it is new here and, on
    /// a campaign across machines, this machine is the first to find it.
    /// One found again is counted as a hit of the one found first.
    fn claim(&self, finding: &Finding) -> bool {
        let key = key_of(finding);
        let mut state = self.state();
        if !state.seen.insert(key.clone()) {
            if let Some(bug) = state.bugs.iter_mut().find(|b| b.key == key) {
                bug.again += 1;
            }
            return false;
        }
        drop(state);
        self.network
            .is_none_or(|network| network.claim(self.index, finding.kind, &finding.location))
    }

    /// A worker replayed the failure seed `seed` of the property and it
    /// still fails, at `location` by `path`: that failure is known, and
    /// finding it again is no news.
    pub fn known(
        &self,
        out: &Outlet<'_, '_>,
        seed: &str,
        (location, path): (&str, u64),
        message: &str,
    ) {
        let key = (FailureKind::Panic, location.to_string(), path);
        let mut state = self.state();
        if !state.seen.insert(key.clone()) {
            return;
        }
        let seed = out.property.seed_store().dir().join(seed);
        state.bugs.push(Bug {
            key,
            message: message.to_string(),
            seed: Some(seed.clone()),
            known: true,
            again: 0,
        });
        drop(state);
        out.send(Update::KnownFailure {
            seed,
            location: location.to_string(),
        });
    }

    /// Each distinct failure, with how often it was hit: once when found,
    /// plus every hit after (`worker_hits`, the workers' counts).
    pub fn bugs(&self, worker_hits: &[FailureHits]) -> Vec<BugCount> {
        (self.state().bugs.iter())
            .map(|bug| {
                let (kind, location, path) = &bug.key;
                let counted = (worker_hits.iter())
                    .filter(|h| &h.location == location && h.path == *path)
                    .map(|h| h.hits)
                    .sum::<u64>();
                BugCount {
                    kind: *kind,
                    location: location.clone(),
                    path: *path,
                    message: bug.message.clone(),
                    hits: u64::from(!bug.known) + bug.again + counted,
                    seed: bug.seed.clone(),
                    known: bug.known,
                }
            })
            .collect()
    }

    /// Lane `lane`'s worker caught `unshrunk` and is shrinking it: saves it
    /// now, unless it is known.
    pub fn caught(&self, out: &Outlet<'_, '_>, lane: usize, unshrunk: Finding) {
        let pending = self.claim(&unshrunk).then(|| {
            let seed = self.save(out.property, &unshrunk, true);
            Pending { unshrunk, seed }
        });
        self.state().shrinking.insert(lane, pending);
    }

    /// Lane `lane`'s worker shrank the failure it caught last: replaces the
    /// unshrunk seed with `finding` and reports it.
    pub fn shrunk(&self, out: &Outlet<'_, '_>, lane: usize, finding: Finding) {
        let pending = self.state().shrinking.remove(&lane);
        match pending {
            Some(Some(pending)) => self.conclude(out, lane, pending, finding),
            Some(None) => {} // known already
            None => {
                // Not announced first (a worker of another covcheck would
                // not): caught and shrunk at once.
                self.caught(out, lane, finding.clone());
                self.shrunk(out, lane, finding);
            }
        }
    }

    /// Lane `lane`'s worker ended: a failure it was still shrinking is
    /// reported as it was caught.
    pub fn worker_ended(&self, out: &Outlet<'_, '_>, lane: usize) {
        let pending = self.state().shrinking.remove(&lane).flatten();
        if let Some(pending) = pending {
            let mut finding = pending.unshrunk.clone();
            finding.shrink_note = Some(if interrupt::interrupted().is_some() {
                "not shrunk: the run was interrupted while shrinking it".to_string()
            } else {
                "not shrunk: its worker ended while shrinking it".to_string()
            });
            let seed = pending.seed.map(|saved| saved.path);
            self.report(out, lane, finding, seed);
        }
    }

    /// Lane `lane`'s worker died of `death` after the campaign's first
    /// `at` executions and time. Whether it was a failure: not so for a
    /// death that may be the machine's doing and whose input does not fail
    /// again (`reproduced_death`); any other is saved at once,
    /// then reproduced and shrunk (`save_then_shrink`).
    pub fn died(
        &self,
        out: &Outlet<'_, '_>,
        lane: usize,
        (work, config): (&Path, &WorkerConfig),
        death: &Death,
        at: (u64, Duration),
    ) -> bool {
        out.send(Update::Crashed(death.kind));
        // A worker killed from outside, or one that ran past the timeout,
        // may owe its death to the machine (the OOM killer, a person, a
        // machine too busy to run it in time) rather than to its input.
        let doubtful = death.from_outside || death.kind == FailureKind::Timeout;
        if doubtful && interrupt::interrupted().is_none() {
            self.reproduced_death(out, lane, (work, config), death, at)
        } else {
            self.save_then_shrink(out, lane, (work, config), death, at);
            true
        }
    }

    /// Saves the input of `death` now, then has a second worker reproduce
    /// and shrink it, unless it is known; interrupted, it stays unshrunk.
    fn save_then_shrink(
        &self,
        out: &Outlet<'_, '_>,
        lane: usize,
        (work, config): (&Path, &WorkerConfig),
        death: &Death,
        at: (u64, Duration),
    ) {
        forget_cached(config, &death.choices);
        let unshrunk = Finding {
            execs_to_find: at.0,
            found_after_us: at.1.as_micros() as u64,
            ..unshrunk_death(death)
        };
        if !self.claim(&unshrunk) {
            return;
        }
        let seed = self.save(out.property, &unshrunk, true);
        let pending = Pending { unshrunk, seed };
        if interrupt::interrupted().is_some() {
            self.state().shrinking.insert(lane, Some(pending));
            return self.worker_ended(out, lane);
        }
        let shrunk = match shrink_crash(out.property, work, config, self.settings, death) {
            Ok(finding) => finding,
            Err(problem) => Finding {
                message: format!("{} ({problem})", death.detail),
                shrink_note: Some("not shrunk".to_string()),
                ..pending.unshrunk.clone()
            },
        };
        self.conclude(out, lane, pending, shrunk);
    }

    /// Lane `lane`'s worker died of `death`, which may be the machine's
    /// doing: its input is a finding only if it fails again when run
    /// alone, so it is reproduced (and shrunk) before anything is saved.
    fn reproduced_death(
        &self,
        out: &Outlet<'_, '_>,
        lane: usize,
        (work, config): (&Path, &WorkerConfig),
        death: &Death,
        at: (u64, Duration),
    ) -> bool {
        match shrink_crash(out.property, work, config, self.settings, death) {
            Ok(shrunk) => {
                forget_cached(config, &death.choices);
                if self.claim(&shrunk) {
                    let finding = Finding {
                        execs_to_find: at.0,
                        found_after_us: at.1.as_micros() as u64,
                        ..shrunk
                    };
                    let seed = self.save(out.property, &finding, false);
                    self.report(out, lane, finding, seed.map(|saved| saved.path));
                }
                true
            }
            // Interrupted while reproducing it: kept as it was, unjudged.
            Err(_) if interrupt::interrupted().is_some() => {
                self.save_then_shrink(out, lane, (work, config), death, at);
                true
            }
            Err(problem) => {
                let cause = if death.from_outside {
                    "from outside covcheck (the kernel's OOM killer, a person, a CI runner)"
                } else {
                    "while the machine was likely too busy to run it in time (a longer \
                     --timeout avoids this)"
                };
                out.send(Update::Warning(format!(
                    "a worker of {} {} {cause}, and its input does not fail when run alone \
                     ({problem}): not a finding; the campaign goes on",
                    out.property.listing.full_path, death.detail,
                )));
                false
            }
        }
    }

    /// Saves `shrunk` in place of `pending`'s unshrunk seed and reports it,
    /// timed as it was caught.
    fn conclude(&self, out: &Outlet<'_, '_>, lane: usize, pending: Pending, shrunk: Finding) {
        // Reproducing a death may name it better (a hang that was running
        // out of memory): the same failure found again under that name is
        // not news either.
        (self.state().seen).insert(key_of(&shrunk));
        let finding = Finding {
            execs_to_find: pending.unshrunk.execs_to_find,
            found_after_us: pending.unshrunk.found_after_us,
            ..shrunk
        };
        let seed = match pending.seed {
            Err(SeedNotSaved::NoSave) => Err(SeedNotSaved::NoSave),
            Ok(saved) if saved.created => self.replace(out.property, &saved.path, &finding),
            // Not this run's to replace (or not written at all): the shrunk
            // value is saved beside it.
            Ok(_) | Err(SeedNotSaved::Io { .. }) => self
                .save(out.property, &finding, finding.flaky)
                .map(|saved| saved.path),
        };
        self.report(out, lane, finding, seed);
    }

    /// Counts, marks and sends a finding.
    fn report(
        &self,
        out: &Outlet<'_, '_>,
        lane: usize,
        finding: Finding,
        seed: Result<PathBuf, SeedNotSaved>,
    ) {
        let mut state = self.state();
        state.reported.push(finding.kind);
        state.bugs.push(Bug {
            key: key_of(&finding),
            message: finding.message.clone(),
            seed: seed.as_ref().ok().cloned(),
            known: false,
            again: 0,
        });
        drop(state);
        out.mark(&FindingMark {
            elapsed_ms: finding.found_after_us / 1000,
            execs: finding.execs_to_find,
            kind: finding.kind.describe().to_string(),
            message: finding.message.clone(),
            value: finding.args.clone(),
            rerun: out.property.rerun_command(),
            seed: seed.as_ref().ok().map(|p| p.display().to_string()),
        });
        let found_by = (self.workers > 1).then_some(FoundBy {
            worker: lane + 1,
            workers: self.workers,
        });
        out.send(Update::Finding(Box::new(Reported {
            finding,
            seed,
            found_by,
        })));
    }

    /// Saves `finding` as a seed (`unshrunk`: as it was caught).
    fn save(
        &self,
        property: &Property,
        finding: &Finding,
        unshrunk: bool,
    ) -> Result<SavedSeed, SeedNotSaved> {
        if !self.settings.save {
            return Err(SeedNotSaved::NoSave);
        }
        let store = property.seed_store();
        let file = seed_file(property, finding, unshrunk);
        let io = |source| SeedNotSaved::Io {
            dir: store.dir().to_path_buf(),
            source,
        };
        let path = store.path_of(&file).map_err(io)?;
        let created = !path.exists();
        store.save(&file).map_err(io)?;
        Ok(SavedSeed { path, created })
    }

    /// Saves `shrunk` in place of the seed this run saved at `unshrunk`;
    /// when it cannot, the unshrunk seed stays and says so.
    fn replace(
        &self,
        property: &Property,
        unshrunk: &Path,
        shrunk: &Finding,
    ) -> Result<PathBuf, SeedNotSaved> {
        let store = property.seed_store();
        let file = seed_file(property, shrunk, shrunk.flaky);
        store
            .replace(unshrunk, &file)
            .or_else(|_| Ok(unshrunk.to_path_buf()))
    }
}

/// Removes `choices` from the corpus cache of `config`'s campaign, if it is
/// there: an input that kills a worker would kill every worker that resumes
/// from the cache. Its seed holds it now.
fn forget_cached(config: &WorkerConfig, choices: &[u64]) {
    let cached = (config.corpus_dir).join(format!("{:016x}", content_hash(choices)));
    let _ = std::fs::remove_file(cached);
}

/// The seed file of `finding`.
fn seed_file(property: &Property, finding: &Finding, unshrunk: bool) -> SeedFile {
    finding.seed_file(&property.listing.full_path, unshrunk)
}

/// The finding of a worker's death, as its input was when it died.
fn unshrunk_death(death: &Death) -> Finding {
    Finding {
        kind: death.kind,
        choices: death.choices.clone(),
        message: death.detail.clone(),
        location: String::new(),
        args: Vec::new(),
        execs_to_find: 0,
        found_after_us: 0,
        shrink_runs: 0,
        shrink_note: Some("not shrunk yet".to_string()),
        flaky: false,
        size: Some(CAMPAIGN_MAX_LEN),
        path: 0,
    }
}

/// Reproduces and shrinks a crash in a second worker (in `work`, on
/// `campaign`'s settings): a finding if the input fails alone, why not
/// otherwise.
pub fn shrink_crash(
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
