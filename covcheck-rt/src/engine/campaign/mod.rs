//! One property's coverage-guided campaign on LibAFL.
//!
//! LibAFL supplies the proven machinery, from the engine library
//! ([`crate::engine::library`], built apart from the user's crate): the
//! in-process executor with its crash and timeout handlers, the state, the
//! objectives and the mutational stage. covcheck supplies the decisions,
//! called back through [`host`]: running a choice sequence
//! ([`execution`]), its mutator ([`mutation`]), a rarity scheduler
//! ([`crate::engine::scheduler`]), and the novelty check
//! ([`crate::engine::novelty::Novelty`]), which does LibAFL's max-map rule
//! and clears the sancov 8-bit counters, touching only the words an
//! execution reached, together with the best values of the
//! property's `target()` calls ([`targets`]) and, in performance mode, the
//! costliest input of each size ([`costs`]).
//!
//! A campaign runs in stages: [`run`] reads the dictionary ([`tokens`]) and
//! starts an engine session; the corpus starts from the corpus cache, the covering
//! seeds and [`fresh`] random inputs ([`Campaign::seed_corpus`]); the fuzz
//! loop mutates, adds fresh inputs and grows their size bound when coverage
//! stalls ([`Campaign::fuzz`]); and a caught failure is shrunk and reported
//! ([`report`]).
//!
//! A panic is caught in the harness ([`execution`]: the property runs under
//! [`crate::property::execute`]), shrunk here and reported; the worker then
//! stops. Anything that kills the process (abort, stack overflow, segfault,
//! timeout) leaves its input in the in-flight slot for the supervisor.

mod corpus;
mod costs;
mod distances;
mod execution;
mod focus;
mod fresh;
mod host;
mod mutation;
mod report;
mod stop;
mod targets;
mod tokens;

use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::time::{Duration, Instant};

use crate::config::Config;
use crate::engine::abi::{Engine, Settings};
use crate::engine::library::{self, Session};
use crate::engine::mutator::Shape;
use crate::engine::rendered_pairs;
use crate::engine::scheduler::RarityScheduler;
use crate::engine::{campaign_limits, instrumented_counters, open_inflight, sancov};
use crate::info::PropertyInfo;
use crate::property::{PropertyFn, execute, take_over_panic_hook};
use crate::rng::Rng;
use crate::source::{Limits, Source};
use corpus::{CorpusWriter, saved_inputs};
use covcheck_protocol::seeds::SeedKind;
use covcheck_protocol::worker::{Event, FailureHits, Progress, WorkerConfig, emit};
use execution::Shared;
use fresh::{Fresh, STALL_EXECS};
use host::HostSide;
use mutation::{CampaignMutator, MutatorShared};
use tokens::TokenCounts;

/// Fresh random inputs evaluated to start a campaign.
const INITIAL_INPUTS: u64 = 32;
const STATUS_EVERY: Duration = Duration::from_millis(500);
/// Fresh random inputs per mutation round once coverage has stalled at the
/// full size bound (one otherwise).
const STALLED_FRESH: usize = 16;
/// Random inputs of the costliest input's shape run at the end of a
/// performance campaign, for the median it is compared with.
const SAME_SHAPE_SAMPLES: usize = 64;
/// The most time those may take past the campaign's budget.
const SAME_SHAPE_TIME: Duration = Duration::from_secs(2);

