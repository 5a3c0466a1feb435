//! The campaign's mutator: learns each corpus entry's shape once, then
//! applies [`ChoiceMutator`]; and counts the dictionary tokens of the
//! mutations that made new corpus entries. The engine's mutational stage
//! calls it through the host callbacks ([`super::host`]).

use std::cell::{Cell, RefCell};
use std::collections::HashMap;

use super::tokens::{Dictionary, TokenCounts};
use crate::engine::inflight::Inflight;
use crate::engine::mutator::{ChoiceMutator, Shape, ShapeCache, Sum};
use crate::property::PropertyFn;
use crate::source::Limits;
use covcheck_protocol::worker::WorkerConfig;

pub(super) struct CampaignMutator<'a, 'p> {
    property: &'a PropertyFn<'p>,
    limits: Limits,
    inner: ChoiceMutator,
    cache: ShapeCache,
    trace: bool,
    /// Inputs longer than this many choices are not mutated further.
    max_choices: &'a Cell<usize>,
    /// The campaign's execution count: learning a shape with comparison
    /// tracing runs the property's body once, and every run counts.
    execs: &'a Cell<u64>,
    /// The corpus entries each dictionary token led to.
    token_counts: &'a RefCell<TokenCounts>,
    /// Per corpus entry that stores a checksum candidate, whether its
    /// mutants are repaired ([`SumRepair`]).
    sum_repair: HashMap<usize, SumRepair>,
}

/// Whether the mutants of a corpus entry with stored-sum candidates
/// ([`Shape::sums`]) are traced and repaired: each repair costs one more
/// run of the body, so an entry is probed first. An entry whose first
/// [`SumRepair::PROBES`] mutants needed no repair (its candidates were
/// magic numbers, not sums of anything the mutations change) is left
/// alone; one whose mutants did need it is repaired from then on.
#[derive(Clone, Copy, Debug)]
enum SumRepair {
    Probing(u8),
    Repairing,
    Off,
}

impl SumRepair {
    const PROBES: u8 = 8;

    fn after(self, repaired: bool) -> SumRepair {
        match (self, repaired) {
            (_, true) | (SumRepair::Repairing, false) => SumRepair::Repairing,
            (SumRepair::Probing(left), false) if left > 1 => SumRepair::Probing(left - 1),
            _ => SumRepair::Off,
        }
    }
}

/// What the campaign's mutator shares with the fuzz loop.
pub(super) struct MutatorShared<'a> {
    /// Inputs longer than this many choices are not mutated further.
    pub(super) max_choices: &'a Cell<usize>,
    pub(super) execs: &'a Cell<u64>,
    pub(super) token_counts: &'a RefCell<TokenCounts>,
}

impl<'a, 'p> CampaignMutator<'a, 'p> {
    /// The mutator of the campaign `request` asks for, with its own RNG
    /// stream and the campaign's `dictionary` ([`super::tokens::dictionary`]).
    pub(super) fn new(
        property: &'a PropertyFn<'p>,
        limits: Limits,
        request: &WorkerConfig,
        dictionary: Dictionary,
        shared: MutatorShared<'a>,
    ) -> Self {
        let mut inner = ChoiceMutator::new(request.rng_seed ^ 0xc0ffee, request.cmp_mutations);
        inner.literals = dictionary.tokens;
        inner.own_tokens = dictionary.own;
        inner.grow = request.perf;
        CampaignMutator {
            property,
            limits,
            inner,
            cache: ShapeCache::default(),
            trace: request.cmp_mutations,
            max_choices: shared.max_choices,
            execs: shared.execs,
            token_counts: shared.token_counts,
            sum_repair: HashMap::new(),
        }
    }

    /// Mutates `choices`, a copy of corpus entry `entry` (`usize::MAX` when
    /// there is none). False when the mutant is not worth running.
    /// `inflight` is the slot that names the input a crash killed the
    /// worker on: a checksum repair runs the mutant before the harness does.
    pub(super) fn mutate(
        &mut self,
        entry: usize,
        choices: &mut Vec<u64>,
        inflight: &RefCell<Inflight>,
    ) -> bool {
        let (property, limits, trace) = (self.property, self.limits, self.trace);
        let (learned, new) = self.cache.get_or_learn(entry, || {
            (
                Shape::learn(property, choices, limits, trace),
                choices.clone(),
            )
        });
        if new {
            if trace {
                self.execs.set(self.execs.get() + 1);
            }
            self.inner.learn_tokens(&learned.0.comparisons);
            self.inner.learn_variants(&learned.0, &learned.1);
        }
        let donor = self.cache.other(&mut self.inner.rng, entry);
        let changed = self.inner.mutate(
            &learned.0,
            choices,
            donor.as_ref().map(|d| (&d.0, d.1.as_slice())),
        );
        if !changed || choices.len() > self.max_choices.get() {
            return false;
        }
        if !learned.0.sums.is_empty() {
            self.repair_sums(entry, &learned.0.sums, choices, inflight);
        }
        true
    }

    /// Runs the mutant `choices` of `entry` traced and repairs the sums
    /// it stores ([`ChoiceMutator::run_and_repair_sums`]), while the entry
    /// is worth it ([`SumRepair`]).
    fn repair_sums(
        &mut self,
        entry: usize,
        sums: &[Sum],
        choices: &mut Vec<u64>,
        inflight: &RefCell<Inflight>,
    ) {
        let state = *self
            .sum_repair
            .entry(entry)
            .or_insert(SumRepair::Probing(SumRepair::PROBES));
        if matches!(state, SumRepair::Off) {
            return;
        }
        // The mutant runs here first: if it crashes the worker, the slot
        // must name it, not the input the harness ran last.
        self.execs.set(self.execs.get() + 1);
        inflight.borrow_mut().store(self.execs.get(), choices);
        let repaired = self
            .inner
            .run_and_repair_sums(self.property, self.limits, sums, choices);
        self.sum_repair
            .insert(entry, state.after(!repaired.is_empty()));
    }

    /// Counts the dictionary tokens of a mutant that made a new corpus
    /// entry.
    pub(super) fn mutant_ran(&mut self, added: bool) {
        if added && !self.inner.written.is_empty() {
            self.token_counts
                .borrow_mut()
                .entry_added(&self.inner.written);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::SumRepair;

    #[test]
    fn an_entry_is_repaired_once_a_probe_needed_it_and_left_alone_after_probes_that_did_not() {
        let mut state = SumRepair::Probing(SumRepair::PROBES);
        for _ in 1..SumRepair::PROBES {
            state = state.after(false);
            assert!(matches!(state, SumRepair::Probing(_)), "{state:?}");
        }
        assert!(matches!(state.after(false), SumRepair::Off));
        let repairing = state.after(true);
        assert!(matches!(repairing, SumRepair::Repairing));
        assert!(matches!(repairing.after(false), SumRepair::Repairing));
    }
}
