//! `cargo xtask throughput`: executions per second of the campaign and of
//! libFuzzer, side by side in one run, on inputs of one length.
//!
//! Each tool runs the suite's fixed-length targets (`bench/suite/src/fixed.rs`:
//! a trivial one and the three real-crate parsers), every execution on
//! [`FIXED_LEN`] bytes: covcheck generates a `[u8; FIXED_LEN]`;
//! libFuzzer starts from one seed of that length with `-max_len` at it and
//! `-len_control=0`, and its harness pads or cuts what it is given to that
//! length. The suite's probe counts the executions of both alike, from the
//! first one, so starting up is not timed; the rate is the probe's last
//! count within the budget over its time. The tools alternate, round after
//! round, so that whatever else the machine does falls on both.
//!
//! It also measures what instrumenting crates the input never reaches
//! costs: the suite's `trivial` property (one `u64`, no probe) in the
//! suite's build, which instruments `rust_decimal`, `der` and `upon` (and
//! `png` and the path crate `covcheck-bench-gates`), against a build with
//! the first three left out (`--no-instrument`), kept in a build directory
//! of its own so that the two builds do not replace each other. Both are
//! counted by the campaign's own count over its own time, a budget of
//! executions each.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use super::catalog::{FIXED, FIXED_LEN};
use super::probe::run_with_budget;
use crate::measure;
use crate::stats::exact_median;

/// The crates the suite instruments besides its own, as the issue that asked
/// for this measure counted them: three real crates.
const EXTRA_CRATES: &[&str] = &["rust_decimal", "der", "upon"];

/// Executions of each run of the `trivial` property.
const TRIVIAL_RUNS: u64 = 5_000_000;

struct Options {
    rounds: u64,
    budget: Duration,
}

pub fn main(args: &[String], root: &Path) -> Result<(), String> {
    let options = parse(args)?;
    let covcheck = measure::build_cargo_covcheck(root)?;
    let target_dir = measure::target_dir_of(&covcheck).join("e2e");
    let work = target_dir.join("throughput");
    std::fs::create_dir_all(&work).map_err(|e| e.to_string())?;
    let libfuzzer = super::libfuzzer::build_libfuzzer(root, &target_dir)
        .map_err(|reason| format!("libFuzzer is needed for this comparison: {reason}"))?;
    let runs = Runs {
        covcheck,
        manifest: root.join("bench/suite/Cargo.toml"),
        libfuzzer,
        uninstrumented: target_dir.join("covcheck/build-throughput-uninstrumented"),
        engine: target_dir.join("covcheck/build/covcheck-engine"),
        target_dir,
        work,
        budget: options.budget,
    };
    eprintln!("throughput: building the instrumented suite, with and without the extra crates");
    runs.build(false)?;
    runs.build(true)?;

    let mut covcheck = vec![Vec::new(); FIXED.len()];
    let mut libfuzzer = vec![Vec::new(); FIXED.len()];
    let (mut trivial_with, mut trivial_without) = (Vec::new(), Vec::new());
    for round in 1..=options.rounds {
        for (k, target) in FIXED.iter().enumerate() {
            covcheck[k].push(runs.campaign(target, round)?);
            libfuzzer[k].push(runs.libfuzzer(target, round)?);
            eprintln!(
                "throughput: round {round} {target}: covcheck {:.0}/s, libFuzzer {:.0}/s",
                covcheck[k][round as usize - 1],
                libfuzzer[k][round as usize - 1]
            );
        }
        trivial_with.push(runs.trivial(false)?);
        trivial_without.push(runs.trivial(true)?);
    }
    print!(
        "{}",
        report(
            &options,
            &covcheck,
            &libfuzzer,
            (&trivial_with, &trivial_without)
        )
    );
    Ok(())
}

fn parse(args: &[String]) -> Result<Options, String> {
    let mut options = Options {
        rounds: 3,
        budget: Duration::from_secs(10),
    };
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        let mut value = |name: &str| -> Result<u64, String> {
            args.next()
                .and_then(|v| v.parse().ok())
                .ok_or_else(|| format!("{name} needs a number"))
        };
        match arg.as_str() {
            "--rounds" => options.rounds = value("--rounds")?.max(1),
            "--time" => options.budget = Duration::from_secs(value("--time")?.max(1)),
            other => return Err(format!("unknown option {other} (see cargo xtask help)")),
        }
    }
    Ok(options)
}

/// Everything a run needs.
struct Runs {
    covcheck: PathBuf,
    manifest: PathBuf,
    libfuzzer: PathBuf,
    target_dir: PathBuf,
    /// The build directory of the suite without [`EXTRA_CRATES`] instrumented.
    uninstrumented: PathBuf,
    /// The engine library of the suite's build, shared by the other one.
    engine: PathBuf,
    work: PathBuf,
    budget: Duration,
}

impl Runs {
    /// `cargo covcheck` (and `subcommand`, if any) on the suite, with or
    /// without [`EXTRA_CRATES`] instrumented.
    fn command(&self, subcommand: Option<&str>, without_extras: bool) -> Command {
        let mut command = Command::new(&self.covcheck);
        command.arg("covcheck").args(subcommand);
        command
            .arg("--manifest-path")
            .arg(&self.manifest)
            .arg("--target-dir")
            .arg(&self.target_dir);
        if without_extras {
            for krate in EXTRA_CRATES {
                command.args(["--no-instrument", krate]);
            }
            command
                .env("COVCHECK_BUILD_DIR", &self.uninstrumented)
                .env("COVCHECK_ENGINE_DIR", &self.engine);
        }
        command
    }

