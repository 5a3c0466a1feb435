//! Input-to-state through arithmetic: the code compares a value computed
//! from a stored one with a constant (`x % 65521 == 40503`,
//! `x * 12 == 7_200_000`, `x / 1000 == 777`), so the compared value equals
//! no draw and copying the constant writes nothing useful. Each solve here
//! guesses the operation from the comparison LLVM made of it, and solves
//! for the stored value. They come last among input-to-state's tries
//! ([`ChoiceMutator::try_comparison`]): every one is a guess, and a wrong
//! guess costs the try.

use super::stored::{Stored, StoredDraw};
use super::windows::{Window, find_windows_in, mask};
use super::{ChoiceMutator, Shape};
use crate::engine::sancov::IntCmp;

/// The smallest constant [`ChoiceMutator::replace_remainder`] and
/// [`ChoiceMutator::replace_product`] solve for: a smaller one is more
/// often a bit, a flag or a byte tested than a remainder or a product,
/// and a solve for it a wasted try.
const MIN_RESULT_SOUGHT: u64 = 256;

/// The smallest compared value [`ChoiceMutator::replace_range_start`]
/// solves for, as for an offset (`compare.rs`): small numbers are near
/// everything.
const MIN_RANGE_COMPARED: u64 = 1 << 16;

/// The largest factor [`ChoiceMutator::replace_product`] tries.
const MAX_FACTOR: u64 = 64;

impl ChoiceMutator {
    /// The arithmetic solves for `cmp` (its `a` the value the input
    /// holds a function of, its `b` the other operand), in turn.
    pub(super) fn solve_arithmetic(
        &mut self,
        shape: &Shape,
        stored: &Stored,
        indices: &mut [u64],
        cmp: IntCmp,
    ) -> bool {
        self.replace_product(shape, stored, indices, cmp)
            || self.replace_high_bits(shape, stored, indices, cmp)
            || self.replace_quotient(shape, stored, indices, cmp)
    }

    /// A remainder or a range check: `x % C == K` and `x / C == K` are
    /// both compared as a constant with a value that equals no draw, and
    /// which of the two a comparison is cannot be told from it. Where both
    /// solves apply, each is tried first half the time, as a guess; where
    /// neither does, no random number is drawn, so that the campaigns of
    /// other comparisons go on as they were.
    fn replace_quotient(
        &mut self,
        shape: &Shape,
        stored: &Stored,
        indices: &mut [u64],
        cmp: IntCmp,
    ) -> bool {
        let remainder = sought_result(shape, cmp);
        let range = range_checked(shape, cmp);
        if remainder && (!range || self.rng.percent(50)) {
            self.replace_remainder(shape, stored, indices, cmp)
                || (range && self.replace_range_start(shape, stored, indices, cmp))
        } else {
            range
                && (self.replace_range_start(shape, stored, indices, cmp)
                    || (remainder && self.replace_remainder(shape, stored, indices, cmp)))
        }
    }

    /// Input-to-state through a remainder: the code compares `x % C`, for
    /// a stored integer `x`, with a constant (`a[0] % 65521 == 40503`), so
    /// the compared value `cmp.a` equals no draw. A stored draw above it by
    /// more than either operand (by a multiple of `C`, which exceeds both)
    /// becomes `x - cmp.a + cmp.b`: the same quotient, the remainder
    /// sought. Only for a comparison with a constant `cmp.b` of at least
    /// [`MIN_RESULT_SOUGHT`] that fits 32 bits. Draws that are no such
    /// `x` get a wrong guess, one try's worth; the gate this opens is out
    /// of reach of every other solve, and of random values at 1 in `C`.
    fn replace_remainder(
        &mut self,
        shape: &Shape,
        stored: &Stored,
        indices: &mut [u64],
        cmp: IntCmp,
    ) -> bool {
        let (from, to) = (cmp.a, cmp.b);
        if !sought_result(shape, cmp) {
            return false;
        }
        self.write_solved_draw(shape, stored, indices, |draw| {
            let multiple = draw.value.checked_sub(from)?;
            (multiple > from.max(to)).then_some(multiple.checked_add(to)?)
        })
    }

