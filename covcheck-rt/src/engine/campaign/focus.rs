//! The code a change touched (`cargo covcheck --since`): the counters of
//! its lines, which of them the campaign has reached, and the corpus
//! entries that reach them, which the scheduler favours.
//!
//! A pull request's campaign has minutes, and most of the property's code
//! did not change: an entry that runs changed code is the one worth
//! mutating first, as an entry that holds a `target()` best is
//! ([`super::targets`]). The counters come from the supervisor, which maps
//! the diff's lines to this binary's counters; the worker only looks them
//! up after each execution (a few reads, and none without `--since`).

/// The focus counters and what the campaign did with them.
#[derive(Debug, Default)]
pub(super) struct Focus {
    /// The counters, ascending.
    counters: Vec<u32>,
    /// Per counter (same order), whether an execution reached it.
    reached: Vec<bool>,
    /// Whether the last execution ran any of them.
    last_hit: bool,
    /// The corpus entries that ran some of them, ascending.
    favoured: Vec<usize>,
}

impl Focus {
    pub(super) fn new(mut counters: Vec<u32>) -> Focus {
        counters.sort_unstable();
        counters.dedup();
        Focus {
            reached: vec![false; counters.len()],
            counters,
            ..Focus::default()
        }
    }

    /// Notes which focus counters the execution whose `counters` these
    /// are ran.
    pub(super) fn observe(&mut self, counters: &[u8]) {
        self.last_hit = false;
        for (at, &counter) in self.counters.iter().enumerate() {
            if counters.get(counter as usize).is_some_and(|&c| c != 0) {
                self.reached[at] = true;
                self.last_hit = true;
            }
        }
    }

    /// The engine added corpus entry `entry` for the last execution.
    pub(super) fn entry_added(&mut self, entry: usize) {
        if self.last_hit && self.favoured.last() != Some(&entry) {
            self.favoured.push(entry);
        }
    }

    /// The corpus entries that run changed code.
    pub(super) fn favoured(&self) -> &[usize] {
        &self.favoured
    }

    /// The focus counters reached so far, ascending.
    pub(super) fn reached(&self) -> Vec<u32> {
        (self.counters.iter().zip(&self.reached))
            .filter(|(_, reached)| **reached)
            .map(|(counter, _)| *counter)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_that_run_changed_code_are_favoured_and_its_counters_reported() {
        let mut focus = Focus::new(vec![5, 2]);
        let mut counters = [0u8; 8];
        counters[1] = 1;
        focus.observe(&counters);
        focus.entry_added(0);
        assert!(focus.favoured().is_empty(), "ran no changed code");
        counters[5] = 3;
        focus.observe(&counters);
        focus.entry_added(1);
        assert_eq!(focus.favoured(), [1]);
        assert_eq!(focus.reached(), [5]);
        assert_eq!(Focus::new(vec![]).reached(), Vec::<u32>::new());
    }
}
