//! Combinators for custom generation: the values you pass to
//! `#[generate(...)]` on a property argument or a derived field.
//!
//! ```
//! use covcheck_rt::generators::{self, Generator};
//!
//! // A port number, a non-empty name, and a vector whose length depends on `n`.
//! let port = generators::range(1024u16..=65535);
//! let name = generators::any::<String>().filter(|s| !s.is_empty());
//! let sized = generators::range(0usize..10)
//!     .flat_map(|n| generators::vec(generators::any::<u8>(), n..=n));
//! # let _ = (port, name, sized);
//! ```
//!
//! Two more bring generators written for other tools, each behind a feature
//! of covcheck-rt so that nobody else builds those crates:
//! `arbitrary()` (feature `arbitrary`) for any type that implements
//! `arbitrary::Arbitrary`, the input of a cargo-fuzz target, and
//! `strategy()` (feature `proptest`) for any proptest strategy. Both read
//! their randomness from the choice sequence (bytes for `arbitrary`, 32-bit
//! words for proptest's RNG), so their values are mutated, shrunk and saved
//! like any other.

#[cfg(feature = "arbitrary")]
mod from_arbitrary;
#[cfg(feature = "proptest")]
mod from_proptest;

pub use crate::generate::{Any, BoxedGenerator, Filter, FlatMap, Generator, Map};
pub use crate::int::Int;
#[cfg(feature = "arbitrary")]
pub use from_arbitrary::{FromArbitrary, arbitrary};
#[cfg(feature = "proptest")]
pub use from_proptest::{FromStrategy, strategy};

use std::marker::PhantomData;
use std::ops::{Bound, RangeBounds};
use std::rc::Rc;

use crate::generate::Generate;
use crate::source::{Source, label_of, nested};

/// Generates any value of `T` with its [`Generate`] implementation.
pub fn any<T: Generate>() -> Any<T> {
    Any(PhantomData)
}

/// Always generates a clone of `value`.
pub fn just<T: Clone>(value: T) -> Just<T> {
    Just(value)
}

/// See [`just`].
pub struct Just<T>(T);

impl<T: Clone> Generator for Just<T> {
    type Value = T;
    fn generate(&self, _: &mut Source) -> T {
        self.0.clone()
    }
}

/// A generator from a closure over the [`Source`], for anything the
/// combinators do not express. The closure must read all its randomness from
/// the source.
pub fn from_fn<T, F: Fn(&mut Source) -> T>(f: F) -> FromFn<F> {
    FromFn(f)
}

/// See [`from_fn`].
pub struct FromFn<F>(F);

impl<T, F: Fn(&mut Source) -> T> Generator for FromFn<F> {
    type Value = T;
    fn generate(&self, src: &mut Source) -> T {
        (self.0)(src)
    }
}

/// Integers in a range (`a..b`, `a..=b`, `a..`, `..=b`), shrinking towards
/// the value closest to zero; with AFL's heuristics, the range's ends and
/// their neighbours come up often.
///
/// # Panics
/// When the range is empty.
pub fn range<T: Int, R: RangeBounds<T>>(range: R) -> IntRange<T> {
    let lo = match range.start_bound() {
        Bound::Included(&lo) => lo,
        Bound::Excluded(&lo) => T::from_ordinal(lo.to_ordinal() + 1),
        Bound::Unbounded => T::MIN,
    };
    let hi = match range.end_bound() {
        Bound::Included(&hi) => hi,
        Bound::Excluded(&hi) => {
            assert!(
                hi.to_ordinal() > lo.to_ordinal(),
                "covcheck: empty range {lo:?}..{hi:?}"
            );
            T::from_ordinal(hi.to_ordinal() - 1)
        }
        Bound::Unbounded => T::MAX,
    };
    assert!(lo <= hi, "covcheck: empty range {lo:?}..={hi:?}");
    IntRange { lo, hi }
}

/// See [`range`].
#[derive(Clone, Copy, Debug)]
pub struct IntRange<T> {
    lo: T,
    hi: T,
}

impl<T: Int> Generator for IntRange<T> {
    type Value = T;
    fn generate(&self, src: &mut Source) -> T {
        src.draw_int(self.lo, self.hi)
    }
}

/// Floats in `lo..=hi` (both finite), shrinking towards `lo`.
pub fn float_range(lo: f64, hi: f64) -> FloatRange {
    assert!(
        lo.is_finite() && hi.is_finite() && lo <= hi,
        "covcheck: bad float range {lo}..={hi}"
    );
    FloatRange { lo, hi }
}

