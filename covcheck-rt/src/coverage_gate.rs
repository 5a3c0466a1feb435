//! The coverage gate: whether the property's *body* is running, as opposed to
//! the generation of its arguments.
//!
//! The generators are monomorphised into the user's crate, so in a campaign's
//! instrumented build their many comparisons would drown the ones the code
//! under test makes. The core opens the gate when the body starts and closes
//! it when a case ends; the campaign engine's comparison callbacks record
//! only while it is open. The core owns the flag so that it never has to know
//! about the engine; without the `campaign` feature nothing reads it, and
//! opening and closing it do nothing.

use std::sync::atomic::{AtomicBool, Ordering};

static IN_BODY: AtomicBool = AtomicBool::new(false);

/// The property's body starts: what it compares from now on is the code
/// under test's.
#[inline]
pub(crate) fn open() {
    if cfg!(feature = "campaign") {
        IN_BODY.store(true, Ordering::Relaxed);
    }
}

/// A case starts or ends: argument generation comes next, or nothing.
#[inline]
pub(crate) fn close() {
    if cfg!(feature = "campaign") {
        IN_BODY.store(false, Ordering::Relaxed);
    }
}

/// Whether the property's body is running.
#[cfg(feature = "campaign")]
#[inline(always)]
pub(crate) fn is_open() -> bool {
    IN_BODY.load(Ordering::Relaxed)
}
