//! `cargo covcheck minimize`: turns a campaign's corpus cache and the saved
//! seeds into the smallest suite of small inputs that keeps every coverage
//! feature, and with `--save` keeps it as covering seeds.
//!
//! The measuring, set cover and shrinking happen in a worker on the
//! instrumented build (`covcheck_rt::engine::minimize`); this side reports,
//! writes the seeds, and only deletes covering seeds the suite no longer
//! needs when `--prune` says so. Failure seeds are never touched.

use std::path::PathBuf;
use std::sync::mpsc::Sender;

use covcheck_protocol::seeds::{Seed, SeedFile, SeedKind};
use covcheck_protocol::worker::{CAMPAIGN_MAX_LEN, MinimizeReport, SuiteStats, WorkerMode};

use crate::cli::MinimizeArgs;
use crate::compile::Build;
use crate::discover::{Filter, Property};
use crate::error::{Error, MinimizeError, WorkerError};
use crate::exit::Outcome;
use crate::report::human_count;
use crate::suite_coverage::CoverageRecord;
use crate::supervise::{Death, Settings, pool, property_key, run_worker, tool_request};

pub fn run(args: &MinimizeArgs) -> Result<Outcome, Error> {
    let filter = Filter {
        text: args.filter.as_deref(),
        exact: args.exact,
    };
    let (plan, properties) = super::build_and_discover(&args.build, filter, Build::Instrumented)?;
    if properties.is_empty() {
        return Ok(Outcome::NothingTested);
    }
    let settings = Settings::for_tools(plan.covcheck_dir.clone());
    let settings = Settings {
        timeout: args.limits.timeout,
        rss_limit_mb: args.limits.rss_limit_mb,
        ..settings
    };
    let jobs = pool::jobs(args.jobs, properties.len());
    let measure = |_, property, _: &Sender<()>| measure(property, &settings);
    let results = pool::in_parallel(jobs, &properties, measure, |()| {});
    let mut outcome = Outcome::Passed;
    for (property, result) in properties.iter().zip(results) {
        println!("{}", property.listing.full_path);
        let Measured { report, deaths } = match result {
            Ok(measured) => measured,
            Err(problem) => {
                println!("  error: {problem}");
                outcome = outcome.worst(problem.outcome());
                continue;
            }
        };
        print_report(&report);
        print_deaths(property, &deaths);
        let record_path = CoverageRecord::path(&plan.covcheck_dir, &property_key(property));
        let mut record = CoverageRecord {
            // Shrinking can reach features the campaign did not.
            features: report.measured.features.max(report.after.features),
            seeds: report.seed_features.iter().cloned().collect(),
        };
        if report.measured.inputs == 0 {
            println!(
                "  nothing to minimize: no corpus yet; run `cargo covcheck` on this property first"
            );
        } else if args.save {
            match save(property, &report, args.prune, &mut record) {
                Ok(()) => {}
                Err(problem) => {
                    println!("  error: {problem}");
                    outcome = outcome.worst(problem.outcome());
                }
            }
        } else {
            println!("  (not saved: add --save to keep this suite as covering seeds)");
        }
        // What the seeds on disk now cover, as `replay` will report it.
        let files = property.seed_files();
        println!(
            "  {}",
            record
                .coverage_of(files.iter().map(String::as_str))
                .describe()
        );
        if let Err(problem) = record.save(&record_path) {
            println!("  warning: {problem}");
        }
    }
    Ok(outcome)
}

/// How often a property's minimize worker is restarted after an input
/// ended it, before minimize gives up on the property.
const MAX_RESTARTS: usize = 16;

/// What the minimize workers of one property reported, and the inputs that
/// ended one of them (crashes and hangs, left out of the suite).
struct Measured {
    report: Box<MinimizeReport>,
    deaths: Vec<Death>,
}

/// Runs the minimize worker of one property. An input that crashes or hangs
/// ends the worker; a new one starts that skips it, so that one bad corpus
/// entry (or shrinking candidate) does not cost the whole suite.
fn measure(property: &Property, settings: &Settings) -> Result<Measured, MinimizeError> {
    let mut deaths: Vec<Death> = Vec::new();
    loop {
        let skip = deaths.iter().map(|d| d.choices.clone()).collect();
        let (work, config) = tool_request(property, settings, WorkerMode::Minimize { skip });
        let outcome = run_worker(property, &work, &config, settings, |_| {})?;
        if let Some(report) = outcome.minimized {
            return Ok(Measured { report, deaths });
        }
        let Some(death) = outcome.death else {
            return Err(if outcome.errors.is_empty() {
                WorkerError::NoReport.into()
            } else {
                WorkerError::Several(outcome.errors).into()
            });
        };
        let again = deaths.iter().any(|d| d.choices == death.choices);
        if again || deaths.len() >= MAX_RESTARTS {
            return Err(MinimizeError::KeepsDying { death, again });
        }
        deaths.push(death);
    }
}

