//! AFL's value heuristics, applied to every random draw (seed 002).
//!
//! Uniformly random values almost never hit edge cases: a uniform `i64` is
//! `i64::MIN` once in 2^64 draws, a uniform length in `0..100` is empty once in
//! a hundred. AFL showed that mixing a few *interesting* values into every draw
//! finds a large class of bugs with no feedback at all. These functions pick the
//! value of one draw in random mode; the caller records the index that replays
//! to it, so heuristics never affect replay or shrinking.
//!
//! # Probabilities, and why
//!
//! | draw | distribution |
//! |---|---|
//! | integer | 10% the value of an earlier integer draw of the same input from the same domain (when a few probes find one); otherwise 15% extremes (`lo`, `hi`, `lo+1`, `hi-1`, target, target±1), 15% AFL interesting values and powers of two ±1 (wrapped to the type's width), 15% small (target ±16), 55% uniform |
//! | length | 10% zero, 10% one, 35% two to eight, 20% boundary (15/16/17, 31/32/33, ..., 255/256/257, and the maximum), 25% uniform up to the maximum |
//! | float | 30% special (±0, ±1, NaN twice, ±inf, MIN/MAX, MIN_POSITIVE, EPSILON, smallest and largest subnormal, 0.5, 1e±300), 20% small integers, 15% any real in ±16, 15% uniform in ±1000 with three decimals, 20% raw bit patterns |
//! | char | 50% printable ASCII, 20% nasty characters, 15% other multi-byte ranges, 15% any `char` |
//! | string | 10% a whole nasty string, otherwise characters as above |
//!
//! The extremes tier is small (seven values) and 15% of draws, so a single
//! extreme such as `i64::MIN` appears in about 2.2% of draws: within the default
//! 256 cases it is found with probability of about 99.6%. Uniform draws keep the
//! majority so that ordinary values still dominate, which is what most
//! properties need to exercise their normal paths. Lengths favour tiny
//! collections, because most bugs need few elements and small inputs shrink
//! fast, while the boundary tier reaches off-by-one limits at 2^k.

use crate::choice::{Choice, ChoiceKind, IntDomain};
use crate::rng::Rng;

/// AFL's `interesting_8`, `interesting_16` and `interesting_32` values.
pub(crate) const AFL_INTERESTING: [i128; 27] = [
    -128,
    -1,
    0,
    1,
    16,
    32,
    64,
    100,
    127,
    -32768,
    -129,
    128,
    255,
    256,
    512,
    1000,
    1024,
    4096,
    32767,
    -2147483648,
    -100663046,
    -32769,
    32768,
    65535,
    65536,
    100663045,
    2147483647,
];

/// One draw in ten repeats an earlier integer draw of the same input from
/// the same domain (the same kind and range of indices, so the same index
/// is the same value), when a few random probes of `earlier` find one.
/// Independent uniform draws almost never collide, yet equal values are
/// where maps, sets, trees and deduplication go wrong: a key inserted
/// twice, a key deleted after it was inserted, two equal operands. Probing
/// the choices already recorded costs no memory and no time on the other
/// nine draws.
pub fn repeat_earlier(
    rng: &mut Rng,
    earlier: &[Choice],
    kind: ChoiceKind,
    max: u64,
) -> Option<u64> {
    repeat_earlier_inline(rng, earlier, kind, max)
}

/// [`repeat_earlier`], inlined into the caller (the whole-range draws, as
/// for [`int_index_inline`]).
#[inline(always)]
pub(crate) fn repeat_earlier_inline(
    rng: &mut Rng,
    earlier: &[Choice],
    kind: ChoiceKind,
    max: u64,
) -> Option<u64> {
    if earlier.is_empty() || !rng.percent(10) {
        return None;
    }
    (0..8).find_map(|_| {
        let choice = earlier[rng.index(earlier.len())];
        (choice.kind == kind && choice.max == max).then_some(choice.index)
    })
}

