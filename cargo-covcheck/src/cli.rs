//! The command line: cargo's conventions for choosing what to build, plus
//! the campaign's budgets.

use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, Parser, Subcommand, ValueEnum};

#[derive(Parser, Debug)]
#[command(bin_name = "cargo", styles = clap::builder::Styles::styled())]
pub enum Cargo {
    // The line is clap's `about` text: `#[covcheck]` is an attribute there,
    // not a link.
    #[allow(rustdoc::broken_intra_doc_links)]
    /// Coverage-guided campaigns for #[covcheck] properties.
    Covcheck(Covcheck),
}

const EXAMPLES: &str = "\
Examples:
  cargo covcheck                       run every property of the crate, 60 s each
  cargo covcheck parse                 only properties whose name contains `parse`
  cargo covcheck --time 5m -j 4        5 minutes per property, 4 at a time
  cargo covcheck parse_url -j 16       one property on 16 workers sharing one corpus
  cargo covcheck --listen 0.0.0.0:7070 --time 8h
                                       the hub of a campaign across machines; on the others:
  cargo covcheck --join hub.local:7070 --time 8h
  cargo covcheck --runs 100000 --seed 1
                                       a fixed budget of executions (deterministic, for CI)
  cargo covcheck list                  the properties and how many seeds each has
  cargo covcheck -p my-crate --features serde
  cargo covcheck minimize --save       keep the smallest seed suite that covers what
                                       the campaigns reached, as covering seeds
  cargo covcheck replay --junit out.xml
                                       replay every saved seed (the CI step), one
                                       test case each in a JUnit report

What happens:
  1. The crate's tests are rebuilt with SanitizerCoverage (on stable Rust) into
     target/covcheck/build (or COVCHECK_BUILD_DIR), leaving your normal build
     alone. The workspace and every crate it depends on are instrumented
     (narrow it with --instrument / --no-instrument); std, proc-macros and
     covcheck's runtime are not. The campaign engine (LibAFL) is a library of
     its own, built once per machine outside your dependency graph into
     ~/.cache/covcheck/engine (COVCHECK_ENGINE_DIR; beside the build with
     --target-dir or COVCHECK_BUILD_DIR), checked before each run and rebuilt
     if damaged, and loaded by the workers. Campaign state (the corpus cache)
     stays in target/covcheck.
  2. Each test binary lists its #[covcheck] properties.
  3. Each property gets a coverage-guided campaign in its own worker process
     (with -j beyond the number of properties, in several, which share their
     corpus through LibAFL's LLMP broker).
     A failure (panic, abort, stack overflow, segfault, timeout, out of
     memory) is shrunk, saved as a seed under covcheck-seeds/ next to your
     source, and reported with the `cargo test` command that reproduces it;
     plain `cargo test` then replays it forever.

Exit status:
  0    every property ran and nothing failed
  1    a property failed (its findings are reported and saved)
  2    usage or build error: a bad flag, a crate that does not build,
       a host other than Linux (campaigns run on Linux only)
  3    covcheck's own error: a worker that could not run or reported an
       error, a test binary covcheck cannot read (1 wins if a property
       failed too)
  4    no property matched: nothing was tested
  130  interrupted by Ctrl-C (SIGINT), 143 by SIGTERM (128 + the signal):
       the workers are stopped, the corpus cache is kept (the next run
       resumes from it) and the summary is printed";

#[derive(Args, Debug)]
#[command(version, about, after_help = EXAMPLES, args_conflicts_with_subcommands = true)]
pub struct Covcheck {
    #[command(subcommand)]
    pub command: Option<Command>,
    #[command(flatten)]
    pub run: RunArgs,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Run campaigns (the default).
    Run(RunArgs),
    /// List the properties of the selected packages and their seed counts.
    List(ListArgs),
    /// Select the smallest set of inputs that keeps every coverage feature
    /// of the campaigns' corpus and the saved seeds (greedy set cover), and
    /// with --save keep it as covering seeds.
    #[command(after_help = MINIMIZE_HELP)]
    Minimize(MinimizeArgs),
    /// Replay every saved seed on the normal (uninstrumented) test build, each
    /// as its own test case, with no random cases: the CI step.
    #[command(after_help = REPLAY_HELP)]
    Replay(ReplayArgs),
    /// Write a coverage report of what the campaigns reached: an HTML page
    /// per source file with every line marked reached or not, plots of each
    /// campaign over time, the findings, and lcov.info.
    #[command(after_help = REPORT_HELP)]
    Report(ReportArgs),
}

const MINIMIZE_HELP: &str = "\
How it works:
  Every input of the property's corpus cache (target/covcheck/corpus, filled by
  `cargo covcheck`) and every saved seed runs once on the instrumented build.
  Its features are the edges it reaches, each with the AFL bucket of its hit
  count. Greedy set cover then picks, again and again, the input that adds the
  most features not yet covered (ties: the smaller input). Covering seeds
  saved earlier are picked first and kept as they are, so a second run changes
  nothing; each new pick is shrunk while it keeps the features only it reaches. The report also shows what
  libFuzzer's `-merge=1` rule (smallest first, keep what adds a feature) would
  keep of the same inputs.

