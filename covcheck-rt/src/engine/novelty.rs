//! The campaign's novelty check, and the coverage counters it owns between
//! executions.
//!
//! An execution is new when it takes some counter into a higher hit-count
//! bucket ([`bucket`], AFL's) than any corpus entry before: LibAFL's
//! max-map rule, and as there, only inputs that enter the corpus are
//! recorded ([`Novelty::commit`]).
//!
//! What an execution costs here grows with the code it reaches, not with
//! the code instrumented. The map is read in blocks of 64 counters, and
//! after each execution only the blocks some execution ever reached (the
//! *live* blocks) are read. The others (*dead*) are swept now and then for
//! counters an execution left there ([`Novelty::observe`]):
//!
//! - a counter in a dead block is judged at once when the execution that
//!   set it is the only one since the last sweep;
//! - otherwise the sweep cannot tell which execution since then set it:
//!   its block becomes live, and those executions are to be run again
//!   ([`Sweep::Unattributed`]), so that the one that reached it is judged
//!   with it;
//! - sweeps come after every execution while blocks are still being found,
//!   and at most every [`MAX_SWEEP_INTERVAL`] executions once none are: a
//!   campaign finds most of the blocks it will ever reach early.
//!
//! Before, every execution read the whole map, 64 bytes at a time: a
//! trivial property whose test binary also held three crates it never calls
//! ran 10% to 14% slower than without them, and the scan was a fifth of its
//! time.

use super::cover::bucket;

/// The most executions between two sweeps of the dead blocks: also the most
/// a sweep may have to run again.
pub const MAX_SWEEP_INTERVAL: u32 = 64;

/// For each counter value, the highest value in its bucket (zero for
/// zero): a counter's limit after a corpus entry reached that value.
const BUCKET_TOP: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut count = 1;
    while count < 256 {
        let mut top = count;
        while top < 255 && bucket((top + 1) as u8) == bucket(count as u8) {
            top += 1;
        }
        table[count] = top as u8;
        count += 1;
    }
    table
};

/// See the [module](self) documentation.
#[derive(Default)]
pub struct Novelty {
    /// Per counter, the highest value in the highest bucket a corpus entry
    /// reached (zero where none did): a count above it is a higher bucket.
    /// Judging raw counts against it spares classifying every counter an
    /// execution touched, as AFL does in place, and a branch per counter.
    limits: Vec<u8>,
    /// What [`Novelty::observe`] said of the last execution.
    last_was_new: bool,
    blocks: Blocks,
}

/// What a sweep of the dead blocks found, for the executions since the
/// last one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sweep {
    /// None was due.
    NotDue,
    /// None of those executions is left to judge: they reached no dead
    /// block, or the one that did was judged with it.
    Clean,
    /// One of those executions reached a dead block, and which one is not
    /// known: they are to be run again, now that the block is live.
    Unattributed,
}

/// What [`Novelty::observe`] found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Observed {
    /// The execution reached a higher bucket than the corpus.
    pub new: bool,
    pub sweep: Sweep,
}

/// Which blocks are live, and when the dead ones are swept next.
#[derive(Default)]
struct Blocks {
    /// The live blocks, ascending.
    live: Vec<usize>,
    /// Per block, whether it is live; empty until the map is first seen.
    is_live: Vec<bool>,
    /// Counters whose blocks are live from the start.
    pinned: Vec<usize>,
    /// Executions observed since the last sweep.
    since_sweep: u32,
    /// Executions between sweeps, from 1 to [`MAX_SWEEP_INTERVAL`].
    interval: u32,
}

impl Novelty {
    /// Reads `counters` (positions in the map) after every execution from
    /// the start, wherever they lie: a counter read on its own (a focus
    /// counter) must not hold what earlier executions left in a dead block.
    pub fn pin(&mut self, counters: &[usize]) {
        self.blocks.pinned.extend_from_slice(counters);
    }

