//! One property's coverage-guided campaign on LibAFL.
//!
//! LibAFL supplies the proven machinery: the in-process executor with its
//! crash and timeout handlers, the map observer that clears the sancov
//! 8-bit counters, the state, the objectives and the mutational stage.
//! covcheck supplies the structure-aware parts: the choice-sequence input,
//! its mutator ([`super::mutator`]), a rarity scheduler
//! ([`super::scheduler`]), and the novelty check ([`super::cover::Novelty`]),
//! which does LibAFL's max-map rule in one pass that skips zero words.
//!
//! A panic is caught in the harness (the property runs under
//! [`crate::property::execute`]), shrunk here and reported; the worker then
//! stops. Anything that kills the process (abort, stack overflow, segfault,
//! timeout) leaves its input in the in-flight slot for the supervisor.

use std::cell::{Cell, RefCell};
use std::collections::HashSet;
use std::path::Path;
use std::rc::Rc;
use std::time::{Duration, Instant};

use libafl::corpus::HasCurrentCorpusId;
use libafl::corpus::{Corpus, CorpusId, InMemoryCorpus, Testcase};
use libafl::events::SimpleEventManager;
use libafl::executors::hooks::inprocess::HasTimeout;
use libafl::executors::hooks::timer::TimerStruct;
use libafl::executors::{ExitKind, InProcessExecutor};
use libafl::feedback_or_fast;
use libafl::feedbacks::{CrashFeedback, Feedback, StateInitializer, TimeoutFeedback};
use libafl::fuzzer::{Evaluator, Fuzzer, StdFuzzer};
use libafl::monitors::NopMonitor;
use libafl::mutators::{MutationResult, Mutator};
use libafl::observers::StdMapObserver;
use libafl::stages::StdMutationalStage;
use libafl::state::{HasCorpus, StdState};
use libafl_bolts::Named;
use libafl_bolts::rands::StdRand;
use libafl_bolts::tuples::tuple_list;

use crate::choice::trim_trailing_zeros;
use crate::config::Config;
use crate::engine::cover::Novelty;
use crate::engine::inflight::Inflight;
use crate::engine::input::{ChoiceInput, load_corpus_dir};
use crate::engine::mutator::{ChoiceMutator, Shape, ShapeCache};
use crate::engine::scheduler::RarityScheduler;
use crate::engine::{campaign_limits, finding_from_shrunk, rendered_pairs, sancov};
use crate::info::PropertyInfo;
use crate::property::{
    Case, Failure, Origin, PropertyFn, Status, execute, generate_only, take_over_panic_hook,
};
use crate::rng::Rng;
use crate::shrink::shrink;
use crate::source::{Limits, Source};
use covcheck_protocol::seeds::SeedKind;
use covcheck_protocol::worker::{Event, FailureKind, Finding, Progress, WorkerConfig, emit};

/// Collections in fresh random inputs start this long at most; the bound
/// doubles each time the campaign goes [`STALL_EXECS`] executions without new
/// coverage (seed 004's iterative deepening), so early finds are small.
const INITIAL_BOUND: usize = 4;
const STALL_EXECS: u64 = 20_000;
/// How many choices a mutant may have per element of the fresh inputs'
/// size bound: at least 1,024, and at most `Limits::max_choices` (65,536 by
/// default, reached at a bound of 1,024).
const MUTANT_CHOICES_PER_ELEMENT: usize = 64;
/// Fresh random inputs evaluated to start a campaign.
const INITIAL_INPUTS: u64 = 32;
const STATUS_EVERY: Duration = Duration::from_millis(500);
/// Fresh random inputs per mutation round once coverage has stalled at the
/// full size bound (one otherwise).
const STALLED_FRESH: usize = 16;

/// The LibAFL mutator: learns each corpus entry's shape once, then applies
/// [`ChoiceMutator`].
struct CovcheckMutator<'a, 'p> {
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

    fn post_exec(&mut self, _state: &mut S, _new: Option<CorpusId>) -> Result<(), libafl::Error> {
        Ok(())
    }
}

