//! `cargo xtask bench`: covcheck against proptest, quickcheck and libFuzzer on
//! the same bugs (`bench/suite`), side by side in one run.
//!
//! Every tool runs the same property of every target with its own default
//! generators, N times with different RNG seeds, under a time budget. The
//! suite's probe (`bench/suite/src/probe.rs`) counts calls of the property's
//! body in every tool alike and writes to a file (`BENCH_PROBE_OUT`) when the
//! first failure happened (executions and microseconds since the first
//! execution), the size of each failing input (the last one is the size of
//! the final, shrunk counterexample) and, every 10 ms, the executions so far.
//! Results go to a CSV file and to a Markdown table per target with each
//! tool's median over all its runs and its ratio to the best tool; see
//! [`crate::stats::median`] for how runs that found nothing count.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use covcheck_protocol::messages::{Message, parse_message};
use serde_json::Value;

mod catalog {
    include!("../../bench/suite/src/targets/catalog.rs");
}

use crate::measure;
use crate::stats::{Measured, Median, median};

/// The tools of the matrix.
const TOOLS: [&str; 5] = [
    "covcheck",
    "covcheck-campaign",
    "proptest",
    "quickcheck",
    "libfuzzer",
];

struct Options {
    quick: bool,
    budget: Duration,
    seeds: u64,
    csv: PathBuf,
    only: Option<String>,
    /// `--tools`: the tools to run (all of [`TOOLS`] by default).
    tools: Vec<&'static str>,
}

/// How long a tool may go on after its first failure (shrinking), and how
/// long libFuzzer's crash minimiser may run.
const SHRINK_GRACE: Duration = Duration::from_secs(30);

/// One run of one tool on one target, as the probe saw it.
#[derive(Clone, Debug, Default)]
struct Outcome {
    /// The property failed within the budget.
    found: bool,
    /// Executions up to and including the first failure.
    execs: Option<u64>,
    /// Microseconds from the first execution to the first failure.
    micros: Option<u64>,
    /// The size of the final counterexample.
    size: Option<u64>,
    /// For a run that found nothing: the executions it made within the
    /// budget, as far as the probe's periodic count shows (its last count at
    /// or before the budget).
    budget_execs: Option<u64>,
}

