//! The choice sequence: the one representation of a property's input.
//!
//! Every generator is a pure function of a sequence of *choices*. A choice is
//! an index into a finite, ordered domain (`0..=max`) plus a [`ChoiceKind`]
//! saying what the draw was for. The ordering is chosen so that **index zero is
//! always the simplest value** (0, `false`, empty, the first variant) and larger
//! indices are "more complex". Generation, shrinking, the seed store and (later)
//! mutation all work on these indices and never on the user's types, which is
//! why nothing type-specific is needed to shrink a user's own type.
//!
//! This module also holds the bijections between values and indices
//! ([`IntDomain`], [`char_from_index`]), so that heuristics can pick a *value*
//! (say `i64::MIN`) and record the index that replays to it.

/// What a draw was for. Kinds guide heuristics and shrink passes; they never
/// change how an index is turned back into a value (that is the generator's job).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ChoiceKind {
    /// An integer, or one 64-bit half of a 128-bit integer. `zigzag_limit` is the
    /// largest index up to which indices alternate below/above the shrink target
    /// (see [`IntDomain`]); shrinking keeps the parity of such indices to shrink
    /// a magnitude without flipping its sign.
    Int { zigzag_limit: u64 },
    /// A `bool`.
    Bool,
    /// "Does the collection have another element?" Zero ends the collection.
    More,
    /// Which variant of an enum, `Option`, `Result` or `one_of`.
    Variant,
    /// Whether a float is a small integer (0) or an arbitrary bit pattern (1).
    FloatForm,
    /// The payload of a float: an integer magnitude/sign or raw bits.
    FloatBits,
    /// A `char`, in the order of [`char_from_index`].
    Char,
}

/// One recorded draw.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Choice {
    /// Index into the draw's domain, `0..=max`.
    pub index: u64,
    /// Largest valid index of the domain.
    pub max: u64,
    pub kind: ChoiceKind,
}

/// A contiguous run of choices that produced one value (a collection element, an
/// enum, a derived struct). Shrinking deletes, zeroes and swaps whole spans so
/// that collections shrink coherently.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Span {
    pub start: usize,
    pub end: usize,
    /// Nesting depth (0 for outermost spans).
    pub depth: u32,
    /// Identifies what produced the span (e.g. a hash of the element type), so
    /// passes only swap spans of the same label.
    pub label: u64,
}

impl Span {
    pub fn len(&self) -> usize {
        self.end - self.start
    }
}

/// The order in which shrinking prefers candidates: shorter first, then
/// lexicographically smaller indices ("shortlex", as in Hypothesis). It is a
/// total order and every shrink step strictly decreases it, so shrinking always
/// terminates.
pub fn shortlex_less(a: &[u64], b: &[u64]) -> bool {
    (a.len(), a) < (b.len(), b)
}

/// An integer domain `lo..=hi`, expressed in *ordinals*: an order-preserving
/// map of every Rust integer type into `u128` (signed values are offset by
/// 2^127). Index 0 is the value closest to zero inside the domain (the *target*);
/// indices then alternate below and above the target (`0, -1, 1, -2, 2, ...`
/// for a domain that contains zero), and continue on the longer side once the
/// shorter side is used up. So shrinking an index shrinks the magnitude.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IntDomain {
    lo: u128,
    hi: u128,
    target: u128,
    /// Number of alternating steps available on both sides of the target.
    both: u128,
}

impl IntDomain {
    /// A domain from ordinals (`lo <= hi`) and the ordinal of zero in this
    /// integer type's ordinal space.
    pub fn new(lo: u128, hi: u128, zero: u128) -> Self {
        assert!(lo <= hi, "empty integer domain");
        let target = zero.clamp(lo, hi);
        let both = (target - lo).min(hi - target);
        IntDomain {
            lo,
            hi,
            target,
            both,
        }
    }

    /// The lowest and highest ordinal of the domain.
    pub fn bounds(&self) -> (u128, u128) {
        (self.lo, self.hi)
    }

    /// Largest valid index (`hi - lo`).
    pub fn max_index(&self) -> u128 {
        self.hi - self.lo
    }

    /// Largest index up to which indices alternate sides (`2 * both`).
    pub fn zigzag_limit(&self) -> u128 {
        self.both.saturating_mul(2)
    }