/// The corpus feedback: what the harness's [`Novelty`] check said of the
/// execution that just ran; an input that enters the corpus is recorded.
struct NewCoverage(Rc<RefCell<Novelty>>);

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

/// A failure the harness caught, with the execution count when it happened.
struct Caught {
    choices: Vec<u64>,
    failure: Failure,
    execs: u64,
    at: Instant,
}

pub fn run(
    info: &PropertyInfo,
    property: &PropertyFn<'_>,
    request: &WorkerConfig,
) -> Result<(), String> {
    let started = Instant::now();
    let base = Config::resolve(&info.attributes)?;
    let limits = campaign_limits(base.limits);
    let (map, map_len) = sancov::counters();
    if map_len == 0 {
        return Err(format!(
            "`{}` is not instrumented (no coverage counters): build it with `cargo covcheck`",
            info.full_path()
        ));
    }
    let mut inflight = Inflight::open(&request.inflight_path)
        .map_err(|e| format!("cannot map {}: {e}", request.inflight_path.display()))?;

    let caught: RefCell<Option<Caught>> = RefCell::new(None);
    // Failures already reported (with `--keep-going`): finding them again is
    // not news, so they count as passing.
    let known: RefCell<HashSet<Origin>> = RefCell::new(HashSet::new());
    let execs = Cell::new(0u64);
    // Times are measured from the first execution, as the benchmark's probe
    // does for every tool (setting LibAFL up is not searching).
    let first_exec: Cell<Option<Instant>> = Cell::new(None);
    let novelty = Rc::new(RefCell::new(Novelty::default()));
    let mut harness = |input: &ChoiceInput| {
        if first_exec.get().is_none() {
            first_exec.set(Some(Instant::now()));
        }
        execs.set(execs.get() + 1);
        inflight.store(execs.get(), &input.choices);
        let case = execute(
            property,
            Source::replay(input.choices.clone(), limits),
            false,
        );
        // SAFETY: the counters section lives as long as the process, and
        // nothing else touches it while the harness runs.
        let counters = unsafe { std::slice::from_raw_parts_mut(map, map_len) };
        novelty.borrow_mut().observe(counters);
        match case.status {
            Status::Failed(ref failure) if !known.borrow().contains(&failure.origin) => {
                let mut caught = caught.borrow_mut();
                if caught.is_none() {
                    *caught = Some(Caught {
                        choices: case.indices(),
                        failure: failure.clone(),
                        execs: execs.get(),
                        at: Instant::now(),
                    });
                }
                ExitKind::Crash
            }
            _ => ExitKind::Ok,
        }
    };

    // The harness judges novelty itself ([`Novelty`]); the observer only
    // clears the counters before each execution.
    // SAFETY: the counters section lives as long as the process.
    let observer = unsafe { StdMapObserver::from_mut_ptr("counters", map, map_len) };
    let mut feedback = NewCoverage(novelty.clone());
    let mut objective = feedback_or_fast!(CrashFeedback::new(), TimeoutFeedback::new());
    let mut state = StdState::new(
        StdRand::with_seed(request.rng_seed),
        InMemoryCorpus::<ChoiceInput>::new(),
        InMemoryCorpus::new(),
        &mut feedback,
        &mut objective,
    )
    .map_err(|e| e.to_string())?;
    let mut mgr = SimpleEventManager::new(NopMonitor::new());
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
    // Mutants may grow past the fresh inputs' bound, but not without limit:
    // a corpus of inputs of thousands of elements from the first minute
    // would slow every later execution down. The cap grows with the bound.
    let mutant_cap =
        |bound: usize| (bound * MUTANT_CHOICES_PER_ELEMENT).clamp(1024, limits.max_choices);
    let mut choice_mutator = ChoiceMutator::new(request.rng_seed ^ 0xc0ffee, request.cmp_mutations);
    choice_mutator.literals = load_dictionary(request.dictionary.as_deref());
    let mutator = CovcheckMutator {
        property,
        limits,
        inner: choice_mutator,
        cache: ShapeCache::default(),
        trace: request.cmp_mutations,
        max_choices: &max_choices,
        execs: &execs,
    };
    let mut stages = tuple_list!(StdMutationalStage::new(mutator));

    // Resume from the corpus cache, and start from the property's covering
    // seeds (failure seeds are `cargo test`'s business: they are regressions).
    let mut initial: Vec<Vec<u64>> = load_corpus_dir(&request.corpus_dir);
    let (seeds, unreadable) = info.seed_store().load_valid();
    for error in unreadable {
        emit(&Event::Warning {
            message: format!("{error}; the campaign goes on without it"),
        });
    }
    initial.extend(
        seeds
            .into_iter()
            .filter(|s| s.file.kind == SeedKind::Covering)
            .map(|s| s.indices),
    );
    let mut rng = Rng::new(request.rng_seed);
    let bound = Cell::new(if request.size_steps {
        INITIAL_BOUND.min(limits.max_len)
    } else {
        limits.max_len
    });
    max_choices.set(mutant_cap(bound.get()));
    let fresh = |rng: &mut Rng, bound: usize| {
        let limits = Limits {
            max_len: bound,
            // Nested collections are drawn no longer than plain mode draws
            // them; only the outermost grow to the campaign's bound.
            nested_len: base.limits.max_len,
            ..limits
        };
        // Only the arguments are drawn here: the body runs in the harness,
        // where a crash or a hang is caught with the input in flight.
        let (choices, _) =
            generate_only(property, Source::random(rng.at_most(u64::MAX), limits)).into_record();
        choices.iter().map(|c| c.index).collect::<Vec<u64>>()
    };
    for _ in 0..INITIAL_INPUTS {
        initial.push(fresh(&mut rng, bound.get()));
    }
    let mut persisted = 0usize;
    for choices in initial {
        if caught.borrow().is_some() {
            break;
        }
        fuzzer
            .evaluate_input(
                &mut state,
                &mut executor,
                &mut mgr,
                &ChoiceInput { choices },
            )
            .map_err(|e| e.to_string())?;
    }
    if state.corpus().count() == 0 && caught.borrow().is_none() {
        fuzzer
            .add_input(&mut state, &mut executor, &mut mgr, ChoiceInput::default())
            .map_err(|e| e.to_string())?;
    }
    emit(&Event::Started {
        counters: map_len,
        corpus: state.corpus().count(),
    });

    let progress = |corpus: usize| Progress {
        execs: execs.get(),
        corpus,
        edges: edges.get(),
        elapsed_ms: started.elapsed().as_millis() as u64,
    };
    let deadline = request
        .time_ms
        .map(|ms| started + Duration::from_millis(ms));
    let mut last_status = Instant::now();
    let mut last_growth = (state.corpus().count(), execs.get());
    loop {
        let found = caught.borrow_mut().take();
        if let Some(found) = found {
            // Shrinking must not fire LibAFL's timeout handler.
            executor.hooks_mut().0.timer_mut().unset_timer();
            let since = first_exec.get().unwrap_or(started);
            let (origin, reproduced) = report(property, limits, &base, found, since);
            known.borrow_mut().insert(origin);
            // A failure that did not come back when replayed is reported,
            // and the campaign goes on looking for one that does.
            if reproduced && request.stop_on_failure {
                break;
            }
        }
        if request.runs.is_some_and(|runs| execs.get() >= runs)
            || deadline.is_some_and(|d| Instant::now() >= d)
        {
            break;
        }
        fuzzer
            .fuzz_one(&mut stages, &mut executor, &mut state, &mut mgr)
            .map_err(|e| e.to_string())?;
        // A fresh heuristic input now and then keeps the campaign at least as
        // strong as plain random testing; more of them once mutation has
        // stalled at the full size bound.
        let stalled = bound.get() >= limits.max_len && execs.get() - last_growth.1 > STALL_EXECS;
        for _ in 0..if stalled { STALLED_FRESH } else { 1 } {
            if caught.borrow().is_some() {
                break;
            }
            let input = ChoiceInput {
                choices: fresh(&mut rng, bound.get()),
            };
            fuzzer
                .evaluate_input(&mut state, &mut executor, &mut mgr, &input)
                .map_err(|e| e.to_string())?;
        }
        let count = state.corpus().count();
        if count != last_growth.0 {
            last_growth = (count, execs.get());
        } else if execs.get() - last_growth.1 > STALL_EXECS && bound.get() < limits.max_len {
            bound.set((bound.get() * 2).min(limits.max_len));
            max_choices.set(mutant_cap(bound.get()));
            last_growth.1 = execs.get();
        }
        persisted = persist_new_entries(&state, persisted, &request.corpus_dir);
        if last_status.elapsed() >= STATUS_EVERY {
            emit(&Event::Status(progress(state.corpus().count())));
            last_status = Instant::now();
        }
    }
    persist_new_entries(&state, persisted, &request.corpus_dir);
    executor.hooks_mut().0.timer_mut().unset_timer();
    if let Some(found) = caught.take() {
        // Caught by the last execution of the budget.
        report(
            property,
            limits,
            &base,
            found,
            first_exec.get().unwrap_or(started),
        );
    }
    emit(&Event::Done(progress(state.corpus().count())));
    Ok(())
}

