//! Reporting a failure a campaign caught: sent at once as caught, replayed,
//! shrunk with the core shrinker and sent again as a finding.
//!
//! Shrinking keeps the failure's origin (Hypothesis's "same origin"): a
//! candidate that fails elsewhere is not a smaller version of this bug but
//! another one, kept to be reported on its own instead of replacing this
//! one. A property whose failure depends on state left by earlier runs (a
//! static counter, a panic that leaves a guard behind) would otherwise
//! slip from the bug found to another one, and report the wrong bug.

use std::collections::HashSet;
use std::time::Instant;

use super::execution::Caught;
use crate::choice::trim_trailing_zeros;
use crate::config::Config;
use crate::engine::mutator::{ChoiceMutator, RepairRuns, Shape};
use crate::engine::{finding_from_shrunk, rendered_pairs};
use crate::property::{Case, Origin, PropertyFn, execute};
use crate::shrink::{Repair, shrink_repairing};
use crate::source::{Limits, Source};
use covcheck_protocol::worker::{Event, FailureKind, Finding, emit};

/// How many times a caught failure is replayed before it is shrunk. One
/// that does not fail every time depends on more than its input (time,
/// randomness, state): shrinking it would keep candidates that fail by
/// luck and end on a value that does not show the bug, so it is reported
/// as caught and marked flaky.
const REPLAYS: usize = 3;

/// What became of a caught failure.
pub(super) struct Outcome {
    pub(super) origin: Origin,
    /// It failed again on every replay (and was shrunk).
    pub(super) reproduced: bool,
    /// Failures at other origins met while replaying and shrinking it,
    /// the first input of each: to be reported on their own.
    pub(super) others: Vec<Caught>,
}

/// The sums a shrink repairs at most: those of the failure found and the
/// latest ones its repairs wrote.
const MAX_SHRINK_SUMS: usize = 32;

/// Sends `found` as caught, then shrinks and reports it; failures met on
/// the way at origins in `known` are old news. `trace`: comparisons are
/// traced in this campaign, so shrinking repairs the checksums it breaks.
pub(super) fn report(
    property: &PropertyFn<'_>,
    limits: Limits,
    base: &Config,
    found: Caught,
    started: Instant,
    known: &HashSet<Origin>,
    trace: bool,
) -> Outcome {
    let found_after_us = found.at.duration_since(started).as_micros() as u64;
    emit(&Event::Caught(Box::new(unshrunk(
        &found,
        &[],
        limits,
        found_after_us,
    ))));
    let origin = found.failure.origin.clone();
    let mut others = Others {
        origin: &origin,
        known,
        found: Vec::new(),
        execs: found.execs,
    };
    let replays = replay(property, limits, &found.choices, &mut others);
    let Some(case) = replays else {
        let replay = execute(
            property,
            Source::replay(found.choices.clone(), limits),
            true,
        );
        let mut finding = unshrunk(&found, &rendered_pairs(&replay), limits, found_after_us);
        finding.shrink_note = Some(format!(
            "not shrunk: it did not fail on each of {REPLAYS} replays, so it depends on more \
             than its input (time, randomness, state left by earlier runs)"
        ));
        finding.flaky = true;
        emit(&Event::Finding(finding));
        return Outcome {
            origin: origin.clone(),
            reproduced: false,
            others: others.found,
        };
    };
    let mut keep = |case: &Case| others.same_failure(case);
    let mut sums = if trace {
        Shape::learn(property, &case.indices(), limits, true).sums
    } else {
        Vec::new()
    };
    // A candidate whose deletion broke a checksum gets it repaired, so that
    // a failure behind a checksum shrinks as far as one without. A repaired
    // candidate stores new sums, which the next candidates carry.
    let has_sums = !sums.is_empty();
    let mut mutator = ChoiceMutator::new(0x5eed, true);
    let mut repair = |candidate: &[u64]| {
        let mut repaired = candidate.to_vec();
        let mut runs = RepairRuns {
            property,
            limits,
            before_run: &mut |_| {},
            locate: false,
        };
        let new_sums = mutator
            .run_and_repair_sums(&mut runs, &sums, &[], &mut repaired)
            .sums;
        if new_sums.is_empty() {
            return None;
        }
        sums.extend(new_sums);
        sums.drain(..sums.len().saturating_sub(MAX_SHRINK_SUMS));
        Some(repaired)
    };
    let repair: Option<Repair<'_>> = has_sums.then_some(&mut repair);
    let shrunk = shrink_repairing(property, limits, case, base.shrink, &mut keep, repair);
    let mut finding = finding_from_shrunk(
        FailureKind::Panic,
        &shrunk,
        limits,
        found.execs,
        found_after_us,
    );
    // The shrunk case fails at the same origin by construction; its message
    // may differ (values in it), the location may not.
    finding.location = origin.to_string();
    finding.path = origin.path();
    emit(&Event::Finding(finding));
    Outcome {
        origin: origin.clone(),
        reproduced: true,
        others: others.found,
    }
}

/// Replays `choices` [`REPLAYS`] times; the last case when each failed at
/// the caught origin.
fn replay(
    property: &PropertyFn<'_>,
    limits: Limits,
    choices: &[u64],
    others: &mut Others<'_>,
) -> Option<Case> {
    let mut last = None;
    for _ in 0..REPLAYS {
        let case = execute(property, Source::replay(choices.to_vec(), limits), true);
        if !others.same_failure(&case) {
            return None;
        }
        last = Some(case);
    }
    last
}

/// The failures at other origins than the one being shrunk.
struct Others<'a> {
    origin: &'a Origin,
    known: &'a HashSet<Origin>,
    found: Vec<Caught>,
    /// The campaign's executions, for the ones found.
    execs: u64,
}

impl Others<'_> {
    /// Whether `case` fails at the origin being shrunk; a failure at a new
    /// origin is kept to be reported on its own.
    fn same_failure(&mut self, case: &Case) -> bool {
        let Some(failure) = case.failure() else {
            return false;
        };
        if &failure.origin == self.origin {
            return true;
        }
        let new = !self.known.contains(&failure.origin)
            && self
                .found
                .iter()
                .all(|c| c.failure.origin != failure.origin);
        if new {
            self.found.push(Caught {
                choices: case.indices(),
                failure: failure.clone(),
                execs: self.execs,
                at: Instant::now(),
            });
        }
        false
    }
}

/// The finding of `found` as it was caught, with `args` rendered (none
/// before it was replayed).
fn unshrunk(
    found: &Caught,
    args: &[(String, String)],
    limits: Limits,
    found_after_us: u64,
) -> Finding {
    Finding {
        kind: FailureKind::Panic,
        choices: trim_trailing_zeros(&found.choices).to_vec(),
        message: found.failure.message.clone(),
        location: found.failure.origin.to_string(),
        args: args.to_vec(),
        execs_to_find: found.execs,
        found_after_us,
        shrink_runs: 0,
        shrink_note: Some("not shrunk yet".to_string()),
        flaky: false,
        size: limits.seed_size(),
        path: found.failure.origin.path(),
    }
}
