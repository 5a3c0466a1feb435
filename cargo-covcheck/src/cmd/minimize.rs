//! `cargo covcheck minimize`: turns a campaign's corpus cache and the saved
//! seeds into the smallest suite of small inputs that keeps every coverage
//! feature, and with `--save` keeps it as covering seeds.
//!
//! The measuring, set cover and shrinking happen in a worker on the
//! instrumented build (covcheck-rt's `engine/minimize`); this side writes
//! the seeds, and only deletes covering seeds the suite no longer needs
//! when `--prune` says so. Failure seeds are never touched. What it did goes
//! to the reporter as one [`Event::Minimized`] per property.

use std::path::{Path, PathBuf};
use std::sync::mpsc::Sender;

use covcheck_protocol::seeds::{Seed, SeedFile, SeedKind, SeedStore};
use covcheck_protocol::worker::{CAMPAIGN_MAX_LEN, MinimizeReport, WorkerMode};

use crate::cli::MinimizeArgs;
use crate::compile::Build;
use crate::discover::{Filter, Property};
use crate::error::{Error, MinimizeError, WorkerError};
use crate::events::{
    FailureSeed, JudgedDeath, Minimized, PropertyMinimized, Saving, Stale, Suite, Written,
};
use crate::exit::Outcome;
use crate::report::{Event, Reporter};
use crate::suite_reach::CoverageRecord;
use crate::supervise::{Settings, pool, property_key, run_worker, shrink_crash, tool_request};

pub fn run(args: &MinimizeArgs, reporter: &mut dyn Reporter) -> Result<Outcome, Error> {
    let filter = Filter {
        text: args.filter.as_deref(),
        exact: args.exact,
    };
    let (plan, properties) =
        super::build_and_discover(&args.build, filter, Build::Instrumented, reporter)?;
    if properties.is_empty() {
        return Ok(Outcome::NothingTested);
    }
    let settings = Settings {
        timeout: args.limits.timeout,
        rss_limit_mb: args.limits.rss_limit_mb,
        ..Settings::for_tools(plan.covcheck_dir.clone())
    };
    let jobs = pool::jobs(args.jobs, properties.len());
    let measure = |_, property, _: &Sender<()>| measure(property, &settings);
    let results = pool::in_parallel(jobs, &properties, measure, |()| {});
    let mut outcome = Outcome::Passed;
    for (property, result) in properties.iter().zip(results) {
        let minimized = PropertyMinimized {
            property,
            result: result.map(|measured| keep(property, measured, args, &plan.covcheck_dir)),
        };
        outcome = outcome.worst(minimized.outcome());
        reporter.report(Event::Minimized(&minimized));
    }
    Ok(outcome)
}

/// How often a property's minimize worker is restarted after an input
/// ended it, before minimize gives up on the property.
const MAX_RESTARTS: usize = 16;

/// What the minimize workers of one property reported, and the inputs that
/// ended one of them (crashes and hangs, left out of the suite), as judged
/// when run alone.
struct Measured {
    report: Box<MinimizeReport>,
    /// Failures have no seed yet: `keep` decides where they are kept.
    deaths: Vec<JudgedDeath>,
}

/// Runs the minimize worker of one property. An input that crashes or hangs
/// ends the worker; a new one starts that skips it, so that one bad corpus
/// entry (or shrinking candidate) does not cost the whole suite.
///
/// Each such input is first run alone, as a campaign does before it saves
/// a death: one that fails again is a failure (shown by its value, and
/// saved with `--save`); one that passes (a timeout on a busy machine) is
/// measured again, and left out only if it ends a worker a second time.
fn measure(property: &Property, settings: &Settings) -> Result<Measured, MinimizeError> {
    let mut judged: Vec<JudgedDeath> = Vec::new();
    let mut skip: Vec<Vec<u64>> = Vec::new();
    let mut passed_once: Vec<Vec<u64>> = Vec::new();
    loop {
        let mode = WorkerMode::Minimize { skip: skip.clone() };
        let (work, config) = tool_request(property, settings, mode);
        let outcome = run_worker(property, &work, &config, settings, |_| {})?;
        if let Some(report) = outcome.minimized {
            return Ok(Measured {
                report,
                deaths: judged,
            });
        }
        let Some(death) = outcome.death else {
            return Err(if outcome.errors.is_empty() {
                WorkerError::NoReport.into()
            } else {
                WorkerError::Several(outcome.errors).into()
            });
        };
        let again = skip.contains(&death.choices);
        if again || skip.len() + passed_once.len() >= MAX_RESTARTS {
            return Err(MinimizeError::KeepsDying { death, again });
        }
        match shrink_crash(property, &work, &config, settings, &death) {
            Ok(finding) => {
                skip.push(death.choices.clone());
                judged.push(JudgedDeath::Failure {
                    death,
                    finding: Box::new(finding),
                    seed: FailureSeed::NotSaved,
                });
            }
            Err(_) if !passed_once.contains(&death.choices) => {
                passed_once.push(death.choices);
            }
            Err(problem) => {
                skip.push(death.choices.clone());
                let problem = problem.to_string();
                judged.push(JudgedDeath::PassedAlone { death, problem });
            }
        }
    }
}

