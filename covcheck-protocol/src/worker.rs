//! What `cargo covcheck` and a test binary say to each other.
//!
//! The CLI never parses Rust to find properties: it runs each built test
//! binary with [`LIST_ENV`] set, and every `#[covcheck]` property registered
//! in it prints one [`LIST_PREFIX`] line. To run a campaign it starts the
//! binary on one property (`<binary> --exact <test name>`) with
//! [`WORKER_ENV`] naming a [`WorkerConfig`] file; the property's test
//! function then becomes a campaign worker and reports [`Event`]s as
//! [`EVENT_PREFIX`] lines on stdout. Anything else the property prints is
//! left alone.
//!
//! These types are shared by both sides so they cannot drift apart. The
//! CLI and the runtime come from one covcheck release, so this format may
//! change in any release; tools read [`crate::messages`] instead.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// Set (to anything) to make each registered property print its
/// [`ListedProperty`] line; run the binary with `--list` so no test runs.
pub const LIST_ENV: &str = "COVCHECK_LIST";
/// Path of a JSON [`WorkerConfig`]: turns the named property into a worker.
pub const WORKER_ENV: &str = "COVCHECK_WORKER";
pub const LIST_PREFIX: &str = "covcheck-property ";
pub const EVENT_PREFIX: &str = "covcheck-event ";

/// The size limit of campaigns (the longest open-ended collection or
/// string), far past plain `cargo test`'s default of 100: bugs that need a
/// long run of bytes or a long operation sequence must be reachable. Fresh
/// inputs start far smaller and grow towards it as coverage stalls, and
/// what a campaign saves records it ([`crate::seeds::SeedFile::size`]).
pub const CAMPAIGN_MAX_LEN: usize = 4096;

/// Exit status of a worker whose memory use passed `--rss-limit-mb`.
pub const EXIT_OUT_OF_MEMORY: i32 = 77;
/// Exit status LibAFL's in-process executor uses after a per-execution timeout.
pub const EXIT_TIMEOUT: i32 = 55;

/// One property, as its test binary describes it.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct ListedProperty {
    /// The libtest name (`module::name`), what `--exact` and `cargo test` take.
    pub test_name: String,
    /// `crate::module::name`, as reports show it.
    pub full_path: String,
    pub package: String,
    /// Directory holding this property's seeds.
    pub seed_dir: PathBuf,
    /// The package directory (where the test binary is run from).
    pub crate_root: PathBuf,
    /// `cargo test` arguments that select this binary (`--lib`, `--test x`).
    pub target_args: Vec<String>,
    /// `#[covcheck(perf)]`: campaigns run it in performance mode.
    #[serde(default, skip_serializing_if = "is_false")]
    pub perf: bool,
}

fn is_false(value: &bool) -> bool {
    !value
}

impl ListedProperty {
    /// The command that runs just this property, from the directory
    /// `cargo covcheck` was run in when `manifest_path` (as the user gave
    /// it) is set, from the package's directory otherwise.
    pub fn rerun_command(&self, manifest_path: Option<&std::path::Path>) -> String {
        let manifest = manifest_path
            .map(|path| format!(" --manifest-path {}", shell_word(&path.to_string_lossy())))
            .unwrap_or_default();
        format!(
            "cargo test{manifest} -p {} {} -- {} --exact",
            self.package,
            self.target_args.join(" "),
            self.test_name
        )
    }
}

