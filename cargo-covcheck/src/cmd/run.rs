//! `cargo covcheck` and `cargo covcheck run`: a coverage-guided campaign for
//! every selected property, a few at a time, with live status and a summary.

use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use crate::changed::{Aim, ChangedLines};
use crate::cli::{ReportArgs, RunArgs};
use crate::compile::{Build, Plan};
use crate::discover::{Filter, Property};
use crate::engine::Unusable;
use crate::error::Error;
use crate::events::{RunSummary, Update};
use crate::exit::Outcome;
use crate::network::{self, Network};
use crate::report::{Event, Reporter, cost_plot};
use crate::supervise::campaign::{Seat, Sharing};
use crate::supervise::schedule::{Schedule, Total};
use crate::supervise::{self, Settings, pool};
use crate::{interrupt, literals};

use super::since;

/// Time per property when neither `--time` nor `--runs` is given.
const DEFAULT_TIME: Duration = Duration::from_secs(60);

pub fn run(args: &RunArgs, reporter: &mut dyn Reporter) -> Result<Outcome, Error> {
    let filter = Filter {
        text: args.filter.as_deref(),
        exact: args.exact,
    };
    // Read before the build: a wrong revision is known at once.
    let change = (args.since.as_deref())
        .map(|rev| since::read_change(rev, args.build.manifest_path.as_deref()))
        .transpose()?;
    let (plan, mut properties) = build_and_discover(args, filter, reporter)?;
    if properties.is_empty() {
        return Ok(Outcome::NothingTested);
    }
    ensure_engine(&plan, reporter)?;
    let mut settings = settings(args, &plan, &properties, reporter);
    // `-j` counts workers: what the properties leave over goes to them.
    let (workers, capped) = pool::capped_jobs(args.jobs);
    if let Some(capped) = capped {
        reporter.report(Event::Warning(capped));
    }
    let aim = match &change {
        Some(change) => {
            let aim = since::aim_at(change, &mut properties, &settings, workers)?;
            reporter.report(Event::Aimed(&since::aimed(change, &aim, &properties)));
            Some(aim)
        }
        None => None,
    };
    let reaching: Vec<bool> = (aim.iter())
        .flat_map(|a| a.reached.iter().map(|r| !r.is_empty()))
        .collect();
    let schedule = shared_budget(args, &mut settings, properties.len(), workers, &reaching);
    let started = Instant::now();
    reporter.report(Event::CampaignsStarting {
        properties: properties.len(),
        jobs: workers,
        seed: settings.seed,
    });
    let network = network(args, &plan, &properties, &settings)?;
    if let Some(network) = &network {
        reporter.report(Event::Network(network));
    }
    interrupt::install();
    let seats = Seats {
        sharing: network.as_ref().map_or(Sharing::Local, Sharing::Network),
        schedule: schedule.as_ref(),
        focus: since::focus(aim.as_ref(), &properties),
        jobs: workers,
        workers: pool::workers_per_item(workers, properties.len()),
    };
    let summaries = campaigns(&properties, &settings, &seats, reporter);
    drop(network);
    let summary = RunSummary {
        rows: properties.iter().zip(summaries).collect(),
        interrupted: interrupt::interrupted(),
    };
    reporter.report(Event::CampaignsFinished(&summary));
    let after = AfterCampaigns {
        filter,
        settings: &settings,
        workers,
        aimed: change.as_ref().zip(aim.as_ref()),
        properties: &properties,
        elapsed: started.elapsed(),
    };
    Ok(after.conclude(args, &summary, reporter))
}

/// Builds the campaign engine if it is not built (or damaged). Only
/// campaigns load it: built after the tests, so that a crate that does not
/// compile, or has no properties, hears so first.
fn ensure_engine(plan: &Plan, reporter: &mut dyn Reporter) -> Result<(), Error> {
    if let Err(unusable) = plan.engine.check() {
        match &unusable {
            Unusable::Damaged(damage) => reporter.report(Event::EngineDamaged(damage)),
            Unusable::NotBuilt => reporter.report(Event::EngineBuilding {
                dir: plan.engine.root(),
            }),
        }
        plan.engine.build()?;
    }
    Ok(())
}

