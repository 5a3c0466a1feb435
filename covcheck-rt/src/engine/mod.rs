//! The campaign side of covcheck-rt, built only with the `campaign` feature
//! (which `cargo covcheck` turns on in its own instrumented build). LibAFL
//! itself is never compiled into the user's graph: it is in the engine
//! library, loaded at run time.
//!
//! - [`sancov`]: the SanitizerCoverage callbacks (coverage counters,
//!   comparison tracing, `memcmp` interposition), and [`distance`], what
//!   they record of how close comparisons came to equality.
//! - [`input`], [`mutator`], [`scheduler`]: covcheck's structure-aware parts.
//! - [`library`], [`abi`]: the engine library (covcheck-engine, LibAFL behind
//!   a C ABI), which `cargo covcheck` builds apart from the user's crate so
//!   that LibAFL's dependencies never enter its dependency graph.
//! - [`campaign`]: the fuzzing loop of one property, on that library, and
//!   [`novelty`], its check of what an execution covered.
//! - [`minimize`], [`cover`]: the covering seed suite of `cargo covcheck minimize`.
//! - [`reach`]: what the saved inputs reach, for `cargo covcheck report`.
//! - [`crash`]: reproducing and shrinking inputs that kill the process, one
//!   forked child per try.
//! - [`inflight`]: the shared slot that keeps the input in flight.

// The C ABI, a crate both sides depend on.
pub(crate) use covcheck_engine_abi as abi;
pub mod campaign;
pub mod cover;
pub mod crash;
pub mod distance;
pub mod inflight;
pub mod input;
pub(crate) mod library;
pub mod minimize;
pub mod mutator;
pub mod novelty;
pub mod reach;
pub mod sancov;
pub mod scheduler;

use crate::choice::trim_trailing_zeros;
use crate::engine::inflight::Inflight;
use crate::info::PropertyInfo;
use crate::property::{Case, PropertyFn};
use crate::shrink::Shrunk;
use crate::source::Limits;
use covcheck_protocol::worker::{
    CAMPAIGN_MAX_LEN, Event, FailureKind, Finding, WorkerConfig, WorkerMode, emit,
};

/// Runs a worker request and reports its outcome as events.
pub fn run_worker(info: &PropertyInfo, property: &PropertyFn<'_>, request: &WorkerConfig) {
    let result = match &request.mode {
        WorkerMode::Campaign => campaign::run(info, property, request),
        WorkerMode::ShrinkCrash { choices } => {
            crash::shrink_crash(info, property, request, choices)
        }
        WorkerMode::Minimize { .. } => minimize::run(info, property, request),
        WorkerMode::Reach { .. } => reach::run(info, property, request),
        WorkerMode::Replay { .. } => unreachable!("replay runs without the engine"),
    };
    if let Err(message) = result {
        emit(&Event::Error { message });
    }
}

/// The instrumented build's coverage counters (start, length in bytes); an
/// error naming the way out when the test binary is not instrumented.
pub(crate) fn instrumented_counters(info: &PropertyInfo) -> Result<(*mut u8, usize), String> {
    let counters = sancov::counters();
    if counters.1 == 0 {
        return Err(format!(
            "`{}` is not instrumented (no coverage counters): build it with `cargo covcheck`",
            info.full_path()
        ));
    }
    Ok(counters)
}

/// The in-flight slot the supervisor reads when this worker dies.
pub(crate) fn open_inflight(request: &WorkerConfig) -> Result<Inflight, String> {
    Inflight::open(&request.inflight_path)
        .map_err(|e| format!("cannot map {}: {e}", request.inflight_path.display()))
}

/// The limits a campaign generates and replays under: the property's own,
/// with open-ended collections and strings allowed up to
/// [`CAMPAIGN_MAX_LEN`] (or more, if the property asks for more).
pub(crate) fn campaign_limits(base: Limits) -> Limits {
    Limits {
        max_len: base.max_len.max(CAMPAIGN_MAX_LEN),
        ..base
    }
}

/// The report of a shrunk failure.
/// `limits` are those the input was found under.
pub(crate) fn finding_from_shrunk(
    kind: FailureKind,
    shrunk: &Shrunk,
    limits: Limits,
    execs_to_find: u64,
    found_after_us: u64,
) -> Finding {
    // A failure that shows in some runs only (a race) may pass on the
    // replay that renders the shrunk case: it failed while shrinking.
    let replay_passed = shrunk.case.failure().is_none() && shrunk.failure.is_some();
    let failure = shrunk.case.failure().or(shrunk.failure.as_ref());
    let shrink_note = match &shrunk.stopped_early {
        None if replay_passed => Some(
            "the shrunk input passed when replayed once more: it fails in some runs only \
             (a race, or state outside its arguments)"
                .to_string(),
        ),
        note => note.clone(),
    };
    Finding {
        kind,
        choices: trim_trailing_zeros(&shrunk.case.indices()).to_vec(),
        message: failure.map(|f| f.message.clone()).unwrap_or_default(),
        location: failure.map(|f| f.origin.to_string()).unwrap_or_default(),
        args: rendered_pairs(&shrunk.case),
        execs_to_find,
        found_after_us,
        shrink_runs: shrunk.runs,
        shrink_note,
        flaky: false,
        size: limits.seed_size(),
        path: failure.map_or(0, |f| f.origin.path()),
    }
}

/// The arguments `case` rendered, as (name, `Debug`) pairs.
pub(crate) fn rendered_pairs(case: &Case) -> Vec<(String, String)> {
    case.args
        .iter()
        .flatten()
        .map(|(name, value)| (name.to_string(), value.clone()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::property::{Case, Failure, Origin, Status};

    fn case(status: Status) -> Case {
        Case {
            choices: Vec::new(),
            spans: Vec::new(),
            status,
            args: Some(vec![("case", "[Record, Record]".to_string())]),
        }
    }

    #[test]
    fn a_race_that_passes_its_last_replay_is_reported_with_the_failure_it_shrank() {
        let failure = Failure {
            message: "the threads' results are not linearizable".to_string(),
            origin: Origin::ReturnedErr,
        };
        let shrunk = Shrunk {
            case: case(Status::Passed),
            runs: 9,
            steps: 2,
            stopped_early: None,
            failure: Some(failure.clone()),
        };
        let finding = finding_from_shrunk(FailureKind::Panic, &shrunk, Limits::default(), 2, 7);
        assert_eq!(finding.message, failure.message);
        assert_eq!(finding.location, failure.origin.to_string());
        assert!(!finding.flaky, "it failed on every replay before shrinking");
        assert!(
            finding
                .shrink_note
                .is_some_and(|note| note.contains("fails in some runs only")),
        );
        assert_eq!(finding.args[0].1, "[Record, Record]");
    }
}