    /// Zeroes the counters before an execution: those read after every
    /// execution (the live blocks, the head, the rest and the tail), or,
    /// when `all`, the whole map (something else may have run the
    /// instrumented code since: the first execution, or a run outside the
    /// harness such as learning an entry's shape). Zeroing all sweeps the
    /// dead blocks as it goes.
    pub fn clear(&mut self, counters: &mut [u8], all: bool) -> Sweep {
        let mut map = Map::of(counters);
        self.blocks.know(&map);
        map.zero_edges();
        for &b in &self.blocks.live {
            map.blocks[b] = [0; 8];
        }
        if !all {
            return Sweep::NotDue;
        }
        let lit = self.blocks.lit_dead(&map);
        for &b in &lit {
            map.blocks[b] = [0; 8];
        }
        let executions = std::mem::take(&mut self.blocks.since_sweep);
        if lit.is_empty() || executions == 0 {
            // Nothing, or only what the run outside the harness left: no
            // execution to run again, and the blocks stay dead.
            return Sweep::Clean;
        }
        self.blocks.found(&lit);
        Sweep::Unattributed
    }

    /// Reads the counters of the live blocks, sweeping the dead ones when
    /// due; `new` when any counter reached a higher bucket than the corpus
    /// has. The counters are left as the execution left them, but for dead
    /// blocks whose executions are to run again, which are zeroed.
    pub fn observe(&mut self, counters: &mut [u8]) -> Observed {
        if self.limits.len() < counters.len() {
            self.limits.resize(counters.len(), 0);
        }
        let map = Map::of(counters);
        self.blocks.know(&map);
        let limits = &self.limits;
        let mut new = map.edges_above(limits);
        for &b in &self.blocks.live {
            new |= map.block_above(b, limits);
        }
        self.blocks.since_sweep += 1;
        let sweep = if self.blocks.since_sweep < self.blocks.interval {
            Sweep::NotDue
        } else {
            let lit = self.blocks.lit_dead(&map);
            let executions = std::mem::take(&mut self.blocks.since_sweep);
            if lit.is_empty() {
                self.blocks.interval = (2 * self.blocks.interval).min(MAX_SWEEP_INTERVAL);
                Sweep::Clean
            } else if executions == 1 {
                // This execution alone reached them: judged with them.
                for &b in &lit {
                    new |= map.block_above(b, limits);
                }
                self.blocks.found(&lit);
                Sweep::Clean
            } else {
                for &b in &lit {
                    map.blocks[b] = [0; 8];
                }
                self.blocks.found(&lit);
                Sweep::Unattributed
            }
        };
        self.last_was_new = new;
        Observed { new, sweep }
    }

    pub fn last_was_new(&self) -> bool {
        self.last_was_new
    }

    /// Records the `counters` of an input that entered the corpus: the
    /// last one observed.
    pub fn commit(&mut self, counters: &[u8]) {
        if self.limits.len() < counters.len() {
            self.limits.resize(counters.len(), 0);
        }
        let (start, end) = blocks_between(counters);
        let mut raise = |range: std::ops::Range<usize>| {
            for (limit, &count) in self.limits[range.clone()].iter_mut().zip(&counters[range]) {
                *limit = (*limit).max(BUCKET_TOP[usize::from(count)]);
            }
        };
        raise(0..start);
        raise(end..counters.len());
        for &b in &self.blocks.live {
            raise(start + 64 * b..start + 64 * (b + 1));
        }
    }
}

impl Blocks {
    /// Sizes the block table to `map` the first time: nothing is live but
    /// the pinned counters' blocks, and sweeps start after every execution.
    fn know(&mut self, map: &Map<'_>) {
        if !self.is_live.is_empty() || map.blocks.is_empty() {
            return;
        }
        self.is_live = vec![false; map.blocks.len()];
        self.interval = 1;
        let pinned: Vec<usize> = (self.pinned.iter())
            .filter_map(|&counter| map.block_of(counter))
            .collect();
        self.found(&pinned);
    }

    /// The dead blocks holding a nonzero counter.
    fn lit_dead(&self, map: &Map<'_>) -> Vec<usize> {
        let mut lit = Vec::new();
        let mut b = 0;
        loop {
            b = next_nonzero_block(&map.blocks[..], b);
            if b >= map.blocks.len() {
                return lit;
            }
            if !self.is_live[b] {
                lit.push(b);
            }
            b += 1;
        }
    }

    /// `blocks` are live from now on, and sweeps come after every
    /// execution again.
    fn found(&mut self, blocks: &[usize]) {
        for &b in blocks {
            if !std::mem::replace(&mut self.is_live[b], true) {
                let at = self.live.partition_point(|&live| live < b);
                self.live.insert(at, b);
            }
        }
        self.interval = 1;
    }
}

