//! The text of a failed property's report under plain `cargo test`: the
//! minimal failing input, the failure, where the seed was saved and the
//! commands that rerun the property. What the text says is pinned by the
//! snapshot tests below.

use crate::info::PropertyInfo;
use crate::property::{Case, Failure, Origin};
use crate::shrink::Shrunk;
use covcheck_protocol::seeds::{ArgRecord, Seed};

pub(super) fn rendered_args(case: &Case) -> Vec<ArgRecord> {
    ArgRecord::from_pairs(case.args.as_deref().unwrap_or_default())
}

fn format_args(case: &Case) -> String {
    let args = rendered_args(case);
    if args.is_empty() {
        return "      (no arguments)\n".to_string();
    }
    let mut out = String::new();
    for arg in args {
        out.push_str(&format!(
            "      {} = {}\n",
            arg.name,
            indent_continuation(&arg.value, 10)
        ));
    }
    out
}

fn format_failure(failure: &Failure) -> String {
    let message = indent_continuation(&failure.message, 6);
    match failure.origin {
        Origin::ReturnedErr => format!("  Returned: {message}\n"),
        _ => format!("  Panic: {message}\n      at {}\n", failure.origin),
    }
}

fn plural(count: usize, noun: &str) -> String {
    if count == 1 {
        format!("1 {noun}")
    } else {
        format!("{count} {noun}s")
    }
}

fn indent_continuation(text: &str, spaces: usize) -> String {
    text.replace('\n', &format!("\n{}", " ".repeat(spaces)))
}

pub(super) fn failure_report(
    info: &PropertyInfo,
    shrunk: &Shrunk,
    original: &Failure,
    rng_seed: u64,
    case_number: usize,
    saved: &Result<String, String>,
) -> String {
    let mut out = format!(
        "covcheck: property `{}` failed.\n\n  Minimal failing input (random case {case_number} of RNG seed {rng_seed:#018x}, \
         shrunk in {}, {}):\n",
        info.full_path(),
        plural(shrunk.steps, "step"),
        plural(shrunk.runs, "run")
    );
    out.push_str(&format_args(&shrunk.case));
    if let Some(note) = &shrunk.stopped_early {
        out.push_str(&format!("      ({note})\n"));
    }
    out.push('\n');
    match shrunk.case.failure() {
        Some(failure) => out.push_str(&format_failure(failure)),
        None => {
            out.push_str(
                "  Replaying the input did not fail again: the property is not deterministic \
                 (it depends on time, randomness, a race or state outside its arguments).\n  \
                 Its last failure:\n",
            );
            out.push_str(&format_failure(shrunk.failure.as_ref().unwrap_or(original)));
        }
    }
    match saved {
        Ok(path) => out.push_str(&format!(
            "\n  Saved seed: {path}\n      Every `cargo test` replays it first; commit it to keep this bug caught.\n"
        )),
        Err(problem) => out.push_str(&format!("\n  Not saved: {problem}\n")),
    }
    out.push_str(&format!(
        "\n  Rerun just this property:\n      {}\n  Rerun the same random cases:\n      COVCHECK_SEED={rng_seed:#x} {}\n",
        info.rerun_command(),
        info.rerun_command()
    ));
    out
}

pub(super) fn replay_report(
    info: &PropertyInfo,
    seed: &Seed,
    case: &Case,
    failure: &Failure,
) -> String {
    let mut out = format!(
        "covcheck: property `{}` failed on a saved seed (seeds are replayed before random cases):\n      {}\n\n  Failing input:\n",
        info.full_path(),
        seed.path.display()
    );
    out.push_str(&format_args(case));
    out.push('\n');
    out.push_str(&format_failure(failure));
    out.push_str(&format!(
        "\n  Rerun just this property:\n      {}\n  Once the bug is fixed this seed passes and keeps guarding against a regression; \
         covcheck never deletes it.\n",
        info.rerun_command()
    ));
    out
}

/// A property whose cases are nearly all rejected by generation.
pub(super) fn too_many_rejected_report(
    info: &PropertyInfo,
    passed: usize,
    rejected: usize,
    wanted: usize,
    last_reason: &str,
) -> String {
    format!(
        "covcheck: property `{}` rejected {rejected} generated inputs and passed only {passed} \
         (wanted {wanted}), so it was barely tested.\n  Last rejection: {last_reason}\n  \
         Generate valid values directly (a `generators::range`, a `map`) instead of \
         rejecting invalid ones with `filter` or `assume`.",
        info.full_path(),
    )
}

