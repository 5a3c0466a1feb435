//! [`ParallelCommands`]: a sequential prefix, then commands on two or three
//! threads at once, whose results must be linearizable.

use std::fmt::{self, Write};
use std::marker::PhantomData;
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use super::linearizable::{self, Event, Verdict};
use super::step::{draw_sequence, run_beside_model};
use super::{CommandOf, Model, OutputOf, StateOf, reproduce};
use crate::property::{Failure, Origin};
use crate::{Generate, Source};

/// The longest prefix generated.
const PREFIX_MAX: usize = 6;
/// The most commands generated for one thread.
const BRANCH_MAX: usize = 4;
/// How many times [`ParallelCommands::run`] runs a case: a race shows up in
/// some runs of a case and not others. A campaign replays a failing case
/// three times before it shrinks it, and takes one that passes a replay
/// for a property that depends on more than its input: with 32 runs, a
/// race that shows in one run of eight fails a replay of its case 98 times
/// in 100 (with 8 runs, 66).
const RUNS: usize = 32;

/// A system that threads share: [`ParallelCommands`] runs commands on it
/// from several threads at once. Its commands take `&self`; the system
/// synchronises (or fails to) inside.
pub trait ConcurrentSystem: Sync + Sized {
    /// The model it is checked against: what each command returns when the
    /// commands run one at a time.
    type Model: Model;

    /// A fresh system, in the state of [`Model::init`].
    fn new() -> Self;

    /// Runs one command, from any thread.
    fn run(&self, command: &CommandOf<Self::Model>) -> OutputOf<Self::Model>;
}

/// A concurrent test case for `S`: a prefix of commands run one at a time,
/// then two or three sequences run on threads started together. Take it as
/// a property's argument and call [`ParallelCommands::run`].
///
/// ```
/// use std::sync::atomic::{AtomicU32, Ordering};
/// use covcheck_rt::stateful::{ConcurrentSystem, Model, ParallelCommands};
/// use covcheck_rt::{Source, covcheck};
///
/// struct CounterModel;
///
/// impl Model for CounterModel {
///     type State = u32;
///     type Command = Op;
///     type Output = u32;
///     fn init() -> u32 { 0 }
///     fn command(_: &u32, src: &mut Source) -> Op {
///         if src.draw_bool() { Op::Read } else { Op::Increment }
///     }
///     fn apply(count: &mut u32, op: &Op) -> u32 {
///         if let Op::Increment = op { *count += 1 }
///         *count
///     }
/// }
///
/// #[derive(Clone, Debug)]
/// enum Op { Increment, Read }
///
/// struct Counter(AtomicU32);
///
/// impl ConcurrentSystem for Counter {
///     type Model = CounterModel;
///     fn new() -> Self { Counter(AtomicU32::new(0)) }
///     fn run(&self, op: &Op) -> u32 {
///         match op {
///             Op::Increment => self.0.fetch_add(1, Ordering::SeqCst) + 1,
///             Op::Read => self.0.load(Ordering::SeqCst),
///         }
///     }
/// }
///
/// #[covcheck]
/// fn the_counter_is_linearizable(case: ParallelCommands<Counter>) {
///     case.run();
/// }
/// # fn main() {}
/// ```
///
/// Each thread's commands are generated from the model's state after the
/// prefix and that thread's own commands; a case in which no order of the
/// threads' commands satisfies the preconditions is skipped (like
/// [`crate::assume`]).
pub struct ParallelCommands<S: ConcurrentSystem> {
    prefix: Vec<CommandOf<S::Model>>,
    branches: Vec<Vec<CommandOf<S::Model>>>,
    system: PhantomData<fn() -> S>,
}