pub fn main(args: &[String], root: &Path) -> Result<(), String> {
    let mut options = Options {
        quick: false,
        budget: Duration::from_secs(60),
        seeds: 5,
        csv: root.join("target/bench/results.csv"),
        only: None,
        tools: TOOLS.to_vec(),
    };
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        let mut value = |name: &str| args.next().cloned().ok_or(format!("{name} needs a value"));
        match arg.as_str() {
            "--quick" => options.quick = true,
            "--budget" => {
                let secs: f64 = value("--budget")?
                    .parse()
                    .map_err(|_| "--budget takes seconds")?;
                options.budget = Duration::from_secs_f64(secs);
            }
            "--seeds" => {
                options.seeds = value("--seeds")?
                    .parse()
                    .map_err(|_| "--seeds takes a number")?
            }
            "--csv" => options.csv = PathBuf::from(value("--csv")?),
            "--only" => options.only = Some(value("--only")?),
            "--tools" => {
                let names = value("--tools")?;
                options.tools = Vec::new();
                for name in names.split(',').map(str::trim) {
                    let Some(tool) = TOOLS.iter().find(|t| **t == name) else {
                        return Err(format!(
                            "--tools: no tool `{name}`; tools: {}",
                            TOOLS.join(", ")
                        ));
                    };
                    options.tools.push(tool);
                }
            }
            other => {
                return Err(format!(
                    "unknown option `{other}`; options: --quick, --budget SECS (60), --seeds N (5), \
                     --csv FILE (target/bench/results.csv), --only TARGET[,TARGET..], --tools TOOL[,TOOL..]"
                ));
            }
        }
    }
    if options.quick {
        options.budget = Duration::from_secs(2);
        options.seeds = 1;
    }
    // `--only` names targets or bugs, separated by commas.
    let only: Option<Vec<&str>> = options.only.as_deref().map(|only| {
        only.split(',')
            .map(str::trim)
            .filter(|name| !name.is_empty())
            .collect()
    });
    if let Some(names) = &only
        && let Some(unknown) = names.iter().find(|name| {
            !catalog::ALL
                .iter()
                .any(|(t, bug)| t == *name || bug == *name)
        })
    {
        return Err(format!("--only: no target or bug is named `{unknown}`"));
    }
    let targets: Vec<(&str, &str)> = catalog::ALL
        .iter()
        .copied()
        .filter(|(t, bug)| match (&only, options.quick) {
            (Some(names), _) => names.iter().any(|name| t == name || bug == name),
            (None, true) => {
                matches!(*t, "dut" | "dut_magic" | "reverse")
                    || *bug == "bst_insert_keeps_old_value"
            }
            (None, false) => true,
        })
        .collect();

    let suite = root.join("bench/suite");
    // Shared with the end-to-end tests, so that CI builds LibAFL once.
    let covcheck = measure::build_cargo_covcheck(root)?;
    let target_dir = measure::target_dir_of(&covcheck).join("e2e");
    // The probe's file and libFuzzer's artifacts, remade for every run.
    let work = target_dir.join("bench");
    std::fs::create_dir_all(&work).map_err(|e| e.to_string())?;
    eprintln!("bench: building the harnesses (release)");
    let harnesses = build_harnesses(&suite, &target_dir)?;
    eprintln!("bench: building the instrumented harness (cargo covcheck list)");
    let listed = Command::new(&covcheck)
        .args(["covcheck", "list", "--manifest-path"])
        .arg(suite.join("Cargo.toml"))
        .arg("--target-dir")
        .arg(&target_dir)
        .stdout(Stdio::null())
        .status()
        .map_err(|e| e.to_string())?;
    if !listed.success() {
        return Err("the instrumented build of bench/suite failed".to_string());
    }
    let libfuzzer = match build_libfuzzer(root, &target_dir) {
        Ok(binary) => Ok(binary),
        Err(reason) => {
            eprintln!("bench: libfuzzer skipped: {reason}");
            Err(reason)
        }
    };

    let mut csv =
        String::from("target,bug,tool,seed,found,execs,micros,final_size,execs_in_budget\n");
    let mut tables = String::new();
    for (target, bug) in &targets {
        let mut results: BTreeMap<&str, Vec<Outcome>> = BTreeMap::new();
        for &tool in &options.tools {
            if tool == "libfuzzer" && libfuzzer.is_err() {
                continue;
            }
            for seed in 1..=options.seeds {
                let outcome = match tool {
                    "covcheck-campaign" => campaign(
                        &covcheck,
                        &suite,
                        &target_dir,
                        target,
                        bug,
                        seed,
                        options.budget,
                        &work,
                    )?,
                    "libfuzzer" => fuzz(
                        libfuzzer.as_ref().expect("checked"),
                        target,
                        bug,
                        seed,
                        options.budget,
                        &work,
                    )?,
                    _ => plain(
                        &harnesses[tool],
                        tool,
                        target,
                        bug,
                        seed,
                        options.budget,
                        &work,
                    )?,
                };
                eprintln!("bench: {target} {bug} {tool} seed {seed}: {outcome:?}");
                csv.push_str(&format!(
                    "{target},{bug},{tool},{seed},{},{},{},{},{}\n",
                    outcome.found,
                    opt(outcome.execs),
                    opt(outcome.micros),
                    opt(outcome.size),
                    opt(outcome.budget_execs)
                ));
                results.entry(tool).or_default().push(outcome);
            }
        }
        tables.push_str(&table(target, bug, &results, options.seeds, options.budget));
    }
    if let Some(dir) = options.csv.parent() {
        std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
    }
    std::fs::write(&options.csv, csv)
        .map_err(|e| format!("cannot write {}: {e}", options.csv.display()))?;

    println!(
        "# covcheck benchmark\n\n{} seed(s) per tool and target, {:.0} s budget per run. \
         Time and executions are counted by the suite's probe in every tool, from the first \
         execution (build and start-up excluded) to the first failure, and are medians over \
         all runs: a run that found nothing counts as the whole budget for time and as the \
         executions it made in the budget for executions; `≥` marks a median that such a run \
         reaches, which is a lower bound. Sizes are of the final counterexample (libFuzzer's \
         after its crash minimiser); a run that found nothing counts as larger than any, and \
         `-` means half the runs or more found nothing. Ratio: median time (bugs) or size \
         (shrinking) over the best exact median.\n",
        options.seeds,
        options.budget.as_secs_f64()
    );
    if let Err(reason) = &libfuzzer {
        println!("libfuzzer: skipped: {reason}.\n");
    }
    println!("{tables}");
    println!(
        "{}",
        extras(
            &suite,
            &harnesses["covcheck"],
            &covcheck,
            &target_dir,
            options.quick
        )?
    );
    eprintln!("bench: raw results in {}", options.csv.display());
    Ok(())
}

fn opt(value: Option<u64>) -> String {
    value.map(|v| v.to_string()).unwrap_or_default()
}

/// Builds the harnesses (covcheck's in `bench/suite`, the peers' in
/// `bench/peers`); returns them by tool.
fn build_harnesses(
    suite: &Path,
    target_dir: &Path,
) -> Result<BTreeMap<&'static str, PathBuf>, String> {
    let mut harnesses = BTreeMap::new();
    let peers = suite.with_file_name("peers");
    for package in [suite, peers.as_path()] {
        let output = Command::new(env!("CARGO"))
            .args([
                "test",
                "--release",
                "--no-run",
                "--message-format=json",
                "--manifest-path",
            ])
            .arg(package.join("Cargo.toml"))
            .arg("--target-dir")
            .arg(target_dir)
            .stderr(Stdio::inherit())
            .output()
            .map_err(|e| e.to_string())?;
        if !output.status.success() {
            return Err(format!("building {} failed", package.display()));
        }
        for line in String::from_utf8_lossy(&output.stdout).lines() {
            let Ok(message) = serde_json::from_str::<Value>(line) else {
                continue;
            };
            let (Some(name), Some(exe)) = (
                message["target"]["name"].as_str(),
                message["executable"].as_str(),
            ) else {
                continue;
            };
            for tool in ["covcheck", "proptest", "quickcheck"] {
                if name == format!("{tool}_harness") {
                    harnesses.insert(tool, PathBuf::from(exe));
                }
            }
        }
    }
    if harnesses.len() != 3 {
        return Err(format!(
            "expected three harnesses, found {:?}",
            harnesses.keys()
        ));
    }
    Ok(harnesses)
}