Seeds:
  --save writes the picks as covering seeds next to your source
  (covcheck-seeds/...), which `cargo test` replays. Covering seeds that are no
  longer needed are listed, and deleted only with --prune; covering seeds
  that now fail are kept, since each shows a bug. Failure seeds are never
  deleted, and always kept in the suite. An input that crashes or hangs the
  property ends the worker; a new one skips it, and minimize names it.

Examples:
  cargo covcheck --time 2m && cargo covcheck minimize --save
  cargo covcheck minimize parse --save --prune

Exit status: 0 done, 1 an input kept crashing or hanging the property,
2 usage or build error, 3 covcheck's own error (a worker that could not run,
a seed that could not be written), 4 no property matched.";

const REPLAY_HELP: &str = "\
Each seed of each property runs once, on the same build `cargo test` uses; a
seed that fails (a regression, or a bug not fixed yet) fails the run. A seed
that kills the test binary is reported as failed and the other seeds still run.
The seed suite's coverage is printed when `cargo covcheck minimize` has
measured it.

Example GitHub Actions step:
  - run: cargo install --locked --git https://github.com/covcheck/covcheck cargo-covcheck
  - run: cargo covcheck replay --junit covcheck.xml

Exit status: 0 every seed passed, 1 a seed failed, 2 usage or build error,
3 covcheck's own error (a property whose seeds could not be replayed; 1 wins
if a seed failed too), 4 no property matched.";

const REPORT_HELP: &str = "\
How it works:
  Every input of each property's corpus cache (target/covcheck/corpus) and
  every saved seed but crash seeds runs once on the instrumented build; the
  coverage counters they reach are looked up in the test binary's line tables
  (the instrumented build keeps them). A line of the packages under test is
  reached when one of its counters is, partly reached when only some are; the
  first property to reach it is the one whose input was saved earliest. The
  plots come from the progress every campaign records in target/covcheck/series
  (resumed campaigns continue one series).

