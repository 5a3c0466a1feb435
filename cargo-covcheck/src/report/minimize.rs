//! The text of `cargo covcheck minimize` for people: per property, the
//! sizes and coverage of each step (measured, forward pass, set cover,
//! shrunk), the inputs that crashed a worker, what `--save` did, and the
//! suite's coverage.

use std::fmt::Write;
use std::path::PathBuf;

use covcheck_protocol::worker::{Finding, MinimizeReport, SuiteStats};

use super::text::{elided, elided_choices, human_count};
use crate::discover::Property;
use crate::events::{FailureSeed, JudgedDeath, Minimized, PropertyMinimized, Saving, Stale, Suite};

/// The block of one property, every line ending in a newline.
pub fn block(minimized: &PropertyMinimized<'_>) -> String {
    let property = minimized.property;
    let mut out = format!("{}\n", property.listing.full_path);
    let m = match &minimized.result {
        Ok(m) => m,
        Err(problem) => {
            line(&mut out, format_args!("  error: {problem}"));
            return out;
        }
    };
    out.push_str(&report(&m.report));
    out.push_str(&deaths(property, &m.deaths));
    out.push_str(&suite(m));
    line(&mut out, format_args!("  {}", m.coverage.describe()));
    if let Some(problem) = &m.record_error {
        line(&mut out, format_args!("  warning: {problem}"));
    }
    out
}

fn line(out: &mut String, text: std::fmt::Arguments<'_>) {
    let _ = writeln!(out, "{text}");
}

/// The sizes of the suite at each step, and the inputs left out.
fn report(report: &MinimizeReport) -> String {
    let mut out = String::new();
    let mut row = |label: &str, stats: &SuiteStats, note: String| {
        line(
            &mut out,
            format_args!(
                "  {label:<13}{:>8} inputs {:>10} bytes {:>8} features  {note}",
                human_count(stats.inputs as u64),
                human_count(stats.bytes as u64),
                human_count(stats.features as u64),
            ),
        );
    };
    let mut measured_note = format!("{} from the corpus cache", report.corpus_inputs);
    if report.failure_seeds > 0 {
        measured_note.push_str(&format!(
            ", and {} failure seed(s), always kept",
            report.failure_seeds
        ));
    }
    row("measured", &report.measured, measured_note);
    row(
        "forward pass",
        &report.forward_pass,
        "what libFuzzer's -merge=1 rule keeps".to_string(),
    );
    let ratio = report.forward_pass.inputs as f64 / report.set_cover.inputs.max(1) as f64;
    row(
        "set cover",
        &report.set_cover,
        format!("{ratio:.1}x fewer inputs than the forward pass"),
    );
    row("shrunk", &report.after, shrunk_note(report));
    if report.failing_inputs > 0 {
        line(
            &mut out,
            format_args!(
                "  {} input(s) now fail and were left out: run `cargo covcheck` to find and save the failure",
                report.failing_inputs
            ),
        );
    }
    if report.unmeasured_failure_seeds > 0 {
        line(
            &mut out,
            format_args!(
                "  {} failure seed(s) of crash kinds were kept without being run",
                report.unmeasured_failure_seeds
            ),
        );
    }
    out
}

/// How much of the measured coverage the shrunk suite keeps.
fn shrunk_note(report: &MinimizeReport) -> String {
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
    note
}

