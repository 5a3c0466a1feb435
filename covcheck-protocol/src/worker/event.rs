//! What a worker reports: [`Event`]s, one per [`EVENT_PREFIX`] line on its
//! stdout, and the findings and reports they carry.

use serde::{Deserialize, Serialize};

pub use crate::failure::FailureKind;
use crate::messages;
use crate::seeds::{FailureRecord, SeedFile};

use super::progress::Progress;

/// What starts an event line.
pub const EVENT_PREFIX: &str = "covcheck-event ";

/// A failure, shrunk, ready to be saved and reported.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Finding {
    pub kind: FailureKind,
    pub choices: Vec<u64>,
    pub message: String,
    pub location: String,
    /// Each argument's `Debug` rendering, in order.
    pub args: Vec<(String, String)>,
    /// Executions of the campaign until the failure was first hit.
    pub execs_to_find: u64,
    /// Microseconds from the campaign's start until the failure was first hit.
    pub found_after_us: u64,
    pub shrink_runs: usize,
    /// Set when shrinking ran out of budget.
    pub shrink_note: Option<String>,
    /// The input failed once but passed when replayed: the property is not
    /// deterministic (it depends on time, randomness or state outside its
    /// arguments). Still a finding; it was not shrunk.
    #[serde(default)]
    pub flaky: bool,
    /// The size limit the input was found under, for its seed file.
    #[serde(default)]
    pub size: Option<usize>,
    /// The hash of the frames that led to the panic (covcheck-rt's
    /// `call_path`); 0 for failures other than panics. With the kind and
    /// the location it tells two bugs apart.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub path: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl Finding {
    /// The seed file of this finding of property `property` (`unshrunk`:
    /// saved as it was caught). Here rather than in [`crate::seeds`], so
    /// that the stable seed-file interface names no wire type.
    pub fn seed_file(&self, property: &str, unshrunk: bool) -> SeedFile {
        SeedFile::failure(
            property,
            &self.choices,
            self.size,
            FailureRecord {
                message: self.message.clone(),
                location: self.location.clone(),
                kind: (self.kind != FailureKind::Panic).then_some(self.kind),
                flaky: self.flaky,
                unshrunk,
            },
            &self.args,
        )
    }
}

/// What a worker reports.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "event")]
pub enum Event {
    Started {
        /// Coverage counters in the instrumented code (0: not instrumented).
        counters: usize,
        /// Corpus entries once the saved and first fresh inputs ran.
        corpus: usize,
        /// Saved inputs it started from (the corpus cache and the covering
        /// and performance seeds): only those that reach coverage the ones
        /// before did not are corpus entries.
        #[serde(default)]
        resumed: usize,
    },
    Status(Progress),
    /// A failure was caught, as it was caught (`execs_to_find`: this
    /// worker's executions then); it is being shrunk, and the
    /// [`Event::Finding`] of the same failure follows. The supervisor saves
    /// it at once, unshrunk, so that an interrupt or a death while
    /// shrinking loses nothing (Hypothesis and libFuzzer both write before
    /// they minimise), and replaces it with the shrunk value when that
    /// comes.
    Caught(Box<Finding>),
    /// A failure, shrunk; always after the [`Event::Caught`] of the same
    /// failure.
    Finding(Finding),
    /// A failure seed of the property still fails, before the campaign
    /// starts: its failure is known, not news, and its hits are counted in
    /// [`Progress::hits`] like those of the failures this worker reports.
    KnownFailure {
        /// The seed's file name.
        seed: String,
        location: String,
        #[serde(default)]
        path: u64,
        /// Its panic message now.
        #[serde(default)]
        message: String,
    },
    Done(Progress),
    /// The outcome of [`WorkerMode::Minimize`](super::WorkerMode::Minimize).
    Minimized(Box<MinimizeReport>),
    /// The outcome of [`WorkerMode::Reach`](super::WorkerMode::Reach).
    Reached(Box<ReachReport>),
    /// A replayed seed starts (so that a worker dying on it can be blamed).
    SeedStarted {
        file: String,
        kind: String,
    },
    /// A replayed seed's result.
    SeedReplayed(SeedResult),
    /// The worker cannot run (wrong build, bad configuration).
    Error {
        message: String,
    },
    /// Something the user should fix that does not stop the worker (a seed
    /// file it cannot read, named with its path and the problem).
    Warning {
        message: String,
    },
}

/// Which coverage counters a property's saved inputs reach.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct ReachReport {
    /// Inputs run: corpus cache entries and seeds (failure seeds of crash
    /// kinds are not run: they would end the worker).
    pub inputs: usize,
    /// The counters reached, by counter index.
    pub reached: Vec<ReachedCounter>,
    /// When asked: the address of each counter's code, as an offset into
    /// the test binary's file mapping (what a symboliser looks up), in
    /// counter order.
    pub pcs: Vec<u64>,
}

/// A coverage counter that saved inputs reached.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct ReachedCounter {
    pub counter: u32,
    /// How many inputs reached it.
    pub inputs: u64,
    /// When the earliest input that reaches it was saved (its file's
    /// modification time), in milliseconds since the Unix epoch.
    pub first_saved_ms: u64,
}