/// Runs the campaign `request` asks for on `property`, reporting as events.
pub fn run(
    info: &PropertyInfo,
    property: &PropertyFn<'_>,
    request: &WorkerConfig,
) -> Result<(), String> {
    let started = Instant::now();
    let base = Config::resolve(&info.attributes)?;
    if let (Some(max_cost), false) = (info.attributes.max_cost, request.perf) {
        emit(&Event::Warning {
            message: format!(
                "`max_cost = {max_cost}` of `{}` is not checked by this campaign: only \
                 performance mode counts the edges an execution runs; check it with \
                 `cargo covcheck --perf` (or `#[covcheck(perf, max_cost = {max_cost})]`)",
                info.full_path()
            ),
        });
    }
    let dictionary = tokens::dictionary(info, request)?;
    let token_counts = RefCell::new(TokenCounts::new(&dictionary.tokens));
    let limits = campaign_limits(base.limits);
    let counters = instrumented_counters(info)?;
    let engine = load_engine(info, request)?;
    crate::engine::distance::set_enabled(request.value_profile);
    let shared = Shared::new(
        request.steer_targets,
        request.perf,
        request.value_profile,
        request.focus.clone(),
    );
    let max_choices = Cell::new(limits.max_choices);
    let scheduler = RarityScheduler::new(request.rng_seed ^ 0x5eed);
    let edges = scheduler.edges();
    let mutator = CampaignMutator::new(
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
    let side = HostSide {
        property,
        limits,
        counters,
        shared: &shared,
        inflight: RefCell::new(open_inflight(request)?),
        mutator: RefCell::new(mutator),
        scheduler: RefCell::new(scheduler),
        mutant: RefCell::default(),
    };
    let settings = Settings {
        rng_seed: request.rng_seed,
        timeout_ms: request.timeout_ms.max(1),
        broker_port: request.broker_port.unwrap_or(0),
    };
    // SAFETY: `side` is declared before `session`, so it outlives it.
    let mut session = unsafe { Session::start(engine, settings, side.host()) }?;
    // After the engine's own maps are allocated: the limit is the property's.
    crate::engine::crash::limit_data_segments(request.rss_limit_mb);
    take_over_panic_hook();
    stop::listen();
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
    campaign.recognise_known_failures(info);
    campaign.seed_corpus(&mut session, initial)?;
    campaign.fuzz(&mut session)?;
    campaign.finish(&mut session);
    Ok(())
}

/// The engine library the request names.
fn load_engine(info: &PropertyInfo, request: &WorkerConfig) -> Result<&'static Engine, String> {
    let path = request.engine.as_deref().ok_or_else(|| {
        format!(
            "the worker request of `{}` names no campaign engine: run campaigns with \
             `cargo covcheck`",
            info.full_path()
        )
    })?;
    library::load(path)
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
    /// campaign has started. Half the fresh ones are drawn as plain
    /// `cargo test` draws them ([`Fresh::draw_plain`]), the others under
    /// the size steps' first bound.
    fn seed_corpus(
        &mut self,
        session: &mut Session,
        mut initial: Vec<Vec<u64>>,
    ) -> Result<(), String> {
        let resumed = initial.len();
        for i in 0..INITIAL_INPUTS {
            initial.push(if i % 2 == 0 {
                self.fresh.draw().to_vec()
            } else {
                self.fresh.draw_plain().to_vec()
            });
        }
        for choices in initial {
            if self.shared.has_caught() && self.request.stop_on_failure {
                break;
            }
            // Every worker of the property starts from the same cache, so
            // what it keeps now is not news to the others.
            session.evaluate(&choices, false)?;
        }
        // Mutation needs a corpus entry to start from, whatever the first
        // inputs did: one that failed is an objective, not an entry, and a
        // campaign that goes on after a failure (`--keep-going`, or one
        // that did not fail again) would have nothing to mutate.
        if session.corpus_count() == 0 {
            self.shared.admitting_failures(|| session.add_empty())?;
        }
        emit(&Event::Started {
            counters: sancov::counters().1,
            corpus: session.corpus_count(),
            resumed,
        });
        Ok(())
    }

    /// The fuzz loop: reports what the harness caught, then one mutation
    /// round and fresh inputs, until the budget is spent (or a failure that
    /// comes back ends the campaign). New corpus entries go to the corpus
    /// cache's writer as they come ([`CorpusWriter`]), which has written
    /// them all when this returns.
    fn fuzz(&mut self, session: &mut Session) -> Result<(), String> {
        let deadline = self
            .request
            .time_ms
            .map(|ms| self.started + Duration::from_millis(ms));
        let mut corpus = CorpusWriter::start(&self.request.corpus_dir);
        let mut last_status = Instant::now();
        // The corpus size when it last grew, and the execution count then.
        let mut last_growth = (session.corpus_count(), self.execs());
        loop {
            if self.report_caught(session) && self.request.stop_on_failure {
                break;
            }
            if self.request.runs.is_some_and(|runs| self.execs() >= runs)
                || deadline.is_some_and(|d| Instant::now() >= d)
                || stop::requested()
            {
                break;
            }
            if session.corpus_count() == 0 {
                // Only when the simplest input crashed or hung (a failure
                // would have been admitted), which the loop reported above.
                return Err(
                    "the campaign has no input to mutate: every input it started \
                            from, the simplest one (all choices zero) included, crashed or hung"
                        .to_string(),
                );
            }
            session.fuzz_one()?;
            let stalled = self.fresh.at_full_size() && self.execs() - last_growth.1 > STALL_EXECS;
            self.evaluate_fresh(session, if stalled { STALLED_FRESH } else { 1 })?;
            self.run_unattributed(session)?;
            let count = session.corpus_count();
            // In performance mode the corpus grows with every costlier
            // input, so the size steps follow the executions alone: the
            // growth fit needs ever larger sizes.
            if count != last_growth.0 && self.shared.costs.is_none() {
                last_growth = (count, self.execs());
            } else if self.execs() - last_growth.1 > STALL_EXECS && !self.fresh.at_full_size() {
                self.fresh.grow();
                last_growth.1 = self.execs();
            }
            corpus.persist_new_entries(session);
            if last_status.elapsed() >= STATUS_EVERY {
                emit(&Event::Status(self.progress(session)));
                last_status = Instant::now();
            }
        }
        corpus.persist_new_entries(session);
        Ok(())
    }

    /// Shrinks and reports a failure the harness caught, if any. Returns
    /// whether it failed again when replayed; one that did not is reported,
    /// and the campaign goes on looking for one that does.
    fn report_caught(&mut self, session: &mut Session) -> bool {
        let found = self.shared.caught.borrow_mut().take();
        let Some(found) = found else {
            return false;
        };
        session.stop_timer();
        self.report(found)
    }

    /// A fresh heuristic input now and then keeps the campaign at least as
    /// strong as plain random testing; `count` of them, unless a failure is
    /// caught first.
    fn evaluate_fresh(&mut self, session: &mut Session, count: usize) -> Result<(), String> {
        for choices in self.fresh.draw_batch(count) {
            if self.shared.has_caught() {
                break;
            }
            self.shared.fresh.set(true);
            let evaluated = session.evaluate(choices, true);
            self.shared.fresh.set(false);
            evaluated?;
        }
        Ok(())
    }

    /// Runs again the inputs a sweep of the map's dead blocks could not
    /// tell apart ([`crate::engine::novelty`]): the one that reached a new
    /// block is judged with it now, and enters the corpus.
    fn run_unattributed(&mut self, session: &mut Session) -> Result<(), String> {
        while let Some(input) = self.shared.next_unattributed() {
            if self.shared.has_caught() {
                break;
            }
            session.evaluate(&input, true)?;
        }
        Ok(())
    }

    /// Reports a failure caught by the last execution of the budget, and
    /// the campaign's totals.
    fn finish(&mut self, session: &mut Session) {
        if let Err(problem) = self.sample_random_of_costliest_shape(session) {
            emit(&Event::Warning { message: problem });
        }
        session.stop_timer();
        let found = self.shared.caught.take();
        if let Some(found) = found {
            self.report(found);
        }
        emit(&Event::Done(self.progress(session)));
    }

    /// Performance mode: runs random inputs of the costliest input's shape
    /// ([`costs::random_values`]), so that its size class has a median to
    /// compare it with: fresh inputs seldom reach the sizes mutants grow to.
    fn sample_random_of_costliest_shape(&mut self, session: &mut Session) -> Result<(), String> {
        let Some(costs) = &self.shared.costs else {
            return Ok(());
        };
        let Some(choices) = costs.borrow().costliest() else {
            return Ok(());
        };
        let shape = Shape::learn(self.property, &choices, self.limits, false);
        let mut rng = Rng::new(self.request.rng_seed ^ 0x5a3e_5a3e);
        let until = Instant::now() + SAME_SHAPE_TIME;
        for _ in 0..SAME_SHAPE_SAMPLES {
            if self.shared.has_caught() || stop::requested() || Instant::now() >= until {
                break;
            }
            let random = costs::random_values(&shape.choices, &mut rng);
            self.shared.fresh.set(true);
            let evaluated = session.evaluate(&random, true);
            self.shared.fresh.set(false);
            evaluated?;
        }
        Ok(())
    }

    /// Shrinks `found` and sends the finding (see [`report::report`]),
    /// then each failure at another origin met on the way, once; returns
    /// whether `found` failed again when replayed.
    fn report(&self, found: execution::Caught) -> bool {
        let since = self.shared.first_exec.get().unwrap_or(self.started);
        let mut queue = vec![found];
        let mut reproduced = None;
        while let Some(found) = queue.pop() {
            if self.shared.known.borrow().contains(&found.failure.origin) {
                continue;
            }
            let outcome = {
                let known = self.shared.known.borrow();
                let trace = self.request.cmp_mutations;
                report::report(
                    self.property,
                    self.limits,
                    &self.base,
                    found,
                    since,
                    &known,
                    trace,
                )
            };
            self.shared.known.borrow_mut().insert(outcome.origin);
            reproduced.get_or_insert(outcome.reproduced);
            queue.extend(outcome.others);
        }
        reproduced.unwrap_or(false)
    }

    fn execs(&self) -> u64 {
        self.shared.execs.get()
    }

    fn progress(&self, session: &Session) -> Progress {
        Progress {
            execs: self.execs(),
            corpus: session.corpus_count(),
            imported: session.imported(),
            edges: self.edges.get(),
            elapsed_ms: self.started.elapsed().as_millis() as u64,
            tokens: self.token_counts.borrow().top(),
            targets: self
                .shared
                .targets
                .borrow_mut()
                .report(|choices| self.render(choices)),
            costs: self.shared.costs.as_ref().map(|costs| {
                let size_limit = self.limits.seed_size();
                costs
                    .borrow_mut()
                    .profile(size_limit, |choices| self.render(choices))
            }),
            hits: self.hits(),
            focus: self.shared.focus.borrow().reached(),
            size_step: self.fresh.step(),
        }
    }

    /// How often each known failure was hit again, as the supervisor names
    /// failures.
    fn hits(&self) -> Vec<FailureHits> {
        let mut hits: Vec<FailureHits> = (self.shared.hits.borrow().iter())
            .map(|(origin, &hits)| FailureHits {
                location: origin.to_string(),
                path: origin.path(),
                hits,
            })
            .collect();
        hits.sort_by(|a, b| (&a.location, a.path).cmp(&(&b.location, b.path)));
        hits
    }

    /// Replays the property's failure seeds that panicked when saved: a
    /// failure one of them still shows is known, not news. The supervisor
    /// hears which, and counts its hits like those of the failures it is
    /// told of. Seeds of crashes are not run (they would end the worker):
    /// a crash found again is recognised by the supervisor.
    fn recognise_known_failures(&self, info: &PropertyInfo) {
        let (seeds, _unreadable) = info.seed_store().load_valid();
        for seed in seeds {
            let record = match &seed.file.kind {
                SeedKind::Failure => seed.file.failure.as_ref(),
                _ => None,
            };
            if record.is_none_or(|r| r.kind.is_some()) {
                continue;
            }
            let limits = self.base.limits.for_seed(&seed);
            let case = execute(
                self.property,
                Source::replay(seed.indices.clone(), limits),
                false,
            );
            if let Some(failure) = case.failure() {
                let new = self
                    .shared
                    .known
                    .borrow_mut()
                    .insert(failure.origin.clone());
                if new {
                    emit(&Event::KnownFailure {
                        seed: seed.file_name(),
                        location: failure.origin.to_string(),
                        path: failure.origin.path(),
                        message: failure.message.clone(),
                    });
                }
            }
        }
    }

    /// The arguments of `choices`, rendered. Rendering runs the property
    /// again, outside the harness: nothing it does counts as an execution
    /// of the campaign.
    fn render(&self, choices: &[u64]) -> Vec<(String, String)> {
        let input = Source::replay(choices.to_vec(), self.limits);
        rendered_pairs(&execute(self.property, input, true))
    }
}
