//! The campaign's compare-distance signal (`--value-profile`): for each
//! comparison site ([`crate::engine::distance`]), the most equal bits any
//! corpus entry reached. An execution that brings some site closer than
//! that is *interesting*, as one with new coverage is: the engine adds it
//! to the corpus, its commit raises the bests, and its mutants climb on
//! from there, one bit at a time, to a constant that neither coverage nor
//! input-to-state can reach.
//!
//! Bounded: a site can be raised at most 64 times, and at most
//! [`MAX_ENTRIES`] corpus entries are let in for raising one; past that the
//! bests still rise with the entries coverage lets in, but make nothing
//! interesting, so a target full of near misses cannot flood the corpus.
//! Off (the default, as in libFuzzer), nothing is recorded, nothing is
//! ever interesting here, and the campaign makes the decisions it made
//! before.

use crate::engine::distance::{self, SLOTS};

/// The most corpus entries let in for a closer comparison.
pub(super) const MAX_ENTRIES: usize = 1024;

#[derive(Debug, Default)]
pub(super) struct Distances {
    on: bool,
    /// Per slot, the most equal bits (+ 1) a corpus entry reached.
    best: Vec<u8>,
    /// What the last execution reached: (slot, equal bits + 1).
    last: Vec<(u16, u8)>,
    /// Whether the last execution beat some best (not yet committed).
    raised: bool,
    /// Corpus entries let in that raised a best.
    entries: usize,
    /// The slots whose best the last commit raised, whose corpus entry the
    /// engine is adding.
    committed: Vec<u16>,
    /// Per slot, the corpus entry that holds its best.
    holder: Vec<Option<usize>>,
    /// The corpus entries that hold a best, each once.
    favoured: Vec<usize>,
}

impl Distances {
    /// Judges distances when `on` (recording is turned on apart, with
    /// [`distance::set_enabled`]).
    pub(super) fn new(on: bool) -> Distances {
        Distances {
            on,
            best: if on { vec![0; SLOTS] } else { Vec::new() },
            holder: if on { vec![None; SLOTS] } else { Vec::new() },
            ..Distances::default()
        }
    }

    /// Before an execution: forgets what ran since the last one (a shape
    /// learnt, an input drawn), which is not this execution's.
    pub(super) fn start(&mut self) {
        if self.on {
            distance::take(&mut self.last);
        }
    }

    /// After an execution: whether it came closer than the corpus to some
    /// comparison's constant.
    pub(super) fn observe(&mut self) {
        if !self.on {
            return;
        }
        distance::take(&mut self.last);
        self.raised = self.entries < MAX_ENTRIES
            && (self.last.iter()).any(|&(slot, close)| close > self.best[usize::from(slot)]);
    }

    /// Whether the last execution is interesting for its distances.
    pub(super) fn is_new(&self) -> bool {
        self.raised
    }

    /// The last execution entered the corpus: what it reached becomes the
    /// bests.
    pub(super) fn commit(&mut self) {
        if std::mem::take(&mut self.raised) {
            self.entries += 1;
        }
        self.committed.clear();
        for &(slot, close) in &self.last {
            let best = &mut self.best[usize::from(slot)];
            if close > *best {
                *best = close;
                self.committed.push(slot);
            }
        }
    }

    /// The engine added corpus entry `entry`, right after its commit: it
    /// now holds the bests that commit raised.
    pub(super) fn entry_added(&mut self, entry: usize) {
        if self.committed.is_empty() {
            return;
        }
        for slot in self.committed.drain(..) {
            self.holder[usize::from(slot)] = Some(entry);
        }
        self.favoured = self.holder.iter().flatten().copied().collect();
        self.favoured.sort_unstable();
        self.favoured.dedup();
    }

    /// The corpus entries that hold some comparison's closest approach:
    /// such an entry seldom reaches rare coverage, and by rarity alone it
    /// would seldom be mutated again, which the climb needs.
    pub(super) fn favoured(&self) -> &[usize] {
        &self.favoured
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_closer_comparison_is_interesting_and_the_entries_are_capped() {
        let _recording = distance::TEST_LOCK.lock();
        let mut distances = Distances::new(true);
        let run = |d: &mut Distances, value: u64| {
            d.start();
            distance::record(0x5eed_f00d, value, 4);
            d.observe();
            d.is_new()
        };
        assert!(run(&mut distances, 0), "first reach is new");
        distances.commit();
        assert!(!run(&mut distances, 0), "the same distance is not");
        assert!(run(&mut distances, 0x5eed_0000), "closer is");
        distances.commit();
        assert!(!run(&mut distances, 0x0000_f00d), "farther is not");
        assert_eq!(distances.entries, 2);
        distances.entries = MAX_ENTRIES;
        assert!(!run(&mut distances, 0x5eed_f000), "past the cap nothing is");
        let mut off = Distances::new(false);
        assert!(!run(&mut off, 0x5eed_f00d), "off, nothing is");
    }
}