impl<S> ParallelCommands<S>
where
    S: ConcurrentSystem,
    CommandOf<S::Model>: Sync,
    OutputOf<S::Model>: Send,
{
    /// The case that runs `prefix`, then each of `branches` on a thread of
    /// its own: what a reproduction pasted into a test builds.
    pub fn new(prefix: Vec<CommandOf<S::Model>>, branches: Vec<Vec<CommandOf<S::Model>>>) -> Self {
        ParallelCommands {
            prefix,
            branches,
            system: PhantomData,
        }
    }

    /// Runs the case 32 times, each on a new system ([`ConcurrentSystem::new`]).
    /// Panics when, in any run, the threads' results are not linearizable
    /// (no order of the commands explains them), saying in how many runs
    /// and showing the first such run's interleaving; also when the prefix
    /// returns something else than the model or the system panics.
    #[track_caller]
    pub fn run(&self) {
        let after_prefix = self.model_after_prefix();
        if !linearizable::orderable::<S::Model>(&after_prefix, &self.branches) {
            crate::property::reject(
                "no order of the threads' commands satisfies the preconditions",
            );
        }
        let mut failed_runs = 0;
        let mut first = None;
        for _ in 0..RUNS {
            let history = self.run_once();
            if linearizable::check::<S::Model>(&after_prefix, &self.branches, &history)
                == Verdict::NotLinearizable
            {
                failed_runs += 1;
                first.get_or_insert(history);
            }
        }
        if let Some(history) = first {
            panic!(
                "the threads' results are not linearizable: no order of their commands that keeps \
                 real time gives these results in the model ({failed_runs} of {RUNS} runs of this \
                 case failed)\n\n{}{}",
                self.interleaving(&after_prefix, &history),
                self.reproduction()
            );
        }
    }

    /// The model's state after the prefix (whose preconditions
    /// [`Self::run_once`] checks).
    fn model_after_prefix(&self) -> StateOf<S::Model> {
        let mut state = <S::Model as Model>::init();
        for command in &self.prefix {
            <S::Model as Model>::apply(&mut state, command);
        }
        state
    }

    /// One run: the prefix, checked step by step, then the threads. Returns
    /// each thread's events.
    #[track_caller]
    fn run_once(&self) -> Vec<Vec<Event<OutputOf<S::Model>>>> {
        let mut system = S::new();
        let mut state = <S::Model as Model>::init();
        run_beside_model::<S::Model, S>(
            &mut system,
            &mut state,
            &self.prefix,
            &|step| format!("step {} of the prefix, `{:?}`", step + 1, self.prefix[step]),
            &|| self.reproduction(),
            |system, command| system.run(command),
            |_, _| {},
        );
        self.run_threads(&system)
    }

    /// Runs each branch on a thread of its own, all released together.
    fn run_threads(&self, system: &S) -> Vec<Vec<Event<OutputOf<S::Model>>>> {
        let clock = AtomicU64::new(0);
        let arrived = AtomicUsize::new(0);
        let threads = self.branches.len();
        let results: Vec<Result<_, Failure>> = std::thread::scope(|scope| {
            let handles: Vec<_> = self
                .branches
                .iter()
                .map(|branch| {
                    let (clock, arrived) = (&clock, &arrived);
                    scope.spawn(move || run_branch(system, branch, clock, arrived, threads))
                })
                .collect();
            handles
                .into_iter()
                .map(|handle| handle.join().expect("a thread catches its panics"))
                .collect()
        });
        let mut history = Vec::with_capacity(threads);
        for (thread, result) in results.into_iter().enumerate() {
            match result {
                Ok(events) => history.push(events),
                Err(mut failure) => {
                    failure.message.push_str(&format!(
                        "\n\non thread {} of the case's threads{}",
                        thread + 1,
                        self.reproduction()
                    ));
                    crate::property::fail_with(failure)
                }
            }
        }
        history
    }

    /// The observed run, in order of invocation.
    fn interleaving(
        &self,
        state: &StateOf<S::Model>,
        history: &[Vec<Event<OutputOf<S::Model>>>],
    ) -> String {
        let mut rows: Vec<(u64, u64, usize, String)> = Vec::new();
        for (thread, (branch, events)) in self.branches.iter().zip(history).enumerate() {
            for (command, event) in branch.iter().zip(events) {
                rows.push((
                    event.invoked,
                    event.returned,
                    thread + 1,
                    format!("{command:?} → {:?}", event.output),
                ));
            }
        }
        rows.sort();
        let mut out = format!(
            "After the prefix, with the model in state {state:?}, the threads ran \
             (invocation and return on one clock):\n"
        );
        for (invoked, returned, thread, text) in rows {
            let _ = writeln!(
                out,
                "  [{invoked:>2}, {returned:>2}]  thread {thread}  {text}"
            );
        }
        out.pop();
        out
    }

    fn reproduction(&self) -> String {
        reproduce::parallel::<S, _>(&self.prefix, &self.branches)
    }
}

/// One thread's part: waits for the others, then runs `branch`.
fn run_branch<S: ConcurrentSystem>(
    system: &S,
    branch: &[CommandOf<S::Model>],
    clock: &AtomicU64,
    arrived: &AtomicUsize,
    threads: usize,
) -> Result<Vec<Event<OutputOf<S::Model>>>, Failure> {
    crate::property::capture_panics_on_this_thread();
    // A spinning start: threads parked on a barrier wake one by one, tens
    // of microseconds apart, and would rarely overlap.
    arrived.fetch_add(1, Ordering::SeqCst);
    let mut spins = 0u32;
    while arrived.load(Ordering::SeqCst) < threads {
        spins += 1;
        if spins.is_multiple_of(64) {
            std::thread::yield_now();
        } else {
            std::hint::spin_loop();
        }
    }
    let mut events = Vec::with_capacity(branch.len());
    for command in branch {
        let invoked = clock.fetch_add(1, Ordering::SeqCst);
        let output =
            panic::catch_unwind(AssertUnwindSafe(|| system.run(command))).map_err(|_| {
                crate::property::take_thread_failure().unwrap_or_else(|| Failure {
                    message: "the system panicked".to_string(),
                    origin: Origin::Unknown,
                })
            })?;
        let returned = clock.fetch_add(1, Ordering::SeqCst);
        events.push(Event {
            invoked,
            returned,
            output,
        });
    }
    Ok(events)
}

impl<S: ConcurrentSystem> Generate for ParallelCommands<S> {
    fn generate(src: &mut Source) -> Self {
        let mut state = <S::Model as Model>::init();
        let prefix = draw_sequence::<S::Model>(src, &mut state, 0, PREFIX_MAX);
        let threads = src.draw_int(2usize, 3);
        let branches = (0..threads)
            .map(|_| draw_sequence::<S::Model>(src, &mut state.clone(), 1, BRANCH_MAX))
            .collect();
        ParallelCommands {
            prefix,
            branches,
            system: PhantomData,
        }
    }
}

impl<S: ConcurrentSystem> Clone for ParallelCommands<S> {
    fn clone(&self) -> Self {
        ParallelCommands {
            prefix: self.prefix.clone(),
            branches: self.branches.clone(),
            system: PhantomData,
        }
    }
}

impl<S: ConcurrentSystem> fmt::Debug for ParallelCommands<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ParallelCommands")
            .field("prefix", &self.prefix)
            .field("threads", &self.branches)
            .finish()
    }
}