/// Names the inputs that ended a worker: each that fails alone too is a
/// bug the suite cannot hold as a covering seed, shown by its value with
/// the seed that replays it; the others are named as the machine's doubt.
fn deaths(property: &Property, deaths: &[JudgedDeath]) -> String {
    let mut out = String::new();
    let failures: Vec<_> = deaths
        .iter()
        .filter_map(|judged| match judged {
            JudgedDeath::Failure {
                death,
                finding,
                seed,
            } => Some((death, finding, seed)),
            JudgedDeath::PassedAlone { .. } => None,
        })
        .collect();
    if !failures.is_empty() {
        line(
            &mut out,
            format_args!(
                "  {} input(s) crashed or hung the property and were left out:",
                failures.len()
            ),
        );
    }
    for (death, finding, seed) in failures {
        line(
            &mut out,
            format_args!(
                "    {}: {}: {}",
                death.kind.describe(),
                death.detail,
                value(finding)
            ),
        );
        line(
            &mut out,
            format_args!("      {}", replayed_by(property, seed)),
        );
    }
    for judged in deaths {
        if let JudgedDeath::PassedAlone { death, problem } = judged {
            line(
                &mut out,
                format_args!(
                    "  warning: an input ended a worker twice ({}), but run alone: {problem}. \
                     Left out of this suite only: `{}`",
                    death.detail,
                    elided_choices(&death.choices)
                ),
            );
        }
    }
    out
}

/// A failure's value as the property's arguments, shrunk; its choices
/// when it has none.
fn value(finding: &Finding) -> String {
    if finding.args.is_empty() {
        return format!("`{}`", elided_choices(&finding.choices));
    }
    let args: Vec<String> = (finding.args.iter())
        .map(|(name, value)| format!("{name} = {}", elided(value)))
        .collect();
    let shrunk = if finding.shrink_runs > 0 {
        " (shrunk)"
    } else {
        ""
    };
    format!("{}{shrunk}", args.join(", "))
}

/// What replays a failure, or how to have it replayed.
fn replayed_by(property: &Property, seed: &FailureSeed) -> String {
    let rerun = property.rerun_command();
    match seed {
        FailureSeed::Existing(path) => {
            format!("held by {}; `{rerun}` replays it", path.display())
        }
        FailureSeed::Saved(path) => {
            format!(
                "saved as a failure seed, {}; `{rerun}` replays it",
                path.display()
            )
        }
        FailureSeed::NotSaved => format!(
            "`cargo covcheck minimize --save` saves it as a failure seed, which `{rerun}` replays"
        ),
        FailureSeed::Failed(problem) => format!("could not be saved: {problem}"),
    }
}

/// What became of the suite.
fn suite(m: &Minimized) -> String {
    let mut out = String::new();
    match &m.suite {
        Suite::NoCorpus => line(
            &mut out,
            format_args!(
                "  nothing to minimize: no corpus yet; run `cargo covcheck` on this property first"
            ),
        ),
        Suite::NotSaved => line(
            &mut out,
            format_args!("  (not saved: add --save to keep this suite as covering seeds)"),
        ),
        Suite::Saved(saving) => out.push_str(&saved(saving)),
    }
    out
}

/// What `--save` wrote, kept, listed and deleted, and what stopped it.
fn saved(saving: &Saving) -> String {
    let mut out = String::new();
    if let Some(written) = &saving.written {
        line(
            &mut out,
            format_args!(
                "  saved {} covering seeds ({} new) in {}",
                written.seeds,
                written.new,
                written.dir.display()
            ),
        );
    }
    if !saving.failing.is_empty() {
        line(
            &mut out,
            format_args!(
                "  {} covering seed(s) now fail and are kept, so that `cargo test` shows the bug:",
                saving.failing.len()
            ),
        );
        paths(&mut out, &saving.failing);
    }
    match &saving.stale {
        Stale::Listed(stale) if !stale.is_empty() => {
            line(
                &mut out,
                format_args!(
                    "  {} covering seed(s) are no longer needed (delete them with --save --prune):",
                    stale.len()
                ),
            );
            paths(&mut out, stale);
        }
        Stale::Listed(_) => {}
        Stale::Deleted(deleted) => {
            for path in deleted {
                line(
                    &mut out,
                    format_args!("  deleted {} (no longer needed)", path.display()),
                );
            }
        }
    }
    if let Some(problem) = &saving.error {
        line(&mut out, format_args!("  error: {problem}"));
    }
    out
}

fn paths(out: &mut String, paths: &[PathBuf]) {
    for path in paths {
        line(out, format_args!("    {}", path.display()));
    }
}
