//! Targeted property-based testing: [`target`] tells a campaign how far an
//! execution got towards something no coverage counter measures (a queue's
//! length, a tree's depth, a parser's nesting), so that it can climb
//! towards it.
//!
//! Values are recorded only while a campaign runs an execution
//! ([`start`] to [`stop`]): everywhere else (plain `cargo test`, shrinking,
//! replays) [`target`] reads one atomic flag and returns. The recorded
//! values sit behind a lock rather than in a thread-local so that a value
//! reported from a thread the property started still counts.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

/// Whether a campaign is recording the execution that runs now.
static RECORDING: AtomicBool = AtomicBool::new(false);
/// Whether [`REACHED`] holds a value (so that an execution that reported
/// none costs no lock).
static RECORDED: AtomicBool = AtomicBool::new(false);
/// Each label the execution reported, with the highest value it reported.
static REACHED: Mutex<Vec<(String, f64)>> = Mutex::new(Vec::new());

/// Reports that this execution of a property reached `value` for `label`:
/// a `cargo covcheck` campaign keeps an input that takes a label past its
/// best value so far, as it keeps one that reaches new coverage, and
/// mutates it further. Use it for what the property wants to push to the
/// extreme that no branch of the code under test tells apart: the length
/// of a queue, the depth of a tree, the size of an allocation.
///
/// Called several times in one execution, the highest value counts. Under
/// plain `cargo test` (and wherever no campaign is recording) it does
/// nothing and costs one flag check. NaN and infinite values are ignored.
/// Each label's best value, and the arguments that reached it, are
/// reported at the end of the campaign; `cargo covcheck --no-target`
/// records and reports them without letting them steer.
///
/// ```
/// use covcheck_rt::{covcheck, target};
///
/// #[covcheck]
/// fn the_stack_never_overflows(pushes: Vec<bool>) {
///     let mut depth = 0u32;
///     let mut deepest = 0;
///     for push in pushes {
///         depth = if push { depth + 1 } else { depth.saturating_sub(1) };
///         deepest = deepest.max(depth);
///     }
///     target("depth", f64::from(deepest));
///     assert!(deepest < 100_000);
/// }
/// # fn main() {}
/// ```
pub fn target(label: &str, value: f64) {
    if RECORDING.load(Ordering::Relaxed) {
        record(label, value);
    }
}

#[cold]
#[inline(never)]
fn record(label: &str, value: f64) {
    if !value.is_finite() {
        return;
    }
    let mut reached = REACHED.lock().unwrap_or_else(|e| e.into_inner());
    match reached.iter_mut().find(|(l, _)| l == label) {
        Some((_, best)) => *best = best.max(value),
        None => reached.push((label.to_string(), value)),
    }
    RECORDED.store(true, Ordering::Relaxed);
}

/// Starts recording the values of one execution.
#[cfg(any(feature = "campaign", test))]
pub(crate) fn start() {
    RECORDING.store(true, Ordering::Relaxed);
}

/// Stops recording, and moves the values recorded since [`start`] into
/// `into` (cleared first).
#[cfg(any(feature = "campaign", test))]
pub(crate) fn stop(into: &mut Vec<(String, f64)>) {
    RECORDING.store(false, Ordering::Relaxed);
    into.clear();
    if RECORDED.load(Ordering::Relaxed) {
        RECORDED.store(false, Ordering::Relaxed);
        let mut reached = REACHED.lock().unwrap_or_else(|e| e.into_inner());
        std::mem::swap(&mut *reached, into);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One test: the recorder is process-wide.
    #[test]
    fn only_a_recording_execution_keeps_values_and_each_label_keeps_its_highest() {
        let mut values = Vec::new();
        target("len", 5.0);
        start();
        stop(&mut values);
        assert!(values.is_empty(), "not recorded outside an execution");

        start();
        target("len", 3.0);
        target("depth", 1.0);
        target("len", 7.0);
        target("len", 4.0);
        target("len", f64::NAN);
        target("depth", f64::INFINITY);
        target("nan", f64::NAN);
        stop(&mut values);
        assert_eq!(
            values,
            [("len".to_string(), 7.0), ("depth".to_string(), 1.0)]
        );

        target("len", 9.0);
        start();
        stop(&mut values);
        assert!(values.is_empty(), "each execution starts afresh");
    }
}
