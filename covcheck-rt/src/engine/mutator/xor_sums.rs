//! Checksums compared in XOR form. A CRC ends with `!crc`, and LLVM folds
//! that NOT into the comparison: `stored != crc32(data)` compiles to
//! `stored ^ crc != 0xFFFFFFFF`. One operand is a constant and the other,
//! `stored ^ crc`, is stored nowhere in the input, so neither input-to-state
//! nor the value-based repair ([`super::sums`]) sees the stored sum. Zlib's
//! `len != !nlen` and any `a ^ b == K` check look the same.
//!
//! The comparison is linear in the stored value, though: changing it by `d`
//! (XOR) changes the compared value by `d`. Writing `x ^ compared ^ constant`
//! into the window `x` that holds the sum makes the comparison hold, at
//! every width and byte order.
//!
//! Which window holds the sum, the log does not say. Three ways find it:
//! - a new corpus entry's first missed comparison with a constant
//!   ([`Miss`]) is swept: every window is tried, one run each, until one
//!   makes it hold ([`ChoiceMutator::sweep_miss`]). The same sweep copies a
//!   missed magic number into each place that holds the compared value,
//!   where input-to-state would pick one at random;
//! - [`ChoiceMutator::xor_solve`], a mutation, tries one window at random
//!   (an input of n bytes has about 2n);
//! - a repair that did not take is looked for in the other windows
//!   ([`ChoiceMutator::locate_xor_sums`]): a rewritten length field moves
//!   the place the code reads the sum from.
//!
//! Each notes where it wrote ([`XorSum`]). The campaign hands that note to
//! the corpus entry the mutant becomes, if it becomes one and the
//! comparison holds in it; that entry's mutants are then repaired like any
//! other sum ([`ChoiceMutator::repair_xor_sums`]), and their notes passed
//! on.

use super::sums::{InputValues, RepairRuns, Sum};
use super::windows::{Window, find_windows, mask, random_window};
use super::{ChoiceMutator, Shape};
use crate::engine::sancov::IntCmp;

/// The most misses one input keeps: each one tried dilutes the others.
const MAX_MISSES: usize = 16;

/// The most failed comparisons with a constant whose operand is looked for
/// in the input, per traced run.
const MAX_MISS_SEARCHES: usize = 64;

/// The most windows a sweep ([`ChoiceMutator::sweep_miss`],
/// [`ChoiceMutator::locate_xor_sums`]) tries for one comparison.
const MAX_LOCATE: usize = 512;

/// A checksum an input stores, which the code compares in XOR form.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct XorSum {
    /// The value stored in the input.
    pub stored: u64,
    /// The constant the code compares `stored ^ computed` with.
    pub constant: u64,
    /// The comparison's width in bytes.
    pub size: u8,
    /// Which of the comparisons with `constant` at that width, in the order
    /// they ran (`Comparisons::constants`): the CRCs of a first and a second
    /// chunk are both compared with `0xFFFFFFFF`.
    pub nth: usize,
}

impl XorSum {
    /// The comparison of this sum in the traced run `shape`, if it ran.
    fn comparison(&self, shape: &Shape) -> Option<IntCmp> {
        shape
            .comparisons
            .constants
            .iter()
            .filter(|c| c.a == self.constant && c.size == self.size)
            .nth(self.nth)
            .copied()
    }

    /// Whether the sum's comparison held in the traced run `shape`. A
    /// solve or repair is checked with it before the entry it made is
    /// trusted to store the sum: a comparison with a value that changes on
    /// every run (a counter, a clock) can be "solved" once by chance, and
    /// would otherwise be repaired, at the cost of a traced run, in every
    /// mutant after.
    pub fn holds_in(&self, shape: &Shape) -> bool {
        self.comparison(shape).is_some_and(|c| c.a == c.b)
    }
}

/// A comparison with a constant that did not hold in a traced run: a magic
/// number the input missed, or a checksum in XOR form.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Miss {
    /// The comparison, the constant as `a`.
    pub cmp: IntCmp,
    /// As [`XorSum::nth`].
    pub nth: usize,
    /// Whether the input stores the compared value: then the constant is
    /// to be copied over it (input-to-state), else the comparison may be
    /// a checksum in XOR form, solved in whatever window holds the sum.
    pub stored: bool,
}

impl Miss {
    /// The check that the miss is solved: a sum whose comparison is this
    /// one (its `stored` value is filled in once written).
    fn as_sum(&self) -> XorSum {
        XorSum {
            stored: 0,
            constant: self.cmp.a,
            size: self.cmp.size,
            nth: self.nth,
        }
    }
}

