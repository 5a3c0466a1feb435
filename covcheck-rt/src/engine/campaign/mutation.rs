//! The campaign's mutator: learns each corpus entry's shape once, then
//! applies [`ChoiceMutator`]; and counts the dictionary tokens of the
//! mutations that made new corpus entries. The engine's mutational stage
//! calls it through the host callbacks ([`super::host`]).

use std::cell::{Cell, RefCell};
use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use super::tokens::{Dictionary, TokenCounts};
use crate::engine::inflight::Inflight;
use crate::engine::mutator::{ChoiceMutator, Miss, RepairRuns, Shape, ShapeCache, Sum, XorSum};
use crate::property::PropertyFn;
use crate::source::Limits;
use covcheck_protocol::worker::WorkerConfig;

/// One repaired mutant in this many also has its XOR-form sums checked, and
/// looked for elsewhere when the repair did not take
/// ([`ChoiceMutator::run_and_repair_sums`]): that costs a run, and a run per
/// window tried, so it is not done for every mutant; the mutants that need
/// it (a rewritten length field) come back often.
const LOCATE_ONE_IN: usize = 8;

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
    /// The XOR-form checksums each corpus entry stores
    /// ([`crate::engine::mutator::XorSum`]). A traced run cannot tell them:
    /// they are known from the mutant that solved or repaired them.
    xor_sums: HashMap<usize, Vec<XorSum>>,
    /// XOR-form checksums of mutants that became corpus entries, by the
    /// mutant's choices, until the entry is first mutated and takes them
    /// (the engine does not say which entry a mutant became).
    xor_hints: HashMap<Vec<u64>, Vec<XorSum>>,
    /// The last mutant and the XOR-form checksums it stores, kept for
    /// [`CampaignMutator::mutant_ran`]; the mutant is copied only when it
    /// stores some.
    last_mutant: Vec<u64>,
    last_xor_sums: Vec<XorSum>,
    /// The XOR-form checksum candidates (constant, width, which one) that a
    /// sweep of every window did not solve ([`CampaignMutator::sweep`]).
    swept: HashSet<(u64, u8, usize)>,
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
            xor_sums: HashMap::new(),
            xor_hints: HashMap::new(),
            last_mutant: Vec::new(),
            last_xor_sums: Vec::new(),
            swept: HashSet::new(),
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
        self.last_xor_sums.clear();
        let learned = self.learn(entry, choices);
        if let Some(miss) = learned.1 {
            // A new entry's first missed comparison with a constant is
            // swept once.
            if let Some(sums) = self.sweep(entry, &learned.0.0, miss, choices, inflight) {
                self.last_mutant.clone_from(choices);
                self.last_xor_sums = sums;
                return true;
            }
        }
        let learned = learned.0;
        let donor = self.cache.other(&mut self.inner.rng, entry);
        let changed = self.inner.mutate(
            &learned.0,
            choices,
            donor.as_ref().map(|d| (&d.0, d.1.as_slice())),
        );
        if !changed || choices.len() > self.max_choices.get() {
            return false;
        }
        let xor_sums = self.xor_sums.get(&entry).cloned().unwrap_or_default();
        let mut stored = if !learned.0.sums.is_empty() || !xor_sums.is_empty() {
            self.repair_sums(entry, &learned.0.sums, xor_sums, choices, inflight)
        } else {
            xor_sums
        };
        stored.append(&mut self.inner.xor_solved);
        if !stored.is_empty() {
            self.last_mutant.clone_from(choices);
            self.last_xor_sums = stored;
        }
        true
    }

    /// The shape of corpus entry `entry` (whose input is `choices`),
    /// learned on its first mutation, and then, with it, the missed
    /// comparison with a constant to sweep ([`CampaignMutator::sweep`]),
    /// if any.
    fn learn(&mut self, entry: usize, choices: &[u64]) -> (Rc<(Shape, Vec<u64>)>, Option<Miss>) {
        let (property, limits, trace) = (self.property, self.limits, self.trace);
        let mut runs = 0;
        let (learned, new) = self.cache.get_or_learn(entry, || {
            let mut shape = Shape::learn(property, choices, limits, trace);
            if shape.misses.iter().any(|m| !m.stored) {
                // A comparison with a value that changes from run to run
                // (a counter, a clock) is no checksum: only the misses a
                // second run shows again are kept.
                let again = Shape::learn(property, choices, limits, true);
                shape
                    .misses
                    .retain(|m| m.stored || again.misses.contains(m));
                runs += 1;
            }
            (shape, choices.to_vec())
        });
        if !new {
            return (learned, None);
        }
        if trace {
            runs += 1;
        }
        self.execs.set(self.execs.get() + runs);
        self.inner.learn_tokens(&learned.0.comparisons);
        self.inner.learn_variants(&learned.0, &learned.1);
        if let Some(mut xor_sums) = self.xor_hints.remove(choices) {
            xor_sums.retain(|sum| sum.holds_in(&learned.0));
            if !xor_sums.is_empty() {
                self.xor_sums.insert(entry, xor_sums);
            }
        }
        // Behind a checksum every random change of a magic value must be
        // repaired too, so there the narrow constants (a byte, a zero) are
        // swept as well.
        let checksummed = self.xor_sums.contains_key(&entry) || !learned.0.sums.is_empty();
        let target = learned
            .0
            .misses
            .iter()
            .find(|m| {
                (checksummed || m.cmp.is_wide())
                    && !self.swept.contains(&(m.cmp.a, m.cmp.size, m.nth))
            })
            .copied();
        (learned, target)
    }

    /// Sweeps the windows of a new entry (`choices`, of `shape`) for one
    /// that solves `miss` ([`ChoiceMutator::sweep_miss`]), a run each,
    /// repairing the XOR-form sums the entry stores where a try breaks
    /// them. A comparison is swept once in a campaign, solved or not (the
    /// entries the solved input leads to hold it; one no window solves is
    /// no XOR-form checksum, or not one of the input's bytes): the random
    /// mutations still try it.
    fn sweep(
        &mut self,
        entry: usize,
        shape: &Shape,
        miss: Miss,
        choices: &mut Vec<u64>,
        inflight: &RefCell<Inflight>,
    ) -> Option<Vec<XorSum>> {
        let carried = self.xor_sums.get(&entry).cloned().unwrap_or_default();
        let execs = self.execs;
        let mut before_run = |input: &[u64]| {
            execs.set(execs.get() + 1);
            inflight.borrow_mut().store(execs.get(), input);
        };
        let mut runs = RepairRuns {
            property: self.property,
            limits: self.limits,
            before_run: &mut before_run,
            locate: true,
        };
        let solved = self
            .inner
            .sweep_miss(&mut runs, shape, miss, choices, &carried);
        self.swept.insert((miss.cmp.a, miss.cmp.size, miss.nth));
        solved
    }

    /// Runs the mutant `choices` of `entry` traced and repairs the sums
    /// it stores ([`ChoiceMutator::run_and_repair_sums`]), while the entry
    /// is worth it ([`SumRepair`]). Returns the XOR-form sums the mutant
    /// stores after it.
    fn repair_sums(
        &mut self,
        entry: usize,
        sums: &[Sum],
        xor_sums: Vec<XorSum>,
        choices: &mut Vec<u64>,
        inflight: &RefCell<Inflight>,
    ) -> Vec<XorSum> {
        // A known XOR-form sum is no magic number taken for a sum: its
        // solve made the comparison hold and reached new code, so its
        // entry is repaired from the start, however few of the mutants
        // touch what it covers.
        let first = if xor_sums.is_empty() {
            SumRepair::Probing(SumRepair::PROBES)
        } else {
            SumRepair::Repairing
        };
        let state = *self.sum_repair.entry(entry).or_insert(first);
        if matches!(state, SumRepair::Off) {
            return xor_sums;
        }
        // The mutant runs here first: if it crashes the worker, the slot
        // must name it, not the input the harness ran last.
        let execs = self.execs;
        let mut before_run = |input: &[u64]| {
            execs.set(execs.get() + 1);
            inflight.borrow_mut().store(execs.get(), input);
        };
        let locate = self.inner.rng.index(LOCATE_ONE_IN) == 0;
        let mut runs = RepairRuns {
            property: self.property,
            limits: self.limits,
            before_run: &mut before_run,
            locate,
        };
        let repaired = self
            .inner
            .run_and_repair_sums(&mut runs, sums, &xor_sums, choices);
        self.sum_repair.insert(entry, state.after(repaired.any));
        repaired.xor_sums
    }

    /// Counts the dictionary tokens of a mutant that made a new corpus
    /// entry.
    pub(super) fn mutant_ran(&mut self, added: bool) {
        if added && !self.inner.written.is_empty() {
            self.token_counts
                .borrow_mut()
                .entry_added(&self.inner.written);
        }
        if added && !self.last_xor_sums.is_empty() {
            let sums = std::mem::take(&mut self.last_xor_sums);
            self.xor_hints.insert(self.last_mutant.clone(), sums);
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