/// `word` as a shell reads it: unchanged when it is plain, single-quoted
/// otherwise.
fn shell_word(word: &str) -> String {
    let plain = word
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "/._-+:=@,".contains(c));
    if plain && !word.is_empty() {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

/// What a worker is asked to do.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct WorkerConfig {
    /// The property's test name; other properties in the binary ignore the request.
    pub test_name: String,
    pub mode: WorkerMode,
    /// Seed of every random decision the worker makes.
    pub rng_seed: u64,
    /// Stop after this many executions.
    pub runs: Option<u64>,
    /// Stop after this many milliseconds.
    pub time_ms: Option<u64>,
    /// Per-execution timeout.
    pub timeout_ms: u64,
    /// Memory limit of one execution (resident set), in MiB.
    pub rss_limit_mb: u64,
    /// Where coverage-increasing inputs are kept between runs.
    pub corpus_dir: PathBuf,
    /// A file of [`crate::inflight::inflight_len`] bytes the worker maps into memory and into
    /// which it copies every input before running it, so that the supervisor
    /// can recover the input of a worker that died.
    pub inflight_path: PathBuf,
    /// Mutations that replace a draw by an operand it was compared against.
    pub cmp_mutations: bool,
    /// Stop after the first failure (the default) instead of going on.
    pub stop_on_failure: bool,
    /// Grow the size bound of fresh inputs in steps (seed 004's iterative
    /// deepening); off, fresh inputs use the full bound from the start.
    #[serde(default = "yes")]
    pub size_steps: bool,
    /// With size steps, where the bound starts, as a share of the doublings
    /// from the smallest bound to the full size: 0 the smallest, 1 the full
    /// size. One worker steps up from the smallest; the workers of a
    /// property on several spread over the steps, so that the sizes one
    /// worker would reach one after another are searched side by side.
    #[serde(default)]
    pub size_start: f64,
    /// Tokens for the mutator, in libFuzzer's dictionary format
    /// ([`crate::dictionary`]): the literals of the crates under test.
    #[serde(default)]
    pub dictionary: Option<PathBuf>,
    /// Give the mutator the property's own tokens
    /// (`#[covcheck(dict = [...], dict_file = "...")]`), ahead of
    /// [`WorkerConfig::dictionary`]'s; off with `--no-dict`, which turns
    /// every dictionary off.
    #[serde(default = "yes")]
    pub property_dictionary: bool,
    /// Let the property's `target()` values steer the campaign: an input
    /// that raises a label's best value enters the corpus, as one with new
    /// coverage does. Off with `--no-target`, which still records and
    /// reports the best values, to measure what the steering brings.
    #[serde(default = "yes")]
    pub steer_targets: bool,
    /// The campaign engine library (covcheck-engine) a campaign loads;
    /// `cargo covcheck` builds it once per machine.
    #[serde(default)]
    pub engine: Option<PathBuf>,
    /// The local port of the property's LLMP broker when it runs on more
    /// than one worker (or machine): the worker shares its corpus entries
    /// through it. `None`: a worker alone.
    #[serde(default)]
    pub broker_port: Option<u16>,
    /// Performance mode: the worker runs the build that counts the edges
    /// each execution runs, and the campaign looks for the costliest input
    /// of each size as well as for new coverage ([`Progress::costs`]).
    #[serde(default)]
    pub perf: bool,
}

fn yes() -> bool {
    true
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "mode")]
pub enum WorkerMode {
    /// Run a coverage-guided campaign.
    Campaign,
    /// Reproduce an input that killed a worker, in a forked child per try,
    /// find out what kind of failure it is, and shrink it.
    ShrinkCrash { choices: Vec<u64> },
    /// Measure the coverage features of the corpus cache and the saved seeds,
    /// select a covering subset and shrink it (`cargo covcheck minimize`).
    /// The inputs in `skip` ended an earlier worker of the same run (a crash
    /// or a hang): they are not run again.
    Minimize {
        #[serde(default)]
        skip: Vec<Vec<u64>>,
    },
    /// Replay the saved seeds one by one, each reported as its own result
    /// (`cargo covcheck replay`); seeds whose file names are in `skip` were
    /// reported by an earlier worker that died on a later one.
    Replay { skip: Vec<String> },
    /// Run the corpus cache and the saved seeds once each and report which
    /// coverage counters they reach (`cargo covcheck report`); with `pcs`,
    /// also the program counter of every counter, for symbolising.
    Reach { pcs: bool },
}

impl WorkerMode {
    pub fn is_shrink(&self) -> bool {
        matches!(self, WorkerMode::ShrinkCrash { .. })
    }
}

/// How a property failed.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq, Hash)]
#[serde(rename_all = "kebab-case")]
pub enum FailureKind {
    /// A panic or an `Err` returned by the property (caught in-process).
    Panic,
    Abort,
    StackOverflow,
    Segfault,
    /// Killed by another signal.
    Crash,
    Timeout,
    OutOfMemory,
    /// The process ended itself in the middle of an execution
    /// (`std::process::exit`), which no test can see past.
    Exit,
}

impl FailureKind {
    pub fn describe(self) -> &'static str {
        match self {
            FailureKind::Panic => "panic",
            FailureKind::Abort => "abort",
            FailureKind::StackOverflow => "stack overflow",
            FailureKind::Segfault => "segmentation fault",
            FailureKind::Crash => "crash",
            FailureKind::Timeout => "timeout",
            FailureKind::OutOfMemory => "out of memory",
            FailureKind::Exit => "process exit",
        }
    }
}

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
    Done(Progress),
    /// The outcome of [`WorkerMode::Minimize`].
    Minimized(Box<MinimizeReport>),
    /// The outcome of [`WorkerMode::Reach`].
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
    pub micros: u64,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct Progress {
    pub execs: u64,
    pub corpus: usize,
    /// Distinct coverage counters hit so far.
    pub edges: usize,
    pub elapsed_ms: u64,
    /// Corpus entries received from the property's other workers (or
    /// machines) that were new here and kept.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub imported: u64,
    /// The dictionary tokens that led to the most corpus entries, most
    /// first (at most [`TOP_TOKENS`]); empty without a dictionary.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tokens: Vec<TokenUse>,
    /// The best value of each label the property's `target()` calls
    /// reported, in the order first reached; empty for a property that
    /// calls none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub targets: Vec<TargetBest>,
    /// Performance mode's cost profile; `None` in other campaigns.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub costs: Option<CostProfile>,
}