/// The comparisons with a constant that failed in a traced run (`shape`),
/// each once: those whose computed operand the input stores, and those,
/// for the XOR-form checksums, of a wide constant ([`IntCmp::is_wide`])
/// whose computed operand is at least 256 (small values are counters and
/// lengths).
pub(super) fn misses(shape: &Shape, values: &InputValues) -> Vec<Miss> {
    let mut targets: Vec<Miss> = Vec::new();
    let mut counts: Vec<((u64, u8), usize)> = Vec::new();
    // Each miss costs a search of the input for its operand, and a loop
    // compares new values with one constant on every pass.
    let mut searches = 0;
    // A loop compares one computed value with several constants: its
    // search is made once.
    let mut searched: Vec<((u64, u8), bool)> = Vec::new();
    for cmp in &shape.comparisons.constants {
        let key = (cmp.a, cmp.size);
        let nth = match counts.iter_mut().find(|(k, _)| *k == key) {
            Some((_, count)) => {
                *count += 1;
                *count - 1
            }
            None => {
                counts.push((key, 1));
                0
            }
        };
        if cmp.a == cmp.b || targets.iter().any(|t| t.cmp == *cmp) {
            continue;
        }
        searches += 1;
        if searches > MAX_MISS_SEARCHES {
            break;
        }
        let stored = match searched.iter().find(|(k, _)| *k == (cmp.b, cmp.size)) {
            Some(&(_, stored)) => stored,
            None => {
                let stored = values.stores(cmp.b, cmp.size);
                searched.push(((cmp.b, cmp.size), stored));
                stored
            }
        };
        if stored || (cmp.is_wide() && cmp.b >= 256) {
            targets.push(Miss {
                cmp: *cmp,
                nth,
                stored,
            });
            if targets.len() == MAX_MISSES {
                break;
            }
        }
    }
    targets
}

impl ChoiceMutator {
    /// Makes one missed comparison that may be an XOR-form checksum hold
    /// ([`Shape::misses`] whose operand is not stored), by writing `x ^ compared ^ constant` into a
    /// window `x` picked at random, and notes the sum in
    /// [`ChoiceMutator::xor_solved`].
    pub(super) fn xor_solve(&mut self, shape: &Shape, indices: &mut [u64]) -> bool {
        let targets: Vec<&Miss> = shape.misses.iter().filter(|m| !m.stored).collect();
        if targets.is_empty() {
            return false;
        }
        let target = *targets[self.rng.index(targets.len())];
        let size = target.cmp.size;
        let Some((window, x)) = random_window(shape, indices, size, &mut self.rng) else {
            return false;
        };
        let solved = (x ^ target.cmp.a ^ target.cmp.b) & mask(size);
        if !window.write(shape, indices, solved) {
            return false;
        }
        self.xor_solved.push(XorSum {
            stored: solved,
            constant: target.cmp.a,
            size,
            nth: target.nth,
        });
        true
    }

    /// Repairs the XOR-form `sums` of a corpus entry in a traced mutant of it
    /// (`shape`): where the mutant still stores the sum but its comparison no
    /// longer holds, the stored value is fixed as [`ChoiceMutator::xor_solve`]
    /// would. Returns the sums the mutant stores after it (a sum the mutant
    /// lost is dropped), and whether any was rewritten.
    pub fn repair_xor_sums(
        &mut self,
        sums: &[XorSum],
        shape: &Shape,
        indices: &mut [u64],
    ) -> (Vec<XorSum>, bool) {
        let mut kept = Vec::new();
        let mut repaired = false;
        for sum in sums {
            let mut holding: Vec<Window> =
                find_windows(shape, indices, sum.size, |v| v == sum.stored)
                    .into_iter()
                    .map(|(window, _)| window)
                    .collect();
            if holding.is_empty() {
                continue;
            }
            let Some(cmp) = sum.comparison(shape).filter(|c| c.a != c.b) else {
                // Holds, or is not reached: either way the sum stays.
                kept.push(*sum);
                continue;
            };
            let fixed = (sum.stored ^ cmp.a ^ cmp.b) & mask(sum.size);
            let window = holding.swap_remove(self.rng.index(holding.len()));
            if window.write(shape, indices, fixed) {
                repaired = true;
                kept.push(XorSum {
                    stored: fixed,
                    ..*sum
                });
            }
        }
        (kept, repaired)
    }

    /// Checks, with one more run, that the repaired XOR-form `sums` of
    /// `choices` hold, and looks for each one that does not in the other
    /// windows of the input, one run per window. A repair writes the sum
    /// where the entry stored it; a mutant whose layout changed (a length
    /// field rewritten, so that the checksum is read from elsewhere) needs
    /// it written where the code now reads it, which no log tells. The
    /// first window whose fix makes the comparison hold, or makes the input
    /// fail, is kept in `choices`. Returns the sums the input stores after.
    pub(super) fn locate_xor_sums(
        &mut self,
        runs: &mut RepairRuns<'_, '_>,
        sums: Vec<XorSum>,
        choices: &mut Vec<u64>,
    ) -> Vec<XorSum> {
        let shape = runs.learn(choices);
        if shape.failed {
            return sums;
        }
        let mut located = Vec::new();
        for sum in sums {
            match sum.comparison(&shape).filter(|c| c.a != c.b) {
                Some(cmp) => {
                    let windows = find_windows(&shape, choices, sum.size, |_| true);
                    let tries = xor_fixes(windows, cmp);
                    let found = self.try_windows(runs, &shape, tries, sum, (&[], &[]), choices);
                    located.extend(found.map(|(stored, _)| XorSum { stored, ..sum }));
                }
                None => located.push(sum),
            }
        }
        located
    }