/// Shrinks a caught failure and reports it; returns its origin and whether
/// it failed again when replayed. One that did not is reported as it was
/// caught, marked flaky, since shrinking needs a failure that comes back.
fn report(
    property: &PropertyFn<'_>,
    limits: Limits,
    base: &Config,
    found: Caught,
    started: Instant,
) -> (Origin, bool) {
    let found_after_us = found.at.duration_since(started).as_micros() as u64;
    let case = execute(
        property,
        Source::replay(found.choices.clone(), limits),
        true,
    );
    if case.failure().is_none() {
        let origin = found.failure.origin.clone();
        emit(&Event::Finding(flaky_finding(
            &case,
            limits,
            found,
            found_after_us,
        )));
        return (origin, false);
    }
    let origin = case.failure().expect("checked").origin.clone();
    let shrunk = shrink(property, limits, case, base.shrink);
    emit(&Event::Finding(finding_from_shrunk(
        FailureKind::Panic,
        &shrunk,
        limits,
        found.execs,
        found_after_us,
    )));
    (origin, true)
}

/// The report of a failure that passed when replayed: the input and the
/// failure as they were when it was caught, with the arguments `replay`
/// rendered.
fn flaky_finding(replay: &Case, limits: Limits, found: Caught, found_after_us: u64) -> Finding {
    Finding {
        kind: FailureKind::Panic,
        choices: trim_trailing_zeros(&found.choices).to_vec(),
        message: found.failure.message,
        location: found.failure.origin.to_string(),
        args: rendered_pairs(replay),
        execs_to_find: found.execs,
        found_after_us,
        shrink_runs: 0,
        shrink_note: Some("not shrunk: it passed when replayed".to_string()),
        flaky: true,
        size: limits.seed_size(),
    }
}

