//! Which corpus entry to mutate next: entries that cover *rare* counters and
//! small entries are favoured (seed 001's priority by rarity, seed 004's
//! preference for small inputs), and an entry's weight decays as it is
//! fuzzed, so the queue keeps moving.
//!
//! The weight of entry `e` is
//! `Σ 1/freq(c) for counters c it hits  ×  32/(32 + len(e))  ÷  √(1 + picks(e))`,
//! where `freq(c)` is the number of entries hitting counter `c`.
//!
//! Entries the caller *favours* (those holding the best value of a
//! `target()` label) get half of the picks between them, so that a
//! campaign climbs from its best input: such an entry rarely reaches rare
//! coverage. With none favoured, no random number is drawn for it, so a
//! property without `target()` is scheduled exactly as before.

use std::cell::Cell;
use std::rc::Rc;

use crate::engine::sancov;
use crate::rng::Rng;

struct Entry {
    /// The engine's corpus id.
    id: usize,
    counters: Vec<u32>,
    len: usize,
    picks: u32,
}

pub struct RarityScheduler {
    rng: Rng,
    entries: Vec<Entry>,
    /// How many entries hit each counter.
    freq: Vec<u32>,
    /// Per-entry base weights (rarity × size), recomputed when an entry is added.
    base: Vec<f64>,
    edges: Rc<Cell<usize>>,
}

impl RarityScheduler {
    pub fn new(seed: u64) -> Self {
        RarityScheduler {
            rng: Rng::new(seed),
            entries: Vec::new(),
            freq: Vec::new(),
            base: Vec::new(),
            edges: Rc::new(Cell::new(0)),
        }
    }

    /// Distinct counters hit by the corpus, readable after the scheduler
    /// has moved into the fuzzer.
    pub fn edges(&self) -> Rc<Cell<usize>> {
        self.edges.clone()
    }

    fn recompute(&mut self) {
        self.base = self
            .entries
            .iter()
            .map(|e| {
                let rarity: f64 = e
                    .counters
                    .iter()
                    .map(|&c| 1.0 / f64::from(self.freq[c as usize].max(1)))
                    .sum();
                (rarity + 0.01) * 32.0 / (32.0 + e.len as f64)
            })
            .collect();
    }
}

impl RarityScheduler {
    /// Called right after corpus entry `id` (of `input_len` choices) ran and
    /// was added, so the counters still hold its coverage.
    pub fn on_add(&mut self, id: usize, input_len: usize) {
        let (ptr, len) = sancov::counters();
        let counters: Vec<u32> = if ptr.is_null() {
            Vec::new()
        } else {
            // SAFETY: the counters section is valid for its whole length.
            let map = unsafe { std::slice::from_raw_parts(ptr, len) };
            map.iter()
                .enumerate()
                .filter(|&(_, &count)| count != 0)
                .map(|(i, _)| i as u32)
                .collect()
        };
        if self.freq.len() < len {
            self.freq.resize(len, 0);
        }
        for &c in &counters {
            if self.freq[c as usize] == 0 {
                self.edges.set(self.edges.get() + 1);
            }
            self.freq[c as usize] += 1;
        }
        self.entries.push(Entry {
            id,
            counters,
            len: input_len,
            picks: 0,
        });
        self.recompute();
    }

    /// The corpus entry to mutate next: one of `favoured` (engine corpus
    /// ids) half of the time when there are any, else by weight. The
    /// corpus is never empty when the engine asks.
    pub fn next(&mut self, favoured: &[usize]) -> usize {
        if !favoured.is_empty() && self.rng.at_most(1) == 0 {
            return favoured[self.rng.at_most(favoured.len() as u64 - 1) as usize];
        }
        let weights: Vec<f64> = self
            .entries
            .iter()
            .zip(&self.base)
            .map(|(e, base)| base / f64::from(1 + e.picks).sqrt())
            .collect();
        let total: f64 = weights.iter().sum();
        let mut target =
            (self.rng.at_most(u64::from(u32::MAX)) as f64 / f64::from(u32::MAX)) * total;
        let mut chosen = self.entries.len().saturating_sub(1);
        for (i, w) in weights.iter().enumerate() {
            if target < *w {
                chosen = i;
                break;
            }
            target -= w;
        }
        let Some(entry) = self.entries.get_mut(chosen) else {
            return 0;
        };
        entry.picks += 1;
        entry.id
    }
}