/// How long a tool may take to reach its first execution: `cargo covcheck`
/// checks its build first (which may wait for cargo's lock on the target
/// directory) and discovers the properties.
const STARTUP: Duration = Duration::from_secs(300);

/// Runs `command` until it ends, or until `budget` has passed since its
/// first execution without a failure (then it is killed), or a grace period
/// for shrinking after one. The budget counts from the first execution, as
/// the probe does, so that starting up (for `cargo covcheck`, checking the
/// build and discovering the properties) does not eat into it. The probe
/// appends to `probe` (emptied first; see `bench/suite/src/probe.rs`).
/// Returns the command's stdout (where `cargo covcheck` prints its JSON
/// messages) and the probe's lines; a command that never ran the property
/// is an error, not a run that found nothing.
fn run_with_budget(
    mut command: Command,
    budget: Duration,
    probe: &Path,
) -> Result<(String, String), String> {
    use std::io::BufRead;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};

    match std::fs::remove_file(probe) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            return Err(format!("cannot remove {}: {e}", probe.display()));
        }
        _ => {}
    }
    let mut child = command
        .env("BENCH_PROBE_OUT", probe)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| e.to_string())?;
    let found = Arc::new(AtomicBool::new(false));
    let reader = |stream: Box<dyn Read + Send>| {
        let found = found.clone();
        std::thread::spawn(move || {
            let mut text = String::new();
            for line in std::io::BufReader::new(stream)
                .lines()
                .map_while(Result::ok)
            {
                if line.contains("BENCH-FOUND")
                    || matches!(parse_message(&line), Some(Ok(Message::Finding { .. })))
                {
                    found.store(true, Ordering::SeqCst);
                }
                text.push_str(&line);
                text.push('\n');
            }
            text
        })
    };
    let err_reader = reader(Box::new(child.stderr.take().expect("piped")));
    let out_reader = reader(Box::new(child.stdout.take().expect("piped")));
    // The probe's file tells when the first execution happened and, for the
    // campaign, whose worker writes the probe's stderr lines to its own log
    // rather than to this pipe, when the first failure did. Only its new
    // lines are read.
    let mut watched = 0;
    let mut first_exec: Option<Instant> = None;
    let started = Instant::now();
    loop {
        if child.try_wait().map_err(|e| e.to_string())?.is_some() {
            break;
        }
        if (first_exec.is_none() || !found.load(Ordering::SeqCst))
            && let Ok(text) = std::fs::read(probe)
            && let Some(end) = text.iter().rposition(|&b| b == b'\n')
            && end + 1 > watched
        {
            first_exec.get_or_insert_with(Instant::now);
            if String::from_utf8_lossy(&text[watched..=end]).contains("BENCH-FOUND") {
                found.store(true, Ordering::SeqCst);
            }
            watched = end + 1;
        }
        let deadline = match first_exec {
            None => started + STARTUP,
            Some(first) if found.load(Ordering::SeqCst) => first + budget + SHRINK_GRACE,
            Some(first) => first + budget + Duration::from_millis(500),
        };
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    let out = out_reader.join().unwrap_or_default();
    let err = err_reader.join().unwrap_or_default();
    let probed = std::fs::read_to_string(probe).unwrap_or_default();
    if probed.is_empty() {
        let output = format!("{out}\n{err}");
        let lines: Vec<&str> = output.lines().filter(|l| !l.trim().is_empty()).collect();
        return Err(format!(
            "{command:?} never ran the property (within {} s of starting); its output ends:\n{}",
            STARTUP.as_secs(),
            lines[lines.len().saturating_sub(20)..].join("\n")
        ));
    }
    Ok((out, probed))
}

/// Reads the probe's lines: the first failure counts if it came within
/// `budget` of the first execution.
fn parse_probe(text: &str, budget: Duration) -> Outcome {
    let budget = u64::try_from(budget.as_micros()).unwrap_or(u64::MAX);
    let numbers = |rest: &str| -> Vec<u64> {
        rest.split_whitespace()
            .map_while(|w| w.parse().ok())
            .collect()
    };
    let mut outcome = Outcome::default();
    for line in text.lines() {
        if let Some(at) = line.find("BENCH-FOUND ") {
            if let [execs, micros, ..] = numbers(&line[at + 12..])[..]
                && micros <= budget
                && !outcome.found
            {
                outcome.found = true;
                outcome.execs = Some(execs);
                outcome.micros = Some(micros);
            }
        } else if let Some(at) = line.find("BENCH-SIZE ") {
            outcome.size = line[at + 11..].trim().parse().ok();
        } else if let Some(at) = line.find("BENCH-EXECS ")
            && let [execs, micros, ..] = numbers(&line[at + 12..])[..]
            && micros <= budget
        {
            outcome.budget_execs = Some(outcome.budget_execs.unwrap_or(0).max(execs));
        }
    }
    if outcome.found {
        outcome.budget_execs = None; // only scored for runs that found nothing
    } else {
        outcome.size = None;
    }
    outcome
}

