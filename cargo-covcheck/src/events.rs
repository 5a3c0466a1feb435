//! The one stream of events between the commands and the reporters: what
//! `list`, `run`, `minimize` and `replay` decided, found and measured, as
//! plain data. The commands emit [`Event`]s; the human and JSON reporters
//! decide how they look (cargo-nextest's `reporter/events.rs` is the model).

use std::path::{Path, PathBuf};
use std::time::Duration;

use covcheck_protocol::seeds::SeedError;
use covcheck_protocol::worker::{
    FailureKind, Finding, MinimizeReport, Progress, SeedResult, TargetBest, TokenUse,
};

use crate::discover::Property;
use crate::engine::Damage;
use crate::error::{MinimizeError, SeedNotSaved, WorkerError, WriteError};
use crate::exit::Outcome;
use crate::network::{FoundElsewhere, Network};
use crate::reach::model::CoverageReport;

use crate::perf::PerfReport;
use crate::suite_reach::SuiteCoverage;
use crate::supervise::Death;

/// Something a command has to say.
#[derive(Debug)]
pub enum Event<'a> {
    /// No property matched the filter (`filter`), or the crate has none.
    NothingMatched { filter: Option<&'a str> },
    /// The campaigns run without a dictionary: it could not be written.
    NoDictionary(WriteError),
    /// Something about the whole command that the user should know.
    Warning(String),
    /// `run`: the cached campaign engine is not what was built; it is
    /// rebuilt before the campaigns start.
    EngineDamaged(&'a Damage),
    /// `run`: the campaign engine is not built yet on this machine (or for
    /// this covcheck version); it is built now, once, into `dir`.
    EngineBuilding { dir: &'a Path },
    /// `list`: one property, its number of readable seeds, and the seed
    /// files it could not read.
    Listed {
        property: &'a Property,
        seeds: usize,
        unreadable: Vec<SeedError>,
    },
    /// `run`: the campaigns start, `jobs` at a time.
    CampaignsStarting {
        properties: usize,
        jobs: usize,
        seed: u64,
    },
    /// `run`: this machine is the hub of a campaign across machines, or
    /// joined one.
    Network(&'a Network),
    /// `run`: news from the campaign of property `index`.
    Campaign {
        index: usize,
        property: &'a Property,
        update: Update,
    },
    /// `run --since`: what the change touched and which properties'
    /// corpora reach it, before the campaigns start.
    Aimed(&'a ChangeReach),
    /// `run`: every campaign ended (or the run was interrupted).
    CampaignsFinished(&'a RunSummary<'a>),
    /// `run --since`: the changed lines no property reached, after the
    /// campaigns.
    ChangeReached(&'a ChangeReach),
    /// `minimize`: one property's suite, measured and (with `--save`) kept.
    Minimized(&'a PropertyMinimized<'a>),
    /// `replay`: a seed ran (properties replay in parallel).
    SeedReplayed {
        property: &'a Property,
        seed: SeedResult,
    },
    /// `replay`: every seed ran.
    ReplayFinished(&'a ReplaySummary<'a>),
    /// `replay --junit`: the report was written here.
    JunitWritten(&'a Path),
    /// `report`: the coverage report was written.
    CoverageWritten(&'a CoverageWritten<'a>),
}

/// The coverage report of `report` (or `run --report`), written.
#[derive(Debug)]
pub struct CoverageWritten<'a> {
    pub report: &'a CoverageReport,
    pub index: PathBuf,
    pub lcov: PathBuf,
    /// Properties whose inputs could not be run (left out), and why.
    pub failed: Vec<(&'a Property, String)>,
}

/// What the supervisor says about one property's campaign.
#[derive(Debug)]
pub enum Update {
    Started,
    /// The campaign resumed from `read` saved inputs, of which `kept` are
    /// corpus entries (with its first fresh inputs).
    Resumed {
        read: usize,
        kept: usize,
    },
    /// The campaign's status, summed over its `workers` workers, and the
    /// campaign time when its corpus or coverage last grew.
    Progress {
        progress: Progress,
        workers: usize,
        last_new: Option<Duration>,
    },
    /// A worker died; its input is being reproduced and shrunk.
    Crashed(FailureKind),
    Finding(Box<Reported>),
    Error(WorkerError),
    /// Something to fix that did not stop the campaign.
    Warning(String),
    /// Another machine of a campaign across machines found a failure of
    /// this property (and saved it there).
    FoundElsewhere(FoundElsewhere),
    /// This joining machine lost its hub (at this address) and stopped.
    HubLost(String),
    /// A failure seed of the property still fails: its failure is known,
    /// and the campaign does not report it again (`cargo test` fails on
    /// the seed).
    KnownFailure {
        seed: PathBuf,
        location: String,
    },
    Finished(Summary),
}

/// A finding and where it was saved.
#[derive(Debug)]
pub struct Reported {
    pub finding: Finding,
    pub seed: Result<PathBuf, SeedNotSaved>,
    /// Which worker found it, when the property ran on more than one.
    pub found_by: Option<FoundBy>,
}

/// Which of a property's workers found a failure (numbered from 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FoundBy {
    pub worker: usize,
    pub workers: usize,
}

/// The end result of one property's campaign.
#[derive(Clone, Debug, Default)]
pub struct Summary {
    /// The worker processes the campaign ran on at once.
    pub workers: usize,
    pub execs: u64,
    /// Corpus entries one worker received from another and kept, summed.
    pub imported: u64,
    pub edges: usize,
    pub corpus: usize,
    pub elapsed: Duration,
    /// The kind of each failure found, in order.
    pub failures: Vec<FailureKind>,
    /// Each distinct failure found or known, with its hits.
    pub bugs: Vec<BugCount>,
    /// With a shared budget (`--time-total`, `--runs-total`): the slices
    /// it ran, and when (from the run's start) one last found something
    /// new. `elapsed` is then the time its slices ran.
    pub slices: u32,
    pub last_new: Option<Duration>,
    /// Errors of covcheck's own (workers that could not run).
    pub errors: usize,
    /// The dictionary tokens that led to the most corpus entries.
    pub tokens: Vec<TokenUse>,
    /// The best value of each label the property's `target()` calls
    /// reported, and the input that reached it.
    pub targets: Vec<TargetBest>,
    /// Performance mode's conclusions; `None` in other campaigns.
    pub perf: Option<Box<PerfReport>>,
}

/// What a change touched and what reached it (`run --since`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ChangeReach {
    /// The commit the working tree was compared with, and the checkout's
    /// top directory (the lines' paths are shown relative to it).
    pub base: String,
    pub top: PathBuf,
    /// Lines changed, and those of them with code in a test binary.
    pub changed: usize,
    pub with_code: usize,
    /// The properties whose corpus reached changed code before the run.
    pub reaching: Vec<String>,
    /// The changed lines with code that no property reached (after the
    /// campaigns; empty before).
    pub unreached: Vec<(PathBuf, u32)>,
}

/// One distinct failure of a campaign and how often it was hit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BugCount {
    pub kind: FailureKind,
    pub location: String,
    /// Its call path (0: none).
    pub path: u64,
    pub message: String,
    /// Executions that hit it: the one that found it and every one after.
    pub hits: u64,
    /// Its seed, when saved (or, for a known one, the seed that shows it).
    pub seed: Option<PathBuf>,
    /// A failure seed showed it before the campaign started.
    pub known: bool,
}

/// The end of `run`: every property's campaign.
#[derive(Debug)]
pub struct RunSummary<'a> {
    pub rows: Vec<(&'a Property, Summary)>,
    /// The signal that cut the run short, if one did.
    pub interrupted: Option<i32>,
}

impl RunSummary<'_> {
    pub fn failures(&self) -> usize {
        self.rows.iter().map(|(_, s)| s.failures.len()).sum()
    }

    pub fn errors(&self) -> usize {
        self.rows.iter().map(|(_, s)| s.errors).sum()
    }

    /// The properties whose campaign ran no input at all (a budget that
    /// ended before the first execution): nothing was tested.
    pub fn untested(&self) -> usize {
        (self.rows.iter())
            .filter(|(_, s)| s.execs == 0 && s.failures.is_empty() && s.errors == 0)
            .count()
    }

    /// Failures found before an interrupt still fail the run: they are
    /// saved, and a script must not take the run for a mere interruption.
    /// A run in which no property ran an input tested nothing.
    pub fn outcome(&self) -> Outcome {
        match self.interrupted {
            Some(_) if self.failures() > 0 => Outcome::Failed,
            Some(signal) => Outcome::Interrupted(signal),
            None if !self.rows.is_empty() && self.untested() == self.rows.len() => {
                Outcome::NothingTested
            }
            None => Outcome::of(self.failures() > 0, self.errors() > 0),
        }
    }
}

/// One property's `minimize`: its suite, or why there is none.
#[derive(Debug)]
pub struct PropertyMinimized<'a> {
    pub property: &'a Property,
    pub result: Result<Minimized, MinimizeError>,
}

impl PropertyMinimized<'_> {
    pub fn outcome(&self) -> Outcome {
        match &self.result {
            Err(error) => error.outcome(),
            Ok(Minimized {
                suite:
                    Suite::Saved(Saving {
                        error: Some(error), ..
                    }),
                ..
            }) => error.outcome(),
            Ok(_) => Outcome::Passed,
        }
    }
}

