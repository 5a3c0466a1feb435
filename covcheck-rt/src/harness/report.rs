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
                 (it depends on time, randomness or state outside its arguments).\n  The original failure:\n",
            );
            out.push_str(&format_failure(original));
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
