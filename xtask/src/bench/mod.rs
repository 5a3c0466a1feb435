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
//!
//! The modules: [`plan`] (options and the targets they select), [`probe`]
//! (one run under the budget, read through the probe), one runner per kind
//! of tool ([`plain`], [`campaign`], [`libfuzzer`]), [`score`] (medians and
//! ratios), [`table`] (the report) and [`costs`] (throughput, replay and
//! rebuild times). [`throughput`] is a chore of its own, `cargo xtask
//! throughput`: executions per second against libFuzzer on inputs of one
//! length.

mod campaign;
mod costs;
mod libfuzzer;
mod plain;
mod plan;
mod probe;
mod score;
mod table;
#[cfg(test)]
mod tests;
pub mod throughput;

// The targets of bench/suite, which includes this same file: it lives here
// so that xtask builds from its own package (bench/suite is never packaged).
mod catalog;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::measure;
use plan::Options;
use probe::{Job, Outcome};

/// What every run needs, built once.
struct Setup {
    suite: PathBuf,
    covcheck: PathBuf,
    target_dir: PathBuf,
    /// The probe's file and libFuzzer's artifacts, remade for every run.
    work: PathBuf,
    /// The `cargo test` harnesses, by tool.
    harnesses: BTreeMap<&'static str, PathBuf>,
    /// libFuzzer's harness, or why it is skipped.
    libfuzzer: Result<PathBuf, String>,
}

pub fn main(args: &[String], root: &Path) -> Result<(), String> {
    let options = Options::parse(args, root)?;
    let targets = options.targets()?;
    let setup = Setup::build(root)?;

    let mut csv =
        String::from("target,bug,tool,seed,found,execs,micros,final_size,execs_in_budget\n");
    let mut tables = String::new();
    for (target, bug) in &targets {
        let results = setup.run_target(target, bug, &options, &mut csv)?;
        tables.push_str(&table::table(
            target,
            bug,
            &results,
            options.seeds,
            options.budget,
        ));
        let skipped: Vec<&str> = (options.tools.iter().copied())
            .filter(|tool| !plan::runs(target, tool))
            .collect();
        if !skipped.is_empty() {
            tables.push_str(&format!(
                "Not run on this target: {} (no runner for it).\n\n",
                skipped.join(", ")
            ));
        }
    }
    if let Some(dir) = options.csv.parent() {
        std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
    }
    std::fs::write(&options.csv, csv)
        .map_err(|e| format!("cannot write {}: {e}", options.csv.display()))?;

    println!("{}", table::intro(options.seeds, options.budget));
    if let Err(reason) = &setup.libfuzzer {
        println!("libfuzzer: skipped: {reason}.\n");
    }
    println!("{tables}");
    println!(
        "{}",
        costs::extras(
            &setup.suite,
            &setup.harnesses["covcheck"],
            &setup.covcheck,
            &setup.target_dir,
            options.quick
        )?
    );
    eprintln!("bench: raw results in {}", options.csv.display());
    Ok(())
}

impl Setup {
    /// Builds cargo-covcheck, the harnesses and the instrumented suite, and
    /// libFuzzer's harness where a nightly toolchain allows.
    fn build(root: &Path) -> Result<Setup, String> {
        let suite = root.join("bench/suite");
        // Shared with the end-to-end tests, so that CI builds LibAFL once.
        let covcheck = measure::build_cargo_covcheck(root)?;
        let target_dir = measure::target_dir_of(&covcheck).join("e2e");
        let work = target_dir.join("bench");
        std::fs::create_dir_all(&work).map_err(|e| e.to_string())?;
        eprintln!("bench: building the harnesses (release)");
        let harnesses = plain::build_harnesses(&suite, &target_dir)?;
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
        let libfuzzer = libfuzzer::build_libfuzzer(root, &target_dir);
        if let Err(reason) = &libfuzzer {
            eprintln!("bench: libfuzzer skipped: {reason}");
        }
        Ok(Setup {
            suite,
            covcheck,
            target_dir,
            work,
            harnesses,
            libfuzzer,
        })
    }

    /// Every selected tool on one target, every seed; each run's row goes
    /// to `csv`. Returns the outcomes by tool.
    fn run_target(
        &self,
        target: &str,
        bug: &str,
        options: &Options,
        csv: &mut String,
    ) -> Result<BTreeMap<&'static str, Vec<Outcome>>, String> {
        let mut results: BTreeMap<&str, Vec<Outcome>> = BTreeMap::new();
        for &tool in &options.tools {
            if (tool == "libfuzzer" && self.libfuzzer.is_err()) || !plan::runs(target, tool) {
                continue;
            }
            for seed in 1..=options.seeds {
                let job = Job {
                    target,
                    bug,
                    seed,
                    budget: options.budget,
                    work: &self.work,
                };
                let outcome = self.run(tool, &job)?;
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
        Ok(results)
    }

    /// One run of `tool`.
    fn run(&self, tool: &str, job: &Job) -> Result<Outcome, String> {
        match tool {
            "covcheck-campaign" => {
                campaign::campaign(&self.covcheck, &self.suite, &self.target_dir, job)
            }
            "libfuzzer" => libfuzzer::fuzz(self.libfuzzer.as_ref().expect("checked"), job),
            _ => plain::plain(&self.harnesses[tool], tool, job),
        }
    }
}

/// An optional number as a CSV field (empty for none).
fn opt(value: Option<u64>) -> String {
    value.map(|v| v.to_string()).unwrap_or_default()
}
