//! Reporting a failure a campaign caught: replayed, shrunk with the core
//! shrinker and sent to the supervisor as a finding.

use std::time::Instant;

use super::execution::Caught;
use crate::choice::trim_trailing_zeros;
use crate::config::Config;
use crate::engine::{finding_from_shrunk, rendered_pairs};
use crate::property::{Case, Origin, PropertyFn, execute};
use crate::shrink::shrink;
use crate::source::{Limits, Source};
use covcheck_protocol::worker::{Event, FailureKind, Finding, emit};

/// Shrinks a caught failure and reports it; returns its origin and whether
/// it failed again when replayed. One that did not is reported as it was
/// caught, marked flaky, since shrinking needs a failure that comes back.
pub(super) fn report(
    property: &PropertyFn<'_>,
    limits: Limits,
    base: &Config,
    found: Caught,
    started: Instant,
) -> (Origin, bool) {
    let found_after_us = found.at.duration_since(started).as_micros() as u64;
    let case = execute(
        property,
        Source::replay(found.choices.clone(), limits),
        true,
    );
    if case.failure().is_none() {
        let origin = found.failure.origin.clone();
        emit(&Event::Finding(flaky_finding(
            &case,
            limits,
            found,
            found_after_us,
        )));
        return (origin, false);
    }
    let origin = case.failure().expect("checked").origin.clone();
    let shrunk = shrink(property, limits, case, base.shrink);
    emit(&Event::Finding(finding_from_shrunk(
        FailureKind::Panic,
        &shrunk,
        limits,
        found.execs,
        found_after_us,
    )));
    (origin, true)
}

/// The report of a failure that passed when replayed: the input and the
/// failure as they were when it was caught, with the arguments `replay`
/// rendered.
fn flaky_finding(replay: &Case, limits: Limits, found: Caught, found_after_us: u64) -> Finding {
    Finding {
        kind: FailureKind::Panic,
        choices: trim_trailing_zeros(&found.choices).to_vec(),
        message: found.failure.message,
        location: found.failure.origin.to_string(),
        args: rendered_pairs(replay),
        execs_to_find: found.execs,
        found_after_us,
        shrink_runs: 0,
        shrink_note: Some("not shrunk: it passed when replayed".to_string()),
        flaky: true,
        size: limits.seed_size(),
    }
}
