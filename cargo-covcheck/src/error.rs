//! What can go wrong, as types. Each message says what happened and where,
//! and where it can, what to do next; it is written once, in its
//! `#[error]`. Each error knows its exit status ([`crate::exit`]): what the
//! user fixes (a flag, the build) is a usage error, what went wrong inside
//! covcheck (a worker, the protocol) is an internal one.

use std::io;
use std::path::PathBuf;
use std::process::{ExitStatus, Output};

use cargo_util::{ProcessBuilder, ProcessError};
use covcheck_protocol::seeds::{SeedError, SeedFile};
use covcheck_protocol::worker::FailureKind;

use crate::exit::{self, Outcome};
use crate::supervise::Death;

/// Why a command stopped before it was done.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error(transparent)]
    Build(#[from] BuildError),
    #[error(transparent)]
    Discover(#[from] DiscoverError),
    /// The file `--junit` names cannot be written.
    #[error(transparent)]
    Junit(WriteError),
    #[error("cannot write the JUnit report: {0}")]
    JunitXml(#[from] quick_junit::SerializeError),
    /// The coverage report could not be collected (a test binary's debug
    /// information could not be read).
    #[error("cannot make the coverage report: {0}")]
    Report(String),
    /// `report --baseline` names no earlier report.
    #[error("{0}")]
    Baseline(String),
    /// A file of the coverage report could not be written.
    #[error(transparent)]
    ReportFile(#[from] WriteError),
    /// `--listen` or `--join` could not set the campaign across machines up.
    #[error(transparent)]
    Network(#[from] NetworkError),
    /// `--since` could not tell which lines the change touched.
    #[error(transparent)]
    Since(#[from] SinceError),
}

/// Why a campaign across machines (`--listen`, `--join`) could not start.
#[derive(Debug, thiserror::Error)]
pub enum NetworkError {
    #[error(
        "cannot listen on {address} for joining machines: {source} (choose another address or \
         port with --listen; the properties' brokers take the ports after it)"
    )]
    Listen { address: String, source: io::Error },
    #[error(
        "cannot use the ports after {port} for the properties' brokers: choose a lower port \
         with --listen"
    )]
    NoPorts { port: u16 },
    #[error(
        "cannot reach the hub at {address}: {source} (is `cargo covcheck --listen` running \
         there, and its port and the ones after it open?)"
    )]
    Unreachable { address: String, source: io::Error },
    #[error("the hub at {address} refused this machine: {reason}")]
    Refused { address: String, reason: String },
    #[error("{address} did not answer as a covcheck hub (`cargo covcheck --listen`)")]
    NotAHub { address: String },
    #[error("{problem}")]
    Broker { problem: String },
}

impl Error {
    pub fn exit_code(&self) -> i32 {
        match self {
            Error::Build(_)
            | Error::Junit(_)
            | Error::ReportFile(_)
            | Error::Baseline(_)
            | Error::Since(_) => exit::USAGE,
            Error::Discover(DiscoverError::OtherCheckout { .. }) => exit::USAGE,
            Error::Network(NetworkError::Broker { .. }) => exit::INTERNAL,
            Error::Network(_) => exit::USAGE,
            Error::Discover(_) | Error::JunitXml(_) | Error::Report(_) => exit::INTERNAL,
        }
    }
}

