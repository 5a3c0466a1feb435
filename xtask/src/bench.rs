//! `cargo xtask bench`: covcheck against proptest, quickcheck and libFuzzer on
//! the same bugs (`bench/suite`), side by side in one run.
//!
//! Every tool runs the same property of every target with its own default
//! generators, N times with different RNG seeds, under a time budget. The
//! suite's probe prints when the first failure happened (executions and
//! microseconds since the first execution) and the size of each failing
//! input; the last size is the size of the final, shrunk counterexample.
//! Results go to a CSV file and to a Markdown table per target with each
//! tool's median and its ratio to the best tool.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

mod catalog {
    include!("../../bench/suite/src/targets/catalog.rs");
}

use crate::campaigns;

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
}

/// One run of one tool on one target.
#[derive(Clone, Debug, Default)]
struct Outcome {
    found: bool,
    execs: Option<u64>,
    micros: Option<u64>,
    size: Option<u64>,
}

pub fn main(args: &[String], root: &Path) -> Result<(), String> {
    let mut options = Options {
        quick: false,
        budget: Duration::from_secs(60),
        seeds: 5,
        csv: root.join("target/bench/results.csv"),
        only: None,
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
            other => {
                return Err(format!(
                    "unknown option `{other}`; options: --quick, --budget SECS (60), --seeds N (5), \
                     --csv FILE (target/bench/results.csv), --only TARGET"
                ));
            }
        }
    }
    if options.quick {
        options.budget = Duration::from_secs(2);
        options.seeds = 1;
    }
    let targets: Vec<(&str, &str)> = catalog::ALL
        .iter()
        .copied()
        .filter(|(t, bug)| match (&options.only, options.quick) {
            (Some(only), _) => t == only || bug == only,
            (None, true) => {
                matches!(*t, "dut" | "dut_magic" | "reverse")
                    || *bug == "bst_insert_keeps_old_value"
            }
            (None, false) => true,
        })
        .collect();

    let suite = root.join("bench/suite");
    // Shared with the end-to-end tests, so that CI builds LibAFL once.
    let target_dir = root.join("target/e2e");
    eprintln!("bench: building the harnesses (release)");
    let harnesses = build_harnesses(&suite, &target_dir)?;
    let covcheck = campaigns::build_cargo_covcheck(root)?;
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

    let mut csv = String::from("target,bug,tool,seed,found,execs,micros,final_size\n");
    let mut tables = String::new();
    for (target, bug) in &targets {
        let mut results: BTreeMap<&str, Vec<Outcome>> = BTreeMap::new();
        for tool in TOOLS {
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
                    )?,
                    "libfuzzer" => fuzz(
                        libfuzzer.as_ref().expect("checked"),
                        target,
                        bug,
                        seed,
                        options.budget,
                    )?,
                    _ => plain(&harnesses[tool], tool, target, bug, seed, options.budget)?,
                };
                eprintln!("bench: {target} {bug} {tool} seed {seed}: {outcome:?}");
                csv.push_str(&format!(
                    "{target},{bug},{tool},{seed},{},{},{},{}\n",
                    outcome.found,
                    opt(outcome.execs),
                    opt(outcome.micros),
                    opt(outcome.size)
                ));
                results.entry(tool).or_default().push(outcome);
            }
        }
        tables.push_str(&table(target, bug, &results, options.seeds));
    }
    if let Some(dir) = options.csv.parent() {
        std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
    }
    std::fs::write(&options.csv, csv)
        .map_err(|e| format!("cannot write {}: {e}", options.csv.display()))?;

    println!(
        "# covcheck benchmark\n\n{} seed(s) per tool and target, {:.0} s budget per run. \
         Time and executions are medians over the runs that found the bug, from the first \
         execution (build and start-up excluded). Ratio: median time over the best tool's.\n",
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

/// Runs `command` until it ends, or until `budget` has passed without a
/// failure (then it is killed), or a grace period for shrinking after one.
/// Returns its combined output.
fn run_with_budget(mut command: Command, budget: Duration) -> Result<String, String> {
    use std::io::BufRead;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};

    let mut child = command
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
                if line.contains("BENCH-FOUND") || line.contains("\"event\":\"finding\"") {
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
    let started = Instant::now();
    let grace = Duration::from_secs(30);
    loop {
        if child.try_wait().map_err(|e| e.to_string())?.is_some() {
            break;
        }
        let limit = if found.load(Ordering::SeqCst) {
            budget + grace
        } else {
            budget + Duration::from_millis(500)
        };
        if started.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    let out = out_reader.join().unwrap_or_default();
    let err = err_reader.join().unwrap_or_default();
    Ok(format!("{out}\n{err}"))
}

/// Reads the probe's lines.
fn parse_probe(text: &str, budget: Duration) -> Outcome {
    let mut outcome = Outcome::default();
    for line in text.lines() {
        if let Some(at) = line.find("BENCH-FOUND ") {
            let mut words = line[at + 12..].split_whitespace();
            let execs = words.next().and_then(|w| w.parse().ok());
            let micros: Option<u64> = words.next().and_then(|w| w.parse().ok());
            if micros.is_some_and(|m| m <= budget.as_micros() as u64) && !outcome.found {
                outcome.found = true;
                outcome.execs = execs;
                outcome.micros = micros;
            }
        } else if let Some(at) = line.find("BENCH-SIZE ") {
            outcome.size = line[at + 11..].trim().parse().ok();
        }
    }
    if !outcome.found {
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
        "proptest" => command
            .env("PROPTEST_CASES", cases)
            .env("PROPTEST_RNG_SEED", seed.to_string())
            .env("PROPTEST_MAX_GLOBAL_REJECTS", cases)
            .env("PROPTEST_FAILURE_PERSISTENCE", "off"),
        _ => command
            .env("BENCH_CASES", cases)
            .env("BENCH_SEED", seed.to_string()),
    };
    let text = run_with_budget(command, budget)?;
    Ok(parse_probe(&text, budget))
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
/// first crash and does not shrink, so the size is the crashing input's).
fn fuzz(
    binary: &Path,
    target: &str,
    bug: &str,
    seed: u64,
    budget: Duration,
) -> Result<Outcome, String> {
    let artifacts = std::env::temp_dir().join("covcheck-bench-libfuzzer");
    std::fs::create_dir_all(&artifacts).map_err(|e| e.to_string())?;
    let mut command = Command::new(binary);
    command
        .arg(format!("-seed={seed}"))
        .arg(format!("-max_total_time={}", budget.as_secs().max(1)))
        .arg(format!("-artifact_prefix={}/", artifacts.display()))
        .env("BENCH_TARGET", target)
        .env("BENCH_BUG", bug);
    let text = run_with_budget(command, budget)?;
    Ok(parse_probe(&text, budget))
}

/// A run under `cargo covcheck`.
fn campaign(
    covcheck: &Path,
    suite: &Path,
    target_dir: &Path,
    target: &str,
    bug: &str,
    seed: u64,
    budget: Duration,
) -> Result<Outcome, String> {
    let mut command =
        campaigns::measuring_command(covcheck, &suite.join("Cargo.toml"), target_dir, seed);
    command
        .args(["--exact", &format!("covcheck_harness::{target}")])
        .args(["--time", &format!("{}ms", budget.as_millis())])
        .env("BENCH_BUG", bug);
    let text = run_with_budget(command, budget)?;
    let run =
        campaigns::read_events(&text).map_err(|e| format!("cargo covcheck on {target}: {e}"))?;
    let mut outcome = Outcome {
        found: run.found.is_some(),
        execs: run.found.map(|(execs, _)| execs),
        micros: run.found.map(|(_, micros)| micros),
        size: None,
    };
    // The worker's own output (the probe's lines) is in its log.
    let log = target_dir.join(format!(
        "covcheck/work/covcheck-bench-suite.covcheck_harness..{target}/campaign.log"
    ));
    if outcome.found {
        let probe = parse_probe(
            &std::fs::read_to_string(log).unwrap_or_default(),
            Duration::MAX,
        );
        outcome.size = probe.size;
    }
    Ok(outcome)
}

fn median(mut values: Vec<f64>) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    values.sort_by(|a, b| a.partial_cmp(b).expect("no NaN"));
    let mid = values.len() / 2;
    Some(if values.len().is_multiple_of(2) {
        (values[mid - 1] + values[mid]) / 2.0
    } else {
        values[mid]
    })
}

/// The Markdown table of one target.
fn table(target: &str, bug: &str, results: &BTreeMap<&str, Vec<Outcome>>, seeds: u64) -> String {
    let shrinking = catalog::SHRINKING.contains(&target);
    let title = if bug.is_empty() {
        format!("`{target}`")
    } else {
        format!("`{target}`: `{bug}`")
    };
    let stat = |outcomes: &Vec<Outcome>, f: fn(&Outcome) -> Option<u64>| {
        median(
            outcomes
                .iter()
                .filter(|o| o.found)
                .filter_map(f)
                .map(|v| v as f64)
                .collect(),
        )
    };
    let score = |outcomes: &Vec<Outcome>| {
        if shrinking {
            stat(outcomes, |o| o.size)
        } else {
            stat(outcomes, |o| o.micros)
        }
    };
    let best = results
        .values()
        .filter_map(score)
        .fold(f64::INFINITY, f64::min);
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
        let time = stat(outcomes, |o| o.micros).map_or("-".to_string(), human_micros);
        // Times under a microsecond count as one, so that ratios stay finite.
        let ratio = score(outcomes).map_or("-".to_string(), |s| {
            format!("{:.1}×", s.max(1.0) / best.max(1.0))
        });
        if shrinking {
            let size = stat(outcomes, |o| o.size).map_or("-".to_string(), |s| format!("{s:.0}"));
            out.push_str(&format!(
                "| {tool} | {found}/{seeds} | {size} | {time} | {ratio} |\n"
            ));
        } else {
            let execs = stat(outcomes, |o| o.execs).map_or("-".to_string(), |e| format!("{e:.0}"));
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
        campaigns::rate_between(small, large, |cases| time_trivial(harness, suite, cases))?;
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
    let output = campaigns::measuring_command(covcheck, &suite.join("Cargo.toml"), target_dir, 1)
        .args([
            "--exact",
            "covcheck_harness::trivial",
            "--runs",
            &runs.to_string(),
        ])
        .stderr(Stdio::null())
        .output()
        .map_err(|e| e.to_string())?;
    let run = campaigns::read_events(&String::from_utf8_lossy(&output.stdout))?;
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
