//! `cargo covcheck`: builds a crate's tests with SanitizerCoverage, asks the
//! test binaries for their `#[covcheck]` properties and runs a coverage-guided
//! campaign per property in supervised worker processes.
//!
//! Data flows one way: [`compile`] (instrumented build) → [`discover`]
//! (properties from the binaries) → [`supervise`] (workers, crash recovery,
//! seeds) → [`report`] (what the user sees). The same executable also serves
//! as cargo's rustc wrapper during the build ([`wrapper`]).
//!
//! The seed-suite commands use the same pieces: [`minimize`] (covering seeds
//! by set cover, on the instrumented build) and [`replay`] (every seed as a
//! test case, on the normal build), with [`suite_coverage`] between them.

mod atomic;
mod cli;
mod compile;
mod conflict;
mod discover;
mod instrument;
mod interrupt;
mod literals;
mod minimize;
mod replay;
mod report;
mod suite_coverage;
mod supervise;
mod wrapper;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use clap::Parser;

use crate::cli::{Cargo, Command, ListArgs, RunArgs};
use crate::discover::Property;
use crate::report::Reporter;
use crate::supervise::Settings;

/// Time per property when neither `--time` nor `--runs` is given.
const DEFAULT_TIME: Duration = Duration::from_secs(60);

fn main() {
    if std::env::var_os(wrapper::WRAPPER_ENV).is_some() {
        wrapper::run(std::env::args_os().skip(1).collect());
    }
    let Cargo::Covcheck(args) = Cargo::parse();
    let code = match args.command {
        Some(Command::List(list)) => run_list(&list),
        Some(Command::Run(run)) => run_campaigns(&run),
        Some(Command::Minimize(args)) => minimize::run(&args),
        Some(Command::Replay(args)) => replay::run(&args),
        None => run_campaigns(&args.run),
    };
    std::process::exit(code.unwrap_or_else(|message| {
        eprintln!("error: {message}");
        2
    }));
}

/// Exit status when no property matched, so nothing was tested (the code
/// cargo-nextest uses for "no tests to run").
pub(crate) const EXIT_NOTHING_TESTED: i32 = 4;

fn build_and_discover(
    build: &cli::BuildArgs,
    filter: discover::Filter<'_>,
    kind: compile::Build,
) -> Result<(compile::Plan, Vec<Property>), String> {
    let plan = compile::plan(build)?;
    supervise::remove_finished_work_dirs(&plan.covcheck_dir);
    let binaries = compile::build(&plan, build, kind)?;
    let mut properties = discover::discover(&binaries, filter)?;
    for property in &mut properties {
        property.manifest_path.clone_from(&build.manifest_path);
    }
    if properties.is_empty() {
        let note = filter
            .text
            .map(|f| format!(" match `{f}`; `cargo covcheck list` shows them all"))
            .unwrap_or_default();
        eprintln!("no #[covcheck] properties{note}");
    }
    Ok((plan, properties))
}

fn run_list(args: &ListArgs) -> Result<i32, String> {
    let filter = discover::Filter {
        text: args.filter.as_deref(),
        exact: false,
    };
    let (_, properties) = build_and_discover(&args.build, filter, compile::Build::Instrumented)?;
    for property in &properties {
        let (seeds, unreadable) = property.seed_store().load_valid();
        println!("{}  ({} seeds)", property.listing.full_path, seeds.len());
        for error in unreadable {
            eprintln!("warning: {error}");
        }
    }
    Ok(0)
}

fn run_campaigns(args: &RunArgs) -> Result<i32, String> {
    let filter = discover::Filter {
        text: args.filter.as_deref(),
        exact: args.exact,
    };
    let (plan, properties) = build_and_discover(&args.build, filter, compile::Build::Instrumented)?;
    if properties.is_empty() {
        return Ok(EXIT_NOTHING_TESTED);
    }
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
    let settings = Settings {
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
    };
    let jobs = args
        .jobs
        .unwrap_or_else(supervise::default_jobs)
        .clamp(1, properties.len());
    if args.message_format == cli::MessageFormat::Human {
        eprintln!(
            "covcheck: {}, {} at a time, RNG seed {seed}",
            report::properties(properties.len()),
            jobs
        );
    }
    interrupt::install();
    let (tx, rx) = mpsc::channel();
    let next = AtomicUsize::new(0);
    let mut reporter = Reporter::new(args.message_format, &properties);
    std::thread::scope(|scope| {
        for _ in 0..jobs {
            let tx = tx.clone();
            let (next, properties, settings) = (&next, &properties, &settings);
            scope.spawn(move || {
                loop {
                    let index = next.fetch_add(1, Ordering::SeqCst);
                    let Some(property) = properties.get(index) else {
                        break;
                    };
                    supervise::run_property(index, property, settings, &tx);
                }
            });
        }
        drop(tx);
        for update in rx {
            reporter.handle(update);
        }
    });
    let interrupted = interrupt::interrupted();
    let code = reporter.finish(interrupted.map(interrupt::signal_name));
    Ok(interrupted.map_or(code, |signal| 128 + signal))
}
