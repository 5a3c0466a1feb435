//! Stateful properties as the runner sees them: generated and shrunk
//! sequences keep the model's preconditions, a system that differs from
//! its model is caught at the right step and printed as a test, and the
//! parallel runner tells a linearizable system from one that is not.

use std::cell::Cell;
use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU32, Ordering};
use std::thread::ThreadId;

use crate::Generate;
use crate::config::Config;
use crate::rng::Rng;
use crate::runner::Runner;
use crate::source::{Limits, Source, render_arg};
use crate::stateful::{Commands, ConcurrentSystem, Model, ParallelCommands, System};

#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Op {
    Push(u8),
    Pop,
    Peek,
}

/// A bounded stack: `Pop` and `Peek` need an element, `Push` room.
pub(crate) struct StackModel;

const CAPACITY: usize = 4;

impl Model for StackModel {
    type State = Vec<u8>;
    type Command = Op;
    type Output = Option<u8>;
    fn init() -> Vec<u8> {
        Vec::new()
    }
    fn command(_: &Vec<u8>, src: &mut Source) -> Op {
        match src.draw_variant(3, 3) {
            0 => Op::Push(src.draw_int(0, 9)),
            1 => Op::Pop,
            _ => Op::Peek,
        }
    }
    fn precondition(stack: &Vec<u8>, op: &Op) -> bool {
        match op {
            Op::Push(_) => stack.len() < CAPACITY,
            Op::Pop | Op::Peek => !stack.is_empty(),
        }
    }
    fn apply(stack: &mut Vec<u8>, op: &Op) -> Option<u8> {
        match op {
            Op::Push(x) => {
                stack.push(*x);
                None
            }
            Op::Pop => stack.pop(),
            Op::Peek => stack.last().copied(),
        }
    }
}

/// Whether every command of `commands` meets its precondition in turn.
pub(crate) fn preconditions_hold(commands: &[Op]) -> bool {
    let mut stack = StackModel::init();
    commands.iter().all(|op| {
        let ok = StackModel::precondition(&stack, op);
        StackModel::apply(&mut stack, op);
        ok
    })
}

/// A stack whose `Pop` of a full stack returns the bottom element.
#[derive(Default)]
pub(crate) struct FullPopBug(Vec<u8>);

impl System for FullPopBug {
    type Model = StackModel;
    fn new() -> Self {
        Self::default()
    }
    fn run(&mut self, op: &Op) -> Option<u8> {
        match op {
            Op::Push(x) => {
                self.0.push(*x);
                None
            }
            Op::Pop if self.0.len() == CAPACITY => Some(self.0.remove(0)),
            Op::Pop => self.0.pop(),
            Op::Peek => self.0.last().copied(),
        }
    }
}

#[test]
fn every_replayed_choice_sequence_generates_commands_that_meet_their_preconditions() {
    let mut rng = Rng::new(30);
    for _ in 0..2000 {
        // Small indices keep collections going (a `More` flag of 1) and
        // pick every kind of command; large ones are anything at all.
        let len = rng.index(200);
        let indices: Vec<u64> = (0..len)
            .map(|_| {
                if rng.percent(80) {
                    rng.at_most(3)
                } else {
                    rng.next_u64()
                }
            })
            .collect();
        let mut src = Source::replay(indices, Limits::default());
        let commands = Commands::<FullPopBug>::generate(&mut src);
        assert!(preconditions_hold(commands.commands()), "{commands:?}");
    }
}

#[test]
fn shrinking_keeps_the_preconditions_and_reaches_the_shortest_failing_sequence() {
    let violations = Cell::new(0);
    let property = |src: &mut Source| {
        let commands = Commands::<FullPopBug>::generate(src);
        render_arg(src, "commands", &commands);
        if !preconditions_hold(commands.commands()) {
            violations.set(violations.get() + 1);
        }
        commands.run();
        Ok(())
    };
    for seed in 0..5 {
        let runner = Runner::new(&property, Config::default());
        let shrunk = runner
            .find_minimal_failure(seed)
            .expect("the burst finds the full stack's pop");
        let failure = shrunk.case.failure().expect("the shrunk case fails");
        let args = shrunk.case.args.as_ref().unwrap();
        assert_eq!(
            args[0].1, "[Push(0), Push(0), Push(0), Push(1), Pop]",
            "seed {seed}"
        );
        assert!(
            failure.message.starts_with(
                "step 5 of 5, `Pop`: the system returned Some(0) where the model returns Some(1)"
            ),
            "{}",
            failure.message
        );
        assert!(
            failure.message.contains(
                "        use Op::*;\n        covcheck_rt::stateful::Commands::<FullPopBug>::new(vec![Push(0), Push(0), Push(0), Push(1), Pop])\n        .run();\n"
            ),
            "{}",
            failure.message
        );
    }
    assert_eq!(violations.get(), 0, "sequences that broke a precondition");
}

