//! One execution of the campaign: the harness the engine calls with each input,
//! and what it shares with the fuzz loop (a failure it caught, the failures
//! already reported, the execution count, the novelty check, the best
//! `target()` values, and in performance mode the costliest inputs).

use std::cell::{Cell, RefCell};
use std::collections::{HashMap, HashSet};
use std::rc::Rc;
use std::time::Instant;

use super::costs::Costs;
use super::distances::Distances;
use super::focus::Focus;
use super::targets::Targets;
use crate::engine::inflight::Inflight;
use crate::engine::novelty::{Novelty, Sweep};
use crate::property::{Failure, Origin, PropertyFn, Status, execute_in};
use crate::source::{Limits, Source};

/// A failure the harness caught, with the execution count when it happened.
pub(super) struct Caught {
    pub(super) choices: Vec<u64>,
    pub(super) failure: Failure,
    pub(super) execs: u64,
    pub(super) at: Instant,
}

/// What the harness and the fuzz loop share.
#[derive(Default)]
pub(super) struct Shared {
    /// The first new failure since the loop last looked.
    pub(super) caught: RefCell<Option<Caught>>,
    /// Failures already reported (with `--keep-going`), or known from a
    /// failure seed: finding them again is not news, so they count as
    /// passing.
    pub(super) known: RefCell<HashSet<Origin>>,
    /// How often each known failure was hit again.
    pub(super) hits: RefCell<HashMap<Origin, u64>>,
    /// The code a change touched (`--since`); empty otherwise.
    pub(super) focus: RefCell<Focus>,
    /// The corpus entries the scheduler favours ([`Shared::favoured`]),
    /// kept up to date as entries are added, so that picking one
    /// allocates nothing.
    favoured: RefCell<Vec<usize>>,
    pub(super) execs: Cell<u64>,
    /// Times are measured from the first execution, as the benchmark's probe
    /// does for every tool (setting LibAFL up is not searching).
    pub(super) first_exec: Cell<Option<Instant>>,
    pub(super) novelty: Rc<RefCell<Novelty>>,
    pub(super) targets: RefCell<Targets>,
    /// How close comparisons came to their constants (`--value-profile`).
    pub(super) distances: RefCell<Distances>,
    /// Performance mode's costs; `None` in other campaigns, which then
    /// read no counter and judge nothing more.
    pub(super) costs: Option<RefCell<Costs>>,
    /// Whether the input being evaluated is fresh (drawn by the generators,
    /// not a mutant).
    pub(super) fresh: Cell<bool>,
    /// Whether a failure of the input being evaluated is still caught but
    /// not an objective for LibAFL, so that the input enters the corpus:
    /// see [`Shared::admitting_failures`].
    admitting: Cell<bool>,
    /// [`crate::property::runs`] after the harness's last run: when it has
    /// moved on since, something else ran the instrumented code, and every
    /// counter is cleared before the next execution rather than only those
    /// read after every execution ([`Novelty::clear`]).
    runs_after_last: Cell<Option<u64>>,
    /// The source every execution replays its input from, kept with its
    /// buffers between executions.
    source: RefCell<Option<Source>>,
    /// The inputs run since the novelty check last swept the map's dead
    /// blocks ([`crate::engine::novelty`]).
    recent: RefCell<Recent>,
    /// Inputs to run again: one of them reached a block that no execution
    /// had, and a sweep found it without knowing which.
    unattributed: RefCell<Vec<Vec<u64>>>,
}

/// The inputs run since the last sweep, in buffers kept for the next ones.
#[derive(Default)]
struct Recent {
    inputs: Vec<Vec<u64>>,
    len: usize,
}

impl Recent {
    fn push(&mut self, input: &[u64]) {
        if self.len == self.inputs.len() {
            self.inputs.push(Vec::new());
        }
        let slot = &mut self.inputs[self.len];
        slot.clear();
        slot.extend_from_slice(input);
        self.len += 1;
    }

