//! The LibAFL components covcheck supplies to a campaign: the mutator that
//! works on choice sequences (and counts the dictionary tokens of the
//! mutations that made new corpus entries), and the feedback that reports
//! the harness's own novelty check.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use libafl::corpus::{CorpusId, HasCurrentCorpusId, Testcase};
use libafl::executors::ExitKind;
use libafl::feedbacks::{Feedback, StateInitializer};
use libafl::mutators::{MutationResult, Mutator};
use libafl_bolts::Named;

use super::tokens::{Dictionary, TokenCounts};
use crate::engine::cover::Novelty;
use crate::engine::input::ChoiceInput;
use crate::engine::mutator::{ChoiceMutator, Shape, ShapeCache};
use crate::engine::sancov;
use crate::property::PropertyFn;
use crate::source::Limits;
use covcheck_protocol::worker::WorkerConfig;

/// The LibAFL mutator: learns each corpus entry's shape once, then applies
/// [`ChoiceMutator`].
pub(super) struct CovcheckMutator<'a, 'p> {
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
}

/// What the campaign's mutator shares with the fuzz loop.
pub(super) struct MutatorShared<'a> {
    /// Inputs longer than this many choices are not mutated further.
    pub(super) max_choices: &'a Cell<usize>,
    pub(super) execs: &'a Cell<u64>,
    pub(super) token_counts: &'a RefCell<TokenCounts>,
}

impl<'a, 'p> CovcheckMutator<'a, 'p> {
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
        CovcheckMutator {
            property,
            limits,
            inner,
            cache: ShapeCache::default(),
            trace: request.cmp_mutations,
            max_choices: shared.max_choices,
            execs: shared.execs,
            token_counts: shared.token_counts,
        }
    }
}

impl Named for CovcheckMutator<'_, '_> {
    fn name(&self) -> &std::borrow::Cow<'static, str> {
        static NAME: std::borrow::Cow<'static, str> = std::borrow::Cow::Borrowed("covcheck");
        &NAME
    }
}

impl<S: HasCurrentCorpusId> Mutator<ChoiceInput, S> for CovcheckMutator<'_, '_> {
    fn mutate(
        &mut self,
        state: &mut S,
        input: &mut ChoiceInput,
    ) -> Result<MutationResult, libafl::Error> {
        let id = state.current_corpus_id()?.map_or(usize::MAX, |id| id.0);
        let (property, limits, trace) = (self.property, self.limits, self.trace);
        let (entry, new) = self.cache.get_or_learn(id, || {
            (
                Shape::learn(property, &input.choices, limits, trace),
                input.choices.clone(),
            )
        });
        if new {
            if trace {
                self.execs.set(self.execs.get() + 1);
            }
            self.inner.learn_tokens(&entry.0.comparisons);
            self.inner.learn_variants(&entry.0, &entry.1);
        }
        let donor = self.cache.other(&mut self.inner.rng, id);
        let changed = self.inner.mutate(
            &entry.0,
            &mut input.choices,
            donor.as_ref().map(|d| (&d.0, d.1.as_slice())),
        );
        if !changed || input.choices.len() > self.max_choices.get() {
            return Ok(MutationResult::Skipped);
        }
        Ok(MutationResult::Mutated)
    }

    /// Counts the dictionary tokens of a mutation that made a new corpus
    /// entry.
    fn post_exec(&mut self, _state: &mut S, new: Option<CorpusId>) -> Result<(), libafl::Error> {
        if new.is_some() && !self.inner.written.is_empty() {
            self.token_counts
                .borrow_mut()
                .entry_added(&self.inner.written);
        }
        Ok(())
    }
}

/// The corpus feedback: what the harness's [`Novelty`] check said of the
/// execution that just ran; an input that enters the corpus is recorded.
pub(super) struct NewCoverage(pub(super) Rc<RefCell<Novelty>>);

impl Named for NewCoverage {
    fn name(&self) -> &std::borrow::Cow<'static, str> {
        static NAME: std::borrow::Cow<'static, str> = std::borrow::Cow::Borrowed("new-coverage");
        &NAME
    }
}

impl<S> StateInitializer<S> for NewCoverage {}

impl<EM, I, OT, S> Feedback<EM, I, OT, S> for NewCoverage {
    fn is_interesting(
        &mut self,
        _state: &mut S,
        _manager: &mut EM,
        _input: &I,
        _observers: &OT,
        _exit_kind: &ExitKind,
    ) -> Result<bool, libafl::Error> {
        Ok(self.0.borrow().last_was_new())
    }

    fn append_metadata(
        &mut self,
        _state: &mut S,
        _manager: &mut EM,
        _observers: &OT,
        _testcase: &mut Testcase<I>,
    ) -> Result<(), libafl::Error> {
        let (map, len) = sancov::counters();
        // SAFETY: the counters section lives as long as the process; they
        // still hold the classified counts of the input being added.
        self.0
            .borrow_mut()
            .commit(unsafe { std::slice::from_raw_parts_mut(map, len) });
        Ok(())
    }
}