#[test]
fn a_hand_written_sequence_that_breaks_a_precondition_is_reported_as_such() {
    let commands = Commands::<FullPopBug>::new(vec![Op::Pop]);
    let panic = std::panic::catch_unwind(|| commands.run()).unwrap_err();
    let message = panic.downcast_ref::<String>().unwrap();
    assert!(
        message.starts_with("step 1 of 1, `Pop`: its precondition does not hold"),
        "{message}"
    );
}

/// A counter, as the parallel examples use it.
#[derive(Clone, Debug, PartialEq)]
enum Count {
    Increment,
    Read,
}

struct CounterModel;

impl Model for CounterModel {
    type State = u32;
    type Command = Count;
    type Output = u32;
    fn init() -> u32 {
        0
    }
    fn command(_: &u32, src: &mut Source) -> Count {
        if src.draw_bool() {
            Count::Read
        } else {
            Count::Increment
        }
    }
    fn apply(count: &mut u32, op: &Count) -> u32 {
        if *op == Count::Increment {
            *count += 1;
        }
        *count
    }
}

/// A correct counter.
struct Atomic(AtomicU32);

impl ConcurrentSystem for Atomic {
    type Model = CounterModel;
    fn new() -> Self {
        Atomic(AtomicU32::new(0))
    }
    fn run(&self, op: &Count) -> u32 {
        match op {
            Count::Increment => self.0.fetch_add(1, Ordering::SeqCst) + 1,
            Count::Read => self.0.load(Ordering::SeqCst),
        }
    }
}

/// A counter that counts per thread: whatever the timing, two threads
/// that each increment once both see 1, which no order explains.
#[derive(Default)]
struct PerThread(Mutex<HashMap<ThreadId, u32>>);

impl ConcurrentSystem for PerThread {
    type Model = CounterModel;
    fn new() -> Self {
        Self::default()
    }
    fn run(&self, op: &Count) -> u32 {
        let mut counts = self.0.lock().unwrap();
        let count = counts.entry(std::thread::current().id()).or_default();
        if *op == Count::Increment {
            *count += 1;
        }
        *count
    }
}

/// Fewer cases than a property's default: each parallel case runs 32
/// times on two or three threads.
fn parallel_config() -> Config {
    Config {
        cases: 64,
        ..Config::default()
    }
}

#[test]
fn a_linearizable_counter_passes_every_parallel_case() {
    let property = |src: &mut Source| {
        ParallelCommands::<Atomic>::generate(src).run();
        Ok(())
    };
    let runner = Runner::new(&property, parallel_config());
    assert!(runner.find_minimal_failure(7).is_none());
}

#[test]
fn a_counter_that_is_not_linearizable_fails_with_its_interleaving_and_run_count() {
    let property = |src: &mut Source| {
        let case = ParallelCommands::<PerThread>::generate(src);
        render_arg(src, "case", &case);
        case.run();
        Ok(())
    };
    let runner = Runner::new(&property, parallel_config());
    let shrunk = runner
        .find_minimal_failure(7)
        .expect("two increments on two threads");
    let message = &shrunk.case.failure().unwrap().message;
    assert!(
        message.starts_with("the threads' results are not linearizable"),
        "{message}"
    );
    assert!(
        message.contains("(32 of 32 runs of this case failed)"),
        "{message}"
    );
    assert!(message.contains("thread 2  Increment → 1"), "{message}");
    assert!(
        message.contains("covcheck_rt::stateful::ParallelCommands::<PerThread>::new("),
        "{message}"
    );
}

/// A correct counter that panics on its second read from a thread the
/// case started (the test's own thread has a name, those do not).
#[derive(Default)]
struct PanicsOnSecondRead {
    count: AtomicU32,
    reads: AtomicU32,
}

impl ConcurrentSystem for PanicsOnSecondRead {
    type Model = CounterModel;
    fn new() -> Self {
        Self::default()
    }
    fn run(&self, op: &Count) -> u32 {
        match op {
            Count::Increment => self.count.fetch_add(1, Ordering::SeqCst) + 1,
            Count::Read => {
                if std::thread::current().name().is_none() {
                    let reads = self.reads.fetch_add(1, Ordering::SeqCst);
                    assert!(reads < 1, "the second read");
                }
                self.count.load(Ordering::SeqCst)
            }
        }
    }
}

#[test]
fn a_panic_on_a_thread_fails_the_case_where_it_was_raised() {
    let property = |src: &mut Source| {
        ParallelCommands::<PanicsOnSecondRead>::generate(src).run();
        Ok(())
    };
    let runner = Runner::new(&property, parallel_config());
    let shrunk = runner.find_minimal_failure(3).expect("two reads");
    let failure = shrunk.case.failure().unwrap();
    assert!(
        failure.message.starts_with("the second read\n\non thread "),
        "{}",
        failure.message
    );
    assert!(
        failure.origin.to_string().starts_with(file!()),
        "the origin is the system's panic: {}",
        failure.origin
    );
}