/// Picks an integer index for a draw in `domain`, an integer type of `bits`
/// width and the given signedness, following the table in the module docs.
pub fn int_index(rng: &mut Rng, domain: &IntDomain, bits: u32, signed: bool) -> u128 {
    int_index_inline(rng, domain, bits, signed)
}

/// [`int_index`], inlined into the caller: a caller that knows the domain
/// (the whole-range draws) has the 128-bit domain arithmetic folded away.
/// Only for code in this crate, which campaigns do not instrument.
#[inline(always)]
pub(crate) fn int_index_inline(rng: &mut Rng, domain: &IntDomain, bits: u32, signed: bool) -> u128 {
    let max = domain.max_index();
    let roll = rng.at_most(99);
    if roll < 15 {
        // Index 0 is the target, 1 and 2 its neighbours; then both ends.
        let (lo, hi) = domain.bounds();
        let ends = [
            lo,
            lo.saturating_add(1).min(hi),
            hi,
            hi.saturating_sub(1).max(lo),
        ];
        let picks = [0, 1, 2].map(|i: u128| i.min(max));
        return if rng.at_most(6) < 3 {
            *rng.pick(&picks)
        } else {
            domain
                .index(*rng.pick(&ends))
                .expect("ends lie in the domain")
        };
    }
    if roll < 30 {
        let value = if rng.percent(50) {
            *rng.pick(&AFL_INTERESTING)
        } else {
            // Wrapping: 2^127 does not fit in i128, and wraps as `as` would.
            let power = 1i128 << rng.at_most(u64::from(bits) - 1);
            let signed = if rng.percent(50) {
                power.wrapping_neg()
            } else {
                power
            };
            signed.wrapping_add(rng.at_most(2) as i128 - 1)
        };
        if let Some(index) = domain.index(wrap_to_ordinal(value, bits, signed)) {
            return index;
        }
    } else if roll < 45 {
        return u128::from(rng.at_most(32)).min(max);
    }
    rng.at_most_u128(max)
}

/// The ordinal (see [`crate::int::Ordinal`]) of `value` wrapped to a `bits`-wide
/// integer, the way `value as T` wraps.
fn wrap_to_ordinal(value: i128, bits: u32, signed: bool) -> u128 {
    let raw = value as u128;
    let masked = if bits == 128 {
        raw
    } else {
        raw & ((1u128 << bits) - 1)
    };
    if signed {
        let shift = 128 - bits;
        let extended = ((masked << shift) as i128) >> shift;
        (extended as u128) ^ (1 << 127)
    } else {
        masked
    }
}

/// Picks a collection length in `min..=max`.
pub fn length(rng: &mut Rng, min: usize, max: usize) -> usize {
    const BOUNDARIES: [usize; 15] = [
        15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129, 255, 256, 257,
    ];
    let roll = rng.at_most(99);
    let len = if roll < 10 {
        0
    } else if roll < 20 {
        1
    } else if roll < 55 {
        2 + rng.at_most(6) as usize
    } else if roll < 75 {
        if rng.percent(25) {
            max
        } else {
            *rng.pick(&BOUNDARIES)
        }
    } else {
        min + rng.at_most((max - min) as u64) as usize
    };
    len.clamp(min, max)
}

/// Picks an enum variant in `0..count`, where the first `leaves` variants do
/// not recurse. The deeper the generator is nested, the likelier a leaf, so
/// random recursive values stay finite and small.
pub fn variant(rng: &mut Rng, count: usize, leaves: usize, depth: u32, max_depth: u32) -> usize {
    if leaves > 0 && leaves < count {
        let leaf_percent = 30 + 70 * u64::from(depth) / u64::from(max_depth.max(1));
        if rng.percent(leaf_percent) {
            return rng.index(leaves);
        }
        return leaves + rng.index(count - leaves);
    }
    rng.index(count)
}

