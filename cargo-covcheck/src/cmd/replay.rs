//! `cargo covcheck replay`: the CI step. Every saved seed of every property
//! runs once on the normal test build (what `cargo test` builds, shared with
//! it), with no random cases, and is reported as its own test case, on the
//! terminal and optionally as JUnit XML.
//!
//! A seed that kills the test binary (a crash seed whose bug is still there)
//! is reported as failed, and a new worker goes on with the seeds after it.

use std::path::Path;
use std::sync::mpsc::Sender;
use std::time::{Duration, Instant};

use covcheck_protocol::worker::{Event, SeedResult, WorkerMode};
use quick_junit::{NonSuccessKind, Report, TestCase, TestCaseStatus, TestSuite};

use crate::cli::ReplayArgs;
use crate::compile::Build;
use crate::discover::{Filter, Property};
use crate::error::{Error, WorkerError};
use crate::exit::Outcome;
use crate::suite_coverage::CoverageRecord;
use crate::supervise::{Settings, pool, property_key, run_worker, tail, tool_request};

pub fn run(args: &ReplayArgs) -> Result<Outcome, Error> {
    let filter = Filter {
        text: args.filter.as_deref(),
        exact: args.exact,
    };
    let (plan, properties) = super::build_and_discover(&args.build, filter, Build::Plain)?;
    if properties.is_empty() {
        return Ok(Outcome::NothingTested);
    }
    let settings = Settings {
        timeout: covcheck_protocol::limits::hang_limit(),
        ..Settings::for_tools(plan.covcheck_dir.clone())
    };
    let started = Instant::now();
    let jobs = pool::jobs(None, properties.len());
    let replay = |_, property, _: &Sender<()>| replay_property(property, &settings);
    let results = pool::in_parallel(jobs, &properties, replay, |()| {});
    let elapsed = started.elapsed();

    // Each seed's line was printed as it finished; the failures' messages
    // come together here, as `cargo test` prints them.
    let (mut seeds, mut failed, mut errors) = (0, 0, 0);
    let mut failures = String::new();
    for (property, result) in properties.iter().zip(&results) {
        let name = &property.listing.full_path;
        match result {
            Ok(results) => {
                for seed in results {
                    seeds += 1;
                    if !seed.passed {
                        failed += 1;
                        failures.push_str(&format!(
                            "\n---- seed {name} {} ({}) ----\n{}\n",
                            seed.file, seed.kind, seed.message
                        ));
                        if !seed.location.is_empty() {
                            failures.push_str(&format!("at {}\n", seed.location));
                        }
                    }
                }
            }
            Err(problem) => {
                errors += 1;
                failures.push_str(&format!("\nerror: {name}: {problem}\n"));
            }
        }
    }
    if !failures.is_empty() {
        println!("\nfailures:{failures}");
    }
    for property in &properties {
        let files = property.seed_files();
        if files.is_empty() {
            continue;
        }
        let record = CoverageRecord::load(&CoverageRecord::path(
            &plan.covcheck_dir,
            &property_key(property),
        ));
        let coverage = match record {
            Some(record) => record
                .coverage_of(files.iter().map(String::as_str))
                .describe(),
            None => "seed-suite coverage not measured yet: run `cargo covcheck minimize`".into(),
        };
        println!("{}: {coverage}", property.listing.full_path);
    }
    println!(
        "\ncovcheck replay: {seeds} seeds of {} in {:.0} ms: {} passed, {failed} failed{}",
        crate::report::properties(properties.len()),
        elapsed.as_secs_f64() * 1000.0,
        seeds - failed,
        if errors > 0 {
            format!(", {errors} properties could not be replayed")
        } else {
            String::new()
        }
    );
    if let Some(path) = &args.junit {
        write_junit(path, &properties, &results, elapsed)?;
        println!("JUnit report: {}", path.display());
    }
    Ok(Outcome::of(failed > 0, errors > 0))
}

/// Replays the seeds of one property, restarting the worker after a seed
/// that killed it.
fn replay_property(
    property: &Property,
    settings: &Settings,
) -> Result<Vec<SeedResult>, WorkerError> {
    let mut results: Vec<SeedResult> = Vec::new();
    loop {
        let skip = results.iter().map(|r| r.file.clone()).collect();
        let (work, config) = tool_request(property, settings, WorkerMode::Replay { skip });
        let outcome = run_worker(property, &work, &config, settings, |event| {
            if let Event::SeedReplayed(seed) = event {
                print_verdict(property, seed);
            }
        })?;
        results.extend(outcome.replayed);
        if let Some((file, kind)) = outcome.seed_in_flight {
            let how = outcome.death.map_or_else(
                || "the test binary ended".to_string(),
                |d| format!("{}: {}", d.kind.describe(), d.detail),
            );
            let died = SeedResult {
                file,
                kind,
                passed: false,
                message: format!(
                    "the test binary died replaying this seed ({how}); its last output:\n{}",
                    tail(&work.join("replay.log"), 8)
                ),
                location: String::new(),
                micros: 0,
            };
            print_verdict(property, &died);
            results.push(died);
            continue;
        }
        if !outcome.errors.is_empty() {
            return Err(WorkerError::Several(outcome.errors));
        }
        if !outcome.done {
            return Err(WorkerError::EndedEarly {
                log: work.join("replay.log"),
            });
        }
        return Ok(results);
    }
}

/// A seed's line, as soon as it has run (properties replay in parallel, so
/// each line names its property).
fn print_verdict(property: &Property, seed: &SeedResult) {
    let verdict = if seed.passed { "ok" } else { "FAILED" };
    println!(
        "seed {} {} ({}) ... {verdict}",
        property.listing.full_path, seed.file, seed.kind
    );
}

/// One `<testsuite>` per property, one `<testcase>` per seed.
fn write_junit(
    path: &Path,
    properties: &[Property],
    results: &[Result<Vec<SeedResult>, WorkerError>],
    elapsed: Duration,
) -> Result<(), Error> {
    let mut report = Report::new("covcheck replay");
    report.set_time(elapsed);
    for (property, result) in properties.iter().zip(results) {
        let name = property.listing.full_path.as_str();
        let mut suite = TestSuite::new(name);
        match result {
            Ok(seeds) => {
                for seed in seeds {
                    let status = if seed.passed {
                        TestCaseStatus::success()
                    } else {
                        let mut status = TestCaseStatus::non_success(NonSuccessKind::Failure);
                        status
                            .set_message(seed.message.lines().next().unwrap_or_default())
                            .set_type(format!("{} seed", seed.kind))
                            .set_description(format!("{}\nat {}", seed.message, seed.location));
                        status
                    };
                    let mut case = TestCase::new(seed.file.as_str(), status);
                    case.set_classname(name)
                        .set_time(Duration::from_micros(seed.micros));
                    suite.add_test_case(case);
                }
            }
            Err(problem) => {
                let mut status = TestCaseStatus::non_success(NonSuccessKind::Error);
                status.set_message(problem.to_string());
                let mut case = TestCase::new("(replay)", status);
                case.set_classname(name);
                suite.add_test_case(case);
            }
        }
        report.add_test_suite(suite);
    }
    let xml = report.to_string()?;
    crate::atomic::write_atomically(path, xml.as_bytes()).map_err(Error::Junit)
}
