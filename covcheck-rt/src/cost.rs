//! A property's cost bound, `#[covcheck(max_cost = N)]`: an execution of
//! the property that runs more than `N` edges of instrumented code fails,
//! as if it had returned an error saying so.
//!
//! The cost is counted by the performance build (`cargo covcheck --perf`,
//! `cargo covcheck replay --perf`): edges executed, a deterministic measure
//! (the same input costs the same on every machine and every run, which
//! wall time does not). Every other build counts nothing, so there the
//! bound never fails: plain `cargo test` replays the seeds of a bounded
//! property for their assertions only.
//!
//! The bound wraps the property itself ([`with_bound`]), so whatever runs
//! the property sees the failure the same way: the campaign's harness
//! catches it, the shrinker keeps only smaller inputs that still cost too
//! much, and a replay of the saved seed fails while the slowness is there.
//! A hang of a bounded property in performance mode is shrunk the same
//! way ([`crate::engine::crash`]): to a small input that still costs too
//! much, which runs in a moment, rather than one that still hangs.

use crate::property::PropertyFn;
use crate::source::Source;

/// Edges executed so far in this process (always zero outside the
/// performance build).
pub(crate) fn edges_executed() -> u64 {
    #[cfg(feature = "campaign")]
    return crate::engine::sancov::edges_executed();
    #[cfg(not(feature = "campaign"))]
    0
}

/// Whether `message` is the failure of an input past its cost bound.
#[cfg(feature = "campaign")]
pub(crate) fn is_past_bound(message: &str) -> bool {
    covcheck_protocol::limits::is_past_cost_bound(message)
}

/// `property` failing whenever one execution costs more than `max_cost`.
pub(crate) fn with_bound<'a>(
    max_cost: u64,
    property: &'a PropertyFn<'a>,
) -> impl Fn(&mut Source) -> Result<(), String> + 'a {
    move |src: &mut Source| {
        let before = edges_executed();
        let result = property(src);
        let cost = edges_executed().wrapping_sub(before);
        if result.is_ok() && cost > max_cost {
            return Err(covcheck_protocol::limits::past_cost_bound(cost, max_cost));
        }
        result
    }
}
