//! One property's coverage-guided campaign on LibAFL.
//!
//! LibAFL supplies the proven machinery: the in-process executor with its
//! crash and timeout handlers, the map observer that clears the sancov
//! 8-bit counters, the state, the objectives and the mutational stage.
//! covcheck supplies the structure-aware parts ([`components`]): the
//! choice-sequence input, its mutator ([`crate::engine::mutator`]), a rarity
//! scheduler ([`crate::engine::scheduler`]), and the novelty check
//! ([`crate::engine::cover::Novelty`]), which does LibAFL's max-map rule in
//! one pass that skips zero words.
//!
//! A campaign runs in stages: [`run`] reads the dictionary ([`tokens`]) and
//! sets LibAFL up; the corpus starts from the corpus cache, the covering
//! seeds and [`fresh`] random inputs ([`Campaign::seed_corpus`]); the fuzz
//! loop mutates, adds fresh inputs and grows their size bound when coverage
//! stalls ([`Campaign::fuzz`]); and a caught failure is shrunk and reported
//! ([`report`]).
//!
//! A panic is caught in the harness ([`execution`]: the property runs under
//! [`crate::property::execute`]), shrunk here and reported; the worker then
//! stops. Anything that kills the process (abort, stack overflow, segfault,
//! timeout) leaves its input in the in-flight slot for the supervisor.

mod components;
mod corpus;
mod execution;
mod fresh;
mod report;
mod tokens;

use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::time::{Duration, Instant};

use libafl::corpus::{Corpus, InMemoryCorpus};
use libafl::events::SimpleEventManager;
use libafl::executors::InProcessExecutor;
use libafl::executors::hooks::inprocess::HasTimeout;
use libafl::executors::hooks::timer::TimerStruct;
use libafl::executors::inprocess::HasInProcessHooks;
use libafl::feedback_or_fast;
use libafl::feedbacks::{CrashFeedback, TimeoutFeedback};
use libafl::fuzzer::{Evaluator, Fuzzer, StdFuzzer};
use libafl::monitors::NopMonitor;
use libafl::observers::StdMapObserver;
use libafl::stages::StdMutationalStage;
use libafl::state::{HasCorpus, StdState};
use libafl_bolts::rands::StdRand;
use libafl_bolts::tuples::tuple_list;

use crate::config::Config;
use crate::engine::input::ChoiceInput;
use crate::engine::scheduler::RarityScheduler;
use crate::engine::{campaign_limits, instrumented_counters, open_inflight, sancov};
use crate::info::PropertyInfo;
use crate::property::{PropertyFn, take_over_panic_hook};
use crate::source::Limits;
use components::{CovcheckMutator, MutatorShared, NewCoverage};
use corpus::{persist_new_entries, saved_inputs};
use covcheck_protocol::worker::{Event, Progress, WorkerConfig, emit};
use execution::Shared;
use fresh::{Fresh, STALL_EXECS};
use tokens::TokenCounts;

/// Fresh random inputs evaluated to start a campaign.
const INITIAL_INPUTS: u64 = 32;
const STATUS_EVERY: Duration = Duration::from_millis(500);
/// Fresh random inputs per mutation round once coverage has stalled at the
/// full size bound (one otherwise).
const STALLED_FRESH: usize = 16;

type State =
    StdState<InMemoryCorpus<ChoiceInput>, ChoiceInput, StdRand, InMemoryCorpus<ChoiceInput>>;
type Manager = SimpleEventManager<ChoiceInput, NopMonitor, State>;