    /// Forgets the inputs pushed, keeping their buffers.
    fn clear(&mut self) {
        self.len = 0;
    }

    /// The inputs pushed since the last call, oldest first.
    fn take(&mut self) -> Vec<Vec<u64>> {
        let taken = self.inputs.drain(..self.len).collect();
        self.len = 0;
        taken
    }
}

impl Shared {
    /// What the harness and the fuzz loop share at the start, `target()`
    /// values steering the campaign when `steer_targets`, costs when `perf`,
    /// compare distances when `value_profile`.
    pub(super) fn new(
        steer_targets: bool,
        perf: bool,
        value_profile: bool,
        focus: Vec<u32>,
    ) -> Shared {
        let mut novelty = Novelty::default();
        novelty.pin(&focus.iter().map(|&c| c as usize).collect::<Vec<_>>());
        Shared {
            novelty: Rc::new(RefCell::new(novelty)),
            targets: RefCell::new(Targets::new(steer_targets)),
            distances: RefCell::new(Distances::new(value_profile)),
            costs: perf.then(RefCell::default),
            focus: RefCell::new(Focus::new(focus)),
            ..Shared::default()
        }
    }

    /// The harness: runs `input` with the body traced by the coverage
    /// counters (`counters`, `len` bytes) and its `target()` values
    /// recorded, notes it in the in-flight slot first (so that a crash
    /// names it), judges the novelty of its coverage and of its target
    /// values, and catches a new failure. Returns whether it failed (a
    /// crash, for LibAFL's objectives).
    pub(super) fn execute(
        &self,
        property: &PropertyFn<'_>,
        limits: Limits,
        (counters, len): (*mut u8, usize),
        inflight: &mut Inflight,
        input: &[u64],
    ) -> bool {
        if self.first_exec.get().is_none() {
            self.first_exec.set(Some(Instant::now()));
        }
        self.execs.set(self.execs.get() + 1);
        inflight.store(self.execs.get(), input);
        crate::target::start();
        let others_ran = self.runs_after_last.get() != Some(crate::property::runs());
        // SAFETY: the counters section lives as long as the process, and
        // nothing else touches it while the harness runs; the slice ends
        // before the property runs.
        let map = unsafe { std::slice::from_raw_parts_mut(counters, len) };
        let sweep = self.novelty.borrow_mut().clear(map, others_ran);
        self.after(sweep);
        self.recent.borrow_mut().push(input);
        // Only performance mode reads the counter (which only its build
        // counts with): other campaigns pay nothing for it.
        let before = self.costs.as_ref().map(|_| crate::cost::edges_executed());
        let mut src =
            (self.source.borrow_mut().take()).unwrap_or_else(|| Source::replay(Vec::new(), limits));
        src.replay_again(input, limits);
        self.distances.borrow_mut().start();
        let status = execute_in(property, &mut src);
        self.distances.borrow_mut().observe();
        self.runs_after_last.set(Some(crate::property::runs()));
        if let (Some(costs), Some(before)) = (&self.costs, before) {
            let cost = crate::cost::edges_executed().wrapping_sub(before);
            costs
                .borrow_mut()
                .observe(input, src.choices().len(), cost, self.fresh.get());
        }
        let mut targets = self.targets.borrow_mut();
        crate::target::stop(&mut targets.last);
        targets.observe(input);
        drop(targets);
        // SAFETY: the counters section lives as long as the process, and
        // nothing else touches it while the harness runs.
        let counters = unsafe { std::slice::from_raw_parts_mut(counters, len) };
        let observed = self.novelty.borrow_mut().observe(counters);
        self.after(observed.sweep);
        self.focus.borrow_mut().observe(counters);
        let failed = self.judge(status, &src);
        *self.source.borrow_mut() = Some(src);
        failed
    }

