//! `cargo covcheck report` (and `cargo covcheck --report`): what the
//! campaigns reached, as HTML pages, SVG plots and `lcov.info` under
//! `<target-dir>/covcheck/report/`.
//!
//! Each property's corpus cache and seeds run once in a reach worker on the
//! instrumented build ([`crate::reach::measure`]), in its coverage flavour
//! ([`Build::Coverage`]: functions no test calls are kept, so that they
//! show as not reached); the first property of each
//! test binary also sends the binary's PC table, which [`crate::reach`]
//! symbolises into source lines. The plots come from the series every
//! campaign records as it runs.

use crate::cli::ReportArgs;
use crate::compile::{Build, Plan};
use crate::discover::{Filter, Property};
use crate::error::Error;
use crate::events::CoverageWritten;
use crate::exit::Outcome;
use crate::reach::collect::{Measured, collect};
use crate::reach::measure::corpus_reach;
use crate::reach::model::Baseline;
use crate::report::{Event, Reporter};
use crate::supervise::{Settings, pool};

pub fn run(args: &ReportArgs, reporter: &mut dyn Reporter) -> Result<Outcome, Error> {
    let filter = Filter {
        text: args.filter.as_deref(),
        exact: args.exact,
    };
    // Read first: a wrong path is known before anything is built.
    let baseline = args
        .baseline
        .as_deref()
        .map(crate::reach::baseline::read)
        .transpose()
        .map_err(Error::Baseline)?;
    let (plan, properties) =
        super::build_and_discover(&args.build, filter, Build::Coverage, reporter)?;
    if properties.is_empty() {
        return Ok(Outcome::NothingTested);
    }
    write_report(&plan, &properties, args, baseline, reporter)
}

/// Measures `properties` (built by [`Build::Coverage`]) and writes their
/// report.
fn write_report(
    plan: &Plan,
    properties: &[Property],
    args: &ReportArgs,
    baseline: Option<Baseline>,
    reporter: &mut dyn Reporter,
) -> Result<Outcome, Error> {
    let settings = Settings {
        timeout: args.limits.timeout,
        rss_limit_mb: args.limits.rss_limit_mb,
        ..Settings::for_tools(plan.covcheck_dir.clone())
    };
    let jobs = pool::jobs(args.jobs, properties.len());
    let results = corpus_reach(properties, &settings, jobs);
    let mut failed = Vec::new();
    let mut reached = Vec::new();
    for (property, result) in properties.iter().zip(results) {
        match result {
            Ok(report) => reached.push(Some(report)),
            Err(problem) => {
                failed.push((property, problem));
                reached.push(None);
            }
        }
    }
    let report = collect(Measured {
        title: plan.selected_names().join(", "),
        roots: plan.selected_roots(),
        excluded: vec![plan.covcheck_dir.clone(), plan.build_dir.clone()],
        workspace_root: plan.metadata.workspace_root.clone().into_std_path_buf(),
        covcheck_dir: plan.covcheck_dir.clone(),
        properties,
        reached,
        count_panic_paths: args.count_panic_paths,
        baseline,
    })
    .map_err(Error::Report)?;
    let dir = plan.covcheck_dir.join("report");
    let index = crate::report::site::write(&dir, &report)?;
    let written = CoverageWritten {
        report: &report,
        index,
        lcov: dir.join("lcov.info"),
        failed,
    };
    reporter.report(Event::CoverageWritten(&written));
    Ok(Outcome::of(false, !written.failed.is_empty()))
}