/// How a random `f64` is to be recorded: `(form, payload)` as in
/// [`crate::source::Source::draw_f64`].
pub fn f64_plan(rng: &mut Rng) -> (u64, u64) {
    const SPECIAL: [f64; 18] = [
        0.0,
        -0.0,
        1.0,
        -1.0,
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::MIN,
        f64::MAX,
        f64::MIN_POSITIVE,
        f64::EPSILON,
        5e-324,
        2.225_073_858_507_201e-308,
        0.5,
        1e-300,
        1e300,
        -1e300,
        f64::NAN,
    ];
    let roll = rng.at_most(99);
    if roll < 30 {
        // The second NaN is negative with a payload: some code only checks the
        // canonical bit pattern.
        let value = *rng.pick(&SPECIAL);
        let bits = if value.is_nan() && rng.percent(50) {
            value.to_bits() | (1 << 63) | 1
        } else {
            value.to_bits()
        };
        (1, bits)
    } else if roll < 50 {
        (0, rng.at_most(2 * 1000 + 1))
    } else if roll < 65 {
        // Any real in ±16: windows like `1 < x < 2` are hit once in 32 draws.
        let fraction = rng.next_u64() as f64 / u64::MAX as f64;
        (1, (fraction * 32.0 - 16.0).to_bits())
    } else if roll < 80 {
        let value = (rng.at_most(2_000_000) as f64 - 1_000_000.0) / 1000.0;
        (1, value.to_bits())
    } else {
        (1, rng.next_u64())
    }
}

/// How a random `f32` is to be recorded (see [`f64_plan`]).
pub fn f32_plan(rng: &mut Rng) -> (u64, u64) {
    let (form, payload) = f64_plan(rng);
    if form == 0 {
        return (0, payload);
    }
    let value = f64::from_bits(payload) as f32;
    (1, u64::from(value.to_bits()))
}

/// Characters that break naive text handling.
const NASTY_CHARS: [char; 24] = [
    '\0',
    '\t',
    '\n',
    '\r',
    ' ',
    '"',
    '\'',
    '\\',
    '%',
    '\u{7f}',
    '\u{80}',
    '\u{ff}',
    '\u{a0}',
    '\u{ad}',
    '\u{200b}',
    '\u{200d}',
    '\u{202e}',
    '\u{fe0f}',
    '\u{feff}',
    '\u{fffd}',
    '\u{d7ff}',
    '\u{e000}',
    '\u{10ffff}',
    '🦀',
];

/// Picks a `char` to draw.
pub fn char(rng: &mut Rng) -> char {
    let roll = rng.at_most(99);
    let point = if roll < 50 {
        0x20 + rng.at_most(0x7e - 0x20) as u32
    } else if roll < 70 {
        return *rng.pick(&NASTY_CHARS);
    } else if roll < 85 {
        // Two-, three- and four-byte UTF-8, combining marks, CJK, emoji.
        let ranges: [(u32, u32); 5] = [
            (0xC0, 0x24F),
            (0x300, 0x36F),
            (0x4E00, 0x4FFF),
            (0x1F300, 0x1F64F),
            (0x10000, 0x1007F),
        ];
        let (lo, hi) = *rng.pick(&ranges);
        lo + rng.at_most(u64::from(hi - lo)) as u32
    } else {
        rng.at_most(0x10_FFFF) as u32
    };
    char::from_u32(point).unwrap_or('\u{fffd}')
}

/// Whole strings that break parsers, formatters and renderers.
const NASTY_STRINGS: [&str; 20] = [
    "",
    " ",
    "\0",
    "\r\n",
    "null",
    "NaN",
    "-1",
    "0",
    "1e308",
    "-0",
    "true",
    "%s%n%x",
    "' OR 1=1 --",
    "<script>",
    "\u{202e}abc",
    "a\u{0301}",
    "\u{feff}",
    "𝕋𝕙𝕖",
    "🦀🦀",
    "ÅÍÎÏ˝ÓÔ",
];

