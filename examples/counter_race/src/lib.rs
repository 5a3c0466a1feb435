//! A page-hit counter shared by request threads, with a classic lost
//! update: `record` reads the count, logs the hit, and writes the count
//! plus one. Each step is atomic, the whole is not: two threads that read
//! the same count both write the same next one, and a hit is lost.
//!
//! One thread at a time, it is a perfect counter, so a sequential stateful
//! property never fails on it; the parallel one runs commands on threads at
//! once and finds results no order of the hits explains.

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

// ANCHOR: counter
/// Counts page hits, and keeps the last few for a status page.
#[derive(Default)]
pub struct HitCounter {
    count: AtomicU64,
    recent: Mutex<Vec<u64>>,
}

impl HitCounter {
    /// A counter at zero.
    pub fn new() -> Self {
        Self::default()
    }

    /// Records a hit; returns the hit's number (1 for the first).
    pub fn record(&self) -> u64 {
        let seen = self.count.load(Ordering::SeqCst);
        // The bug: another thread can record between the read above and
        // the write below (a `fetch_add` would not lose it).
        self.remember(seen + 1);
        self.count.store(seen + 1, Ordering::SeqCst);
        seen + 1
    }

    // ANCHOR_END: counter

    /// The hits so far.
    pub fn total(&self) -> u64 {
        self.count.load(Ordering::SeqCst)
    }

    fn remember(&self, hit: u64) {
        let mut recent = self.recent.lock().unwrap_or_else(|e| e.into_inner());
        if recent.len() == 8 {
            recent.remove(0);
        }
        recent.push(hit);
    }
}

#[cfg(test)]
mod tests {
    use covcheck_rt::stateful::{Commands, ConcurrentSystem, Model, ParallelCommands, System};
    use covcheck_rt::{Source, covcheck};

    use super::HitCounter;

    #[derive(Clone, Debug)]
    pub enum Op {
        Record,
        Total,
    }

    /// The reference: a number.
    pub struct CountModel;

    impl Model for CountModel {
        type State = u64;
        type Command = Op;
        type Output = u64;

        fn init() -> u64 {
            0
        }

        fn command(_: &u64, src: &mut Source) -> Op {
            match src.draw_variant(2, 2) {
                0 => Op::Record,
                _ => Op::Total,
            }
        }

        fn apply(count: &mut u64, op: &Op) -> u64 {
            if let Op::Record = op {
                *count += 1;
            }
            *count
        }
    }

    fn run(counter: &HitCounter, op: &Op) -> u64 {
        match op {
            Op::Record => counter.record(),
            Op::Total => counter.total(),
        }
    }

    impl System for HitCounter {
        type Model = CountModel;
        fn new() -> Self {
            HitCounter::new()
        }
        fn run(&mut self, op: &Op) -> u64 {
            run(self, op)
        }
    }

    // ANCHOR: concurrent
    impl ConcurrentSystem for HitCounter {
        type Model = CountModel;
        fn new() -> Self {
            HitCounter::new()
        }
        fn run(&self, op: &Op) -> u64 {
            run(self, op)
        }
    }

    /// One request at a time: always holds.
    #[covcheck]
    fn one_thread_counts_every_hit(commands: Commands<HitCounter>) {
        commands.run();
    }

    /// Requests on threads at once: the lost update.
    #[covcheck]
    fn concurrent_hits_are_linearizable(case: ParallelCommands<HitCounter>) {
        case.run();
    }
    // ANCHOR_END: concurrent
}