/// Why `--since` could not tell which lines a change touched
/// ([`crate::changed`]): the user's to fix (exit status 2), as git is
/// the user's own.
#[derive(Debug, thiserror::Error)]
pub enum SinceError {
    /// `git rev-parse --show-toplevel` failed: `git` says why (no
    /// repository, or one git refuses to read as the user's).
    #[error(
        "--since compares the work tree with a git revision, so it needs a git checkout, \
         but {} is not in one ({git})",
        dir.display()
    )]
    NotACheckout { dir: PathBuf, git: String },
    /// The revision names no commit here; in a shallow clone, most likely
    /// one that was not fetched.
    #[error(
        "--since {rev}: `{rev}` names no commit of the git repository at {}{}",
        top.display(),
        if *shallow {
            ", a shallow clone that holds only the latest commits: fetch the history first \
             (`git fetch --unshallow origin`; GitHub's actions/checkout fetches one commit \
             unless given `fetch-depth: 0`)"
        } else {
            "; if it is a remote's branch, fetch it first (`git fetch origin`)"
        }
    )]
    UnknownRevision {
        rev: String,
        top: PathBuf,
        shallow: bool,
    },
    /// `rev` and the checked-out commit have no common ancestor in a
    /// shallow clone: the history between them was not fetched.
    #[error(
        "--since {rev}: this shallow clone of {} does not hold the commit where HEAD \
         branched off `{rev}`: fetch the history first (`git fetch --unshallow origin`; \
         GitHub's actions/checkout fetches one commit unless given `fetch-depth: 0`)",
        top.display()
    )]
    NoMergeBase { rev: String, top: PathBuf },
    /// Git did not start: the command line and why.
    #[error("--since needs git, which did not start: {0}")]
    GitNotStarted(ProcessFailure),
    /// Git failed: the command line, its exit status and its stderr.
    #[error("--since: {0}")]
    Git(ProcessFailure),
    /// `git diff` printed what covcheck cannot read (a line of it).
    #[error("--since: cannot read this line of `git diff`: {0}")]
    UnreadableDiff(String),
}

/// A file that could not be written.
#[derive(Debug, thiserror::Error)]
#[error("cannot write {}: {source}", path.display())]
pub struct WriteError {
    pub path: PathBuf,
    pub source: io::Error,
}

/// A process covcheck ran (cargo, rustc, a test binary) that could not
/// start or did not succeed, in cargo's words: cargo-util's
/// [`ProcessError`] names the command line and the exit status, and what
/// the process printed where it was captured; the cause (the `io::Error`
/// of a failed start) follows it.
#[derive(Debug, thiserror::Error)]
#[error("{0:#}")]
pub struct ProcessFailure(pub anyhow::Error);

impl ProcessFailure {
    /// `process` could not be started, as [`ProcessBuilder::output`] says
    /// it, for a process started as a [`std::process::Command`].
    pub fn not_started(process: &ProcessBuilder, source: io::Error) -> ProcessFailure {
        let error = anyhow::Error::new(source).context(ProcessError::could_not_execute(process));
        ProcessFailure(error)
    }

    /// `process` ended with `status`, which is not success.
    pub fn exited(process: &ProcessBuilder, status: ExitStatus) -> ProcessFailure {
        ProcessFailure::ended(process, status, None)
    }

    /// `process` ended with `output.status`, which is not success, having
    /// printed `output.stderr` (its stdout, data for covcheck, is left out).
    pub fn failed(process: &ProcessBuilder, output: &Output) -> ProcessFailure {
        let stderr = Output {
            status: output.status,
            stdout: Vec::new(),
            stderr: output.stderr.clone(),
        };
        ProcessFailure::ended(process, output.status, Some(&stderr))
    }

    fn ended(
        process: &ProcessBuilder,
        status: ExitStatus,
        output: Option<&Output>,
    ) -> ProcessFailure {
        let message = format!("process didn't exit successfully: {process}");
        ProcessFailure(ProcessError::new(&message, Some(status), output).into())
    }
}

/// Why the tests could not be built: the user's to fix (exit status 2).
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    #[error("cannot read the cargo metadata: {0}")]
    Metadata(#[from] cargo_metadata::Error),
    #[error("package `{spec}` is not in the workspace (its packages: {})", members.join(", "))]
    UnknownPackage { spec: String, members: Vec<String> },
    #[error(
        "no selected package depends on covcheck-rt ({}), so there are no properties to run.\n  \
         Add it to the package under test:  {}",
        packages.join(", "),
        add_runtime_command(packages)
    )]
    NoRuntime { packages: Vec<String> },
    #[error("bad --target-dir {}: {source}", dir.display())]
    TargetDir { dir: PathBuf, source: io::Error },
    /// `--instrument` or `--no-instrument` names a crate the build has not.
    #[error(
        "`{0}` is not a crate the properties can reach (the workspace and its \
         dependencies, less covcheck's runtime); check its name in `cargo tree`"
    )]
    UnknownCrate(String),
    #[error(
        "cargo covcheck needs Rust {} or newer (the campaign engine, LibAFL 0.16, needs it), \
         but this is {found}; run `rustup update stable` (plain `cargo test` of your \
         properties still works on this one)",
        version(needs)
    )]
    OldRust {
        needs: (u32, u32, u32),
        found: String,
    },
    /// Cargo or rustc did not start (`rustc --version`, the test build).
    #[error(transparent)]
    NotStarted(ProcessFailure),
    #[error("cannot create {}: {source}", path.display())]
    Create { path: PathBuf, source: io::Error },
    #[error(transparent)]
    Write(#[from] WriteError),
    #[error("cannot find this executable: {0}")]
    CurrentExe(io::Error),
    /// Cargo failed: where and why, and the way out.
    #[error("{0}")]
    Failed(crate::compile::BuildFailure),
    /// The campaign engine library did not build ([`crate::engine`]):
    /// `cargo` says how cargo ended.
    #[error(
        "covcheck's campaign engine did not build in {} (cargo's messages are above): \
         {cargo}; it needs network access to crates.io the first time, or its crates in \
         cargo's cache",
        dir.display()
    )]
    Engine { dir: PathBuf, cargo: ProcessFailure },
}