/// Where each property's campaign gets its workers from.
struct Seats<'s> {
    sharing: Sharing<'s>,
    /// The run's shared budget, if it has one.
    schedule: Option<&'s Schedule>,
    /// Per property, the counters of changed code (`--since`).
    focus: Vec<Vec<u32>>,
    /// Worker processes in all (`-j`), and per property.
    jobs: usize,
    workers: Vec<usize>,
}

/// Every property's campaign, a few at a time (all at once with a shared
/// budget: each then waits for the slots the schedule gives it), their
/// events reported as they come.
fn campaigns(
    properties: &[Property],
    settings: &Settings,
    seats: &Seats<'_>,
    reporter: &mut dyn Reporter,
) -> Vec<crate::events::Summary> {
    let at_once = match seats.schedule {
        Some(_) => properties.len(),
        None => seats.jobs.min(properties.len()),
    };
    pool::in_parallel(
        at_once,
        properties,
        |index, property, events| {
            let seat = Seat {
                sharing: seats.sharing,
                schedule: seats.schedule,
                focus: &seats.focus[index],
            };
            let workers = seats.workers[index];
            supervise::run_property(index, property, settings, workers, seat, events)
        },
        |mut event| {
            with_cost_plot(&mut event, &settings.covcheck_dir);
            reporter.report(event)
        },
    )
}

/// What the run still has to say once its campaigns ended.
struct AfterCampaigns<'a> {
    filter: Filter<'a>,
    settings: &'a Settings,
    workers: usize,
    /// The change and the aim at it (`--since`).
    aimed: Option<(&'a ChangedLines, &'a Aim)>,
    properties: &'a [Property],
    elapsed: Duration,
}

impl AfterCampaigns<'_> {
    /// The changed lines no property reached, the JUnit file and the
    /// coverage report, as asked; the run's outcome. None of them, failing,
    /// hides a failure's exit 1: the findings are saved and reported.
    fn conclude(
        &self,
        args: &RunArgs,
        summary: &RunSummary<'_>,
        reporter: &mut dyn Reporter,
    ) -> Outcome {
        let mut outcome = summary.outcome();
        if let (Some((change, aim)), None) = (self.aimed, summary.interrupted) {
            let measure = (&args.build, self.filter, self.settings, self.workers);
            match since::reach_of_change(change, aim, self.properties, measure, reporter) {
                Ok(reach) => reporter.report(Event::ChangeReached(&reach)),
                Err(error) => {
                    let problem =
                        format!("the changed lines no property reached are unknown: {error}");
                    reporter.report(Event::Warning(problem));
                    outcome = outcome.worst(Outcome::InternalError);
                }
            }
        }
        if let Some(path) = &args.junit {
            match write_junit(path, summary, self.elapsed) {
                Ok(()) => reporter.report(Event::JunitWritten(path)),
                Err(error) => {
                    reporter.report(Event::Warning(error.to_string()));
                    outcome = outcome.worst(Outcome::InternalError);
                }
            }
        }
        if args.report && summary.interrupted.is_none() {
            let report = ReportArgs {
                filter: args.filter.clone(),
                exact: args.exact,
                build: args.build.clone(),
                jobs: args.jobs,
                limits: args.limits.clone(),
                message_format: args.message_format,
                ..ReportArgs::default()
            };
            let reported = super::report::run(&report, reporter).unwrap_or_else(|error| {
                reporter.report(Event::Warning(format!("no coverage report: {error}")));
                Outcome::InternalError
            });
            outcome = outcome.worst(reported);
        }
        outcome
    }
}

/// Writes the campaign's JUnit report to `path`.
fn write_junit(
    path: &std::path::Path,
    summary: &RunSummary<'_>,
    elapsed: Duration,
) -> Result<(), Error> {
    let xml = crate::report::junit::campaign_xml(summary, elapsed)?;
    crate::atomic::write_atomically(path, xml.as_bytes()).map_err(Error::Junit)
}