/// Writes corpus entries added since the last call to the corpus cache.
fn persist_new_entries<S: HasCorpus<ChoiceInput>>(state: &S, from: usize, dir: &Path) -> usize {
    let count = state.corpus().count();
    if count == from {
        return count;
    }
    let _ = std::fs::create_dir_all(dir);
    for n in from..count {
        let id = state.corpus().nth(n);
        let Ok(testcase) = state.corpus().get(id) else {
            continue;
        };
        let testcase = testcase.borrow();
        if let Some(input) = testcase.input() {
            let name = dir.join(libafl::inputs::Input::generate_name(input, None));
            if !name.exists() {
                let _ = libafl::inputs::Input::to_file(input, &name);
            }
        }
    }
    count
}

/// The dictionary's tokens; a dictionary that cannot be read is reported
/// and the campaign goes on without it.
fn load_dictionary(path: Option<&Path>) -> Vec<Vec<u8>> {
    let Some(path) = path else {
        return Vec::new();
    };
    let parsed = std::fs::read_to_string(path)
        .map_err(|e| e.to_string())
        .and_then(|text| covcheck_protocol::dictionary::parse(&text));
    match parsed {
        Ok(tokens) => tokens,
        Err(error) => {
            emit(&Event::Warning {
                message: format!(
                    "dictionary {}: {error}; the campaign goes on without it",
                    path.display()
                ),
            });
            Vec::new()
        }
    }
}
