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
    let target_dir = root.join("target/bench");
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
    println!("{}", extras(root, &covcheck, &target_dir, options.quick)?);
    eprintln!("bench: raw results in {}", options.csv.display());
    Ok(())
}

fn opt(value: Option<u64>) -> String {
    value.map(|v| v.to_string()).unwrap_or_default()
}

/// Builds the suite's test binaries; returns them by tool.
fn build_harnesses(
    suite: &Path,
    target_dir: &Path,
) -> Result<BTreeMap<&'static str, PathBuf>, String> {
    let output = Command::new(env!("CARGO"))
        .args([
            "test",
            "--release",
            "--no-run",
            "--message-format=json",
            "--manifest-path",
        ])
        .arg(suite.join("Cargo.toml"))
        .arg("--target-dir")
        .arg(target_dir)
        .stderr(Stdio::inherit())
        .output()
        .map_err(|e| e.to_string())?;
    if !output.status.success() {
        return Err("building bench/suite failed".to_string());
    }
    let mut harnesses = BTreeMap::new();
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
    let mut command = Command::new(covcheck);
    command
        .arg("covcheck")
        .arg("--manifest-path")
        .arg(suite.join("Cargo.toml"))
        .arg("--target-dir")
        .arg(target_dir)
        .args(["--exact", &format!("covcheck_harness::{target}")])
        .args([
            "--seed",
            &seed.to_string(),
            "--no-save",
            "--no-resume",
            "-j",
            "1",
        ])
        .args(["--time", &format!("{}ms", budget.as_millis())])
        .args(["--message-format", "json"])
        .env("BENCH_BUG", bug);
    let text = run_with_budget(command, budget)?;
    let mut outcome = Outcome::default();
    for line in text.lines() {
        let Ok(event) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        if event["event"] == "finding" && !outcome.found {
            let f = &event["finding"];
            outcome.found = true;
            outcome.execs = f["execs_to_find"].as_u64();
            outcome.micros = f["found_after_us"].as_u64();
        } else if event["event"] == "error" {
            return Err(format!("cargo covcheck on {target}: {}", event["message"]));
        }
    }
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

/// Throughput, replay time of 1000 seeds and the instrumented rebuild time.
fn extras(root: &Path, covcheck: &Path, target_dir: &Path, quick: bool) -> Result<String, String> {
    let examples = target_dir;
    let runs = if quick { "300000" } else { "5000000" };
    let trivial =
        campaigns::campaign(covcheck, root, examples, "throughput", 1, &["--runs", runs])?;
    let plain = campaigns::plain_cases_per_second(root, examples, quick)?;
    let replay = replay_1000_seeds(root, examples)?;
    let (normal, instrumented) = rebuild_times(root, covcheck, target_dir)?;
    Ok(format!(
        "### Costs\n\n| measure | value |\n|---|---|\n\
         | trivial property, `cargo covcheck`, one job | {:.0} exec/s |\n\
         | trivial property, plain `cargo test` burst | {:.0} cases/s |\n\
         | plain `cargo test` replaying 1000 seeds of one property | {:.0} ms |\n\
         | incremental rebuild after touching `src/lib.rs`: `cargo test --no-run` | {:.2} s |\n\
         | the same for the instrumented build (`cargo covcheck list`) | {:.2} s |\n",
        trivial.rate,
        plain,
        replay.as_secs_f64() * 1000.0,
        normal.as_secs_f64(),
        instrumented.as_secs_f64()
    ))
}

/// Writes 1000 seeds for the throughput example's property into a scratch
/// copy and times its test binary (built beforehand) replaying them.
fn replay_1000_seeds(root: &Path, target_dir: &Path) -> Result<Duration, String> {
    let scratch = target_dir.join("replay-1000");
    let _ = std::fs::remove_dir_all(&scratch);
    std::fs::create_dir_all(scratch.join("src")).map_err(|e| e.to_string())?;
    let example = root.join("examples/throughput");
    let manifest = std::fs::read_to_string(example.join("Cargo.toml"))
        .map_err(|e| e.to_string())?
        .replace(
            "../../covcheck-rt",
            &root.join("covcheck-rt").display().to_string(),
        );
    std::fs::write(scratch.join("Cargo.toml"), manifest).map_err(|e| e.to_string())?;
    for file in ["Cargo.lock", "src/lib.rs"] {
        std::fs::copy(example.join(file), scratch.join(file)).map_err(|e| e.to_string())?;
    }
    let seeds = scratch.join("covcheck-seeds/throughput/tests/trivial");
    std::fs::create_dir_all(&seeds).map_err(|e| e.to_string())?;
    for n in 0..1000u64 {
        let text = format!(
            "format = 1\nproperty = \"throughput::tests::trivial\"\nkind = \"covering\"\nchoices = \"{}\"\n",
            n * 7919
        );
        std::fs::write(seeds.join(format!("{n:016x}.toml")), text).map_err(|e| e.to_string())?;
    }
    let output = Command::new(env!("CARGO"))
        .args([
            "test",
            "--release",
            "--no-run",
            "--message-format=json",
            "--manifest-path",
        ])
        .arg(scratch.join("Cargo.toml"))
        .arg("--target-dir")
        .arg(target_dir.join("plain"))
        .stderr(Stdio::null())
        .output()
        .map_err(|e| e.to_string())?;
    let exe = String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find_map(|m| m["executable"].as_str().map(PathBuf::from))
        .ok_or("no test binary for the replay measurement")?;
    let started = Instant::now();
    let status = Command::new(exe)
        .args(["tests::trivial", "--exact"])
        .current_dir(&scratch)
        .env("COVCHECK_CASES", "1")
        .stdout(Stdio::null())
        .status()
        .map_err(|e| e.to_string())?;
    let elapsed = started.elapsed();
    if !status.success() {
        return Err("replaying 1000 seeds failed".to_string());
    }
    Ok(elapsed)
}

/// Times an incremental rebuild of `examples/dut` after touching its source,
/// normal and instrumented (both warm).
fn rebuild_times(
    root: &Path,
    covcheck: &Path,
    target_dir: &Path,
) -> Result<(Duration, Duration), String> {
    let manifest = root.join("examples/dut/Cargo.toml");
    let lib = root.join("examples/dut/src/lib.rs");
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
            .arg(target_dir.join("dut-normal"))
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
            f().map_err(|e| e.to_string())?; // warm
            touch()?;
            let started = Instant::now();
            f().map_err(|e| e.to_string())?;
            Ok(started.elapsed())
        };
    Ok((time(&normal)?, time(&instrumented)?))
}