/// A run under plain `cargo test` (covcheck, proptest or quickcheck).
fn plain(
    harness: &Path,
    tool: &str,
    target: &str,
    bug: &str,
    seed: u64,
    budget: Duration,
    work: &Path,
) -> Result<Outcome, String> {
    let mut command = Command::new(harness);
    command
        .args([target, "--exact", "--nocapture", "--test-threads=1"])
        .env("BENCH_BUG", bug)
        .env("RUST_BACKTRACE", "0");
    let cases = "4000000000";
    match tool {
        "covcheck" => command
            .env("COVCHECK_CASES", cases)
            .env("COVCHECK_SEED", seed.to_string())
            .env("COVCHECK_SEEDS", "off"),
        // Failure persistence is off in the harness's own config
        // (`failure_persistence: None`), whatever the environment says.
        "proptest" => command
            .env("PROPTEST_CASES", cases)
            .env("PROPTEST_RNG_SEED", seed.to_string())
            .env("PROPTEST_MAX_GLOBAL_REJECTS", cases),
        _ => command
            .env("BENCH_CASES", cases)
            .env("BENCH_SEED", seed.to_string()),
    };
    let (_, probed) = run_with_budget(command, budget, &work.join("probe.txt"))?;
    Ok(parse_probe(&probed, budget))
}

/// Builds the libFuzzer harness (`bench/libfuzzer`) with cargo-fuzz's flags
/// (SanitizerCoverage, no AddressSanitizer), on nightly as `cargo fuzz` does.
fn build_libfuzzer(root: &Path, target_dir: &Path) -> Result<PathBuf, String> {
    let nightly = Command::new("rustup")
        .args(["run", "nightly", "rustc", "-vV"])
        .stderr(Stdio::null())
        .output()
        .ok()
        .filter(|o| o.status.success())
        .ok_or("no nightly toolchain is installed (libFuzzer via cargo-fuzz needs one)")?;
    let host = String::from_utf8_lossy(&nightly.stdout)
        .lines()
        .find_map(|l| l.strip_prefix("host: ").map(str::to_string))
        .ok_or("cannot tell the host triple from rustc -vV")?;
    let flags = [
        "-Cpasses=sancov-module",
        "-Cllvm-args=-sanitizer-coverage-level=4",
        "-Cllvm-args=-sanitizer-coverage-inline-8bit-counters",
        "-Cllvm-args=-sanitizer-coverage-pc-table",
        "-Cllvm-args=-sanitizer-coverage-trace-compares",
        "--cfg",
        "fuzzing",
        "-Cdebug-assertions",
        "-Coverflow-checks",
    ];
    let dir = target_dir.join("libfuzzer");
    let status = Command::new("rustup")
        .args([
            "run",
            "nightly",
            "cargo",
            "build",
            "--release",
            "--quiet",
            "--target",
            &host,
        ])
        .arg("--manifest-path")
        .arg(root.join("bench/libfuzzer/Cargo.toml"))
        .arg("--target-dir")
        .arg(&dir)
        .env("RUSTFLAGS", flags.join(" "))
        .status()
        .map_err(|e| format!("cannot run nightly cargo: {e}"))?;
    if !status.success() {
        return Err("building the libFuzzer harness failed".to_string());
    }
    Ok(dir.join(host).join("release/covcheck-bench-libfuzzer"))
}

/// A run of the libFuzzer harness (one process; libFuzzer stops at the
/// first crash, which [`minimized_size`] then minimises and measures).
fn fuzz(
    binary: &Path,
    target: &str,
    bug: &str,
    seed: u64,
    budget: Duration,
    work: &Path,
) -> Result<Outcome, String> {
    let artifacts = work.join("libfuzzer-artifacts");
    let _ = std::fs::remove_dir_all(&artifacts);
    std::fs::create_dir_all(&artifacts).map_err(|e| e.to_string())?;
    let mut command = Command::new(binary);
    command
        .arg(format!("-seed={seed}"))
        .arg(format!("-max_total_time={}", budget.as_secs().max(1)))
        .arg(format!("-artifact_prefix={}/", artifacts.display()))
        .env("BENCH_TARGET", target)
        .env("BENCH_BUG", bug);
    let (_, probed) = run_with_budget(command, budget, &work.join("probe.txt"))?;
    let mut outcome = parse_probe(&probed, budget);
    if outcome.found {
        outcome.size = minimized_size(binary, target, bug, seed, &artifacts);
    }
    Ok(outcome)
}

