//! The LibAFL components whose decisions the host makes: each is a thin
//! shim that calls back into covcheck-rt through [`Host`].

use std::borrow::Cow;

use libafl::Error;
use libafl::corpus::{Corpus, CorpusId, HasCurrentCorpusId, Testcase};
use libafl::executors::ExitKind;
use libafl::feedbacks::{Feedback, StateInitializer};
use libafl::mutators::{MutationResult, Mutator};
use libafl::schedulers::Scheduler;
use libafl::state::HasCorpus;
use libafl_bolts::Named;
use serde::{Deserialize, Serialize};

use crate::host::HostCalls;

/// The campaign's input: a choice sequence, the host's one data model.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq, Eq, Hash)]
pub struct ChoiceInput {
    pub choices: Vec<u64>,
}

impl libafl::inputs::Input for ChoiceInput {}

/// The host's mutator.
pub struct HostMutator(pub HostCalls);

impl Named for HostMutator {
    fn name(&self) -> &Cow<'static, str> {
        static NAME: Cow<'static, str> = Cow::Borrowed("covcheck");
        &NAME
    }
}

impl<S: HasCurrentCorpusId> Mutator<ChoiceInput, S> for HostMutator {
    fn mutate(&mut self, state: &mut S, input: &mut ChoiceInput) -> Result<MutationResult, Error> {
        let entry = state.current_corpus_id()?.map_or(usize::MAX, |id| id.0);
        if self.0.mutate(entry, &mut input.choices) {
            Ok(MutationResult::Mutated)
        } else {
            Ok(MutationResult::Skipped)
        }
    }

    fn post_exec(&mut self, _state: &mut S, new: Option<CorpusId>) -> Result<(), Error> {
        self.0.mutant_ran(new.is_some());
        Ok(())
    }
}

/// The corpus feedback: the host's novelty check of the execution that
/// just ran; an input that enters the corpus is committed.
pub struct HostNovelty(pub HostCalls);

impl Named for HostNovelty {
    fn name(&self) -> &Cow<'static, str> {
        static NAME: Cow<'static, str> = Cow::Borrowed("new-coverage");
        &NAME
    }
}

impl<S> StateInitializer<S> for HostNovelty {}

impl<EM, I, OT, S> Feedback<EM, I, OT, S> for HostNovelty {
    fn is_interesting(
        &mut self,
        _state: &mut S,
        _manager: &mut EM,
        _input: &I,
        _observers: &OT,
        _exit_kind: &ExitKind,
    ) -> Result<bool, Error> {
        Ok(self.0.is_new())
    }

    fn append_metadata(
        &mut self,
        _state: &mut S,
        _manager: &mut EM,
        _observers: &OT,
        _testcase: &mut Testcase<I>,
    ) -> Result<(), Error> {
        self.0.commit();
        Ok(())
    }
}

/// The host's scheduler: it is told of each entry added and picks the next.
pub struct HostScheduler(pub HostCalls);

impl<S> Scheduler<ChoiceInput, S> for HostScheduler
where
    S: HasCorpus<ChoiceInput>,
{
    fn on_add(&mut self, state: &mut S, id: CorpusId) -> Result<(), Error> {
        let len = state
            .corpus()
            .get(id)?
            .borrow()
            .input()
            .as_ref()
            .map_or(0, |input| input.choices.len());
        self.0.entry_added(id.0, len);
        Ok(())
    }

    fn next(&mut self, state: &mut S) -> Result<CorpusId, Error> {
        if state.corpus().count() == 0 {
            return Err(Error::empty("the corpus is empty".to_string()));
        }
        let id = CorpusId(self.0.next_entry());
        <Self as Scheduler<ChoiceInput, S>>::set_current_scheduled(self, state, Some(id))?;
        Ok(id)
    }

    fn set_current_scheduled(
        &mut self,
        state: &mut S,
        next_id: Option<CorpusId>,
    ) -> Result<(), Error> {
        *state.corpus_mut().current_mut() = next_id;
        Ok(())
    }
}