/// See [`float_range`].
#[derive(Clone, Copy, Debug)]
pub struct FloatRange {
    lo: f64,
    hi: f64,
}

impl Generator for FloatRange {
    type Value = f64;
    fn generate(&self, src: &mut Source) -> f64 {
        const STEPS: u64 = 1 << 53;
        let step = src.draw_int(0, STEPS);
        // Interpolated without `hi - lo`, which overflows for extreme bounds.
        let t = step as f64 / STEPS as f64;
        let value = self.lo * (1.0 - t) + self.hi * t;
        value.clamp(self.lo, self.hi)
    }
}

/// Picks one of `values`; shrinks towards the first.
///
/// # Panics
/// When `values` is empty.
pub fn sampled_from<T: Clone>(values: impl Into<Vec<T>>) -> SampledFrom<T> {
    let values = values.into();
    assert!(
        !values.is_empty(),
        "covcheck: sampled_from needs at least one value"
    );
    SampledFrom(values)
}

/// See [`sampled_from`].
pub struct SampledFrom<T>(Vec<T>);

impl<T: Clone> Generator for SampledFrom<T> {
    type Value = T;
    fn generate(&self, src: &mut Source) -> T {
        let count = self.0.len();
        self.0[src.draw_variant(count, count)].clone()
    }
}

/// Generates from one of `generators`, chosen uniformly; shrinks towards the
/// first. The [`crate::one_of!`] macro boxes the generators for you.
///
/// # Panics
/// When `generators` is empty.
pub fn one_of<T>(generators: Vec<BoxedGenerator<T>>) -> Weighted<T> {
    weighted(generators.into_iter().map(|g| (1, g)).collect())
}

/// Like [`one_of`], with relative weights: `(3, a)` is chosen three times as
/// often as `(1, b)` in random cases. Shrinking still prefers the first entry.
///
/// # Panics
/// When `choices` is empty or all weights are zero.
pub fn weighted<T>(choices: Vec<(u32, BoxedGenerator<T>)>) -> Weighted<T> {
    let total: u64 = choices.iter().map(|(w, _)| u64::from(*w)).sum();
    assert!(
        total > 0,
        "covcheck: weighted/one_of needs at least one choice with a weight above zero"
    );
    Weighted { choices, total }
}

/// See [`weighted`] and [`one_of`].
pub struct Weighted<T> {
    choices: Vec<(u32, BoxedGenerator<T>)>,
    total: u64,
}

impl<T> Generator for Weighted<T> {
    type Value = T;
    fn generate(&self, src: &mut Source) -> T {
        let count = self.choices.len();
        let index = src.draw(
            crate::choice::ChoiceKind::Variant,
            count as u64 - 1,
            |rng| {
                let mut ticket = rng.at_most(self.total - 1);
                for (i, (weight, _)) in self.choices.iter().enumerate() {
                    if ticket < u64::from(*weight) {
                        return i as u64;
                    }
                    ticket -= u64::from(*weight);
                }
                0
            },
        );
        nested(src, label_of::<Self>(), |src| {
            self.choices[index as usize].1.generate(src)
        })
    }
}

/// Vectors whose length lies in `len`, with elements from `element`. An
/// open-ended range (`0..`, `..`) is capped by the size bound (`size`);
/// an explicit maximum is honoured as given.
pub fn vec<G: Generator>(element: G, len: impl RangeBounds<usize>) -> VecOf<G> {
    let min = match len.start_bound() {
        Bound::Included(&n) => n,
        Bound::Excluded(&n) => n + 1,
        Bound::Unbounded => 0,
    };
    let max = match len.end_bound() {
        Bound::Included(&n) => n,
        Bound::Excluded(&n) => n.checked_sub(1).expect("covcheck: empty length range"),
        Bound::Unbounded => usize::MAX,
    };
    assert!(min <= max, "covcheck: empty length range {min}..={max}");
    VecOf { element, min, max }
}

/// See [`vec()`].
pub struct VecOf<G> {
    element: G,
    min: usize,
    max: usize,
}

impl<G: Generator> Generator for VecOf<G> {
    type Value = Vec<G::Value>;
    fn generate(&self, src: &mut Source) -> Vec<G::Value> {
        let mut out = Vec::new();
        let label = label_of::<G>();
        src.collection(self.min, self.max, None, label, |src, _| {
            out.push(self.element.generate(src))
        });
        out
    }
}

