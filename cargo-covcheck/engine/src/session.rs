//! One campaign session: LibAFL's in-process executor (with its crash and
//! timeout handlers), the state, the objectives and the mutational stage,
//! around the host's components ([`crate::components`]). The coverage
//! counters are the host's alone: it clears and reads them.
//!
//! A worker that shares its corpus with other workers of the same property
//! talks to their LLMP broker (`covcheck-broker`, see `broker.rs`) through
//! LibAFL's `LlmpEventManager`: each input that enters its corpus is sent,
//! and what the others sent is run after each mutation round and kept when
//! it is new here too. A worker alone uses the `SimpleEventManager`, which
//! costs nothing.

use std::time::Duration;

use libafl::corpus::{Corpus, CorpusId, InMemoryCorpus};
use libafl::events::{EventConfig, LlmpEventManager, LlmpEventManagerBuilder, SimpleEventManager};
use libafl::executors::hooks::inprocess::HasTimeout;
use libafl::executors::hooks::timer::TimerStruct;
use libafl::executors::inprocess::HasInProcessHooks;
use libafl::executors::{ExitKind, InProcessExecutor};
use libafl::feedback_or_fast;
use libafl::feedbacks::{CrashFeedback, TimeoutFeedback};
use libafl::fuzzer::{Evaluator, EvaluatorObservers, Fuzzer, StdFuzzer};
use libafl::monitors::NopMonitor;
use libafl::stages::StdMutationalStage;
use libafl::state::{HasCorpus, HasImported, StdState};
use libafl_bolts::rands::StdRand;
use libafl_bolts::shmem::ShMemProvider;
use libafl_bolts::tuples::tuple_list;

use crate::abi::Settings;
use crate::components::{ChoiceInput, HostMutator, HostNovelty, HostScheduler};
use crate::host::HostCalls;
use crate::shmem::KernelFreed;

type State =
    StdState<InMemoryCorpus<ChoiceInput>, ChoiceInput, StdRand, InMemoryCorpus<ChoiceInput>>;
type Alone = SimpleEventManager<ChoiceInput, NopMonitor, State>;
type Shared =
    LlmpEventManager<(), ChoiceInput, State, <KernelFreed as ShMemProvider>::ShMem, KernelFreed>;

/// What the host can ask of a running session.
pub trait Session {
    /// Runs an input; `share`: send it to the other workers if it enters
    /// the corpus.
    fn evaluate(&mut self, choices: Vec<u64>, share: bool) -> Result<(), String>;
    fn add_empty(&mut self) -> Result<(), String>;
    fn fuzz_one(&mut self) -> Result<(), String>;
    fn corpus_count(&self) -> usize;
    fn imported(&self) -> u64;
    fn corpus_entry(&self, n: usize) -> Option<Vec<u64>>;
    fn stop_timer(&mut self);
}

/// Sets a session up: alone, or as a client of the broker on
/// `settings.broker_port`.
pub fn start(settings: Settings, host: HostCalls) -> Result<Box<dyn Session>, String> {
    if settings.broker_port == 0 {
        return build(settings, host, Alone::new(NopMonitor::new()));
    }
    let broker = |e: libafl::Error| {
        format!(
            "cannot reach the corpus broker on port {}: {e}",
            settings.broker_port
        )
    };
    // Pages the kernel frees however this worker ends (see `shmem.rs`).
    let provider = KernelFreed::new().map_err(broker)?;
    // Always unique: a receiver runs each input itself, as novelty is judged
    // by its own host against its own coverage.
    let mgr: Shared = LlmpEventManagerBuilder::new()
        .build_on_port(provider, settings.broker_port, EventConfig::AlwaysUnique)
        .map_err(broker)?;
    build(settings, host, mgr)
}

/// Sets a session up around the event manager `mgr`.
fn build<EM>(settings: Settings, host: HostCalls, mut mgr: EM) -> Result<Box<dyn Session>, String>
where
    EM: Manager,
{
    let harness = move |input: &ChoiceInput| {
        if host.execute(&input.choices) {
            ExitKind::Crash
        } else {
            ExitKind::Ok
        }
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
    let mut fuzzer = StdFuzzer::new(HostScheduler(host), feedback, objective);
    let timeout = Duration::from_millis(settings.timeout_ms.max(1));
    #[allow(deprecated)] // the builder needs the same five parts
    let mut executor = InProcessExecutor::with_timeout(
        harness,
        // No observer: the host reads and clears the coverage counters
        // itself, only those an execution touched.
        tuple_list!(),
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
struct Libafl<Z, E, ST, EM> {
    fuzzer: Z,
    executor: E,
    state: State,
    mgr: EM,
    stages: ST,
}

impl<Z, E, ST, EM> Session for Libafl<Z, E, ST, EM>
where
    Z: Evaluator<E, EM, ChoiceInput, State>
        + EvaluatorObservers<E, EM, ChoiceInput, State>
        + Fuzzer<E, EM, ChoiceInput, State, ST>,
    E: HasInProcessHooks<ChoiceInput, State>,
{
    fn evaluate(&mut self, choices: Vec<u64>, share: bool) -> Result<(), String> {
        let input = ChoiceInput { choices };
        self.fuzzer
            .evaluate_input_with_observers(
                &mut self.state,
                &mut self.executor,
                &mut self.mgr,
                &input,
                share,
            )
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

    fn imported(&self) -> u64 {
        *self.state.imported() as u64
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

/// What a session needs of its event manager (LibAFL's bounds in one
/// place): met by the manager of a worker alone and by LLMP's.
pub trait Manager:
    libafl::events::EventFirer<ChoiceInput, State>
    + libafl::events::EventRestarter<State>
    + libafl::events::EventReceiver<ChoiceInput, State>
    + libafl::events::ProgressReporter<State>
    + libafl::events::SendExiting
    + libafl::events::HasEventManagerId
    + 'static
{
}

impl<T> Manager for T where
    T: libafl::events::EventFirer<ChoiceInput, State>
        + libafl::events::EventRestarter<State>
        + libafl::events::EventReceiver<ChoiceInput, State>
        + libafl::events::ProgressReporter<State>
        + libafl::events::SendExiting
        + libafl::events::HasEventManagerId
        + 'static
{
}
