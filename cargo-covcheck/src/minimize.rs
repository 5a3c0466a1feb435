//! `cargo covcheck minimize`: turns a campaign's corpus cache and the saved
//! seeds into the smallest suite of small inputs that keeps every coverage
//! feature, and with `--save` keeps it as covering seeds.
//!
//! The measuring, set cover and shrinking happen in a worker on the
//! instrumented build (`covcheck_rt::engine::minimize`); this side reports,
//! writes the seeds, and only deletes covering seeds the suite no longer
//! needs when `--prune` says so. Failure seeds are never touched.

use std::path::PathBuf;

use covcheck_rt::protocol::{MinimizeReport, SuiteStats, WorkerMode};
use covcheck_rt::store::{ArgRecord, FORMAT_VERSION, SeedFile, SeedKind, SeedStore};

use crate::cli::MinimizeArgs;
use crate::compile::Build;
use crate::discover::{Filter, Property};
use crate::report::human_count;
use crate::suite_coverage::CoverageRecord;
use crate::supervise::{Settings, in_parallel, property_key, run_worker, tool_request};

pub fn run(args: &MinimizeArgs) -> Result<i32, String> {
    let filter = Filter {
        text: args.filter.as_deref(),
        exact: args.exact,
    };
    let (plan, properties) = crate::build_and_discover(&args.build, filter, Build::Instrumented)?;
    if properties.is_empty() {
        return Ok(0);
    }
    let settings = Settings::for_tools(plan.covcheck_dir.clone());
    let reports = in_parallel(args.jobs, &properties, |property| {
        measure(property, &settings)
    });
    let mut code = 0;
    for (property, report) in properties.iter().zip(reports) {
        println!("{}", property.listing.full_path);
        let report = match report {
            Ok(report) => report,
            Err(problem) => {
                println!("  error: {problem}");
                code = 1;
                continue;
            }
        };
        print_report(&report);
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
                    code = 1;
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
    Ok(code)
}

/// Runs the minimize worker of one property.
fn measure(property: &Property, settings: &Settings) -> Result<Box<MinimizeReport>, String> {
    let (work, config) = tool_request(property, settings, WorkerMode::Minimize);
    let outcome = run_worker(property, &work, &config, settings, |_| {})?;
    if let Some(report) = outcome.minimized {
        return Ok(report);
    }
    if let Some(death) = outcome.death {
        return Err(format!(
            "the worker died ({}: {}) while running the input `{}`; run `cargo covcheck` on \
             this property to find the failure and save it as a seed",
            death.kind.describe(),
            death.detail,
            SeedFile::format_indices(&death.choices)
        ));
    }
    Err(if outcome.errors.is_empty() {
        "the worker ended without a report".to_string()
    } else {
        outcome.errors.join("\n")
    })
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

/// Writes the selected inputs as covering seeds, lists the covering seeds no
/// longer needed and, with `prune`, deletes them.
fn save(
    property: &Property,
    report: &MinimizeReport,
    prune: bool,
    record: &mut CoverageRecord,
) -> Result<(), String> {
    let store = SeedStore::in_dir(property.listing.seed_dir.clone());
    let before = store.load().map_err(|e| e.to_string())?;
    let mut kept = Vec::new();
    let mut new = 0;
    for input in &report.selected {
        let file = SeedFile {
            format: FORMAT_VERSION,
            property: property.listing.full_path.clone(),
            kind: SeedKind::Covering,
            choices: SeedFile::format_indices(&input.choices),
            failure: None,
            args: ArgRecord::from_pairs(&input.args),
        };
        let existed = before.iter().any(|s| s.indices == input.choices);
        let path = store
            .save(&file)
            .map_err(|e| format!("could not save a seed in {}: {e}", store.dir().display()))?;
        new += usize::from(!existed);
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
    let stale: Vec<PathBuf> = before
        .iter()
        .filter(|s| s.file.kind == SeedKind::Covering)
        .map(|s| s.path.clone())
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| !kept.contains(&n.to_string_lossy().into_owned()))
        })
        .collect();
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
        std::fs::remove_file(path)
            .map_err(|e| format!("could not delete {}: {e}", path.display()))?;
        println!("  deleted {} (no longer needed)", path.display());
    }
    Ok(())
}