/// Whether any of `counts` is above its limit: without a branch per
/// counter, which the compiler turns into a few vector instructions.
#[inline(always)]
fn above(counts: &[u8], limits: &[u8]) -> bool {
    (counts.iter().zip(limits)).fold(false, |above, (count, limit)| above | (count > limit))
}

/// Where the whole blocks of `counters` start and end.
fn blocks_between(counters: &[u8]) -> (usize, usize) {
    // SAFETY: every bit pattern is a valid u8 and u64.
    let (head, words, _) = unsafe { counters.align_to::<u64>() };
    (head.len(), head.len() + 64 * (words.len() / 8))
}

/// The counters as whole words between a head and a tail of fewer than
/// eight (where the section is not 8-aligned), the words grouped in blocks
/// of eight (64 counters) and a rest of fewer than eight words. The head,
/// the rest and the tail are read after every execution.
struct Map<'a> {
    head: &'a mut [u8],
    blocks: &'a mut [[u64; 8]],
    rest: &'a mut [u64],
    tail: &'a mut [u8],
}

impl<'a> Map<'a> {
    fn of(counters: &'a mut [u8]) -> Map<'a> {
        // SAFETY: every bit pattern is a valid u8 and u64.
        let (head, words, tail) = unsafe { counters.align_to_mut::<u64>() };
        let (blocks, rest) = words.as_chunks_mut::<8>();
        Map {
            head,
            blocks,
            rest,
            tail,
        }
    }

    /// The block that holds counter `at`, if it is in one.
    fn block_of(&self, at: usize) -> Option<usize> {
        let b = at.checked_sub(self.head.len())? / 64;
        (b < self.blocks.len()).then_some(b)
    }

    /// Whether a counter of block `b` is above its limit. All 64 are
    /// compared, zeros too: that is a few vector instructions, where
    /// skipping the zero words took a mispredicted branch each.
    fn block_above(&self, b: usize, limits: &[u8]) -> bool {
        let at = self.head.len() + 64 * b;
        // SAFETY: every bit pattern of 64 bytes is a valid [u8; 64].
        let counts: [u8; 64] = unsafe { std::mem::transmute(self.blocks[b]) };
        above(&counts, &limits[at..at + 64])
    }

    /// Whether a counter of the head, the rest or the tail is above its
    /// limit.
    fn edges_above(&self, limits: &[u8]) -> bool {
        let head = self.head.len();
        let mut new = above(self.head, &limits[..head]);
        let rest_at = head + 64 * self.blocks.len();
        for (k, word) in self.rest.iter().enumerate() {
            let at = rest_at + 8 * k;
            new |= above(&word.to_ne_bytes(), &limits[at..at + 8]);
        }
        let tail_at = rest_at + 8 * self.rest.len();
        new | above(self.tail, &limits[tail_at..tail_at + self.tail.len()])
    }

    fn zero_edges(&mut self) {
        self.head.fill(0);
        self.rest.fill(0);
        self.tail.fill(0);
    }
}

/// The first of `blocks` from `from` on that holds a nonzero counter, or
/// `blocks.len()`: a sweep's pass over the map, almost all of it over
/// zeros. Four blocks (256 counters) are tested at once, with AVX2 where
/// the processor has it (the baseline x86-64 target has 16-byte vectors
/// only). An AVX-512 copy was no faster on the AMD processor measured.
fn next_nonzero_block(blocks: &[[u64; 8]], from: usize) -> usize {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the processor has AVX2, checked just above.
        return unsafe { next_nonzero_block_avx2(blocks, from) };
    }
    next_nonzero_block_in(blocks, from)
}

/// [`next_nonzero_block_in`] compiled for AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn next_nonzero_block_avx2(blocks: &[[u64; 8]], from: usize) -> usize {
    next_nonzero_block_in(blocks, from)
}

#[inline(always)]
fn next_nonzero_block_in(blocks: &[[u64; 8]], from: usize) -> usize {
    let or = |block: &[u64; 8]| block.iter().fold(0, |acc, w| acc | w);
    let mut at = from.min(blocks.len());
    let (quads, _) = blocks[at..].as_chunks::<4>();
    for quad in quads {
        if (or(&quad[0]) | or(&quad[1])) | (or(&quad[2]) | or(&quad[3])) != 0 {
            break;
        }
        at += 4;
    }
    while at < blocks.len() && or(&blocks[at]) == 0 {
        at += 1;
    }
    at
}

#[cfg(test)]
mod tests;