    fn build(&self, without_extras: bool) -> Result<(), String> {
        let status = self
            .command(Some("list"), without_extras)
            .stdout(Stdio::null())
            .status()
            .map_err(|e| e.to_string())?;
        status
            .success()
            .then_some(())
            .ok_or_else(|| "the instrumented build of bench/suite failed".to_string())
    }

    /// Executions per second of one campaign (one worker) on `target`.
    fn campaign(&self, target: &str, seed: u64) -> Result<f64, String> {
        let mut command = self.command(None, false);
        command
            .args(["--exact", &format!("covcheck_harness::{target}")])
            .args(["--time", &format!("{}ms", self.budget.as_millis())])
            .args(["--seed", &seed.to_string(), "-j", "1"])
            .args(["--no-save", "--no-resume", "--message-format", "json"]);
        self.rate(command, &format!("cargo covcheck on {target}"))
    }

    /// Executions per second of the suite's `trivial` property under
    /// `cargo covcheck`, by the campaign's own count.
    fn trivial(&self, without_extras: bool) -> Result<f64, String> {
        let output = self
            .command(None, without_extras)
            .args(["--exact", "covcheck_harness::trivial"])
            .args([
                "--runs",
                &TRIVIAL_RUNS.to_string(),
                "--seed",
                "1",
                "-j",
                "1",
            ])
            .args(["--no-save", "--no-resume", "--message-format", "json"])
            .stderr(Stdio::null())
            .output()
            .map_err(|e| e.to_string())?;
        let run = measure::read_events(&String::from_utf8_lossy(&output.stdout))?;
        (run.rate > 0.0)
            .then_some(run.rate)
            .ok_or_else(|| "the trivial campaign reported no rate".to_string())
    }

    /// Executions per second of libFuzzer on `target`, from a seed of
    /// [`FIXED_LEN`] bytes, its inputs no longer than that.
    fn libfuzzer(&self, target: &str, seed: u64) -> Result<f64, String> {
        let corpus = self.work.join("libfuzzer-corpus");
        let _ = std::fs::remove_dir_all(&corpus);
        std::fs::create_dir_all(&corpus).map_err(|e| e.to_string())?;
        std::fs::write(corpus.join("seed"), [b'0'; FIXED_LEN]).map_err(|e| e.to_string())?;
        let mut command = Command::new(&self.libfuzzer);
        command
            .arg(format!("-seed={seed}"))
            .arg(format!("-max_len={FIXED_LEN}"))
            .arg("-len_control=0")
            .arg(format!("-max_total_time={}", self.budget.as_secs()))
            .arg(&corpus)
            .env("BENCH_TARGET", target);
        self.rate(command, &format!("libFuzzer on {target}"))
    }

    /// Runs `command` under the budget and reads its rate from the probe.
    fn rate(&self, command: Command, what: &str) -> Result<f64, String> {
        let probe = self.work.join("probe.txt");
        let (_, probed) = run_with_budget(command, self.budget, &probe)?;
        probed_rate(&probed, self.budget)
            .ok_or_else(|| format!("{what}: the probe counted nothing"))
    }
}

/// Executions per second by the probe's last count within `budget`.
fn probed_rate(probed: &str, budget: Duration) -> Option<f64> {
    let budget = u64::try_from(budget.as_micros()).unwrap_or(u64::MAX);
    probed
        .lines()
        .filter_map(|line| {
            let rest = line.strip_prefix("BENCH-EXECS ")?;
            let mut numbers = rest.split_whitespace().map(|w| w.parse::<u64>().ok());
            Some((numbers.next()??, numbers.next()??))
        })
        .rfind(|&(_, micros)| micros > 0 && micros <= budget)
        .map(|(execs, micros)| execs as f64 * 1e6 / micros as f64)
}

fn report(
    options: &Options,
    covcheck: &[Vec<f64>],
    libfuzzer: &[Vec<f64>],
    (trivial_with, trivial_without): (&[f64], &[f64]),
) -> String {
    let median = |rates: &[f64]| exact_median(rates).unwrap_or(0.0);
    let mut text = format!(
        "Executions per second on inputs of {FIXED_LEN} bytes: median of {} rounds of {} s \
         each, one process each, the tools alternating.\n\n\
         | target | covcheck campaign | libFuzzer | covcheck / libFuzzer |\n|---|---|---|---|\n",
        options.rounds,
        options.budget.as_secs()
    );
    for (k, target) in FIXED.iter().enumerate() {
        let (ours, theirs) = (median(&covcheck[k]), median(&libfuzzer[k]));
        text.push_str(&format!(
            "| `{target}` | {ours:.0} | {theirs:.0} | {:.2} |\n",
            ours / theirs
        ));
    }
    let (with, without) = (median(trivial_with), median(trivial_without));
    text.push_str(&format!(
        "\nThe suite's `trivial` property (one `u64`) under `cargo covcheck`, {TRIVIAL_RUNS} \
         executions, median of {} runs each: {with:.0} exec/s with every crate of the suite \
         instrumented, {without:.0} with {} not instrumented: {:.1}% slower with them.\n",
        options.rounds,
        EXTRA_CRATES.join(", "),
        (1.0 - with / without) * 100.0
    ));
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rate_is_the_last_count_within_the_budget() {
        let probed = "BENCH-EXECS 1 0\nBENCH-EXECS 500 1000\nBENCH-EXECS 2000 2000\n\
                      BENCH-EXECS 9000 3000\n";
        let rate = probed_rate(probed, Duration::from_micros(2500)).unwrap();
        assert_eq!(rate, 1_000_000.0);
        assert_eq!(probed_rate("", Duration::from_secs(1)), None);
    }
}