Output (in <target-dir>/covcheck/report/, path printed at the end):
  index.html       properties, files, plots and findings; no JavaScript, no
                   network: opens from a CI artifact
  files/*.html     each source file, line by line
  lcov.info        for Codecov, Coveralls and editors' coverage gutters

Examples:
  cargo covcheck --time 5m && cargo covcheck report
  cargo covcheck --time 1m --report

Exit status: 0 written, 2 usage or build error, 3 covcheck's own error (a
property whose inputs could not be run: the report leaves it out and says so),
4 no property matched.";

#[derive(Args, Debug, Clone, Default)]
pub struct ReportArgs {
    /// Only properties whose path contains this text.
    pub filter: Option<String>,
    /// Match the filter against the whole property path or test name.
    #[arg(long)]
    pub exact: bool,
    #[command(flatten)]
    pub build: BuildArgs,
    /// Properties to measure at once (default: the number of cores).
    #[arg(short, long, value_name = "N", value_parser = parse_jobs)]
    pub jobs: Option<usize>,
    #[command(flatten)]
    pub limits: ExecutionLimits,
    /// Count the code that only leads to a panic (bounds checks, `unwrap`
    /// on `None`, failed asserts) like any other: a line whose panic path
    /// no input took shows partly reached. By default it is shown apart,
    /// and such a line is reached, "only a panic path unreached".
    #[arg(long)]
    pub count_panic_paths: bool,
    /// An earlier report to compare with: its directory (copy
    /// target/covcheck/report away before the campaigns) or its lcov.info.
    /// The report then marks the lines reached since, and counts them.
    #[arg(long, value_name = "DIR")]
    pub baseline: Option<PathBuf>,
    /// How to print the result (json: a `coverage` message per property,
    /// then a `report` message).
    #[arg(long, value_enum, default_value_t = MessageFormat::Human)]
    pub message_format: MessageFormat,
}

#[derive(Args, Debug, Clone, Default)]
pub struct MinimizeArgs {
    /// Only properties whose path contains this text.
    pub filter: Option<String>,
    /// Match the filter against the whole property path or test name.
    #[arg(long)]
    pub exact: bool,
    #[command(flatten)]
    pub build: BuildArgs,
    /// Write the minimized suite as covering seeds next to the source.
    #[arg(long)]
    pub save: bool,
    /// With --save: delete the property's covering seeds that the new suite
    /// does not need (failure seeds are never deleted).
    #[arg(long, requires = "save")]
    pub prune: bool,
    /// Properties to minimize at once (default: the number of cores).
    #[arg(short, long, value_name = "N", value_parser = parse_jobs)]
    pub jobs: Option<usize>,
    #[command(flatten)]
    pub limits: ExecutionLimits,
    /// How to print each property's suite (json: a `minimized` message each).
    #[arg(long, value_enum, default_value_t = MessageFormat::Human)]
    pub message_format: MessageFormat,
}

/// What an execution may take before it counts as a failure (a hang or an
/// out-of-memory); the same for campaigns and `minimize`, which runs the
/// corpus a campaign kept.
#[derive(Args, Debug, Clone, Default)]
pub struct ExecutionLimits {
    /// Per-execution timeout; an input running longer is a finding.
    #[arg(long, value_parser = parse_duration, default_value = "1s", value_name = "DURATION", allow_hyphen_values = true)]
    pub timeout: Duration,
    /// Memory limit (resident set) of a worker in MiB; exceeding it is a
    /// finding. Also limits what one execution may allocate, so that running
    /// out of memory is named so however busy the machine is. At least 64.
    #[arg(long, default_value_t = 2048, value_name = "MB", value_parser = parse_rss_limit)]
    pub rss_limit_mb: u64,
}

#[derive(Args, Debug, Clone, Default)]
pub struct ReplayArgs {
    /// Only properties whose path contains this text.
    pub filter: Option<String>,
    /// Match the filter against the whole property path or test name.
    #[arg(long)]
    pub exact: bool,
    #[command(flatten)]
    pub build: BuildArgs,
    /// Also write the results as JUnit XML: a test suite per property, a
    /// test case per seed that passes and one per distinct bug (the
    /// failing seeds of one bug share a test case).
    #[arg(long, value_name = "FILE")]
    pub junit: Option<PathBuf>,
    /// Replay on performance mode's build, which counts the edges each
    /// execution runs, so that the properties' `max_cost` bounds are
    /// checked (the normal build cannot measure them).
    #[arg(long)]
    pub perf: bool,
    /// How to print the seeds' results (json: a `seed-replayed` message
    /// each, then a `replayed` summary).
    #[arg(long, value_enum, default_value_t = MessageFormat::Human)]
    pub message_format: MessageFormat,
}

/// Which packages, features and profile to build: cargo's own flags.
#[derive(Args, Debug, Clone, Default)]
pub struct BuildArgs {
    /// Path to Cargo.toml.
    #[arg(long, value_name = "PATH")]
    pub manifest_path: Option<PathBuf>,
    /// Package(s) to test (default: the current package, or the workspace's default members).
    #[arg(short, long, value_name = "SPEC")]
    pub package: Vec<String>,
    /// Test all packages of the workspace.
    #[arg(long)]
    pub workspace: bool,
    /// Leave this package out (repeatable), e.g. of --workspace: one whose
    /// instrumented build fails.
    #[arg(long, value_name = "SPEC")]
    pub exclude: Vec<String>,
    /// Features to activate (space or comma separated).
    #[arg(short = 'F', long, value_name = "FEATURES")]
    pub features: Vec<String>,
    /// Activate all features of the selected packages.
    #[arg(long)]
    pub all_features: bool,
    /// Do not activate the `default` feature.
    #[arg(long)]
    pub no_default_features: bool,
    /// Directory for all generated artifacts (the instrumented build goes to `<dir>/covcheck`).
    #[arg(long, value_name = "DIR")]
    pub target_dir: Option<PathBuf>,
    /// Instrument only these crates (repeatable), besides the selected
    /// packages. By default a campaign instruments the workspace and every
    /// crate it depends on, less covcheck's runtime.
    #[arg(long, value_name = "CRATE")]
    pub instrument: Vec<String>,
    /// Do not instrument this crate (repeatable): its code is then invisible
    /// to the campaign's coverage and comparison tracing.
    #[arg(long, value_name = "CRATE")]
    pub no_instrument: Vec<String>,
    /// Use the release profile as is. The default profile of campaigns is
    /// release with debug assertions and overflow checks on, so that they can
    /// fail; `replay` builds what `cargo test` builds (or `--release`).
    #[arg(long)]
    pub release: bool,
}

#[derive(Args, Debug, Clone, Default)]
pub struct ListArgs {
    /// Only properties whose path contains this text.
    pub filter: Option<String>,
    #[command(flatten)]
    pub build: BuildArgs,
    /// How to print the properties (json: a `listed` message each).
    #[arg(long, value_enum, default_value_t = MessageFormat::Human)]
    pub message_format: MessageFormat,
}

#[derive(Args, Debug, Clone, Default)]
pub struct RunArgs {
    /// Only properties whose path contains this text.
    pub filter: Option<String>,
    /// Match the filter against the whole property path or test name (like `cargo test -- --exact`).
    #[arg(long)]
    pub exact: bool,
    #[command(flatten)]
    pub build: BuildArgs,
    /// Time budget per property, e.g. `30s`, `5m`, `1h` (default 60s unless
    /// --runs or a total budget is given).
    #[arg(long, value_parser = parse_duration, value_name = "DURATION", allow_hyphen_values = true)]
    pub time: Option<Duration>,
    /// Execution budget per property (deterministic with --seed).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub runs: Option<u64>,
    /// One time budget for the whole run, e.g. `10m`: the workers go, a
    /// slice at a time, to the properties still finding new coverage, each
    /// property getting at least a share (none starves), and a property
    /// that found its bug or stopped finding anything gives its time away.
    /// The summary says where the time went. With at least as many workers
    /// as properties, every property runs for the whole budget instead.
    #[arg(
        long,
        value_parser = parse_duration,
        value_name = "DURATION",
        allow_hyphen_values = true,
        conflicts_with_all = ["time", "runs", "runs_total", "listen", "join"]
    )]
    pub time_total: Option<Duration>,
    /// One execution budget for the whole run, shared as --time-total
    /// shares time, by new coverage per execution (repeatable with --seed
    /// and -j 1).
    #[arg(
        long,
        value_name = "N",
        value_parser = clap::value_parser!(u64).range(1..),
        conflicts_with_all = ["time", "runs", "listen", "join"]
    )]
    pub runs_total: Option<u64>,
    /// Aim the run at what changed since git revision REV (a branch, tag or
    /// commit): the working tree against where it left REV (`git diff
    /// $(git merge-base REV HEAD)`), so that `--since origin/main` on a
    /// branch is the branch's own change. The properties whose
    /// corpus reaches changed lines get the time first (with a total
    /// budget), their inputs that run changed code are mutated first, and
    /// the summary lists the changed lines no property reached. Needs a
    /// git checkout in which REV exists (in CI, fetch it: a shallow clone
    /// lacks it).
    #[arg(long, value_name = "REV")]
    pub since: Option<String>,
    /// Also write the results as JUnit XML: a test suite per property, a
    /// test case per distinct failure found or known (with how often it was
    /// hit), one passing test case for a property without any.
    #[arg(long, value_name = "FILE")]
    pub junit: Option<PathBuf>,
    /// Worker processes in all (default: the number of cores). With fewer
    /// properties than workers, the rest go to the properties: each then runs
    /// on several workers that share their corpus (`-j 16` on one property
    /// puts 16 workers on it). One worker per property makes a campaign with
    /// --runs and --seed repeatable.
    #[arg(
        short,
        long,
        value_name = "N",
        value_parser = parse_jobs,
        env = "COVCHECK_JOBS",
        hide_env_values = true
    )]
    pub jobs: Option<usize>,
    /// Be the hub of a campaign across machines: listen on ADDR (e.g.
    /// `0.0.0.0:7070`) for `--join`, and share every property's corpus with
    /// the machines that join. Property n's broker takes port ADDR+1+n:
    /// open the port and the ones after it in the firewall.
    #[arg(long, value_name = "ADDR", conflicts_with = "join")]
    pub listen: Option<String>,
    /// Join the hub at ADDR (`host:port`, its --listen address): this
    /// machine's workers share the corpus of every property with the hub's
    /// and the other joiners'. Both must run the same covcheck on the same
    /// properties (build the same commit); a failure is saved where it is
    /// found, and stops the property everywhere.
    #[arg(long, value_name = "ADDR")]
    pub join: Option<String>,
    /// RNG seed of the campaigns (default: from the clock). Each property derives its own.
    #[arg(long, value_name = "N")]
    pub seed: Option<u64>,
    #[command(flatten)]
    pub limits: ExecutionLimits,
    /// Keep fuzzing a property after its first failure (restarting the worker
    /// after a crash) until the budget is spent.
    #[arg(long)]
    pub keep_going: bool,
    /// Ignore and do not update the corpus cache (start from scratch).
    #[arg(long)]
    pub no_resume: bool,
    /// Report findings without saving them as seeds.
    #[arg(long)]
    pub no_save: bool,
    /// Disable comparison-driven mutations (input-to-state, tokens), to measure what they bring.
    #[arg(long)]
    pub no_cmp: bool,
    /// Disable every dictionary (the crates' literals and the properties' own
    /// `dict` and `dict_file` tokens), to measure what they bring.
    #[arg(long)]
    pub no_dict: bool,
    /// Draw fresh inputs at the full size bound from the start, instead of
    /// growing the bound in steps, to measure what the steps bring.
    #[arg(long)]
    pub fixed_size: bool,
    /// Record the properties' `target()` values without letting them steer
    /// the campaign (an input that raises one no longer enters the corpus
    /// for it), to measure what the steering brings. The best values are
    /// still reported.
    #[arg(long)]
    pub no_target: bool,
    /// Keep inputs that bring a comparison with a wide constant (16 bits or
    /// more, at least 256) closer to equality, bit by bit, as inputs with
    /// new coverage are kept: libFuzzer's value profile. Reaches gates such
    /// as `hash(x) == 0x5eedf00d` that neither coverage nor copying the
    /// compared constant into the input opens, at a cost in executions per
    /// second and corpus size (at most 1,024 inputs are kept for it).
    #[arg(long)]
    pub value_profile: bool,
    /// Performance mode: look for the inputs that make each property
    /// costly. The cost of an execution is the number of edges of
    /// instrumented code it runs (deterministic, unlike time), counted by a
    /// build of its own; the campaign keeps the costliest input of each
    /// input size, grows inputs with copies of their own parts, fits how
    /// the cost grows with the size (linear, n log n, quadratic, cubic,
    /// exponential), plots it under `<target>/covcheck/perf/`, and saves the
    /// costliest input as a `kind = "performance"` seed. A property with
    /// `#[covcheck(max_cost = N)]` fails on an input that costs more.
    /// `#[covcheck(perf)]` makes a property run this way without --perf.
    #[arg(long)]
    pub perf: bool,
    /// After the campaigns, write the coverage report (`cargo covcheck
    /// report`) of the properties that ran.
    #[arg(long)]
    pub report: bool,
    /// How to print progress and results.
    #[arg(long, value_enum, default_value_t = MessageFormat::Human)]
    pub message_format: MessageFormat,
}

#[derive(ValueEnum, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum MessageFormat {
    /// Text for people: status lines, reports and tables.
    #[default]
    Human,
    /// One JSON object per line on stdout, for tools (the messages of the
    /// covcheck-protocol crate); notes for people go to stderr.
    Json,
}

/// The smallest `--rss-limit-mb`: a campaign worker holds some tens of MiB
/// (the engine's maps, the test binary) before it runs any input, and a
/// limit below that would call every worker out of memory.
pub const MIN_RSS_LIMIT_MB: u64 = 64;

/// `--rss-limit-mb MB`: at least [`MIN_RSS_LIMIT_MB`].
fn parse_rss_limit(text: &str) -> Result<u64, ArgError> {
    match text.parse::<u64>() {
        Ok(mb) if mb < MIN_RSS_LIMIT_MB => Err(ArgError::MemoryTooSmall(mb)),
        Ok(mb) => Ok(mb),
        Err(_) => Err(ArgError::NotMemory(text.to_string())),
    }
}

/// `-j N`: at least one.
fn parse_jobs(text: &str) -> Result<usize, ArgError> {
    match text.parse::<usize>() {
        Ok(0) => Err(ArgError::NoJobs),
        Ok(n) => Ok(n),
        Err(_) => Err(ArgError::NotJobs(text.to_string())),
    }
}

/// Parses `500ms`, `30s`, `5m`, `2h` or a bare number of seconds; a budget
/// or a timeout of zero would run nothing, so it is refused.
pub fn parse_duration(text: &str) -> Result<Duration, ArgError> {
    let text = text.trim();
    if text.starts_with('-') {
        return Err(ArgError::Negative(text.to_string()));
    }
    let split = text
        .find(|c: char| !c.is_ascii_digit() && c != '.')
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let value: f64 = number
        .parse()
        .map_err(|_| ArgError::NotDuration(text.to_string()))?;
    let seconds = match unit {
        "" | "s" => value,
        "ms" => value / 1000.0,
        "m" | "min" => value * 60.0,
        "h" => value * 3600.0,
        _ => {
            return Err(ArgError::UnknownUnit {
                unit: unit.to_string(),
                text: text.to_string(),
            });
        }
    };
    let duration = Duration::from_secs_f64(seconds);
    if duration.is_zero() {
        return Err(ArgError::Zero(text.to_string()));
    }
    Ok(duration)
}

/// A command-line value clap refuses, with what to write instead.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ArgError {
    #[error("0 jobs would run nothing; give 1 or more")]
    NoJobs,
    #[error("`{0}` is not a number of jobs")]
    NotJobs(String),
    #[error("`{0}` is negative; write e.g. 30s, 5m, 1h or 500ms")]
    Negative(String),
    #[error("`{0}` is not a duration; write e.g. 30s, 5m, 1h or 500ms")]
    NotDuration(String),
    #[error("unknown unit `{unit}` in `{text}`; use ms, s, m or h")]
    UnknownUnit { unit: String, text: String },
    #[error("`{0}` is zero, which would run nothing; give a longer time")]
    Zero(String),
    #[error(
        "a memory limit of {0} MiB is below what a worker needs before it runs any input; \
         give at least {min} MiB",
        min = MIN_RSS_LIMIT_MB
    )]
    MemoryTooSmall(u64),
    #[error("`{0}` is not a number of MiB")]
    NotMemory(String),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_parse_with_units() {
        assert_eq!(parse_duration("30s"), Ok(Duration::from_secs(30)));
        assert_eq!(parse_duration("5m"), Ok(Duration::from_secs(300)));
        assert_eq!(parse_duration("250ms"), Ok(Duration::from_millis(250)));
        assert_eq!(parse_duration("2"), Ok(Duration::from_secs(2)));
        assert!(parse_duration("5 parsecs").is_err());
    }

    #[test]
    fn budgets_that_run_nothing_are_refused() {
        for args in [
            &["cargo", "covcheck", "--time", "0"][..],
            &["cargo", "covcheck", "--time", "0s"],
            &["cargo", "covcheck", "--time", "-5s"],
            &["cargo", "covcheck", "--runs", "0"],
            &["cargo", "covcheck", "-j", "0"],
            &["cargo", "covcheck", "--timeout", "0ms"],
        ] {
            let error = Cargo::try_parse_from(args).expect_err("refused");
            assert_eq!(
                error.kind(),
                clap::error::ErrorKind::ValueValidation,
                "{args:?}"
            );
        }
        let error = Cargo::try_parse_from(["cargo", "covcheck", "--time", "-5s"]).unwrap_err();
        assert!(error.to_string().contains("negative"), "{error}");
    }

    #[test]
    fn cli_is_well_formed() {
        use clap::CommandFactory;
        Cargo::command().debug_assert();
    }

    #[test]
    fn run_is_the_default_and_takes_cargo_flags() {
        let Cargo::Covcheck(args) = Cargo::parse_from([
            "cargo",
            "covcheck",
            "dut",
            "--runs",
            "10",
            "-p",
            "x",
            "--release",
        ]);
        assert!(args.command.is_none());
        assert_eq!(args.run.filter.as_deref(), Some("dut"));
        assert_eq!(args.run.runs, Some(10));
        assert_eq!(args.run.build.package, ["x"]);
        assert!(args.run.build.release);
    }
}

#[cfg(test)]
mod subcommand_tests {
    use super::*;

    #[test]
    fn minimize_and_replay_take_their_flags() {
        let Cargo::Covcheck(args) =
            Cargo::parse_from(["cargo", "covcheck", "minimize", "p", "--save", "--prune"]);
        let Some(Command::Minimize(m)) = args.command else {
            panic!("minimize")
        };
        assert!(m.save && m.prune);
        assert_eq!(m.filter.as_deref(), Some("p"));
        assert!(
            Cargo::try_parse_from(["cargo", "covcheck", "minimize", "--prune"]).is_err(),
            "--prune deletes seeds: only together with --save"
        );
        let Cargo::Covcheck(args) =
            Cargo::parse_from(["cargo", "covcheck", "replay", "--junit", "out.xml"]);
        let Some(Command::Replay(r)) = args.command else {
            panic!("replay")
        };
        assert_eq!(r.junit, Some(PathBuf::from("out.xml")));
    }
}