/// The size of libFuzzer's crash after libFuzzer's own minimiser, as the
/// probe measures it when the minimised input is replayed.
///
/// libFuzzer stops at its first crash and does not shrink it, so scoring
/// that crash's size would compare other tools' shrinkers with no shrinking
/// at all. A libFuzzer user minimises a crash with `cargo fuzz tmin`, which
/// runs `-minimize_crash=1 -runs=255`; so does this. It is reliable within a
/// small budget: each round runs 255 mutations looking for a strictly
/// shorter crashing input and stops at the first round that finds none, so
/// there are at most as many rounds as the crash has bytes, and the whole
/// minimisation is capped at [`SHRINK_GRACE`], as the other tools' shrinking
/// is. Every shorter crash is written to `-exact_artifact_path` as soon as
/// it is found, so a minimisation cut short still leaves its best input; if
/// that does not fail when replayed (cut mid-write), the crash itself is
/// measured. libFuzzer minimises length in bytes, not the probe's size:
/// shorter inputs decode (through `arbitrary`) to fewer and smaller values,
/// but the result need not be minimal in the probe's terms.
fn minimized_size(
    binary: &Path,
    target: &str,
    bug: &str,
    seed: u64,
    artifacts: &Path,
) -> Option<u64> {
    let crash = std::fs::read_dir(artifacts)
        .ok()?
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .find(|path| {
            path.file_name()
                .and_then(|name| name.to_str())
                .is_some_and(|name| name.starts_with("crash-"))
        })?;
    let minimized = artifacts.join("minimized");
    let mut command = Command::new(binary);
    command
        .args(["-minimize_crash=1", "-runs=255"])
        .arg(format!("-seed={seed}"))
        .arg(format!("-exact_artifact_path={}", minimized.display()))
        .arg(&crash)
        .env("BENCH_TARGET", target)
        .env("BENCH_BUG", bug)
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    if let Err(message) = run_group_for(command, SHRINK_GRACE) {
        eprintln!("bench: libfuzzer's crash minimiser: {message}");
    }
    let replay = |input: &Path| {
        let output = Command::new(binary)
            .arg(input)
            .env("BENCH_TARGET", target)
            .env("BENCH_BUG", bug)
            .stdout(Stdio::null())
            .output()
            .ok()?;
        parse_probe(&String::from_utf8_lossy(&output.stderr), Duration::MAX).size
    };
    replay(&minimized).or_else(|| replay(&crash))
}

/// Runs `command` in a process group of its own, and kills the group if it
/// is still running after `limit` (libFuzzer's minimiser runs each round in
/// child processes).
fn run_group_for(mut command: Command, limit: Duration) -> Result<(), String> {
    use std::os::unix::process::CommandExt;

    let mut child = command
        .process_group(0)
        .spawn()
        .map_err(|e| e.to_string())?;
    let started = Instant::now();
    while child.try_wait().map_err(|e| e.to_string())?.is_none() {
        if started.elapsed() > limit {
            let _ = Command::new("kill")
                .args(["-KILL", "--", &format!("-{}", child.id())])
                .status();
            let _ = child.wait();
            return Err(format!("stopped after {} s", limit.as_secs()));
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    Ok(())
}

/// A run under `cargo covcheck`.
#[allow(clippy::too_many_arguments)]
fn campaign(
    covcheck: &Path,
    suite: &Path,
    target_dir: &Path,
    target: &str,
    bug: &str,
    seed: u64,
    budget: Duration,
    work: &Path,
) -> Result<Outcome, String> {
    let mut command =
        measure::measuring_command(covcheck, &suite.join("Cargo.toml"), target_dir, seed);
    command
        .args(["--exact", &format!("covcheck_harness::{target}")])
        .args(["--time", &format!("{}ms", budget.as_millis())])
        .env("BENCH_BUG", bug);
    let (stdout, probed) = run_with_budget(command, budget, &work.join("probe.txt"))?;
    let run =
        measure::read_events(&stdout).map_err(|e| format!("cargo covcheck on {target}: {e}"))?;
    // Executions, time and size come from the probe, as for every other
    // tool, and not from the finding event's `execs_to_find` and
    // `found_after_us`: those are the engine's own counters, which count
    // every run of its harness and some shape-learning runs, not calls of
    // the property's body, so they would measure the campaign with another
    // ruler. The worker inherits `BENCH_PROBE_OUT` and writes the probe's
    // lines to that file: its stderr goes to a log under the supervisor's
    // work directory, not to us. The probe records its count at the first
    // failure, so the runs that reproduce and shrink the failure after it
    // are not counted.
    let outcome = parse_probe(&probed, budget);
    if run.found.is_some() != outcome.found {
        eprintln!(
            "bench: note: on {target} the engine {} a finding and the probe {} one within the \
             budget; the probe's count is used",
            if run.found.is_some() {
                "reported"
            } else {
                "did not report"
            },
            if outcome.found { "saw" } else { "did not see" },
        );
    }
    Ok(outcome)
}

/// A run's time to the bug in µs, or at least the budget.
fn time_value(outcome: &Outcome, budget: Duration) -> Measured {
    match outcome.micros {
        Some(micros) if outcome.found => Measured::Found(micros as f64),
        _ => Measured::AtLeast(budget.as_micros() as f64),
    }
}

/// A run's executions to the bug, or at least those it made in the budget.
fn execs_value(outcome: &Outcome) -> Measured {
    match outcome.execs {
        Some(execs) if outcome.found => Measured::Found(execs as f64),
        _ => Measured::AtLeast(outcome.budget_execs.unwrap_or(0) as f64),
    }
}

/// A run's final counterexample size, or larger than any.
fn size_value(outcome: &Outcome) -> Measured {
    match outcome.size {
        Some(size) if outcome.found => Measured::Found(size as f64),
        _ => Measured::AtLeast(f64::INFINITY),
    }
}

/// The medians of one tool on one target.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Stats {
    time: Option<Median>,
    execs: Option<Median>,
    size: Option<Median>,
}

fn stats(outcomes: &[Outcome], budget: Duration) -> Stats {
    let of = |f: &dyn Fn(&Outcome) -> Measured| median(&outcomes.iter().map(f).collect::<Vec<_>>());
    Stats {
        time: of(&|o| time_value(o, budget)),
        execs: of(&execs_value),
        size: of(&size_value),
    }
}

/// The ratio of each tool's score to the best score, by tool, as text. Only
/// exact, finite medians can be the best; a lower bound gives a ratio that
/// is a lower bound too (`≥`), and an infinite or missing score gives `-`.
fn ratios<'a>(scores: &[(&'a str, Option<Median>)]) -> BTreeMap<&'a str, String> {
    let best = scores
        .iter()
        .filter_map(|(_, m)| *m)
        .filter(|m| !m.lower_bound && m.value.is_finite())
        .map(|m| m.value)
        .reduce(f64::min);
    scores
        .iter()
        .map(|(tool, score)| {
            let text = match (score, best) {
                (Some(s), Some(best)) if s.value.is_finite() => {
                    // Values under one (µs) count as one, so ratios stay finite.
                    let ratio = s.value.max(1.0) / best.max(1.0);
                    format!("{}{ratio:.1}×", if s.lower_bound { "≥ " } else { "" })
                }
                _ => "-".to_string(),
            };
            (*tool, text)
        })
        .collect()
}