/// Keeps what was measured: the suite as covering seeds (with `--save`),
/// and the coverage record that `replay` reports from.
fn keep(
    property: &Property,
    measured: Measured,
    args: &MinimizeArgs,
    covcheck_dir: &Path,
) -> Minimized {
    let Measured { report, deaths } = measured;
    let deaths = deaths
        .into_iter()
        .map(|judged| keep_failure(property, judged, args.save))
        .collect();
    let mut record = CoverageRecord {
        // Shrinking can reach features the campaign did not.
        features: report.measured.features.max(report.after.features),
        seeds: report.seed_features.iter().cloned().collect(),
    };
    let suite = if report.measured.inputs == 0 {
        Suite::NoCorpus
    } else if args.save {
        Suite::Saved(save(property, &report, args.prune, &mut record))
    } else {
        Suite::NotSaved
    };
    // What the seeds on disk now cover, as `replay` will report it.
    let files = property.seed_files();
    let coverage = record.coverage_of(files.iter().map(String::as_str));
    let record_path = CoverageRecord::path(covcheck_dir, &property_key(property));
    Minimized {
        report,
        deaths,
        suite,
        coverage,
        record_error: record.save(&record_path).err(),
    }
}

/// Where the failure an input showed is kept: in the seed file that holds
/// the input already, else (with `save`) in a new failure seed.
fn keep_failure(property: &Property, judged: JudgedDeath, save: bool) -> JudgedDeath {
    let JudgedDeath::Failure { death, finding, .. } = judged else {
        return judged;
    };
    let store = property.seed_store();
    let (seeds, _) = store.load_valid();
    let seed = match seeds.iter().find(|s| s.indices == death.choices) {
        Some(existing) => FailureSeed::Existing(existing.path.clone()),
        None if !save => FailureSeed::NotSaved,
        None => {
            let file = finding.seed_file(&property.listing.full_path, false);
            match store.save(&file) {
                Ok(path) => FailureSeed::Saved(path),
                Err(error) => FailureSeed::Failed(format!("{}: {error}", store.dir().display())),
            }
        }
    };
    JudgedDeath::Failure {
        death,
        finding,
        seed,
    }
}

/// Writes the selected inputs as covering seeds, lists the covering seeds no
/// longer needed and, with `prune`, deletes them; as far as it gets.
fn save(
    property: &Property,
    report: &MinimizeReport,
    prune: bool,
    record: &mut CoverageRecord,
) -> Saving {
    let mut saving = Saving {
        written: None,
        failing: Vec::new(),
        stale: Stale::Listed(Vec::new()),
        error: None,
    };
    if let Err(error) = save_into(&mut saving, property, report, prune, record) {
        saving.error = Some(error);
    }
    saving
}

fn save_into(
    saving: &mut Saving,
    property: &Property,
    report: &MinimizeReport,
    prune: bool,
    record: &mut CoverageRecord,
) -> Result<(), MinimizeError> {
    let store = property.seed_store();
    let before = store.load()?;
    let (kept, new) = write_selected(&store, property, report, &before, record)?;
    saving.written = Some(Written {
        seeds: report.selected.len(),
        new,
        dir: store.dir().to_path_buf(),
    });
    // Covering seeds that now fail (panic, crash or hang) are never stale:
    // each shows a bug, which `cargo test` reports until it is fixed.
    let (failing, stale): (Vec<&Seed>, Vec<&Seed>) = before
        .iter()
        .filter(|s| s.file.kind == SeedKind::Covering && !kept.contains(&s.file_name()))
        .partition(|s| report.failing_seeds.contains(&s.file_name()));
    saving.failing = failing.iter().map(|s| s.path.clone()).collect();
    let stale: Vec<PathBuf> = stale.into_iter().map(|s| s.path.clone()).collect();
    if !prune {
        saving.stale = Stale::Listed(stale);
        return Ok(());
    }
    let mut deleted = Vec::new();
    let result = stale.into_iter().try_for_each(|path| {
        std::fs::remove_file(&path).map_err(|source| MinimizeError::Delete {
            path: path.clone(),
            source,
        })?;
        deleted.push(path);
        Ok(())
    });
    saving.stale = Stale::Deleted(deleted);
    result
}

/// Writes the selected inputs that are not covering seeds already; returns
/// the file names of the suite's seeds and how many are new.
fn write_selected(
    store: &SeedStore,
    property: &Property,
    report: &MinimizeReport,
    before: &[Seed],
    record: &mut CoverageRecord,
) -> Result<(Vec<String>, usize), MinimizeError> {
    let mut kept = Vec::new();
    let mut new = 0;
    for input in &report.selected {
        // Measured and shrunk under the campaign's limits.
        let file = SeedFile::covering(
            &property.listing.full_path,
            &input.choices,
            Some(CAMPAIGN_MAX_LEN),
            &input.args,
        );
        // A covering seed with the same choices stays as it is, name and all.
        let existing = before
            .iter()
            .find(|s| s.file.kind == SeedKind::Covering && s.indices == input.choices);
        let path = match existing {
            Some(seed) => seed.path.clone(),
            None => {
                new += 1;
                store
                    .save(&file)
                    .map_err(|source| MinimizeError::SaveSeed {
                        dir: store.dir().to_path_buf(),
                        source,
                    })?
            }
        };
        if let Some(name) = path.file_name() {
            let name = name.to_string_lossy().into_owned();
            record.seeds.insert(name.clone(), input.features.clone());
            kept.push(name);
        }
    }
    Ok((kept, new))
}
