//! The host's callbacks ([`abi::Host`]), callable without `unsafe`.
//!
//! The ABI's callbacks are `unsafe extern "C" fn`s: each call relies on the
//! host's promise that `ctx` stays valid while the session lives. That
//! promise is taken once, where a session starts ([`HostCalls::new`]); the
//! components then call the host through safe methods.

use crate::abi::{self, Choices};

/// The host's callback table, for the life of one session.
#[derive(Clone, Copy, Debug)]
pub struct HostCalls(abi::Host);

impl HostCalls {
    /// # Safety
    /// `host` must be valid as [`abi::Host`] says (its `ctx` alive, its
    /// callbacks callable) for as long as this value or a copy is used.
    pub unsafe fn new(host: abi::Host) -> HostCalls {
        HostCalls(host)
    }

    /// Runs the property on `choices`; true when it failed.
    pub fn execute(&self, choices: &[u64]) -> bool {
        // SAFETY: `new`'s promise; `choices` is lent for the call.
        unsafe { (self.0.execute)(self.0.ctx, Choices::lend(choices)) }
    }

    /// Whether the execution that just ran reached new coverage.
    pub fn is_new(&self) -> bool {
        // SAFETY: `new`'s promise.
        unsafe { (self.0.is_new)(self.0.ctx) }
    }

    /// The input that just ran enters the corpus.
    pub fn commit(&self) {
        // SAFETY: `new`'s promise.
        unsafe { (self.0.commit)(self.0.ctx) }
    }

    /// Replaces `choices`, a copy of corpus entry `entry` (`usize::MAX`
    /// when none is current), by the host's mutant of it, in place (no
    /// allocation per execution); false to skip it.
    pub fn mutate(&self, entry: usize, choices: &mut Vec<u64>) -> bool {
        let mut out = Choices::lend(&[]);
        // SAFETY: `new`'s promise; `choices` is lent and `out` writable for
        // the call.
        if !unsafe { (self.0.mutate)(self.0.ctx, entry, Choices::lend(choices), &mut out) } {
            return false;
        }
        choices.clear();
        // SAFETY: the host lends `out` until its next callback; it is
        // copied before any.
        choices.extend_from_slice(unsafe { out.as_slice() });
        true
    }

    /// After a mutant ran: whether it entered the corpus.
    pub fn mutant_ran(&self, added: bool) {
        // SAFETY: `new`'s promise.
        unsafe { (self.0.mutant_ran)(self.0.ctx, added) }
    }

    /// Corpus entry `entry` (`len` choices) was added, right after it ran.
    pub fn entry_added(&self, entry: usize, len: usize) {
        // SAFETY: `new`'s promise.
        unsafe { (self.0.entry_added)(self.0.ctx, entry, len) }
    }

    /// The corpus entry to mutate next.
    pub fn next_entry(&self) -> usize {
        // SAFETY: `new`'s promise.
        unsafe { (self.0.next_entry)(self.0.ctx) }
    }
}