/// A median as text: `-` for none or infinity, `≥` before a lower bound.
fn show(median: Option<Median>, format: impl Fn(f64) -> String) -> String {
    match median {
        Some(m) if m.value.is_finite() => {
            format!(
                "{}{}",
                if m.lower_bound { "≥ " } else { "" },
                format(m.value)
            )
        }
        _ => "-".to_string(),
    }
}

/// The Markdown table of one target.
fn table(
    target: &str,
    bug: &str,
    results: &BTreeMap<&str, Vec<Outcome>>,
    seeds: u64,
    budget: Duration,
) -> String {
    let shrinking = catalog::SHRINKING.contains(&target);
    let title = if bug.is_empty() {
        format!("`{target}`")
    } else {
        format!("`{target}`: `{bug}`")
    };
    let stats: BTreeMap<&str, Stats> = results
        .iter()
        .map(|(tool, outcomes)| (*tool, stats(outcomes, budget)))
        .collect();
    let scores: Vec<(&str, Option<Median>)> = stats
        .iter()
        .map(|(tool, s)| (*tool, if shrinking { s.size } else { s.time }))
        .collect();
    let ratios = ratios(&scores);
    let mut out = format!("### {title}\n\n");
    if shrinking {
        out.push_str(
            "| tool | found | median final size | median time | ratio |\n|---|---|---|---|---|\n",
        );
    } else {
        out.push_str(
            "| tool | found | median time | median executions | ratio |\n|---|---|---|---|---|\n",
        );
    }
    for (tool, outcomes) in results {
        let found = outcomes.iter().filter(|o| o.found).count();
        let s = stats[tool];
        let time = show(s.time, human_micros);
        let ratio = &ratios[tool];
        if shrinking {
            let size = show(s.size, |v| format!("{v:.0}"));
            out.push_str(&format!(
                "| {tool} | {found}/{seeds} | {size} | {time} | {ratio} |\n"
            ));
        } else {
            let execs = show(s.execs, |v| format!("{v:.0}"));
            out.push_str(&format!(
                "| {tool} | {found}/{seeds} | {time} | {execs} | {ratio} |\n"
            ));
        }
    }
    out.push('\n');
    out
}

fn human_micros(micros: f64) -> String {
    if micros < 1000.0 {
        format!("{micros:.0} µs")
    } else if micros < 1e6 {
        format!("{:.1} ms", micros / 1000.0)
    } else {
        format!("{:.2} s", micros / 1e6)
    }
}

/// Throughput, replay time of 1000 seeds and the instrumented rebuild time,
/// all on the suite's own `trivial` property, so that nothing else is built.
fn extras(
    suite: &Path,
    harness: &Path,
    covcheck: &Path,
    target_dir: &Path,
    quick: bool,
) -> Result<String, String> {
    let runs: u64 = if quick { 300_000 } else { 5_000_000 };
    let campaign_rate = trivial_campaign_rate(covcheck, suite, target_dir, runs)?;
    let (small, large) = if quick {
        (100_000, 2_100_000)
    } else {
        (1_000_000, 11_000_000)
    };
    let plain_rate =
        measure::rate_between(small, large, |cases| time_trivial(harness, suite, cases))?;
    let replay = replay_1000_seeds(suite, harness)?;
    let (normal, instrumented) = rebuild_times(suite, covcheck, target_dir)?;
    Ok(format!(
        "### Costs\n\n| measure | value |\n|---|---|\n\
         | trivial property, `cargo covcheck`, one job | {campaign_rate:.0} exec/s |\n\
         | trivial property, plain `cargo test` burst | {plain_rate:.0} cases/s |\n\
         | plain `cargo test` replaying 1000 seeds of one property | {:.0} ms |\n\
         | incremental rebuild after touching `src/lib.rs`: `cargo test --no-run` | {:.2} s |\n\
         | the same for the instrumented build (`cargo covcheck list`) | {:.2} s |\n",
        replay.as_secs_f64() * 1000.0,
        normal.as_secs_f64(),
        instrumented.as_secs_f64()
    ))
}