    /// Input-to-state through a product: `x * 12 == 7_200_000` is
    /// compared as the product, which equals no draw (LLVM folds an odd
    /// factor into the constant, `x == c / k`, but not an even one). A
    /// place holding `x` that `cmp.a` is a multiple of, `x * k` wrapping at
    /// the compared width, for `k` from 2 to [`MAX_FACTOR`], becomes
    /// `cmp.b / k` where `k` divides it. Only for a comparison with a
    /// constant in the range [`ChoiceMutator::replace_remainder`] takes,
    /// and a product of at least 256: a small one is a multiple of
    /// everything small.
    fn replace_product(
        &mut self,
        shape: &Shape,
        stored: &Stored,
        indices: &mut [u64],
        cmp: IntCmp,
    ) -> bool {
        let (from, to) = (cmp.a, cmp.b);
        if from < MIN_RESULT_SOUGHT || !sought_result(shape, cmp) {
            return false;
        }
        let bits = 8 * u32::from(cmp.size);
        let factor_of = |x: u64| factor(x, from, bits).filter(|k| to % k == 0);
        let mut sites = find_windows_in(stored, cmp.size, |x| factor_of(x).is_some());
        // A narrower draw, widened for the product (`u64::from(x) * 12`).
        let narrower = (stored.draws.iter()).filter(|d| {
            d.bits < 8 * u32::from(cmp.size)
                && factor_of(d.value).is_some_and(|k| fits(to / k, d.bits))
        });
        sites.extend(narrower.map(|d| (Window::Draw(d.position), d.value)));
        if sites.is_empty() {
            return false;
        }
        let (window, x) = sites.swap_remove(self.pick_site(sites.len()));
        let factor = factor_of(x).expect("a site has a factor");
        window.write(shape, indices, to / factor)
    }

    /// Input-to-state through a quotient by a power of two: LLVM compiles
    /// `x / 16 == 99_999` (or `x >> 4`) into `x & !15 == 1_599_984`, whose
    /// compared value is `x` with its low bits cleared. A draw that differs
    /// from `cmp.a` in its low bits only (at most 8), where both operands
    /// have them clear, takes the high bits of `cmp.b` and keeps its low
    /// ones. Only for a comparison with a constant in the range
    /// [`ChoiceMutator::replace_remainder`] takes: the low bits of small
    /// numbers are clear everywhere.
    fn replace_high_bits(
        &mut self,
        shape: &Shape,
        stored: &Stored,
        indices: &mut [u64],
        cmp: IntCmp,
    ) -> bool {
        let (from, to) = (cmp.a, cmp.b);
        if !sought_result(shape, cmp) {
            return false;
        }
        self.write_solved_draw(shape, stored, indices, |draw| {
            let differ = draw.value ^ from;
            let low = u64::MAX.checked_shr(differ.leading_zeros())?;
            let solvable = differ != 0 && low <= 0xFF && (from | to) & low == 0;
            solvable.then_some(to | (draw.value & low))
        })
    }

    /// Input-to-state through a range check: LLVM compiles a quotient
    /// compared with a constant, `x / 1000 == 777`, into the unsigned
    /// `x - 777_000 < 1000`, which traces the divisor with `x - 777_000`.
    /// The start of the range (`777_000`) is in neither operand, but each
    /// draw that could be `x` tells it: a draw becomes itself less the
    /// compared value, the range's start (which draw is `x` cannot be
    /// told; one is picked). Only for a compared value of at least
    /// [`MIN_RANGE_COMPARED`] above a constant of 2 to 2^16, and for
    /// integer draws: each of a byte vector's windows would be as good a
    /// guess, and all but one of them wrong.
    fn replace_range_start(
        &mut self,
        shape: &Shape,
        stored: &Stored,
        indices: &mut [u64],
        cmp: IntCmp,
    ) -> bool {
        let from = cmp.a;
        if !range_checked(shape, cmp) {
            return false;
        }
        // A narrower draw may have been widened for the quotient: its
        // start fits it where it is the `x`.
        let bits = 8 * u32::from(cmp.size);
        self.write_solved_draw(shape, stored, indices, |draw| {
            (draw.bits <= bits).then_some(draw.value.wrapping_sub(from) & mask(cmp.size))
        })
    }