/// What the minimize workers of one property reported, and what became of
/// the suite.
#[derive(Debug)]
pub struct Minimized {
    pub report: Box<MinimizeReport>,
    /// The inputs that ended a worker (crashes and hangs), left out, each
    /// as it was judged when run alone.
    pub deaths: Vec<JudgedDeath>,
    pub suite: Suite,
    /// What the seeds on disk now cover, as `replay` will report it.
    pub coverage: SuiteCoverage,
    /// Why the coverage record for `replay` could not be kept.
    pub record_error: Option<WriteError>,
}

/// An input that ended a minimize worker, run again alone.
#[derive(Debug)]
pub enum JudgedDeath {
    /// It fails alone too: a bug, which no covering seed can hold.
    Failure {
        death: Death,
        /// The failure reproduced and shrunk, its value rendered.
        finding: Box<Finding>,
        seed: FailureSeed,
    },
    /// It passed alone, twice: the machine was likely too busy to run it
    /// in time, or something outside killed the worker. Left out of the
    /// suite this time only.
    PassedAlone { death: Death, problem: String },
}

/// Which seed replays a failure `minimize` met.
#[derive(Debug)]
pub enum FailureSeed {
    /// A seed file holds this input already.
    Existing(PathBuf),
    /// Saved now, as a failure seed (`--save`).
    Saved(PathBuf),
    /// `--save` was not given.
    NotSaved,
    /// Writing it failed.
    Failed(String),
}

