//! Generation: turning choices into values.
//!
//! Two traits, for two jobs:
//! - [`Generate`] is *the* way to make a value of a type. It is implemented for
//!   std types (`std_impls`) and derived for user types with
//!   `#[derive(Generate)]`, and it is what a property argument uses by default.
//! - [`Generator`] is a *value* that generates: ranges, `one_of`, `map`,
//!   `filter`, dependent and recursive generation ([`crate::generators`]). An
//!   argument or field uses one with `#[generate(expr)]`.
//!
//! Both are pure functions of the [`Source`]'s choices, so shrinking and the
//! seed store never need to know which was used.

mod std_impls;

use std::marker::PhantomData;
use std::rc::Rc;

use crate::source::Source;

/// A type covcheck can generate: what a property argument of that type is
/// generated with, unless it names a generator with `#[generate(...)]`.
///
/// The standard library's types implement it (integers, `bool`, `char`,
/// floats, `String`, tuples, arrays, `Option`, `Result`, `Box`, `Rc`, `Arc`,
/// the collections of `std::collections`, `Duration`, ...). Derive it for
/// your structs and enums with `#[derive(Generate)]`: fields are generated in
/// order (a field can name a generator with `#[generate(...)]`), and an
/// enum's simplest value is its simplest non-recursive variant.
///
/// To implement it by hand, build the value from the draws of `src` (see
/// [`Source`] for the two rules), or from other types' `generate`:
///
/// ```
/// use covcheck_rt::{Generate, Source};
///
/// #[derive(Debug)]
/// struct Money { cents: u64, currency: char }
///
/// impl Generate for Money {
///     fn generate(src: &mut Source) -> Self {
///         let cents = src.draw_int(0u64, 1_000_000);
///         let currency = ['€', '$', '£'][src.draw_variant(3, 3)];
///         Money { cents, currency }
///     }
/// }
/// ```
#[diagnostic::on_unimplemented(
    message = "covcheck cannot generate a `{Self}`: it does not implement `covcheck_rt::Generate`",
    label = "no `Generate` for `{Self}`",
    note = "for byte or text data, take `Vec<u8>` or `String` (or `&[u8]` or `&str`, generated as those and lent)",
    note = "for a type of your own, add `#[derive(covcheck_rt::Generate)]` to it, or implement `Generate` by hand",
    note = "for a type that implements `arbitrary::Arbitrary` (a cargo-fuzz input), put `#[generate(covcheck_rt::generators::arbitrary())]` on the argument (covcheck-rt feature `arbitrary`)",
    note = "for a proptest strategy, put `#[generate(covcheck_rt::generators::strategy(..))]` on the argument (covcheck-rt feature `proptest`)"
)]
pub trait Generate: Sized {
    /// A value built from the choices of `src`.
    fn generate(src: &mut Source) -> Self;

    /// `N` values in a row, for `[Self; N]`: one [`Generate::generate`]
    /// each, unless the type draws a run of itself faster (`u8`, whose
    /// arrays a campaign replays on every execution). Not for
    /// implementations outside covcheck to override.
    #[doc(hidden)]
    fn generate_array<const N: usize>(src: &mut Source) -> [Self; N] {
        std::array::from_fn(|_| Self::generate(src))
    }
}

/// A value that generates values of type `Value`: what `#[generate(...)]`
/// takes, on a property argument or a derived field. [`crate::generators`]
/// builds them; these methods combine them.
pub trait Generator {
    /// The type of the generated values.
    type Value;

    /// A value built from the choices of `src`.
    fn generate(&self, src: &mut Source) -> Self::Value;

    /// Applies `f` to every generated value. Shrinking still works on the
    /// choices underneath, so the mapped value shrinks too.
    fn map<U, F>(self, f: F) -> Map<Self, F>
    where
        Self: Sized,
        F: Fn(Self::Value) -> U,
    {
        Map { inner: self, f }
    }