/// Executions per second of the trivial property under `cargo covcheck`.
fn trivial_campaign_rate(
    covcheck: &Path,
    suite: &Path,
    target_dir: &Path,
    runs: u64,
) -> Result<f64, String> {
    let output = measure::measuring_command(covcheck, &suite.join("Cargo.toml"), target_dir, 1)
        .args([
            "--exact",
            "covcheck_harness::trivial",
            "--runs",
            &runs.to_string(),
        ])
        .stderr(Stdio::null())
        .output()
        .map_err(|e| e.to_string())?;
    let run = measure::read_events(&String::from_utf8_lossy(&output.stdout))?;
    if run.rate > 0.0 {
        Ok(run.rate)
    } else {
        Err("the trivial campaign reported no result".to_string())
    }
}

/// Seconds the harness takes for `cases` cases of the trivial property
/// (two sizes are timed so that start-up cancels out).
fn time_trivial(harness: &Path, suite: &Path, cases: u64) -> Result<f64, String> {
    let started = Instant::now();
    let status = Command::new(harness)
        .args(["trivial", "--exact"])
        .current_dir(suite)
        .env("COVCHECK_CASES", cases.to_string())
        .env("COVCHECK_SEEDS", "off")
        .stdout(Stdio::null())
        .status()
        .map_err(|e| e.to_string())?;
    if !status.success() {
        return Err("the trivial property failed".to_string());
    }
    Ok(started.elapsed().as_secs_f64())
}

/// Times the harness replaying 1000 seeds of the trivial property (written to
/// its seed directory, which is ignored by git, and removed afterwards).
fn replay_1000_seeds(suite: &Path, harness: &Path) -> Result<Duration, String> {
    let seeds = suite.join("covcheck-seeds/covcheck_harness/trivial");
    std::fs::create_dir_all(&seeds).map_err(|e| e.to_string())?;
    for n in 0..1000u64 {
        let text = format!(
            "format = 1\nproperty = \"covcheck_harness::trivial\"\nkind = \"covering\"\nchoices = \"{}\"\n",
            n * 7919
        );
        std::fs::write(seeds.join(format!("{n:016x}.toml")), text).map_err(|e| e.to_string())?;
    }
    let started = Instant::now();
    let status = Command::new(harness)
        .args(["trivial", "--exact"])
        .current_dir(suite)
        .env("COVCHECK_CASES", "0")
        .stdout(Stdio::null())
        .status()
        .map_err(|e| e.to_string());
    let elapsed = started.elapsed();
    let _ = std::fs::remove_dir_all(&seeds);
    if !status?.success() {
        return Err("replaying 1000 seeds failed".to_string());
    }
    Ok(elapsed)
}