fn version(&(major, minor, patch): &(u32, u32, u32)) -> String {
    format!("{major}.{minor}.{patch}")
}

/// Why the properties of a built test binary could not be listed: the
/// binary does not run, or speaks a protocol this cargo-covcheck does not.
#[derive(Debug, thiserror::Error)]
pub enum DiscoverError {
    /// The binary did not start, or `--list` failed: the command line,
    /// its exit status and what it printed.
    #[error("cannot list the properties of a test binary: {0}")]
    List(ProcessFailure),
    #[error(
        "{} printed a property this cargo-covcheck cannot read ({problem}); \
         are cargo-covcheck and covcheck-rt the same version?",
        binary.display()
    )]
    Unreadable { binary: PathBuf, problem: String },
    /// The binary cargo reported was compiled from another checkout of the
    /// package: the two share a build directory (the user's to fix).
    #[error(
        "{} was built from {}, not from {}: cargo took another checkout's build of package \
         `{package}` for this one's (it tells path packages of one name and version apart only \
         by their path inside their workspace), so its results would not be this checkout's. \
         Give each checkout a build directory of its own: unset COVCHECK_BUILD_DIR, and \
         CARGO_TARGET_DIR if it is shared between them",
        binary.display(),
        built_from.display(),
        package_root.display()
    )]
    OtherCheckout {
        binary: PathBuf,
        built_from: PathBuf,
        package_root: PathBuf,
        package: String,
    },
}

/// Why a worker could not do its work: covcheck's own trouble, not a
/// finding (exit status 3).
#[derive(Debug, thiserror::Error)]
pub enum WorkerError {
    #[error("cannot create {}: {source}", path.display())]
    Create { path: PathBuf, source: io::Error },
    #[error(transparent)]
    Write(#[from] WriteError),
    #[error("cannot start the worker: {0}")]
    Start(ProcessFailure),
    #[error("cannot read {}: {source}", path.display())]
    ReadInflight { path: PathBuf, source: io::Error },
    /// The worker said why it cannot run (its error event).
    #[error("{0}")]
    Refused(String),
    #[error("unreadable worker event: {0}")]
    UnreadableEvent(String),
    /// A panic outside the property's own code.
    #[error(
        "the worker failed; this is a bug in covcheck, please report it with this output:\n{log_tail}"
    )]
    Bug { log_tail: String },
    #[error("the worker ended without a report")]
    NoReport,
    #[error(
        "the test binary ended before replaying every seed; its output is in {}",
        log.display()
    )]
    EndedEarly { log: PathBuf },
    /// The broker through which a property's workers share their corpus
    /// ended before its campaign: its workers were stopped.
    #[error("{0}")]
    Broker(String),
    /// A worker died before it ran any input: no input is to blame, so it
    /// is no finding.
    #[error("the worker died before it ran any input ({detail}); its output:\n{log_tail}")]
    DiedBeforeRunning { detail: String, log_tail: String },
    /// Worker after worker of one lane ended before its campaign started.
    #[error(
        "{workers} workers in a row ended before their campaign started (the property \
         crashes on most inputs, which the findings above show, or the worker cannot \
         start), so the campaign stops instead of restarting them for the rest of its \
         budget; the last one's output:\n{log_tail}"
    )]
    Fruitless { workers: u32, log_tail: String },
    /// A seed file of the property cannot be read: `cargo test` fails on
    /// it, so the campaign does too.
    #[error("{0}")]
    Seed(#[from] covcheck_protocol::seeds::SeedError),
    /// All that one worker reported, a line each.
    #[error("{}", lines(.0))]
    Several(Vec<WorkerError>),
}