    /// The ordinal for an index. Indices past the end wrap around modulo the
    /// domain size, so any recorded index replays to *some* valid value.
    pub fn ordinal(&self, index: u128) -> u128 {
        let max = self.max_index();
        // The test first: a 128-bit remainder is a library call, and replayed
        // indices are almost always in range.
        let index = match max.checked_add(1) {
            Some(size) if index > max => index % size,
            _ => index,
        };
        if index == 0 {
            self.target
        } else if index <= self.zigzag_limit() {
            if index % 2 == 1 {
                self.target - index.div_ceil(2)
            } else {
                self.target + index / 2
            }
        } else if self.target - self.lo > self.hi - self.target {
            self.target - (index - self.both)
        } else {
            self.target + (index - self.both)
        }
    }

    /// The index of an ordinal, or `None` when it is outside the domain.
    pub fn index(&self, ordinal: u128) -> Option<u128> {
        if ordinal < self.lo || ordinal > self.hi {
            return None;
        }
        Some(if ordinal == self.target {
            0
        } else if ordinal < self.target {
            let d = self.target - ordinal;
            if d <= self.both {
                2 * d - 1
            } else {
                d + self.both
            }
        } else {
            let d = ordinal - self.target;
            if d <= self.both { 2 * d } else { d + self.both }
        })
    }
}

/// Number of valid `char`s (all code points but the surrogates).
pub const CHAR_COUNT: u64 = 0x11_0000 - 0x800;

/// The `char` for an index. Index 0 is `'a'`, then the code points above it in
/// order, wrapping around to `'\0'` after `char::MAX` (surrogates skipped), so
/// the simplest strings read as `"a"`, `"aaa"`, `"b"`.
pub fn char_from_index(index: u64) -> char {
    let mut point = ((index % CHAR_COUNT) + u64::from(b'a')) % CHAR_COUNT;
    if point >= 0xD800 {
        point += 0x800;
    }
    char::from_u32(point as u32).expect("surrogates are skipped")
}

/// The index of a `char` (inverse of [`char_from_index`]).
pub fn char_index(c: char) -> u64 {
    let mut point = u64::from(u32::from(c));
    if point >= 0xE000 {
        point -= 0x800;
    }
    (point + CHAR_COUNT - u64::from(b'a')) % CHAR_COUNT
}

/// Trailing zero choices are implied (reading past the end yields zero), so
/// seed files leave them out.
pub(crate) fn trim_trailing_zeros(indices: &[u64]) -> &[u64] {
    let len = indices
        .iter()
        .rposition(|&i| i != 0)
        .map_or(0, |last| last + 1);
    &indices[..len]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn i64_domain() -> IntDomain {
        let ord = |v: i64| (v as i128 as u128) ^ (1 << 127);
        IntDomain::new(ord(i64::MIN), ord(i64::MAX), ord(0))
    }

    #[test]
    fn signed_indices_alternate_negative_first() {
        let d = i64_domain();
        let value = |i: u128| (d.ordinal(i) ^ (1 << 127)) as i128;
        assert_eq!((0..5).map(value).collect::<Vec<_>>(), vec![0, -1, 1, -2, 2]);
        assert_eq!(value(d.max_index()), i64::MIN as i128);
    }

    #[test]
    fn index_and_ordinal_round_trip_on_lopsided_domains() {
        for (lo, hi, zero) in [(0u128, 10, 0), (3, 9, 0), (0, 20, 5), (2, 5, 4), (7, 7, 0)] {
            let d = IntDomain::new(lo, hi, zero);
            let mut seen = Vec::new();
            for i in 0..=d.max_index() {
                let o = d.ordinal(i);
                assert!((lo..=hi).contains(&o));
                assert_eq!(d.index(o), Some(i), "domain {lo}..={hi} target {zero}");
                seen.push(o);
            }
            seen.sort();
            seen.dedup();
            assert_eq!(seen.len() as u128, hi - lo + 1, "bijection");
        }
    }

    #[test]
    fn out_of_range_indices_wrap() {
        let d = IntDomain::new(0, 9, 0);
        assert_eq!(d.ordinal(13), 3);
    }

    #[test]
    fn char_index_round_trips() {
        assert_eq!(char_from_index(0), 'a');
        for c in ['a', 'z', '\0', '\u{D7FF}', '\u{E000}', char::MAX, '🦀', 'é'] {
            assert_eq!(char_from_index(char_index(c)), c);
        }
        for i in (0..CHAR_COUNT).step_by(4099) {
            assert_eq!(char_index(char_from_index(i)), i);
        }
    }
}
