//! covcheck's side of a campaign session: what the engine calls back for
//! over the C ABI ([`crate::engine::abi::Host`]): run an input, judge its
//! novelty (new coverage, a better `target()` value or cost), mutate a corpus
//! entry, schedule the next one.
//!
//! The engine may call [`is_new`] from its crash and timeout handlers while
//! [`execute`] runs, so every callback takes [`HostSide`] by shared
//! reference; what changes sits in cells.

use std::cell::RefCell;
use std::ffi::c_void;

use super::execution::Shared;
use super::mutation::CampaignMutator;
use crate::engine::abi::{Choices, Host};
use crate::engine::inflight::Inflight;
use crate::engine::scheduler::RarityScheduler;
use crate::property::PropertyFn;
use crate::source::Limits;

/// What the callbacks reach.
pub(super) struct HostSide<'a, 'p> {
    pub(super) property: &'a PropertyFn<'p>,
    pub(super) limits: Limits,
    /// The coverage counters (start, length in bytes).
    pub(super) counters: (*mut u8, usize),
    pub(super) shared: &'a Shared,
    pub(super) inflight: RefCell<Inflight>,
    pub(super) mutator: RefCell<CampaignMutator<'a, 'p>>,
    pub(super) scheduler: RefCell<RarityScheduler>,
    /// The last mutant, lent to the engine until the next callback.
    pub(super) mutant: RefCell<Vec<u64>>,
}

impl HostSide<'_, '_> {
    /// The callback table; `self` must outlive the session it is given to.
    pub(super) fn host(&self) -> Host {
        Host {
            ctx: (self as *const Self).cast(),
            execute,
            is_new,
            commit,
            mutate,
            mutant_ran,
            entry_added,
            next_entry,
        }
    }
}

/// # Safety
/// `ctx` must be the `ctx` of a table [`HostSide::host`] made, whose
/// `HostSide` is still alive: the engine's promise for every callback
/// (`abi::Host`). The lifetimes are the session's.
unsafe fn side<'a>(ctx: *const c_void) -> &'a HostSide<'a, 'a> {
    // SAFETY: the caller's promise.
    unsafe { &*ctx.cast::<HostSide<'a, 'a>>() }
}

unsafe extern "C" fn execute(ctx: *const c_void, input: Choices) -> bool {
    // SAFETY: the engine's promise for every callback: `ctx` is ours.
    let side = unsafe { side(ctx) };
    // SAFETY: the engine lends `input` for the call.
    let choices = unsafe { input.as_slice() };
    let mut inflight = side.inflight.borrow_mut();
    side.shared.execute(
        side.property,
        side.limits,
        side.counters,
        &mut inflight,
        choices,
    )
}

unsafe extern "C" fn is_new(ctx: *const c_void) -> bool {
    // SAFETY: the engine's promise for every callback: `ctx` is ours.
    unsafe { side(ctx) }.shared.last_was_new()
}

unsafe extern "C" fn commit(ctx: *const c_void) {
    // SAFETY: the engine's promise for every callback: `ctx` is ours.
    let side = unsafe { side(ctx) };
    // SAFETY: the counters section lives as long as the process, and the
    // engine does not touch it during the call. It still holds the
    // counts of the input being added.
    let counters = unsafe { std::slice::from_raw_parts(side.counters.0, side.counters.1) };
    side.shared.novelty.borrow_mut().commit(counters);
    side.shared.targets.borrow_mut().commit();
    side.shared.distances.borrow_mut().commit();
    if let Some(costs) = &side.shared.costs {
        costs.borrow_mut().commit();
    }
}

unsafe extern "C" fn mutate(
    ctx: *const c_void,
    entry: usize,
    input: Choices,
    out: *mut Choices,
) -> bool {
    // SAFETY: the engine's promise for every callback: `ctx` is ours.
    let side = unsafe { side(ctx) };
    // One buffer for every mutant: no allocation per execution.
    let mut mutant = side.mutant.borrow_mut();
    mutant.clear();
    // SAFETY: the engine lends `input` for the call.
    mutant.extend_from_slice(unsafe { input.as_slice() });
    if !side
        .mutator
        .borrow_mut()
        .mutate(entry, &mut mutant, &side.inflight)
    {
        return false;
    }
    // SAFETY: `out` is the engine's, valid for the call; the mutant stays
    // in `side.mutant` until the next mutation.
    unsafe { *out = Choices::lend(&mutant) };
    true
}

unsafe extern "C" fn mutant_ran(ctx: *const c_void, added: bool) {
    // SAFETY: the engine's promise for every callback: `ctx` is ours.
    unsafe { side(ctx) }.mutator.borrow_mut().mutant_ran(added);
}

unsafe extern "C" fn entry_added(ctx: *const c_void, entry: usize, len: usize) {
    // SAFETY: the engine's promise for every callback: `ctx` is ours.
    let side = unsafe { side(ctx) };
    side.scheduler.borrow_mut().on_add(entry, len);
    side.shared.entry_added(entry);
}

unsafe extern "C" fn next_entry(ctx: *const c_void) -> usize {
    // SAFETY: the engine's promise for every callback: `ctx` is ours.
    let side = unsafe { side(ctx) };
    side.scheduler.borrow_mut().next(&side.shared.favoured())
}
