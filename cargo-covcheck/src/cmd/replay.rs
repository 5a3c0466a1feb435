//! `cargo covcheck replay`: the CI step. Every saved seed of every property
//! runs once on the normal test build (what `cargo test` builds, shared with
//! it), with no random cases, and is reported as its own test case, on the
//! terminal and optionally as JUnit XML.
//!
//! A seed that kills the test binary (a crash seed whose bug is still there)
//! is reported as failed, and a new worker goes on with the seeds after it.

use std::path::Path;
use std::sync::mpsc::Sender;
use std::time::Instant;

use covcheck_protocol::worker::{Event as WorkerEvent, SeedResult, WorkerMode};

use crate::cli::ReplayArgs;
use crate::compile::Build;
use crate::discover::{Filter, Property};
use crate::error::{Error, WorkerError};
use crate::events::ReplaySummary;
use crate::exit::Outcome;
use crate::report::{Event, Reporter, junit};
use crate::suite_reach::{CoverageRecord, SuiteCoverage};
use crate::supervise::{Settings, pool, property_key, run_worker, tail, tool_request};

pub fn run(args: &ReplayArgs, reporter: &mut dyn Reporter) -> Result<Outcome, Error> {
    let filter = Filter {
        text: args.filter.as_deref(),
        exact: args.exact,
    };
    let build = if args.perf { Build::Perf } else { Build::Plain };
    let (plan, properties) = super::build_and_discover(&args.build, filter, build, reporter)?;
    if properties.is_empty() {
        return Ok(Outcome::NothingTested);
    }
    let settings = Settings {
        timeout: covcheck_protocol::limits::hang_limit(),
        ..Settings::for_tools(plan.covcheck_dir.clone())
    };
    let started = Instant::now();
    let results = pool::in_parallel(
        pool::jobs(None, properties.len()),
        &properties,
        |_, property, events| replay_property(property, &settings, events),
        |event| reporter.report(event),
    );
    let elapsed = started.elapsed();
    let summary = ReplaySummary {
        results: properties.iter().zip(results).collect(),
        coverage: properties
            .iter()
            .filter_map(|p| seed_suite_reach(p, &plan.covcheck_dir))
            .collect(),
        elapsed,
    };
    reporter.report(Event::ReplayFinished(&summary));
    if let Some(path) = &args.junit {
        let xml = junit::xml(&summary)?;
        crate::atomic::write_atomically(path, xml.as_bytes()).map_err(Error::Junit)?;
        reporter.report(Event::JunitWritten(path));
    }
    Ok(summary.outcome())
}

/// What the seeds of `property` on disk now cover, by the record of the
/// last `minimize` (`None` without one); nothing for a property with no seeds.
fn seed_suite_reach<'a>(
    property: &'a Property,
    covcheck_dir: &Path,
) -> Option<(&'a Property, Option<SuiteCoverage>)> {
    let files = property.seed_files();
    if files.is_empty() {
        return None;
    }
    let record = CoverageRecord::load(&CoverageRecord::path(covcheck_dir, &property_key(property)));
    let coverage = record.map(|r| r.coverage_of(files.iter().map(String::as_str)));
    Some((property, coverage))
}

/// Replays the seeds of one property, restarting the worker after a seed
/// that killed it; sends each seed's result as it comes.
fn replay_property<'a>(
    property: &'a Property,
    settings: &Settings,
    events: &Sender<Event<'a>>,
) -> Result<Vec<SeedResult>, WorkerError> {
    let replayed = |seed: &SeedResult| {
        let _ = events.send(Event::SeedReplayed {
            property,
            seed: seed.clone(),
        });
    };
    let mut results: Vec<SeedResult> = Vec::new();
    loop {
        let skip = results.iter().map(|r| r.file.clone()).collect();
        let (work, config) = tool_request(property, settings, WorkerMode::Replay { skip });
        let outcome = run_worker(property, &work, &config, settings, |event| {
            if let WorkerEvent::SeedReplayed(seed) = event {
                replayed(seed);
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
                path: 0,
                micros: 0,
            };
            replayed(&died);
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