impl Progress {
    /// `self` (earlier workers', or other lanes') and `later` as one:
    /// executions and imports added up; edges and corpus the larger (a
    /// restarted worker resumes from the corpus cache, and workers that
    /// share a corpus count alike); tokens added up; each label's best
    /// target; the costlier cost profile; the rest (elapsed time) from
    /// `later`.
    pub fn merge(&self, later: &Progress) -> Progress {
        Progress {
            execs: self.execs + later.execs,
            imported: self.imported + later.imported,
            edges: self.edges.max(later.edges),
            corpus: self.corpus.max(later.corpus),
            tokens: add_tokens(&self.tokens, &later.tokens),
            targets: best_targets(&self.targets, &later.targets),
            costs: costlier(&self.costs, &later.costs),
            elapsed_ms: later.elapsed_ms,
        }
    }
}

/// The best `target()` values of `before` and `later`: for each label, the
/// higher value and the input that reached it (`before`'s on a tie, as it
/// got there first).
fn best_targets(before: &[TargetBest], later: &[TargetBest]) -> Vec<TargetBest> {
    let mut all = before.to_vec();
    for best in later {
        match all.iter_mut().find(|b| b.label == best.label) {
            Some(b) if best.value > b.value => *b = best.clone(),
            Some(_) => {}
            None => all.push(best.clone()),
        }
    }
    all
}

/// The token counts of `before` and `later`, added up (each worker counts
/// the corpus entries it made).
fn add_tokens(before: &[TokenUse], later: &[TokenUse]) -> Vec<TokenUse> {
    let mut all = before.to_vec();
    for token in later {
        match all.iter_mut().find(|t| t.token == token.token) {
            Some(t) => t.entries += token.entries,
            None => all.push(token.clone()),
        }
    }
    top_tokens(all)
}

/// Of two workers' cost profiles, the one with the costlier input (workers
/// of a property measure the same cost, so the other adds nothing to
/// report).
fn costlier(before: &Option<CostProfile>, later: &Option<CostProfile>) -> Option<CostProfile> {
    let cost = |p: &Option<CostProfile>| {
        p.as_ref()
            .and_then(|p| p.costliest.as_ref())
            .map(|c| c.cost)
    };
    if cost(later) > cost(before) {
        later.clone()
    } else {
        before.clone().or_else(|| later.clone())
    }
}

/// What a performance campaign found out about its property's cost (edges
/// executed per execution) against input size (choices drawn).
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct CostProfile {
    /// One point per size class (sizes within a quarter of a doubling of
    /// each other), smallest first.
    pub points: Vec<CostPoint>,
    /// The costliest input of all, with its choices and arguments.
    pub costliest: Option<CostliestInput>,
}

/// The costs of the inputs of one size class.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
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
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct CostliestInput {
    pub size: usize,
    pub cost: u64,
    /// The median cost of the fresh inputs of its size class ([`CostPoint`]).
    pub median: u64,
    /// How many fresh inputs that median is of.
    pub fresh: u64,
    pub choices: Vec<u64>,
    /// The size limit (`COVCHECK_SIZE`) it ran under, when that was not the
    /// default: its seed replays under it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size_limit: Option<usize>,
    /// Each argument's `Debug` rendering, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub args: Vec<(String, String)>,
}

/// The highest value a campaign's executions reached for one `target()`
/// label, and the input that reached it.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct TargetBest {
    pub label: String,
    pub value: f64,
    /// The input's choices, as a seed stores them.
    pub choices: Vec<u64>,
    /// Each argument's `Debug` rendering, in order; empty when the worker
    /// did not get to render them (a status sent before it died).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub args: Vec<(String, String)>,
}

/// How many tokens [`Progress::tokens`] names.
pub const TOP_TOKENS: usize = 5;

/// A dictionary token and how much new coverage it led to.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct TokenUse {
    /// The token as a dictionary spells it between its quotes
    /// ([`crate::dictionary::escape`]).
    pub token: String,
    /// Corpus entries (inputs that found new coverage) whose creating
    /// mutation wrote the token.
    pub entries: u64,
}