/// Snapshots of the reports for constructed failures: a property run
/// through the runner from a fixed RNG seed, its failure shrunk, and the
/// report written with a fixed seed path. Changing a report's wording fails
/// them; review the new text with `cargo insta review` (or rerun with
/// `INSTA_UPDATE=always`) and commit the `.snap` files.
#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Attributes, Config};
    use crate::generate::Generate;
    use crate::info::Target;
    use crate::runner::{BurstOutcome, Runner};
    use crate::source::{Source, render_arg};
    use covcheck_protocol::seeds::{FailureRecord, SeedFile};

    const RNG_SEED: u64 = 0x5eed;
    const SEED_PATH: &str = "/tmp/demo/covcheck-seeds/demo/tests/p/0123456789abcdef.toml";

    fn info() -> PropertyInfo {
        PropertyInfo {
            name: "p",
            module_path: "demo::tests",
            crate_root: "/tmp/demo",
            package: "demo",
            target: Target::Lib,
            attributes: Attributes::default(),
        }
    }

    /// A property whose vectors must sum to less than 1000.
    fn small_sums(src: &mut Source) -> Result<(), String> {
        let v = Vec::<u32>::generate(src);
        render_arg(src, "v", &v);
        let sum: u64 = v.iter().map(|&x| u64::from(x)).sum();
        assert!(sum < 1000, "the sum {sum} is too large");
        Ok(())
    }

    /// The report with this file's panic locations, whose lines move with
    /// every edit, replaced by `[location]`.
    fn without_manifest_paths(report: &str) -> String {
        let flag = "--manifest-path ";
        let mut out = String::new();
        let mut rest = report;
        while let Some(at) = rest.find(flag) {
            out.push_str(&rest[..at]);
            let after = &rest[at + flag.len()..];
            let end = after.find(' ').map_or(after.len(), |space| space + 1);
            rest = &after[end..];
        }
        out.push_str(rest);
        out
    }

    /// The report with this file's panic locations replaced, and the
    /// rerun commands' `--manifest-path`, which depends on the directory
    /// the tests run from (`info`'s tests cover it), left out.
    fn redact_locations(report: &str) -> String {
        let report = without_manifest_paths(report);
        let report = report.as_str();
        let here = concat!(file!(), ":");
        let mut out = String::new();
        let mut rest = report;
        while let Some(at) = rest.find(here) {
            out.push_str(&rest[..at]);
            let after = &rest[at + here.len()..];
            let end = after
                .find(|c: char| !(c.is_ascii_digit() || c == ':'))
                .unwrap_or(after.len());
            out.push_str("[location]");
            rest = &after[end..];
        }
        out.push_str(rest);
        out
    }

    #[test]
    fn report_of_a_shrunk_failure() {
        let runner = Runner::new(&small_sums, Config::default());
        let BurstOutcome::Failed { case, case_number } = runner.burst(RNG_SEED) else {
            panic!("the burst finds a large sum");
        };
        let original = case.failure().cloned().unwrap();
        let shrunk = runner.shrink(case);
        let report = failure_report(
            &info(),
            &shrunk,
            &original,
            RNG_SEED,
            case_number,
            &Ok(SEED_PATH.to_string()),
        );
        insta::assert_snapshot!(redact_locations(&report));
    }

    #[test]
    fn report_of_an_unsaved_failure_that_did_not_come_back() {
        // Fails on its first run only: replaying it passes.
        let runs = std::cell::Cell::new(0);
        let flaky = |src: &mut Source| {
            let x = u8::generate(src);
            render_arg(src, "x", &x);
            runs.set(runs.get() + 1);
            if runs.get() == 1 {
                return Err("Err(\"first run\")".to_string());
            }
            Ok(())
        };
        let runner = Runner::new(&flaky, Config::default());
        let BurstOutcome::Failed { case, case_number } = runner.burst(RNG_SEED) else {
            panic!("the first case fails");
        };
        let original = case.failure().cloned().unwrap();
        let shrunk = runner.shrink(case);
        let report = failure_report(
            &info(),
            &shrunk,
            &original,
            RNG_SEED,
            case_number,
            &Err("COVCHECK_SEEDS=off".to_string()),
        );
        insta::assert_snapshot!(redact_locations(&report));
    }

    #[test]
    fn report_of_a_failing_saved_seed() {
        let runner = Runner::new(&small_sums, Config::default());
        let indices = vec![1, 600, 1, 400];
        let seed = Seed {
            path: SEED_PATH.into(),
            file: SeedFile::failure(
                "demo::tests::p",
                &indices,
                None,
                FailureRecord {
                    message: "the sum 1000 is too large".to_string(),
                    location: "src/lib.rs:1:1".to_string(),
                    kind: None,
                    flaky: false,
                    unshrunk: false,
                },
                &[("v", "[600, 400]".to_string())],
            ),
            indices,
        };
        let case = runner.replay_seed(&seed);
        let failure = case.failure().cloned().expect("the seed fails");
        let report = replay_report(&info(), &seed, &case, &failure);
        insta::assert_snapshot!(redact_locations(&report));
    }

    #[test]
    fn report_of_a_property_that_rejects_nearly_everything() {
        let report = too_many_rejected_report(&info(), 3, 2560, 256, "assume(false)");
        insta::assert_snapshot!(report);
    }
}