fn lines(errors: &[WorkerError]) -> String {
    let lines: Vec<String> = errors.iter().map(ToString::to_string).collect();
    lines.join("\n")
}

/// Why a worker's death could not be reproduced and shrunk; the finding is
/// then reported with its input as it was.
#[derive(Debug, thiserror::Error)]
pub enum ShrinkError {
    #[error(transparent)]
    Worker(#[from] WorkerError),
    #[error(
        "the shrinking worker died too ({}: {detail}); its output:\n{log_tail}",
        kind.describe()
    )]
    DiedToo {
        kind: FailureKind,
        detail: String,
        log_tail: String,
    },
    #[error("the shrinking worker reported nothing")]
    NothingReported,
}

/// Why a finding has no seed file.
#[derive(Debug, thiserror::Error)]
pub enum SeedNotSaved {
    #[error("not saved (--no-save)")]
    NoSave,
    #[error("could not save the seed in {}: {source}", dir.display())]
    Io { dir: PathBuf, source: io::Error },
}

/// Why `cargo covcheck minimize` could not minimize a property's suite, or
/// keep it.
#[derive(Debug, thiserror::Error)]
pub enum MinimizeError {
    #[error(transparent)]
    Worker(#[from] WorkerError),
    /// An input ends every worker that runs it: a bug the suite cannot hold
    /// as a covering seed, which a campaign shrinks and saves.
    #[error(
        "the worker died ({}: {}) while running the input `{}`{}; run `cargo covcheck` \
         on this property to find the failure and save it as a seed",
        death.kind.describe(),
        death.detail,
        SeedFile::format_indices(&death.choices),
        if *again {
            ", which it had been told to skip"
        } else {
            ", after as many restarts as minimize allows"
        }
    )]
    KeepsDying { death: Death, again: bool },
    #[error(transparent)]
    Seeds(#[from] SeedError),
    #[error("could not save a seed in {}: {source}", dir.display())]
    SaveSeed { dir: PathBuf, source: io::Error },
    #[error("could not delete {}: {source}", path.display())]
    Delete { path: PathBuf, source: io::Error },
}

impl MinimizeError {
    /// An input that crashes the property is a failure of the property;
    /// the rest is covcheck's own trouble.
    pub fn outcome(&self) -> Outcome {
        match self {
            MinimizeError::KeepsDying { .. } => Outcome::Failed,
            _ => Outcome::InternalError,
        }
    }
}

/// Kept in [`crate::cli`], which builds on every platform (see
/// [`crate::platform`]); named here too, with the other errors.
pub use crate::cli::ArgError;