/// Times an incremental rebuild of the suite after touching its source,
/// normal (`cargo test --no-run`) and instrumented (`cargo covcheck list`).
fn rebuild_times(
    suite: &Path,
    covcheck: &Path,
    target_dir: &Path,
) -> Result<(Duration, Duration), String> {
    let manifest = suite.join("Cargo.toml");
    let lib = suite.join("src/lib.rs");
    let normal = || {
        Command::new(env!("CARGO"))
            .args([
                "test",
                "--release",
                "--no-run",
                "--quiet",
                "--manifest-path",
            ])
            .arg(&manifest)
            .arg("--target-dir")
            .arg(target_dir)
            .stderr(Stdio::null())
            .status()
    };
    let instrumented = || {
        Command::new(covcheck)
            .args(["covcheck", "list", "--manifest-path"])
            .arg(&manifest)
            .arg("--target-dir")
            .arg(target_dir)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
    };
    let touch = || {
        let text = std::fs::read(&lib).map_err(|e| e.to_string())?;
        std::fs::write(&lib, text).map_err(|e| e.to_string())
    };
    let time =
        |f: &dyn Fn() -> std::io::Result<std::process::ExitStatus>| -> Result<Duration, String> {
            touch()?;
            let started = Instant::now();
            f().map_err(|e| e.to_string())?;
            Ok(started.elapsed())
        };
    Ok((time(&normal)?, time(&instrumented)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    const BUDGET: Duration = Duration::from_secs(10);

    fn found(micros: u64, execs: u64, size: u64) -> Outcome {
        Outcome {
            found: true,
            execs: Some(execs),
            micros: Some(micros),
            size: Some(size),
            budget_execs: None,
        }
    }

    fn missed(budget_execs: u64) -> Outcome {
        Outcome {
            budget_execs: Some(budget_execs),
            ..Outcome::default()
        }
    }

    fn exact(value: f64) -> Option<Median> {
        Some(Median {
            value,
            lower_bound: false,
        })
    }

    fn at_least(value: f64) -> Option<Median> {
        Some(Median {
            value,
            lower_bound: true,
        })
    }

    #[test]
    fn runs_that_all_found_give_the_plain_median() {
        let s = stats(&[found(30, 3, 7), found(10, 1, 5), found(20, 2, 9)], BUDGET);
        assert_eq!(s.time, exact(20.0));
        assert_eq!(s.execs, exact(2.0));
        assert_eq!(s.size, exact(7.0));
        let even = stats(&[found(10, 1, 5), found(20, 2, 9)], BUDGET);
        assert_eq!(even.time, exact(15.0));
    }

    #[test]
    fn a_run_that_found_nothing_counts_as_the_budget() {
        // Two of three found: the miss sorts above both, so the median is
        // the slower find, and it is exact.
        let s = stats(&[found(10, 1, 5), missed(900), found(40, 4, 6)], BUDGET);
        assert_eq!(s.time, exact(40.0));
        assert_eq!(s.execs, exact(4.0));
        assert_eq!(s.size, exact(6.0));
        // One of three: the median is a miss, so it is the budget, a lower bound.
        let s = stats(&[missed(900), found(10, 1, 5), missed(800)], BUDGET);
        assert_eq!(s.time, at_least(10e6));
        assert_eq!(s.execs, at_least(800.0));
        assert_eq!(s.size.map(|m| m.value), Some(f64::INFINITY));
        // An even count averages a find with the budget: still a lower bound.
        let s = stats(&[found(0, 1, 5), missed(9)], BUDGET);
        assert_eq!(s.time, at_least(5e6));
        // Nothing found: the budget.
        assert_eq!(stats(&[missed(5)], BUDGET).time, at_least(10e6));
    }

    #[test]
    fn a_miss_below_the_middle_makes_the_median_a_lower_bound() {
        // A miss that made fewer executions in its budget than the finds
        // needed sorts low; its true count is unknown, so the median is not
        // exact.
        let s = stats(&[missed(1), found(10, 50, 5), found(20, 60, 6)], BUDGET);
        assert_eq!(s.execs, at_least(50.0));
        assert_eq!(s.time, exact(20.0));
    }

    #[test]
    fn a_lucky_single_find_does_not_rank_best() {
        let lucky = stats(
            &[
                found(5, 1, 3),
                missed(10),
                missed(10),
                missed(10),
                missed(10),
            ],
            BUDGET,
        );
        let steady = stats(
            &[
                found(900, 9, 4),
                found(1000, 10, 4),
                found(1100, 11, 4),
                found(800, 8, 4),
                found(1200, 12, 4),
            ],
            BUDGET,
        );
        let times = ratios(&[("lucky", lucky.time), ("steady", steady.time)]);
        assert_eq!(times["steady"], "1.0×");
        assert_eq!(times["lucky"], "≥ 10000.0×");
        let sizes = ratios(&[("lucky", lucky.size), ("steady", steady.size)]);
        assert_eq!(sizes["steady"], "1.0×");
        assert_eq!(sizes["lucky"], "-");
    }

    #[test]
    fn only_exact_medians_can_be_the_best() {
        let r = ratios(&[
            ("a", at_least(5.0)),
            ("b", exact(10.0)),
            ("c", exact(20.0)),
            ("d", None),
        ]);
        assert_eq!(r["a"], "≥ 0.5×");
        assert_eq!(r["b"], "1.0×");
        assert_eq!(r["c"], "2.0×");
        assert_eq!(r["d"], "-");
        let none = ratios(&[("a", at_least(5.0))]);
        assert_eq!(none["a"], "-");
    }

    #[test]
    fn medians_show_lower_bounds_and_hide_infinity() {
        assert_eq!(show(at_least(10e6), human_micros), "≥ 10.00 s");
        assert_eq!(show(exact(1500.0), human_micros), "1.5 ms");
        assert_eq!(show(at_least(f64::INFINITY), |v| format!("{v}")), "-");
        assert_eq!(show(None, |v| format!("{v}")), "-");
    }

    #[test]
    fn the_probe_counts_the_first_failure_within_the_budget() {
        let text = "BENCH-EXECS 1 0\nBENCH-EXECS 160 9000\nBENCH-FOUND 170 9500\n\
                    BENCH-SIZE 40\nBENCH-SIZE 3\nBENCH-EXECS 400 20000\n";
        let o = parse_probe(text, Duration::from_millis(15));
        assert!(o.found);
        assert_eq!(
            (o.execs, o.micros, o.size),
            (Some(170), Some(9500), Some(3))
        );
        assert_eq!(o.budget_execs, None);
        // The same failure after a 5 ms budget does not count.
        let late = parse_probe(text, Duration::from_millis(5));
        assert!(!late.found);
        assert_eq!(
            (late.execs, late.size, late.budget_execs),
            (None, None, Some(1))
        );
        assert!(parse_probe("BENCH-FOUND 1 5\n", Duration::MAX).found);
    }
}