/// Recursive values with a depth bound: `leaf` generates the base case and
/// `branch` builds a node generator from a generator of children. Index zero
/// (and every draw past `max_depth` levels) is a leaf, so values are finite
/// by construction and shrink towards a leaf.
///
/// ```
/// use covcheck_rt::generators::{self, Generator};
///
/// #[derive(Debug, Clone)]
/// enum Expr { Num(u8), Add(Box<Expr>, Box<Expr>) }
///
/// let expr = generators::recursive(
///     4,
///     generators::any::<u8>().map(Expr::Num),
///     |child| {
///         let right = child.clone();
///         child.flat_map(move |l| right.clone().map(move |r| Expr::Add(Box::new(l.clone()), Box::new(r))))
///             .boxed()
///     },
/// );
/// # let _ = expr;
/// ```
pub fn recursive<T: 'static>(
    max_depth: u32,
    leaf: impl Generator<Value = T> + 'static,
    branch: impl Fn(BoxedGenerator<T>) -> BoxedGenerator<T> + 'static,
) -> Recursive<T> {
    let shared = Rc::new(RecursiveShared {
        max_depth,
        leaf: leaf.boxed(),
        branch: Box::new(branch),
    });
    Recursive { shared, level: 0 }
}

struct RecursiveShared<T> {
    max_depth: u32,
    leaf: BoxedGenerator<T>,
    branch: Box<dyn Fn(BoxedGenerator<T>) -> BoxedGenerator<T>>,
}

/// See [`recursive`].
pub struct Recursive<T> {
    shared: Rc<RecursiveShared<T>>,
    level: u32,
}

impl<T: 'static> Generator for Recursive<T> {
    type Value = T;
    fn generate(&self, src: &mut Source) -> T {
        let is_branch = self.level < self.shared.max_depth && src.draw_variant(2, 1) == 1;
        nested(src, label_of::<Self>(), |src| {
            if is_branch {
                let children = Recursive {
                    shared: Rc::clone(&self.shared),
                    level: self.level + 1,
                };
                (self.shared.branch)(children.boxed()).generate(src)
            } else {
                self.shared.leaf.generate(src)
            }
        })
    }
}

/// Generates from one of several generators of the same value type, boxing
/// each: `one_of![range(0..10), just(100)]`. Shrinks towards the first.
#[macro_export]
macro_rules! one_of {
    ($($generator:expr),+ $(,)?) => {
        $crate::generators::one_of(::std::vec![$($crate::generators::Generator::boxed($generator)),+])
    };
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::Limits;

    fn sample<G: Generator>(generator: &G, seed: u64) -> G::Value {
        generator.generate(&mut Source::random(seed, Limits::default()))
    }

    #[test]
    fn ranges_stay_in_bounds_and_hit_their_ends() {
        let r = range(-3i32..7);
        let values: Vec<i32> = (0..500).map(|s| sample(&r, s)).collect();
        assert!(values.iter().all(|v| (-3..7).contains(v)));
        assert!(values.contains(&-3) && values.contains(&6));
    }

    #[test]
    fn explicit_lengths_are_not_capped_by_the_size_bound() {
        let g = vec(any::<u8>(), 150..=150);
        assert_eq!(sample(&g, 1).len(), 150);
        let open = vec(any::<u8>(), 0..);
        assert!((0..100).all(|s| sample(&open, s).len() <= Limits::default().max_len));
    }

    #[test]
    fn float_ranges_survive_extreme_bounds() {
        let g = float_range(-f64::MAX, f64::MAX);
        assert!((0..100).all(|s| sample(&g, s).is_finite()));
        let simplest = g.generate(&mut Source::replay(Vec::new(), Limits::default()));
        assert_eq!(simplest, -f64::MAX);
    }

    #[test]
    fn weighted_respects_weights() {
        let g = weighted(vec![(1, just('a').boxed()), (9, just('b').boxed())]);
        let bs = (0..1000).filter(|&s| sample(&g, s) == 'b').count();
        assert!((800..980).contains(&bs), "{bs}");
    }

    #[test]
    fn recursion_is_bounded() {
        #[derive(Debug, Clone)]
        enum T {
            Leaf,
            Node(Box<T>),
        }
        fn depth(t: &T) -> u32 {
            match t {
                T::Leaf => 0,
                T::Node(c) => 1 + depth(c),
            }
        }
        let g = recursive(3, just(T::Leaf), |c| {
            c.map(|c| T::Node(Box::new(c))).boxed()
        });
        assert!((0..500).all(|s| depth(&sample(&g, s)) <= 3));
        assert!((0..500).any(|s| depth(&sample(&g, s)) == 3));
    }
}
