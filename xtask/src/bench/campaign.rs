//! covcheck's campaign, `cargo covcheck` on the suite's harness: the same
//! property as the plain run, coverage-guided and with the budget as its
//! `--time`.

use std::path::Path;

use super::probe::{Job, Outcome, parse_probe, run_with_budget};
use crate::measure;

/// A run under `cargo covcheck`.
pub fn campaign(
    covcheck: &Path,
    suite: &Path,
    target_dir: &Path,
    job: &Job,
) -> Result<Outcome, String> {
    let target = job.target;
    let mut command =
        measure::measuring_command(covcheck, &suite.join("Cargo.toml"), target_dir, job.seed);
    command
        .args(["--exact", &format!("covcheck_harness::{target}")])
        .args(["--time", &format!("{}ms", job.budget.as_millis())])
        .env("BENCH_BUG", job.bug);
    let (stdout, probed) = run_with_budget(command, job.budget, &job.probe())?;
    let run =
        measure::read_events(&stdout).map_err(|e| format!("cargo covcheck on {target}: {e}"))?;
    // Executions, time and size come from the probe, as for every other
    // tool, and not from the finding event's `execs_to_find` and
    // `found_after_us`: those are the engine's own counters, which count
    // every run of its harness and some shape-learning runs, not calls of
    // the property's body, so they would measure the campaign with another
    // ruler. The worker inherits `BENCH_PROBE_OUT` and writes the probe's
    // lines to that file: its stderr goes to a log under the supervisor's
    // work directory, not to us. The probe records its count at the first
    // failure, so the runs that reproduce and shrink the failure after it
    // are not counted.
    let outcome = parse_probe(&probed, job.budget);
    if run.found.is_some() != outcome.found {
        eprintln!(
            "bench: note: on {target} the engine {} a finding and the probe {} one within the \
             budget; the probe's count is used",
            if run.found.is_some() {
                "reported"
            } else {
                "did not report"
            },
            if outcome.found { "saw" } else { "did not see" },
        );
    }
    Ok(outcome)
}