/// Runs the campaign `request` asks for on `property`, reporting as events.
pub fn run(
    info: &PropertyInfo,
    property: &PropertyFn<'_>,
    request: &WorkerConfig,
) -> Result<(), String> {
    let started = Instant::now();
    let base = Config::resolve(&info.attributes)?;
    let dictionary = tokens::dictionary(info, request)?;
    let token_counts = RefCell::new(TokenCounts::new(&dictionary.tokens));
    let limits = campaign_limits(base.limits);
    let counters = instrumented_counters(info)?;
    let mut inflight = open_inflight(request)?;
    let shared = Shared::default();
    let mut harness =
        |input: &ChoiceInput| shared.execute(property, limits, counters, &mut inflight, input);

    // The harness judges novelty itself ([`Novelty`]); the observer only
    // clears the counters before each execution.
    // SAFETY: the counters section lives as long as the process.
    let observer = unsafe { StdMapObserver::from_mut_ptr("counters", counters.0, counters.1) };
    let mut feedback = NewCoverage(shared.novelty.clone());
    let mut objective = feedback_or_fast!(CrashFeedback::new(), TimeoutFeedback::new());
    let mut state: State = StdState::new(
        StdRand::with_seed(request.rng_seed),
        InMemoryCorpus::<ChoiceInput>::new(),
        InMemoryCorpus::new(),
        &mut feedback,
        &mut objective,
    )
    .map_err(|e| e.to_string())?;
    let mut mgr: Manager = SimpleEventManager::new(NopMonitor::new());
    let scheduler = RarityScheduler::new(request.rng_seed ^ 0x5eed);
    let edges = scheduler.edges();
    let mut fuzzer = StdFuzzer::new(scheduler, feedback, objective);
    let timeout = Duration::from_millis(request.timeout_ms.max(1));
    #[allow(deprecated)] // the builder needs the same five parts
    let mut executor = InProcessExecutor::with_timeout(
        &mut harness,
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
    // LibAFL's panic hook ends the process on any panic, even a caught one.
    take_over_panic_hook();

    let max_choices = Cell::new(limits.max_choices);
    let mutator = CovcheckMutator::new(
        property,
        limits,
        request,
        dictionary,
        MutatorShared {
            max_choices: &max_choices,
            execs: &shared.execs,
            token_counts: &token_counts,
        },
    );
    let mut lib = Libafl {
        fuzzer,
        executor,
        state,
        mgr,
        stages: tuple_list!(StdMutationalStage::new(mutator)),
    };
    let initial = saved_inputs(info, request);
    let mut campaign = Campaign {
        property,
        request,
        base,
        limits,
        started,
        shared: &shared,
        fresh: Fresh::new(property, limits, base.limits.max_len, request, &max_choices),
        edges,
        token_counts: &token_counts,
    };
    campaign.seed_corpus(&mut lib, initial)?;
    campaign.fuzz(&mut lib)?;
    campaign.finish(&mut lib);
    Ok(())
}

/// The LibAFL side of a campaign, behind the few calls the stages make.
struct Libafl<Z, E, ST> {
    fuzzer: Z,
    executor: E,
    state: State,
    mgr: Manager,
    stages: ST,
}

impl<Z, E, ST> Libafl<Z, E, ST>
where
    Z: Evaluator<E, Manager, ChoiceInput, State> + Fuzzer<E, Manager, ChoiceInput, State, ST>,
    E: HasInProcessHooks<ChoiceInput, State>,
{
    /// Runs an input; it enters the corpus if its coverage is new.
    fn evaluate(&mut self, choices: Vec<u64>) -> Result<(), String> {
        let input = ChoiceInput { choices };
        self.fuzzer
            .evaluate_input(&mut self.state, &mut self.executor, &mut self.mgr, &input)
            .map(drop)
            .map_err(|e| e.to_string())
    }

    /// Adds the empty input to the corpus, whatever its coverage.
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

    /// One round of the mutational stage on the next scheduled entry.
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

    /// Stops the timeout timer: shrinking must not fire LibAFL's timeout
    /// handler.
    fn stop_timer(&mut self) {
        self.executor
            .inprocess_hooks_mut()
            .timer_mut()
            .unset_timer();
    }
}

/// covcheck's side of a campaign: what the stages after setup share.
struct Campaign<'a, 'p> {
    property: &'a PropertyFn<'p>,
    request: &'a WorkerConfig,
    base: Config,
    limits: Limits,
    started: Instant,
    shared: &'a Shared,
    fresh: Fresh<'a, 'p>,
    edges: Rc<Cell<usize>>,
    token_counts: &'a RefCell<TokenCounts>,
}

impl Campaign<'_, '_> {
    /// Evaluates the saved inputs and [`INITIAL_INPUTS`] fresh ones (until a
    /// failure is caught), makes sure the corpus is not empty, and says the
    /// campaign has started.
    fn seed_corpus<Z, E, ST>(
        &mut self,
        lib: &mut Libafl<Z, E, ST>,
        mut initial: Vec<Vec<u64>>,
    ) -> Result<(), String>
    where
        Z: Evaluator<E, Manager, ChoiceInput, State> + Fuzzer<E, Manager, ChoiceInput, State, ST>,
        E: HasInProcessHooks<ChoiceInput, State>,
    {
        for _ in 0..INITIAL_INPUTS {
            initial.push(self.fresh.draw());
        }
        for choices in initial {
            if self.shared.has_caught() {
                break;
            }
            lib.evaluate(choices)?;
        }
        if lib.corpus_count() == 0 && !self.shared.has_caught() {
            lib.add_empty()?;
        }
        emit(&Event::Started {
            counters: sancov::counters().1,
            corpus: lib.corpus_count(),
        });
        Ok(())
    }

    /// The fuzz loop: reports what the harness caught, then one mutation
    /// round and fresh inputs, until the budget is spent (or a failure that
    /// comes back ends the campaign). New corpus entries go to the corpus
    /// cache as they come.
    fn fuzz<Z, E, ST>(&mut self, lib: &mut Libafl<Z, E, ST>) -> Result<(), String>
    where
        Z: Evaluator<E, Manager, ChoiceInput, State> + Fuzzer<E, Manager, ChoiceInput, State, ST>,
        E: HasInProcessHooks<ChoiceInput, State>,
    {
        let deadline = self
            .request
            .time_ms
            .map(|ms| self.started + Duration::from_millis(ms));
        let mut persisted = 0usize;
        let mut last_status = Instant::now();
        // The corpus size when it last grew, and the execution count then.
        let mut last_growth = (lib.corpus_count(), self.execs());
        loop {
            if self.report_caught(lib) && self.request.stop_on_failure {
                break;
            }
            if self.request.runs.is_some_and(|runs| self.execs() >= runs)
                || deadline.is_some_and(|d| Instant::now() >= d)
            {
                break;
            }
            lib.fuzz_one()?;
            let stalled = self.fresh.at_full_size() && self.execs() - last_growth.1 > STALL_EXECS;
            self.evaluate_fresh(lib, if stalled { STALLED_FRESH } else { 1 })?;
            let count = lib.corpus_count();
            if count != last_growth.0 {
                last_growth = (count, self.execs());
            } else if self.execs() - last_growth.1 > STALL_EXECS && !self.fresh.at_full_size() {
                self.fresh.grow();
                last_growth.1 = self.execs();
            }
            persisted = persist_new_entries(&lib.state, persisted, &self.request.corpus_dir);
            if last_status.elapsed() >= STATUS_EVERY {
                emit(&Event::Status(self.progress(lib.corpus_count())));
                last_status = Instant::now();
            }
        }
        persist_new_entries(&lib.state, persisted, &self.request.corpus_dir);
        Ok(())
    }

    /// Shrinks and reports a failure the harness caught, if any. Returns
    /// whether it failed again when replayed; one that did not is reported,
    /// and the campaign goes on looking for one that does.
    fn report_caught<Z, E, ST>(&mut self, lib: &mut Libafl<Z, E, ST>) -> bool
    where
        Z: Evaluator<E, Manager, ChoiceInput, State> + Fuzzer<E, Manager, ChoiceInput, State, ST>,
        E: HasInProcessHooks<ChoiceInput, State>,
    {
        let found = self.shared.caught.borrow_mut().take();
        let Some(found) = found else {
            return false;
        };
        lib.stop_timer();
        let (origin, reproduced) = self.report(found);
        self.shared.known.borrow_mut().insert(origin);
        reproduced
    }

    /// A fresh heuristic input now and then keeps the campaign at least as
    /// strong as plain random testing; `count` of them, unless a failure is
    /// caught first.
    fn evaluate_fresh<Z, E, ST>(
        &mut self,
        lib: &mut Libafl<Z, E, ST>,
        count: usize,
    ) -> Result<(), String>
    where
        Z: Evaluator<E, Manager, ChoiceInput, State> + Fuzzer<E, Manager, ChoiceInput, State, ST>,
        E: HasInProcessHooks<ChoiceInput, State>,
    {
        for _ in 0..count {
            if self.shared.has_caught() {
                break;
            }
            let choices = self.fresh.draw();
            lib.evaluate(choices)?;
        }
        Ok(())
    }

    /// Reports a failure caught by the last execution of the budget, and
    /// the campaign's totals.
    fn finish<Z, E, ST>(&mut self, lib: &mut Libafl<Z, E, ST>)
    where
        Z: Evaluator<E, Manager, ChoiceInput, State> + Fuzzer<E, Manager, ChoiceInput, State, ST>,
        E: HasInProcessHooks<ChoiceInput, State>,
    {
        lib.stop_timer();
        let found = self.shared.caught.take();
        if let Some(found) = found {
            self.report(found);
        }
        emit(&Event::Done(self.progress(lib.corpus_count())));
    }

    /// Shrinks `found` and sends the finding; see [`report::report`].
    fn report(&self, found: execution::Caught) -> (crate::property::Origin, bool) {
        let since = self.shared.first_exec.get().unwrap_or(self.started);
        report::report(self.property, self.limits, &self.base, found, since)
    }

    fn execs(&self) -> u64 {
        self.shared.execs.get()
    }

    fn progress(&self, corpus: usize) -> Progress {
        Progress {
            execs: self.execs(),
            corpus,
            edges: self.edges.get(),
            elapsed_ms: self.started.elapsed().as_millis() as u64,
            tokens: self.token_counts.borrow().top(),
        }
    }
}
