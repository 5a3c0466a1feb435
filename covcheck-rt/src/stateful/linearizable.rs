//! Linearizability: whether the results that threads saw can be explained by
//! the model running their commands one at a time.
//!
//! A history is linearizable when some order of all its commands (a)
//! keeps each thread's own order, (b) puts a command that returned before
//! another was invoked before it (real time), (c) satisfies the
//! preconditions, and (d) makes the model return what each command
//! returned. The search tries the orders depth first, Wing and Gong's
//! algorithm without its cache: the next command is one of the threads'
//! first not-yet-placed ones that no other such command returned before.
//! A case has at most three threads of a few commands each, so the search
//! ends in well under its budget; past it the verdict is "undecided",
//! never a failure.

use super::Model;

/// The most orders tried (model steps) before the verdict is undecided.
const BUDGET: usize = 200_000;

/// One command's run on a thread: when it was invoked and when it returned
/// (ticks of one clock all threads share), and what it returned.
#[derive(Clone, Debug)]
pub(super) struct Event<O> {
    pub invoked: u64,
    pub returned: u64,
    pub output: O,
}

/// What the search concluded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Verdict {
    Linearizable,
    NotLinearizable,
    Undecided,
}

/// Whether `history` (each thread's events, in `branches`' order) is
/// linearizable from `state`.
pub(super) fn check<M: Model>(
    state: &M::State,
    branches: &[Vec<M::Command>],
    history: &[Vec<Event<M::Output>>],
) -> Verdict {
    let mut search = Search::<M> {
        branches,
        history: Some(history),
        budget: BUDGET,
    };
    match search.from(state, &mut vec![0; branches.len()]) {
        Some(true) => Verdict::Linearizable,
        Some(false) => Verdict::NotLinearizable,
        None => Verdict::Undecided,
    }
}

/// Whether some order of `branches` satisfies the preconditions from
/// `state` (whatever the commands return). When none does, no history of
/// them is linearizable, and the case says nothing about the system.
pub(super) fn orderable<M: Model>(state: &M::State, branches: &[Vec<M::Command>]) -> bool {
    let mut search = Search::<M> {
        branches,
        history: None,
        budget: BUDGET,
    };
    search.from(state, &mut vec![0; branches.len()]) != Some(false)
}

struct Search<'a, M: Model> {
    branches: &'a [Vec<M::Command>],
    /// The events to explain; `None` to check the preconditions only.
    history: Option<&'a [Vec<Event<M::Output>>]>,
    budget: usize,
}

impl<M: Model> Search<'_, M> {
    /// Whether the commands not placed yet (from `heads` on, per thread)
    /// can follow in `state`; `None` when the budget ran out.
    fn from(&mut self, state: &M::State, heads: &mut [usize]) -> Option<bool> {
        if heads.iter().zip(self.branches).all(|(h, b)| *h == b.len()) {
            return Some(true);
        }
        let mut undecided = false;
        for thread in 0..self.branches.len() {
            let Some(command) = self.branches[thread].get(heads[thread]) else {
                continue;
            };
            if !self.may_go_next(thread, heads) || !M::precondition(state, command) {
                continue;
            }
            if self.budget == 0 {
                return None;
            }
            self.budget -= 1;
            let mut next = state.clone();
            let output = M::apply(&mut next, command);
            if let Some(history) = self.history
                && output != history[thread][heads[thread]].output
            {
                continue;
            }
            heads[thread] += 1;
            let found = self.from(&next, heads);
            heads[thread] -= 1;
            match found {
                Some(true) => return Some(true),
                Some(false) => {}
                None => undecided = true,
            }
        }
        if undecided { None } else { Some(false) }
    }

    /// Real time: no other thread's next command returned before this
    /// thread's next one was invoked.
    fn may_go_next(&self, thread: usize, heads: &[usize]) -> bool {
        let Some(history) = self.history else {
            return true;
        };
        let invoked = history[thread][heads[thread]].invoked;
        (0..heads.len()).all(|other| {
            other == thread
                || history[other]
                    .get(heads[other])
                    .is_none_or(|event| event.returned > invoked)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Source;

    /// A counter whose increment returns the new value.
    struct Counter;

    impl Model for Counter {
        type State = u32;
        type Command = ();
        type Output = u32;
        fn init() -> u32 {
            0
        }
        fn command(_: &u32, _: &mut Source) {}
        fn apply(state: &mut u32, _: &()) -> u32 {
            *state += 1;
            *state
        }
    }

    fn event(invoked: u64, returned: u64, output: u32) -> Event<u32> {
        Event {
            invoked,
            returned,
            output,
        }
    }

    #[test]
    fn overlapping_increments_may_return_in_either_order() {
        let branches = [vec![()], vec![()]];
        let history = [vec![event(0, 3, 2)], vec![event(1, 2, 1)]];
        assert_eq!(
            check::<Counter>(&0, &branches, &history),
            Verdict::Linearizable
        );
    }

    #[test]
    fn a_lost_update_is_not_linearizable() {
        let branches = [vec![()], vec![()]];
        let history = [vec![event(0, 3, 1)], vec![event(1, 2, 1)]];
        assert_eq!(
            check::<Counter>(&0, &branches, &history),
            Verdict::NotLinearizable
        );
    }

    #[test]
    fn real_time_order_is_kept() {
        // Thread 2's increment returned before thread 1's was invoked, so it
        // must come first: returning 1 after it is impossible.
        let branches = [vec![()], vec![()]];
        let history = [vec![event(2, 3, 1)], vec![event(0, 1, 2)]];
        assert_eq!(
            check::<Counter>(&0, &branches, &history),
            Verdict::NotLinearizable
        );
    }
}