/// The [`TOP_TOKENS`] tokens of `uses` with the most entries (most first,
/// ties in the order given), tokens that led to nothing left out.
pub fn top_tokens(mut uses: Vec<TokenUse>) -> Vec<TokenUse> {
    uses.retain(|u| u.entries > 0);
    uses.sort_by_key(|u| std::cmp::Reverse(u.entries));
    uses.truncate(TOP_TOKENS);
    uses
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

/// Parses a listing line; `None` for lines that are not listings.
pub fn parse_listing(line: &str) -> Option<Result<ListedProperty, String>> {
    let json = line.strip_prefix(LIST_PREFIX)?;
    Some(serde_json::from_str(json).map_err(|e| format!("{e} in {json:?}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn uses(counts: &[(&str, u64)]) -> Vec<TokenUse> {
        counts
            .iter()
            .map(|&(token, entries)| TokenUse {
                token: token.into(),
                entries,
            })
            .collect()
    }

    #[test]
    fn merged_progress_adds_executions_and_tokens_and_keeps_the_best_targets() {
        let best = |label: &str, value: f64, choice: u64| TargetBest {
            label: label.into(),
            value,
            choices: vec![choice],
            args: Vec::new(),
        };
        let before = Progress {
            execs: 10,
            edges: 7,
            corpus: 3,
            elapsed_ms: 5,
            tokens: uses(&[("a", 2), ("b", 1)]),
            targets: vec![best("depth", 3.0, 1), best("len", 9.0, 2)],
            ..Progress::default()
        };
        let later = Progress {
            execs: 4,
            edges: 5,
            corpus: 4,
            elapsed_ms: 9,
            imported: 2,
            tokens: uses(&[("b", 3), ("c", 1)]),
            targets: vec![
                best("len", 7.0, 3),
                best("depth", 5.0, 4),
                best("x", 1.0, 5),
            ],
            ..Progress::default()
        };
        let merged = before.merge(&later);
        assert_eq!(
            (merged.execs, merged.imported, merged.edges, merged.corpus),
            (14, 2, 7, 4)
        );
        assert_eq!(merged.elapsed_ms, 9, "the later worker's time");
        assert_eq!(merged.tokens, uses(&[("b", 4), ("a", 2), ("c", 1)]));
        assert_eq!(
            merged.targets,
            [
                best("depth", 5.0, 4),
                best("len", 9.0, 2),
                best("x", 1.0, 5)
            ]
        );
    }

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

    #[test]
    fn token_counts_are_optional_on_the_wire() {
        let old = r#"{"execs":5,"corpus":2,"edges":9,"elapsed_ms":10}"#;
        let progress: Progress = serde_json::from_str(old).unwrap();
        assert!(progress.tokens.is_empty());
        assert_eq!(serde_json::to_string(&progress).unwrap(), old);
        let with = Progress {
            tokens: vec![TokenUse {
                token: "GET ".into(),
                entries: 12,
            }],
            ..progress
        };
        let line = serde_json::to_string(&with).unwrap();
        assert!(
            line.ends_with(r#""tokens":[{"token":"GET ","entries":12}]}"#),
            "{line}"
        );
        assert_eq!(serde_json::from_str::<Progress>(&line).unwrap(), with);
    }

    #[test]
    fn target_values_are_optional_on_the_wire() {
        let old = r#"{"execs":5,"corpus":2,"edges":9,"elapsed_ms":10}"#;
        let progress: Progress = serde_json::from_str(old).unwrap();
        assert!(progress.targets.is_empty());
        let with = Progress {
            targets: vec![TargetBest {
                label: "depth".into(),
                value: 7.5,
                choices: vec![1, 2],
                args: vec![("tree".into(), "[[]]".into())],
            }],
            ..progress
        };
        let line = serde_json::to_string(&with).unwrap();
        assert!(
            line.ends_with(
                r#""targets":[{"label":"depth","value":7.5,"choices":[1,2],"args":[["tree","[[]]"]]}]}"#
            ),
            "{line}"
        );
        assert_eq!(serde_json::from_str::<Progress>(&line).unwrap(), with);
    }

    #[test]
    fn the_top_tokens_are_those_with_most_entries() {
        let all = uses(&[
            ("a", 1),
            ("b", 0),
            ("c", 7),
            ("d", 1),
            ("e", 3),
            ("f", 2),
            ("g", 1),
        ]);
        assert_eq!(
            top_tokens(all),
            uses(&[("c", 7), ("e", 3), ("f", 2), ("a", 1), ("d", 1)])
        );
    }
}
