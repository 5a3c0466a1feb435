//! The pseudo-random number generator behind random generation.
//!
//! SplitMix64, written out here rather than taken from a crate on purpose: an
//! RNG seed printed in a failure report must reproduce the same cases forever,
//! so the stream must not change when a dependency is upgraded. SplitMix64 is
//! small, fast, passes BigCrush, and is fully specified by these few lines.

/// A deterministic random source; the same seed always gives the same stream.
#[derive(Clone, Debug)]
pub struct Rng {
    state: u64,
}

/// SplitMix64's step: each draw adds it to the state.
const STEP: u64 = 0x9E37_79B9_7F4A_7C15;

/// `STEP`'s inverse modulo 2^64 (it is odd), which turns a distance between
/// two states into a count of draws. Newton's iteration doubles the correct
/// low bits each round, from 3 bits (an odd number is its own inverse
/// modulo 8).
const STEP_INVERSE: u64 = {
    let mut inverse = STEP;
    let mut round = 0;
    while round < 5 {
        inverse = inverse.wrapping_mul(2u64.wrapping_sub(STEP.wrapping_mul(inverse)));
        round += 1;
    }
    inverse
};

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng { state: seed }
    }

    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(STEP);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// How many numbers were drawn since `earlier`, a copy of this RNG.
    /// Every method draws a fixed count of them, whatever their values.
    #[cfg_attr(not(feature = "campaign"), allow(dead_code))]
    pub fn draws_since(&self, earlier: &Rng) -> u64 {
        self.state
            .wrapping_sub(earlier.state)
            .wrapping_mul(STEP_INVERSE)
    }

    /// Moves on as `draws` numbers drawn would, without computing them: a
    /// search that knows it would fail again skips it, and the stream after
    /// it stays what it was.
    #[cfg_attr(not(feature = "campaign"), allow(dead_code))]
    pub fn skip(&mut self, draws: u64) {
        self.state = self.state.wrapping_add(draws.wrapping_mul(STEP));
    }

    pub fn next_u128(&mut self) -> u128 {
        (u128::from(self.next_u64()) << 64) | u128::from(self.next_u64())
    }

    /// A uniform value in `0..=max` (Lemire's multiply-shift; the tiny bias
    /// for huge `max` does not matter for test generation).
    pub fn at_most(&mut self, max: u64) -> u64 {
        match max.checked_add(1) {
            None => self.next_u64(),
            Some(n) => ((u128::from(self.next_u64()) * u128::from(n)) >> 64) as u64,
        }
    }

    /// A uniform value in `0..=max` for 128-bit domains.
    pub fn at_most_u128(&mut self, max: u128) -> u128 {
        if max <= u128::from(u64::MAX) {
            return u128::from(self.at_most(max as u64));
        }
        match max.checked_add(1) {
            None => self.next_u128(),
            Some(n) => self.next_u128() % n,
        }
    }

    /// A uniform index into a slice of length `len` (`len > 0`).
    pub fn index(&mut self, len: usize) -> usize {
        self.at_most(len as u64 - 1) as usize
    }

    /// True with probability `percent / 100`.
    pub fn percent(&mut self, percent: u64) -> bool {
        self.at_most(99) < percent
    }

    /// A uniformly chosen element.
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.index(items.len())]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stream_is_stable() {
        // Published SplitMix64 reference output for seed 1234567.
        let mut rng = Rng::new(1234567);
        assert_eq!(rng.next_u64(), 6457827717110365317);
        assert_eq!(rng.next_u64(), 3203168211198807973);
    }

    #[test]
    fn skipping_draws_leaves_the_stream_where_drawing_them_would() {
        let mut drawn = Rng::new(42);
        let start = drawn.clone();
        for len in [1, 7, 100, 3] {
            drawn.index(len);
        }
        drawn.next_u128();
        assert_eq!(drawn.draws_since(&start), 6);
        let mut skipped = start.clone();
        skipped.skip(6);
        assert_eq!(skipped.next_u64(), drawn.next_u64());
        assert_eq!(start.draws_since(&start), 0);
    }

    #[test]
    fn at_most_stays_in_range() {
        let mut rng = Rng::new(7);
        for max in [0, 1, 2, 9, 1000, u64::MAX] {
            for _ in 0..100 {
                assert!(rng.at_most(max) <= max);
            }
        }
    }
}