    /// Solves `miss`, a failed comparison of a new corpus entry's input
    /// `choices` (of `shape`), by trying every place it could be solved in,
    /// one run each, until one makes it hold (or makes the input fail,
    /// which is better still). `carried`: the XOR-form sums the entry stores, repaired
    /// where a try breaks them. Returns the XOR-form sums the solved input
    /// stores.
    ///
    /// For a stored operand, the places are the windows that hold it,
    /// where the constant is copied: input-to-state picks one of them at
    /// random, which in an input of zeros compared with a magic number is
    /// one chance in hundreds. For an XOR-form checksum they are all the
    /// windows: [`ChoiceMutator::xor_solve`] hits the right one of an
    /// input of n bytes once in about 2n tries, each among all the other
    /// mutations; a sweep takes at most 2n runs, once per entry.
    pub fn sweep_miss(
        &mut self,
        runs: &mut RepairRuns<'_, '_>,
        shape: &Shape,
        miss: Miss,
        choices: &mut Vec<u64>,
        carried: &[XorSum],
    ) -> Option<Vec<XorSum>> {
        let (cmp, sum) = (miss.cmp, miss.as_sum());
        if miss.stored {
            let mut windows = Vec::new();
            for width in [cmp.size, 4, 2] {
                let fits = width == 8 || (cmp.a | cmp.b) >> (8 * u32::from(width)) == 0;
                if width <= cmp.size && fits && (width == cmp.size || windows.is_empty()) {
                    windows.extend(find_windows(shape, choices, width, |v| v == cmp.b));
                }
            }
            let tries = windows.into_iter().map(|(w, _)| (w, cmp.a)).collect();
            let sums = (&shape.sums[..], carried);
            let solved = self.try_windows(runs, shape, tries, sum, sums, choices);
            return solved.map(|(_, carried)| carried);
        }
        let windows = find_windows(shape, choices, cmp.size, |_| true);
        let tries = xor_fixes(windows, cmp);
        let sums = (&shape.sums[..], carried);
        let solved = self.try_windows(runs, shape, tries, sum, sums, choices);
        solved.map(|(stored, mut carried)| {
            carried.push(XorSum { stored, ..sum });
            carried
        })
    }

    /// Tries `windows` of `choices` (of `shape`), starting at a random one
    /// and at most [`MAX_LOCATE`] of them: writes the value paired with
    /// each window into it and runs the result. The first that makes the
    /// comparison of `check` hold, or makes the input fail, is kept in
    /// `choices`; returns the value written and the `carried` sums as the
    /// input stores them then.
    ///
    /// `sums` are the sums the input stored before, in value and in XOR
    /// form (`carried`): a write that breaks one of them (a chunk's type
    /// made right, which its CRC covers; a frame's magic byte, which its
    /// Adler-32 covers) is repaired and run again, for the comparison
    /// behind it to be reached at all.
    fn try_windows(
        &mut self,
        runs: &mut RepairRuns<'_, '_>,
        shape: &Shape,
        windows: Vec<(Window, u64)>,
        check: XorSum,
        (sums, carried): (&[Sum], &[XorSum]),
        choices: &mut Vec<u64>,
    ) -> Option<(u64, Vec<XorSum>)> {
        if windows.is_empty() {
            return None;
        }
        let start = self.rng.index(windows.len());
        for k in 0..windows.len().min(MAX_LOCATE) {
            let (window, fixed) = &windows[(start + k) % windows.len()];
            let fixed = *fixed;
            let mut candidate = choices.clone();
            candidate.resize(candidate.len().max(shape.choices.len()), 0);
            if !window.write(shape, &mut candidate, fixed) {
                continue;
            }
            let check = XorSum {
                stored: fixed,
                ..check
            };
            let mut tried = runs.learn(&candidate);
            let mut stored = carried.to_vec();
            let summed = !carried.is_empty() || !sums.is_empty();
            if !tried.failed && !check.holds_in(&tried) && summed {
                let repaired_sums = self.repair_sums(sums, &tried, &mut candidate);
                let (repaired, any) = self.repair_xor_sums(carried, &tried, &mut candidate);
                if !any && repaired_sums.is_empty() {
                    continue;
                }
                stored = repaired;
                tried = runs.learn(&candidate);
            }
            if tried.failed || check.holds_in(&tried) {
                *choices = candidate;
                return Some((fixed, stored));
            }
        }
        None
    }
}

/// Each window with the value that makes the XOR-form comparison `cmp`
/// hold if the window is where the sum is stored: `x ^ compared ^ constant`.
fn xor_fixes(windows: Vec<(Window, u64)>, cmp: IntCmp) -> Vec<(Window, u64)> {
    windows
        .into_iter()
        .map(|(window, x)| (window, (x ^ cmp.a ^ cmp.b) & mask(cmp.size)))
        .collect()
}