/// What became of a minimized suite.
#[derive(Debug)]
pub enum Suite {
    /// There was no corpus cache to minimize.
    NoCorpus,
    /// Shown only: `--save` was not given.
    NotSaved,
    Saved(Saving),
}

/// What `--save` did, as far as it got.
#[derive(Debug)]
pub struct Saving {
    /// The covering seeds written, once all of them were.
    pub written: Option<Written>,
    /// Covering seeds not in the suite that now fail: kept, as each shows a bug.
    pub failing: Vec<PathBuf>,
    pub stale: Stale,
    /// What stopped the saving.
    pub error: Option<MinimizeError>,
}

/// The covering seeds of a saved suite.
#[derive(Debug)]
pub struct Written {
    pub seeds: usize,
    /// Of them, the ones that were not on disk already.
    pub new: usize,
    pub dir: PathBuf,
}

/// Covering seeds the new suite does not need.
#[derive(Debug)]
pub enum Stale {
    /// Left on disk (no `--prune`).
    Listed(Vec<PathBuf>),
    /// Deleted by `--prune`.
    Deleted(Vec<PathBuf>),
}

/// The end of `replay`: every property's seeds.
#[derive(Debug)]
pub struct ReplaySummary<'a> {
    /// Each property's seeds, or why they could not be replayed.
    pub results: Vec<(&'a Property, Result<Vec<SeedResult>, WorkerError>)>,
    /// The seed-suite coverage of each property with seeds; `None` when
    /// `minimize` has not measured it yet.
    pub coverage: Vec<(&'a Property, Option<SuiteCoverage>)>,
    pub elapsed: Duration,
}

impl ReplaySummary<'_> {
    fn seed_results(&self) -> impl Iterator<Item = &SeedResult> {
        self.results
            .iter()
            .filter_map(|(_, r)| r.as_ref().ok())
            .flatten()
    }

    pub fn seeds(&self) -> usize {
        self.seed_results().count()
    }

    pub fn failed(&self) -> usize {
        self.seed_results().filter(|s| !s.passed).count()
    }

    /// Properties whose seeds could not be replayed.
    pub fn errors(&self) -> usize {
        self.results.iter().filter(|(_, r)| r.is_err()).count()
    }

    pub fn outcome(&self) -> Outcome {
        Outcome::of(self.failed() > 0, self.errors() > 0)
    }
}