    /// Keeps only values for which `keep` holds. Each case retries up to
    /// 100 times and is then rejected; a property whose cases are mostly
    /// rejected fails with an explanation rather than running forever.
    /// Prefer generating valid values directly (a range, a `map`).
    fn filter<F>(self, keep: F) -> Filter<Self, F>
    where
        Self: Sized,
        F: Fn(&Self::Value) -> bool,
    {
        Filter { inner: self, keep }
    }

    /// Dependent generation: generates a value, then generates from the
    /// generator that `f` builds from it (e.g. a length, then a vector of it).
    fn flat_map<G, F>(self, f: F) -> FlatMap<Self, F>
    where
        Self: Sized,
        G: Generator,
        F: Fn(Self::Value) -> G,
    {
        FlatMap { inner: self, f }
    }

    /// Type-erases the generator, e.g. to put several in a `one_of`.
    fn boxed(self) -> BoxedGenerator<Self::Value>
    where
        Self: Sized + 'static,
    {
        BoxedGenerator(Rc::new(self))
    }
}

/// How many times [`Generator::filter`] retries within one case.
const FILTER_TRIES: usize = 100;

/// A type-erased, cheaply clonable [`Generator`], made by
/// [`Generator::boxed`]: what [`crate::generators::one_of`] takes, and what
/// a function can return for a generator whose type is long to write.
pub struct BoxedGenerator<T>(Rc<dyn Generator<Value = T>>);

impl<T> Clone for BoxedGenerator<T> {
    fn clone(&self) -> Self {
        BoxedGenerator(Rc::clone(&self.0))
    }
}

impl<T> Generator for BoxedGenerator<T> {
    type Value = T;
    fn generate(&self, src: &mut Source) -> T {
        self.0.generate(src)
    }
}

/// The generator of [`crate::generators::any`]: [`Generate`] as a value.
pub struct Any<T>(pub(crate) PhantomData<fn() -> T>);

impl<T: Generate> Generator for Any<T> {
    type Value = T;
    fn generate(&self, src: &mut Source) -> T {
        T::generate(src)
    }
}

/// See [`Generator::map`].
pub struct Map<G, F> {
    inner: G,
    f: F,
}

impl<G: Generator, U, F: Fn(G::Value) -> U> Generator for Map<G, F> {
    type Value = U;
    fn generate(&self, src: &mut Source) -> U {
        (self.f)(self.inner.generate(src))
    }
}

/// See [`Generator::filter`].
pub struct Filter<G, F> {
    inner: G,
    keep: F,
}

impl<G: Generator, F: Fn(&G::Value) -> bool> Generator for Filter<G, F> {
    type Value = G::Value;
    fn generate(&self, src: &mut Source) -> G::Value {
        for _ in 0..FILTER_TRIES {
            let value = self.inner.generate(src);
            if (self.keep)(&value) {
                return value;
            }
        }
        crate::property::reject(std::any::type_name::<F>())
    }
}

/// See [`Generator::flat_map`].
pub struct FlatMap<G, F> {
    inner: G,
    f: F,
}

impl<G: Generator, H: Generator, F: Fn(G::Value) -> H> Generator for FlatMap<G, F> {
    type Value = H::Value;
    fn generate(&self, src: &mut Source) -> H::Value {
        let first = self.inner.generate(src);
        (self.f)(first).generate(src)
    }
}

/// How a property lends a `&T` argument from the value generated for it
/// (`Borrow<T>`): what `#[covcheck]` expands to, with a compile error that
/// names what a `&T` argument's generator must make.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "a `&{T}` argument cannot be lent from the `{Self}` its generator makes",
    label = "its generator makes `{Self}`",
    note = "the generator of a `&T` argument makes a value that lends a `&T` (`Borrow<T>`): `Vec<E>` for `&[E]`, `String` or `&'static str` for `&str`, `T` for any other `&T`"
)]
pub trait Lend<T: ?Sized> {
    fn lend(&self) -> &T;
}

impl<T: ?Sized, V: std::borrow::Borrow<T>> Lend<T> for V {
    fn lend(&self) -> &T {
        self.borrow()
    }
}
