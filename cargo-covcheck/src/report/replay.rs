//! The text of `cargo covcheck replay` for people, as `cargo test` prints
//! its tests: a line per seed as it finishes, then the failures' messages
//! together, each property's seed-suite coverage, and the count.

use std::fmt::Write;

use covcheck_protocol::worker::SeedResult;

use super::text::properties;
use crate::discover::Property;
use crate::events::ReplaySummary;

/// A seed's line, as soon as it has run (properties replay in parallel, so
/// each line names its property).
pub fn verdict(property: &Property, seed: &SeedResult) -> String {
    let verdict = if seed.passed { "ok" } else { "FAILED" };
    format!(
        "seed {} {} ({}) ... {verdict}",
        property.listing.full_path, seed.file, seed.kind
    )
}

/// Everything after the seeds' lines, every line ending in a newline.
pub fn summary(summary: &ReplaySummary<'_>) -> String {
    let mut out = String::new();
    let failures = failures(summary);
    if !failures.is_empty() {
        let _ = writeln!(out, "\nfailures:{failures}");
    }
    for (property, coverage) in &summary.coverage {
        let coverage = match coverage {
            Some(coverage) => coverage.describe(),
            None => "seed-suite coverage not measured yet: run `cargo covcheck minimize`".into(),
        };
        let _ = writeln!(out, "{}: {coverage}", property.listing.full_path);
    }
    let (seeds, failed, errors) = (summary.seeds(), summary.failed(), summary.errors());
    let _ = writeln!(
        out,
        "\ncovcheck replay: {seeds} seeds of {} in {:.0} ms: {} passed, {failed} failed{}",
        properties(summary.results.len()),
        summary.elapsed.as_secs_f64() * 1000.0,
        seeds - failed,
        if errors > 0 {
            format!(", {errors} properties could not be replayed")
        } else {
            String::new()
        }
    );
    out
}

/// The failed seeds' messages and the properties that could not be
/// replayed, in the properties' order.
fn failures(summary: &ReplaySummary<'_>) -> String {
    let mut out = String::new();
    for (property, result) in &summary.results {
        let name = &property.listing.full_path;
        match result {
            Ok(seeds) => {
                for seed in seeds.iter().filter(|s| !s.passed) {
                    let _ = write!(
                        out,
                        "\n---- seed {name} {} ({}) ----\n{}\n",
                        seed.file, seed.kind, seed.message
                    );
                    if !seed.location.is_empty() {
                        let _ = writeln!(out, "at {}", seed.location);
                    }
                }
            }
            Err(problem) => {
                let _ = write!(out, "\nerror: {name}: {problem}\n");
            }
        }
    }
    out
}