/// Size and coverage of a set of inputs.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct SuiteStats {
    pub inputs: usize,
    /// Total length of the inputs as seed files store them (`choices` text).
    pub bytes: usize,
    /// Distinct coverage features (edge, hit-count bucket) they reach.
    pub features: usize,
}

/// What `cargo covcheck minimize` found for one property.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct MinimizeReport {
    /// Corpus cache entries and saved seeds that were measured.
    pub measured: SuiteStats,
    /// Of those, entries of the corpus cache.
    pub corpus_inputs: usize,
    /// Failure seeds: always kept, their features count as covered.
    pub failure_seeds: usize,
    /// Failure seeds of crash kinds (abort, timeout, ...), not run here
    /// because they would take the worker down.
    pub unmeasured_failure_seeds: usize,
    /// Corpus entries or covering seeds that now fail: not selected.
    pub failing_inputs: usize,
    /// File names of the covering seeds that now fail, or that ended an
    /// earlier worker of this run: kept on disk by `--prune`, since each now
    /// shows a bug.
    #[serde(default)]
    pub failing_seeds: Vec<String>,
    /// What libFuzzer's `-merge=1` rule (smallest first, keep an input if it
    /// adds a feature) keeps of the same inputs.
    pub forward_pass: SuiteStats,
    /// What greedy set cover keeps, before shrinking.
    pub set_cover: SuiteStats,
    /// The covering inputs after shrinking, with failure seeds' coverage
    /// (shrinking may reach features the measured inputs did not).
    pub after: SuiteStats,
    /// Of the measured features, how many the final suite keeps (all of
    /// them, unless a feature depends on more than the input).
    pub kept_features: usize,
    /// Features the seeds saved now (covering and failure) reach.
    pub seeds_before: SuiteStats,
    /// The selected covering inputs, shrunk.
    pub selected: Vec<CoveringInput>,
    /// Feature lists of the seeds that were run, by seed file name, for the
    /// seed-suite coverage record.
    pub seed_features: Vec<(String, Vec<u32>)>,
}

/// One input of the minimized suite.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct CoveringInput {
    pub choices: Vec<u64>,
    pub args: Vec<(String, String)>,
    pub features: Vec<u32>,
}

/// One seed replayed by `cargo covcheck replay`.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct SeedResult {
    /// The seed's file name (in the property's seed directory).
    pub file: String,
    /// `failure` or `covering`.
    pub kind: String,
    pub passed: bool,
    /// The failure's message and location when it did not pass.
    pub message: String,
    pub location: String,
    /// The failure's call path, as in [`Finding::path`].
    #[serde(default, skip_serializing_if = "is_zero")]
    pub path: u64,
    pub micros: u64,
}

/// Prints one event line (what a worker does).
pub fn emit(event: &Event) {
    use std::io::Write;
    let line = serde_json::to_string(event).expect("events serialize");
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{EVENT_PREFIX}{line}");
    let _ = out.flush();
}

/// Parses an event line; `None` for lines that are not events. The event may
/// follow other text on its line: libtest prints `test <name> ... ` without a
/// line break before the test runs.
pub fn parse_event(line: &str) -> Option<Result<Event, String>> {
    let json = &line[line.find(EVENT_PREFIX)? + EVENT_PREFIX.len()..];
    Some(serde_json::from_str(json).map_err(|e| format!("{e} in {json:?}")))
}

// What the messages say of the wire types above, field by field with no
// `..` (as in `progress.rs`): a new wire field is shown to tools only by a
// decision made here.

impl From<Finding> for messages::Finding {
    fn from(finding: Finding) -> Self {
        let Finding {
            kind,
            choices,
            message,
            location,
            args,
            execs_to_find,
            found_after_us,
            shrink_runs,
            shrink_note,
            flaky,
            size,
            path,
        } = finding;
        messages::Finding {
            kind,
            choices,
            message,
            location,
            args,
            execs_to_find,
            found_after_us,
            shrink_runs,
            shrink_note,
            flaky,
            size,
            call_path: path,
        }
    }
}

impl From<SuiteStats> for messages::SuiteStats {
    fn from(stats: SuiteStats) -> Self {
        let SuiteStats {
            inputs,
            bytes,
            features,
        } = stats;
        messages::SuiteStats {
            inputs,
            bytes,
            features,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_are_found_after_libtest_text_on_the_same_line() {
        let line = format!(
            "test tests::p ... {EVENT_PREFIX}{}",
            serde_json::to_string(&Event::Error {
                message: "m".into()
            })
            .unwrap()
        );
        assert!(matches!(parse_event(&line), Some(Ok(Event::Error { message })) if message == "m"));
        assert!(parse_event("test tests::p ... ok").is_none());
    }

    /// The stable message of a finding is the wire's, field for field.
    #[test]
    fn a_finding_reads_the_same_in_a_message() {
        let finding = Finding {
            kind: FailureKind::StackOverflow,
            choices: vec![3, 0, 255],
            message: "overflow".into(),
            location: String::new(),
            args: vec![("a".into(), "[1]".into())],
            execs_to_find: 12,
            found_after_us: 900,
            shrink_runs: 4,
            shrink_note: None,
            flaky: false,
            size: Some(4096),
            path: 0,
        };
        let wire = serde_json::to_string(&finding).unwrap();
        let stable = serde_json::to_string(&messages::Finding::from(finding)).unwrap();
        assert_eq!(stable, wire);
    }
}
