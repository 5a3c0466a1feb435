//! One campaign session: LibAFL's in-process executor (with its crash and
//! timeout handlers), the map observer that clears the coverage counters,
//! the state, the objectives and the mutational stage, around the host's
//! components ([`crate::components`]).

use std::time::Duration;

use libafl::corpus::{Corpus, CorpusId, InMemoryCorpus};
use libafl::events::SimpleEventManager;
use libafl::executors::hooks::inprocess::HasTimeout;
use libafl::executors::hooks::timer::TimerStruct;
use libafl::executors::inprocess::HasInProcessHooks;
use libafl::executors::{ExitKind, InProcessExecutor};
use libafl::feedback_or_fast;
use libafl::feedbacks::{CrashFeedback, TimeoutFeedback};
use libafl::fuzzer::{Evaluator, Fuzzer, StdFuzzer};
use libafl::monitors::NopMonitor;
use libafl::observers::StdMapObserver;
use libafl::stages::StdMutationalStage;
use libafl::state::{HasCorpus, StdState};
use libafl_bolts::rands::StdRand;
use libafl_bolts::tuples::tuple_list;

use crate::abi::{Choices, Host, Settings};
use crate::components::{ChoiceInput, HostMutator, HostNovelty, HostScheduler};

type State =
    StdState<InMemoryCorpus<ChoiceInput>, ChoiceInput, StdRand, InMemoryCorpus<ChoiceInput>>;
type Manager = SimpleEventManager<ChoiceInput, NopMonitor, State>;

/// What the host can ask of a running session.
pub trait Session {
    fn evaluate(&mut self, choices: Vec<u64>) -> Result<(), String>;
    fn add_empty(&mut self) -> Result<(), String>;
    fn fuzz_one(&mut self) -> Result<(), String>;
    fn corpus_count(&self) -> usize;
    fn corpus_entry(&self, n: usize) -> Option<Vec<u64>>;
    fn stop_timer(&mut self);
}

/// Sets a session up.
pub fn start(settings: Settings, host: Host) -> Result<Box<dyn Session>, String> {
    let harness = move |input: &ChoiceInput| {
        if (host.execute)(host.ctx, Choices::lend(&input.choices)) {
            ExitKind::Crash
        } else {
            ExitKind::Ok
        }
    };
    // The host judges novelty itself; the observer only clears the counters
    // before each execution.
    // SAFETY: the host's counters live as long as the process.
    let observer = unsafe {
        StdMapObserver::from_mut_ptr("counters", settings.counters, settings.counters_len)
    };
    let mut feedback = HostNovelty(host);
    let mut objective = feedback_or_fast!(CrashFeedback::new(), TimeoutFeedback::new());
    let mut state: State = StdState::new(
        StdRand::with_seed(settings.rng_seed),
        InMemoryCorpus::<ChoiceInput>::new(),
        InMemoryCorpus::new(),
        &mut feedback,
        &mut objective,
    )
    .map_err(|e| e.to_string())?;
    let mut mgr: Manager = SimpleEventManager::new(NopMonitor::new());
    let mut fuzzer = StdFuzzer::new(HostScheduler(host), feedback, objective);
    let timeout = Duration::from_millis(settings.timeout_ms.max(1));
    #[allow(deprecated)] // the builder needs the same five parts
    let mut executor = InProcessExecutor::with_timeout(
        harness,
        tuple_list!(observer),
        &mut fuzzer,
        &mut state,
        &mut mgr,
        timeout,
    )
    .map_err(|e| e.to_string())?;
    // Two `timer_settime` calls per execution cost almost half the
    // throughput; batch mode arms the timer once per batch and still catches
    // a hang within twice the timeout.
    *executor.hooks_mut().0.timer_mut() = TimerStruct::batch_mode(timeout);
    Ok(Box::new(Libafl {
        fuzzer,
        executor,
        state,
        mgr,
        stages: tuple_list!(StdMutationalStage::new(HostMutator(host))),
    }))
}

/// LibAFL's parts of a session.
struct Libafl<Z, E, ST> {
    fuzzer: Z,
    executor: E,
    state: State,
    mgr: Manager,
    stages: ST,
}

impl<Z, E, ST> Session for Libafl<Z, E, ST>
where
    Z: Evaluator<E, Manager, ChoiceInput, State> + Fuzzer<E, Manager, ChoiceInput, State, ST>,
    E: HasInProcessHooks<ChoiceInput, State>,
{
    fn evaluate(&mut self, choices: Vec<u64>) -> Result<(), String> {
        let input = ChoiceInput { choices };
        self.fuzzer
            .evaluate_input(&mut self.state, &mut self.executor, &mut self.mgr, &input)
            .map(drop)
            .map_err(|e| e.to_string())
    }

    fn add_empty(&mut self) -> Result<(), String> {
        self.fuzzer
            .add_input(
                &mut self.state,
                &mut self.executor,
                &mut self.mgr,
                ChoiceInput::default(),
            )
            .map(drop)
            .map_err(|e| e.to_string())
    }

    fn fuzz_one(&mut self) -> Result<(), String> {
        self.fuzzer
            .fuzz_one(
                &mut self.stages,
                &mut self.executor,
                &mut self.state,
                &mut self.mgr,
            )
            .map(drop)
            .map_err(|e| e.to_string())
    }

    fn corpus_count(&self) -> usize {
        self.state.corpus().count()
    }

    fn corpus_entry(&self, n: usize) -> Option<Vec<u64>> {
        let corpus = self.state.corpus();
        let id: CorpusId = corpus.nth(n);
        let testcase = corpus.get(id).ok()?.borrow();
        testcase.input().as_ref().map(|input| input.choices.clone())
    }

    fn stop_timer(&mut self) {
        self.executor
            .inprocess_hooks_mut()
            .timer_mut()
            .unset_timer();
    }
}