    /// Writes one of the integer draws that `solve` gives a value for,
    /// picked at random, where the value fits the draw and lies in its
    /// domain; false when there are none. The solves that guess which draw
    /// is the `x` of the compared value meet here.
    fn write_solved_draw(
        &mut self,
        shape: &Shape,
        stored: &Stored,
        indices: &mut [u64],
        solve: impl Fn(&StoredDraw) -> Option<u64>,
    ) -> bool {
        let mut sites: Vec<(usize, u64)> = Vec::new();
        for draw in &stored.draws {
            let Some(solved) = solve(draw).filter(|&v| fits(v, draw.bits)) else {
                continue;
            };
            let int = shape.ints.get(draw.position).expect("a stored draw");
            if let Some(index) = int.index_of(solved) {
                sites.push((draw.position, index));
            }
        }
        self.write_one_of(&sites, indices)
    }
}

/// The smallest factor `k` from 2 to [`MAX_FACTOR`] with `x * k` equal to
/// `product` at `bits` bits (wrapping), if any. Solved rather than
/// searched where it can be, as each window of a byte vector is asked:
/// `x` is `2^t` times an odd number, which has an inverse modulo any power
/// of two, and where `2^(bits - t)` exceeds [`MAX_FACTOR`] the one residue
/// of `k` modulo it is the only candidate.
pub(super) fn factor(x: u64, product: u64, bits: u32) -> Option<u64> {
    let low = |v: u64, bits: u32| if bits >= 64 { v } else { v & ((1 << bits) - 1) };
    let (x, product) = (low(x, bits), low(product, bits));
    if x < 2 {
        return None;
    }
    let twos = x.trailing_zeros();
    if product.trailing_zeros() < twos {
        return None;
    }
    let width = bits - twos;
    if 1u128 << width <= u128::from(MAX_FACTOR) {
        return (2..=MAX_FACTOR).find(|&k| low(x.wrapping_mul(k), bits) == product);
    }
    let k = low((product >> twos).wrapping_mul(inverse(x >> twos)), width);
    (2..=MAX_FACTOR).contains(&k).then_some(k)
}

/// The inverse of an odd number modulo 2^64, by Newton's iteration: each
/// step doubles the low bits that are right, three to start with (an odd
/// number is its own inverse modulo 8).
fn inverse(odd: u64) -> u64 {
    let mut inverse = odd;
    for _ in 0..5 {
        inverse = inverse.wrapping_mul(2u64.wrapping_sub(odd.wrapping_mul(inverse)));
    }
    inverse
}

/// Whether `value` fits a draw of `bits` bits without losing high bits
/// (writing a draw keeps only the low ones).
fn fits(value: u64, bits: u32) -> bool {
    bits >= 64 || value >> bits == 0
}

/// Whether the code compared `cmp.a` with the constant `cmp.b`.
fn compared_with_constant(shape: &Shape, cmp: IntCmp) -> bool {
    let with_constant = IntCmp {
        a: cmp.b,
        b: cmp.a,
        size: cmp.size,
    };
    shape.comparisons.constants.contains(&with_constant)
}

/// Whether `cmp.b` is a constant that could be a remainder or a product
/// sought: one of [`MIN_RESULT_SOUGHT`] to 2^32. Above 32 bits a
/// constant is a bound (`isize::MAX / 8` in a capacity check) more often
/// than either.
fn sought_result(shape: &Shape, cmp: IntCmp) -> bool {
    (MIN_RESULT_SOUGHT..=u64::from(u32::MAX)).contains(&cmp.b) && compared_with_constant(shape, cmp)
}

/// Whether `cmp` could be a range check `x - start < cmp.b` that
/// [`ChoiceMutator::replace_range_start`] solves: a constant of 2 to 2^16
/// compared with a value of at least 2^16.
fn range_checked(shape: &Shape, cmp: IntCmp) -> bool {
    cmp.a >= MIN_RANGE_COMPARED
        && (2..=1 << 16).contains(&cmp.b)
        && compared_with_constant(shape, cmp)
}