/// The schedule of a budget for the whole run (`--time-total`,
/// `--runs-total`), when the properties must share the workers; with a
/// worker for each, every property simply gets the whole budget.
fn shared_budget(
    args: &RunArgs,
    settings: &mut Settings,
    properties: usize,
    workers: usize,
    reaching_change: &[bool],
) -> Option<Schedule> {
    let total = match (args.time_total, args.runs_total) {
        (Some(time), _) => Total::Time(time),
        (None, Some(runs)) => Total::Runs(runs),
        (None, None) => return None,
    };
    if properties <= workers {
        (settings.time, settings.runs) = match total {
            Total::Time(time) => (Some(time), None),
            Total::Runs(runs) => (None, Some(runs.div_ceil(properties.max(1) as u64))),
        };
        return None;
    }
    (settings.time, settings.runs) = (None, None);
    Some(Schedule::new(total, properties, workers, reaching_change))
}

/// The properties to run, each from the build its mode needs: with
/// `--perf`, all of them in performance mode on its build; otherwise those
/// marked `#[covcheck(perf)]` from that build and the others from the
/// instrumented build (built only when some property needs it).
fn build_and_discover(
    args: &RunArgs,
    filter: Filter<'_>,
    reporter: &mut dyn Reporter,
) -> Result<(Plan, Vec<Property>), Error> {
    if args.perf {
        let (plan, mut properties) =
            super::build_and_discover(&args.build, filter, Build::Perf, reporter)?;
        for property in &mut properties {
            property.listing.perf = true;
        }
        return Ok((plan, properties));
    }
    let (plan, mut properties) =
        super::build_and_discover(&args.build, filter, Build::Instrumented, reporter)?;
    if properties.iter().any(|p| p.listing.perf) {
        let (_, perf) = super::build_and_discover(&args.build, filter, Build::Perf, reporter)?;
        for property in properties.iter_mut().filter(|p| p.listing.perf) {
            let same = perf
                .iter()
                .find(|q| q.listing.full_path == property.listing.full_path);
            if let Some(same) = same {
                property.binary = same.binary.clone();
            }
        }
    }
    Ok((plan, properties))
}

/// The campaign across machines `--listen` or `--join` asks for.
fn network(
    args: &RunArgs,
    plan: &Plan,
    properties: &[Property],
    settings: &Settings,
) -> Result<Option<Network>, Error> {
    let (address, take_part): (_, fn(_, _, _, _, _) -> _) = match (&args.listen, &args.join) {
        (Some(address), _) => (address, network::listen),
        (None, Some(address)) => (address, network::join),
        (None, None) => return Ok(None),
    };
    let work = supervise::paths::this_run_dir(&plan.covcheck_dir);
    std::fs::create_dir_all(&work).map_err(|source| crate::error::BuildError::Create {
        path: work.clone(),
        source,
    })?;
    let broker = &plan.engine.broker;
    let network = take_part(address, properties, broker, &work, settings.keep_going)?;
    Ok(Some(network))
}

/// The campaigns' settings from the command line, with the dictionary of
/// the packages' literals written (or a warning why not).
fn settings(
    args: &RunArgs,
    plan: &Plan,
    properties: &[Property],
    reporter: &mut dyn Reporter,
) -> Settings {
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
        reporter.report(Event::NoDictionary(error));
    }
    let seed = args.seed.unwrap_or_else(|| {
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64)
    });
    Settings {
        runs: args.runs,
        time: args
            .time
            .or(if args.runs.is_none() && args.runs_total.is_none() {
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
        steer_targets: !args.no_target,
        value_profile: args.value_profile,
        dictionary,
        seed,
        covcheck_dir: plan.covcheck_dir.clone(),
        engine: Some(plan.engine.path.clone()),
        broker: Some(plan.engine.broker.clone()),
    }
}

/// Draws the cost plot of a performance campaign that just finished, so
/// that its summary can say where the plot is.
fn with_cost_plot(event: &mut Event<'_>, covcheck_dir: &std::path::Path) {
    if let Event::Campaign {
        property,
        update: Update::Finished(summary),
        ..
    } = event
        && let Some(perf) = &mut summary.perf
    {
        let key = crate::supervise::property_key(property);
        perf.plot = cost_plot::write(&covcheck_dir.join("perf"), &key, property, perf);
    }
}