    /// Keeps, drops or hands on for running again the inputs run since the
    /// last sweep, by what the sweep `sweep` found.
    fn after(&self, sweep: Sweep) {
        match sweep {
            Sweep::NotDue => {}
            Sweep::Clean => self.recent.borrow_mut().clear(),
            Sweep::Unattributed => {
                let taken = self.recent.borrow_mut().take();
                self.unattributed.borrow_mut().extend(taken);
            }
        }
    }

    /// The next input to run again ([`Sweep::Unattributed`]).
    pub(super) fn next_unattributed(&self) -> Option<Vec<u64>> {
        let mut unattributed = self.unattributed.borrow_mut();
        (!unattributed.is_empty()).then(|| unattributed.remove(0))
    }

    /// Whether the execution that ended with `status` (its choices in
    /// `src`) counts as a crash for LibAFL: a new failure caught, unless
    /// the campaign is admitting its first inputs.
    fn judge(&self, status: Status, src: &Source) -> bool {
        match status {
            Status::Failed(ref failure) if self.known.borrow().contains(&failure.origin) => {
                self.hit(&failure.origin);
                false
            }
            Status::Failed(ref failure) => {
                let mut caught = self.caught.borrow_mut();
                if caught.is_none() {
                    *caught = Some(Caught {
                        choices: src.choices().iter().map(|c| c.index).collect(),
                        failure: failure.clone(),
                        execs: self.execs.get(),
                        at: Instant::now(),
                    });
                }
                !self.admitting.get()
            }
            _ => false,
        }
    }

    /// Whether the last execution is new: new coverage, a `target()`
    /// value past its label's best, a comparison closer to its constant
    /// (with `--value-profile`), or (in performance mode) a cost past its
    /// size class's maximum.
    pub(super) fn last_was_new(&self) -> bool {
        self.novelty.borrow().last_was_new()
            || self.targets.borrow().is_new()
            || self.distances.borrow().is_new()
            || self.costs.as_ref().is_some_and(|c| c.borrow().is_new())
    }

    /// The corpus entries the scheduler favours: those holding a best
    /// `target()` value or a size class's maximum cost, and those that run
    /// changed code.
    pub(super) fn favoured(&self) -> std::cell::Ref<'_, Vec<usize>> {
        self.favoured.borrow()
    }

    /// The engine added corpus entry `entry` for the last execution.
    pub(super) fn entry_added(&self, entry: usize) {
        self.targets.borrow_mut().entry_added(entry);
        self.focus.borrow_mut().entry_added(entry);
        let mut favoured = self.targets.borrow().favoured().to_vec();
        if let Some(costs) = &self.costs {
            costs.borrow_mut().entry_added(entry);
            favoured.extend_from_slice(costs.borrow().favoured());
        }
        favoured.extend_from_slice(self.focus.borrow().favoured());
        let mut distances = self.distances.borrow_mut();
        distances.entry_added(entry);
        favoured.extend_from_slice(distances.favoured());
        favoured.sort_unstable();
        favoured.dedup();
        *self.favoured.borrow_mut() = favoured;
    }

    /// Counts one more hit of the known failure at `origin`.
    pub(super) fn hit(&self, origin: &Origin) {
        *self.hits.borrow_mut().entry(origin.clone()).or_default() += 1;
    }

    /// Runs `evaluate` with failures admitted to the corpus: caught and
    /// reported as ever, but not objectives for LibAFL, which would keep
    /// the input out of the corpus. For the entry a campaign starts from
    /// when none of its first inputs entered: if that one failed too (a
    /// property that fails on the simplest input, or on some runs only),
    /// the corpus would stay empty and the engine would have nothing to
    /// mutate.
    pub(super) fn admitting_failures<R>(&self, evaluate: impl FnOnce() -> R) -> R {
        self.admitting.set(true);
        let result = evaluate();
        self.admitting.set(false);
        result
    }

    /// Whether a failure waits to be reported.
    pub(super) fn has_caught(&self) -> bool {
        self.caught.borrow().is_some()
    }
}
