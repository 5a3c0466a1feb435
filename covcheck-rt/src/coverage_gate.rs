//! The coverage gate: whether the property's *body* is running, as opposed to
//! the generation of its arguments.
//!
//! The generators are monomorphised into the user's crate, so in a campaign's
//! instrumented build their many comparisons would drown the ones the code
//! under test makes. The core opens the gate when the body starts and closes
//! it when a case starts or ends; a campaign's comparison callbacks
//! record only while it is open. The core owns the flag so that it never has
//! to know how campaigns run; without the `campaign` feature nothing reads it.

use std::sync::atomic::{AtomicBool, Ordering};

static IN_BODY: AtomicBool = AtomicBool::new(false);

/// Opens the gate (`true`: the body starts, and what it compares from now on
/// is the code under test's) or closes it (`false`: a case starts or ends).
///
/// Keep it one plain function of this shape. [`crate::Source`]'s
/// `begin_body` is inlined into the user's crate, and rustc copies a small
/// function like this one there too, where SanitizerCoverage instruments it:
/// its shape is part of a campaign's coverage map. Two `#[inline]` functions
/// instead changed how many executions `cargo xtask campaigns` takes to each
/// bug.
pub(crate) fn set_open(open: bool) {
    IN_BODY.store(open, Ordering::Relaxed);
}

/// Whether the property's body is running.
#[cfg(feature = "campaign")]
#[inline(always)]
pub(crate) fn is_open() -> bool {
    IN_BODY.load(Ordering::Relaxed)
}
