//! `cargo covcheck` and `cargo covcheck run`: a coverage-guided campaign for
//! every selected property, a few at a time, with live status and a summary.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::cli::{self, RunArgs};
use crate::compile::{Build, Plan};
use crate::discover::{Filter, Property};
use crate::error::Error;
use crate::exit::Outcome;
use crate::report::{self, Reporter};
use crate::supervise::{self, Settings, pool};
use crate::{interrupt, literals};

/// Time per property when neither `--time` nor `--runs` is given.
const DEFAULT_TIME: Duration = Duration::from_secs(60);

pub fn run(args: &RunArgs) -> Result<Outcome, Error> {
    let filter = Filter {
        text: args.filter.as_deref(),
        exact: args.exact,
    };
    let (plan, properties) = super::build_and_discover(&args.build, filter, Build::Instrumented)?;
    if properties.is_empty() {
        return Ok(Outcome::NothingTested);
    }
    let settings = settings(args, &plan, &properties);
    let jobs = pool::jobs(args.jobs, properties.len());
    if args.message_format == cli::MessageFormat::Human {
        eprintln!(
            "covcheck: {}, {} at a time, RNG seed {}",
            report::properties(properties.len()),
            jobs,
            settings.seed
        );
    }
    interrupt::install();
    let mut reporter = Reporter::new(args.message_format, &properties);
    pool::in_parallel(
        jobs,
        &properties,
        |index, property, updates| supervise::run_property(index, property, &settings, updates),
        |update| reporter.handle(update),
    );
    let interrupted = interrupt::interrupted();
    let outcome = reporter.finish(interrupted.map(interrupt::signal_name));
    Ok(interrupted.map_or(outcome, Outcome::Interrupted))
}

/// The campaigns' settings from the command line, with the dictionary of
/// the packages' literals written (or a warning why not).
fn settings(args: &RunArgs, plan: &Plan, properties: &[Property]) -> Settings {
    let packages = properties
        .iter()
        .map(|p| p.listing.package.as_str())
        .collect();
    let dictionary = !args.no_dict;
    if dictionary
        && let Err(error) = literals::write_dictionaries(
            &plan.metadata,
            &plan.instrumented,
            &packages,
            &plan.covcheck_dir,
        )
    {
        eprintln!("warning: no campaign dictionary: {error}");
    }
    let seed = args.seed.unwrap_or_else(|| {
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64)
    });
    Settings {
        runs: args.runs,
        time: args.time.or(if args.runs.is_none() {
            Some(DEFAULT_TIME)
        } else {
            None
        }),
        timeout: args.limits.timeout,
        rss_limit_mb: args.limits.rss_limit_mb,
        keep_going: args.keep_going,
        resume: !args.no_resume,
        save: !args.no_save,
        cmp_mutations: !args.no_cmp,
        size_steps: !args.fixed_size,
        dictionary,
        seed,
        covcheck_dir: plan.covcheck_dir.clone(),
    }
}