/// With 10% probability, a whole nasty string to generate instead of random
/// characters.
pub fn nasty_string(rng: &mut Rng) -> Option<&'static str> {
    rng.percent(10).then(|| *rng.pick(&NASTY_STRINGS))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The rate the book quotes for an extreme (`generating-types.md`,
    /// `introduction.md`): an `i64` draw is `i64::MIN` in 15% ÷ 7 of draws
    /// (one of seven extremes), plus a little from the wrapped power 2^63.
    #[test]
    fn i64_min_comes_up_in_about_2_2_percent_of_draws() {
        let ordinal = |v: i64| wrap_to_ordinal(i128::from(v), 64, true);
        let domain = IntDomain::new(ordinal(i64::MIN), ordinal(i64::MAX), ordinal(0));
        let min = domain.index(ordinal(i64::MIN)).unwrap();
        let mut rng = Rng::new(1);
        let draws = 200_000;
        let hits = (0..draws)
            .filter(|_| int_index(&mut rng, &domain, 64, true) == min)
            .count();
        let rate = hits as f64 / f64::from(draws);
        assert!((0.020..0.024).contains(&rate), "rate {rate}");
        // So 256 cases find it with a probability of about 99.6%.
        let found = 1.0 - (1.0 - rate).powi(256);
        assert!((0.994..0.998).contains(&found), "{found}");
    }

    #[test]
    fn wrapping_matches_as_casts() {
        let i8_ord = |v: i8| (v as i128 as u128) ^ (1 << 127);
        assert_eq!(wrap_to_ordinal(-1, 8, false), 255);
        assert_eq!(wrap_to_ordinal(256, 8, false), 0);
        assert_eq!(wrap_to_ordinal(128, 8, true), i8_ord(-128));
        assert_eq!(wrap_to_ordinal(-1, 128, false), u128::MAX);
    }

    #[test]
    fn repeats_come_from_the_same_domain_about_one_draw_in_ten() {
        let int = |zigzag_limit| ChoiceKind::Int { zigzag_limit };
        let earlier: Vec<Choice> = (0..40)
            .map(|n| Choice {
                index: n,
                max: if n % 2 == 0 { u64::MAX } else { 255 },
                kind: int(0),
            })
            .chain([Choice {
                index: 7,
                max: 1,
                kind: ChoiceKind::Bool,
            }])
            .collect();
        let mut rng = Rng::new(5);
        let repeats: Vec<u64> = (0..10_000)
            .filter_map(|_| repeat_earlier(&mut rng, &earlier, int(0), u64::MAX))
            .collect();
        assert!((800..1200).contains(&repeats.len()), "{}", repeats.len());
        assert!(repeats.iter().all(|i| i % 2 == 0), "only the same domain");
        let none_alike = (0..10_000)
            .filter_map(|_| repeat_earlier(&mut rng, &earlier, int(3), 1000))
            .count();
        assert_eq!(none_alike, 0);
        assert_eq!(repeat_earlier(&mut rng, &[], int(0), 255), None);
    }

    #[test]
    fn random_inputs_repeat_earlier_values() {
        // Two draws from a domain of two million values: independent draws
        // collide only through the heuristics' few special values.
        let equal = (0..2000)
            .filter(|&seed| {
                let mut src = crate::source::Source::random(seed, Default::default());
                let a: u64 = src.draw_int(1_000_000, 3_000_000);
                let b: u64 = src.draw_int(1_000_000, 3_000_000);
                a == b
            })
            .count();
        assert!(equal > 150, "{equal} of 2000 pairs equal");
    }

    #[test]
    fn lengths_respect_bounds() {
        let mut rng = Rng::new(3);
        for _ in 0..1000 {
            let len = length(&mut rng, 2, 20);
            assert!((2..=20).contains(&len));
        }
    }

    #[test]
    fn float_plans_include_nan_and_infinities() {
        let mut rng = Rng::new(11);
        let values: Vec<f64> = (0..2000)
            .map(|_| f64_plan(&mut rng))
            .filter(|&(form, _)| form == 1)
            .map(|(_, bits)| f64::from_bits(bits))
            .collect();
        assert!(values.iter().any(|v| v.is_nan()));
        assert!(values.iter().any(|v| v.is_infinite()));
        assert!(values.iter().any(|v| v.is_subnormal()));
    }
}