/// The `cargo add` line that gives one of `packages` the runtime (with
/// `-p <package>` to fill in when there are several): from the sources
/// this `cargo-covcheck` was built from while they are still there
/// (`cargo install --path`), as covcheck-rt is not on crates.io yet; from
/// the registry, at this version, otherwise.
fn add_runtime_command(packages: &[String]) -> String {
    let package = match packages {
        [] | [_] => String::new(),
        [_, ..] => " -p <package>".to_string(),
    };
    let sources = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../covcheck-rt");
    match std::fs::canonicalize(&sources) {
        Ok(path) if path.join("Cargo.toml").is_file() => {
            format!("cargo add --dev{package} --path {}", path.display())
        }
        _ => format!(
            "cargo add --dev{package} covcheck-rt@{}",
            env!("CARGO_PKG_VERSION")
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_that_take_values_read_whole() {
        let old = BuildError::OldRust {
            needs: (1, 93, 1),
            found: "rustc 1.92.0 (x)".to_string(),
        };
        assert_eq!(
            old.to_string(),
            "cargo covcheck needs Rust 1.93.1 or newer (the campaign engine, LibAFL 0.16, \
             needs it), but this is rustc 1.92.0 (x); run `rustup update stable` (plain \
             `cargo test` of your properties still works on this one)"
        );
        let several = WorkerError::Several(vec![
            WorkerError::Refused("no such property".to_string()),
            WorkerError::UnreadableEvent("eof".to_string()),
        ]);
        assert_eq!(
            several.to_string(),
            "no such property\nunreadable worker event: eof"
        );
        let death = Death {
            kind: FailureKind::Abort,
            detail: "aborted (SIGABRT)".to_string(),
            choices: vec![1, 2],
            from_outside: false,
        };
        let dying = MinimizeError::KeepsDying { death, again: true };
        assert!(
            dying.to_string().starts_with(
                "the worker died (abort: aborted (SIGABRT)) while running the input `"
            ),
            "{dying}"
        );
        assert!(
            dying
                .to_string()
                .contains("`, which it had been told to skip; run")
        );
        assert_eq!(dying.outcome(), Outcome::Failed);
    }

    #[test]
    fn a_process_that_failed_is_named_by_its_command_line_and_status() {
        let listing = ProcessBuilder::new("/no/such/props-0123")
            .arg("--list")
            .exec_with_output()
            .unwrap_err();
        let listing = DiscoverError::List(ProcessFailure(listing)).to_string();
        assert!(
            listing.starts_with(
                "cannot list the properties of a test binary: could not execute process \
                 `/no/such/props-0123 --list` (never executed): No such file or directory"
            ),
            "{listing}"
        );
        let mut process = ProcessBuilder::new("sh");
        process.args(&["-c", "exit 3"]);
        let status = process.status().unwrap();
        assert_eq!(
            ProcessFailure::exited(&process, status).to_string(),
            "process didn't exit successfully: `sh -c 'exit 3'` (exit status: 3)"
        );
        let mut talking = ProcessBuilder::new("sh");
        talking.args(&["-c", "echo data; echo why >&2; exit 4"]);
        let output = talking.output().unwrap();
        assert_eq!(
            ProcessFailure::failed(&talking, &output).to_string(),
            "process didn't exit successfully: `sh -c 'echo data; echo why >&2; exit 4'` \
             (exit status: 4)\n--- stderr\nwhy\n"
        );
        let refused = io::Error::from(io::ErrorKind::PermissionDenied);
        assert_eq!(
            ProcessFailure::not_started(&process, refused).to_string(),
            "could not execute process `sh -c 'exit 3'` (never executed): permission denied"
        );
    }

    #[test]
    fn usage_errors_are_2_and_covchecks_own_are_3() {
        let failed = crate::compile::BuildFailure {
            build: crate::compile::FailedBuild::Plain,
            targets: Vec::new(),
            build_scripts: Vec::new(),
            under_test: 1,
        };
        assert_eq!(
            Error::from(BuildError::Failed(failed)).exit_code(),
            exit::USAGE
        );
        let unreadable = DiscoverError::Unreadable {
            binary: PathBuf::from("t"),
            problem: "p".to_string(),
        };
        assert_eq!(Error::from(unreadable).exit_code(), exit::INTERNAL);
        let other_checkout = DiscoverError::OtherCheckout {
            binary: PathBuf::from("/b/covcheck/build/covcheck/deps/twin-1"),
            built_from: PathBuf::from("/a/twin"),
            package_root: PathBuf::from("/b/twin"),
            package: "twin".to_string(),
        };
        assert!(
            other_checkout.to_string().starts_with(
                "/b/covcheck/build/covcheck/deps/twin-1 was built from /a/twin, not from /b/twin: \
                 cargo took another checkout's build of package `twin` for this one's"
            ),
            "{other_checkout}"
        );
        assert_eq!(Error::from(other_checkout).exit_code(), exit::USAGE);
        let since = SinceError::NotACheckout {
            dir: PathBuf::from("/src/x"),
            git: "fatal: not a git repository".to_string(),
        };
        assert_eq!(Error::from(since).exit_code(), exit::USAGE);
    }

    #[test]
    fn the_runtime_is_added_from_the_sources_this_binary_was_built_from() {
        let command = add_runtime_command(&["dut".to_string()]);
        let path = command.strip_prefix("cargo add --dev --path ").unwrap();
        assert!(
            std::path::Path::new(path).join("Cargo.toml").is_file(),
            "{command}"
        );
        assert!(path.ends_with("covcheck-rt"), "{command}");
    }

    #[test]
    fn several_packages_leave_the_package_to_choose() {
        let packages = ["a".to_string(), "b".to_string()];
        assert!(add_runtime_command(&packages).starts_with("cargo add --dev -p <package> "));
    }
}