fn print_report(report: &MinimizeReport) {
    let line = |label: &str, stats: &SuiteStats, note: String| {
        println!(
            "  {label:<13}{:>8} inputs {:>10} bytes {:>8} features  {note}",
            human_count(stats.inputs as u64),
            human_count(stats.bytes as u64),
            human_count(stats.features as u64),
        );
    };
    let mut measured_note = format!("{} from the corpus cache", report.corpus_inputs);
    if report.failure_seeds > 0 {
        measured_note.push_str(&format!(
            ", and {} failure seed(s), always kept",
            report.failure_seeds
        ));
    }
    line("measured", &report.measured, measured_note);
    line(
        "forward pass",
        &report.forward_pass,
        "what libFuzzer's -merge=1 rule keeps".to_string(),
    );
    let ratio = report.forward_pass.inputs as f64 / report.set_cover.inputs.max(1) as f64;
    line(
        "set cover",
        &report.set_cover,
        format!("{ratio:.1}x fewer inputs than the forward pass"),
    );
    let kept = if report.measured.features == 0 {
        100.0
    } else {
        100.0 * report.kept_features as f64 / report.measured.features as f64
    };
    let mut note = format!(
        "keeps {} of the {} measured features ({kept:.0}%)",
        report.kept_features, report.measured.features
    );
    let new = report.after.features.saturating_sub(report.kept_features);
    if new > 0 {
        note.push_str(&format!(", and reaches {new} more"));
    }
    line("shrunk", &report.after, note);
    if report.failing_inputs > 0 {
        println!(
            "  {} input(s) now fail and were left out: run `cargo covcheck` to find and save the failure",
            report.failing_inputs
        );
    }
    if report.unmeasured_failure_seeds > 0 {
        println!(
            "  {} failure seed(s) of crash kinds were kept without being run",
            report.unmeasured_failure_seeds
        );
    }
}

/// Names the inputs that ended a worker: each is a bug the suite cannot
/// hold as a covering seed, which a campaign shrinks and saves.
fn print_deaths(property: &Property, deaths: &[Death]) {
    if deaths.is_empty() {
        return;
    }
    println!(
        "  {} input(s) crashed or hung the property and were left out:",
        deaths.len()
    );
    for death in deaths {
        println!(
            "    {}: {}: `{}`",
            death.kind.describe(),
            death.detail,
            SeedFile::format_indices(&death.choices)
        );
    }
    println!(
        "  to shrink and save the failure as a seed: cargo covcheck --exact {}",
        property.listing.full_path
    );
}

/// Writes the selected inputs as covering seeds, lists the covering seeds no
/// longer needed and, with `prune`, deletes them.
fn save(
    property: &Property,
    report: &MinimizeReport,
    prune: bool,
    record: &mut CoverageRecord,
) -> Result<(), MinimizeError> {
    let store = property.seed_store();
    let before = store.load()?;
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
    println!(
        "  saved {} covering seeds ({new} new) in {}",
        report.selected.len(),
        store.dir().display()
    );
    // Covering seeds that now fail (panic, crash or hang) are never stale:
    // each shows a bug, which `cargo test` reports until it is fixed.
    let (failing, stale): (Vec<&Seed>, Vec<&Seed>) = before
        .iter()
        .filter(|s| s.file.kind == SeedKind::Covering && !kept.contains(&s.file_name()))
        .partition(|s| report.failing_seeds.contains(&s.file_name()));
    if !failing.is_empty() {
        println!(
            "  {} covering seed(s) now fail and are kept, so that `cargo test` shows the bug:",
            failing.len()
        );
        for seed in &failing {
            println!("    {}", seed.path.display());
        }
    }
    let stale: Vec<PathBuf> = stale.into_iter().map(|s| s.path.clone()).collect();
    if stale.is_empty() {
        return Ok(());
    }
    if !prune {
        println!(
            "  {} covering seed(s) are no longer needed (delete them with --save --prune):",
            stale.len()
        );
        for path in &stale {
            println!("    {}", path.display());
        }
        return Ok(());
    }
    for path in &stale {
        std::fs::remove_file(path).map_err(|source| MinimizeError::Delete {
            path: path.clone(),
            source,
        })?;
        println!("  deleted {} (no longer needed)", path.display());
    }
    Ok(())
}
