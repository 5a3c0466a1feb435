//! Procedural macros of covcheck. Use them through `covcheck-rt`, which
//! re-exports them: `use covcheck_rt::{covcheck, Generate};`.

mod derive;
mod property;

use proc_macro::TokenStream;

/// Turns a function into a property test: a `#[test]` with the same name
/// whose arguments covcheck generates, and which must pass for every one.
///
/// ```ignore
/// use covcheck_rt::{covcheck, generators};
///
/// #[covcheck(cases = 1000, size = 20)]
/// fn parses_what_it_prints(#[generate(generators::range(0u32..100))] n: u32, text: String) {
///     // ...
/// }
/// ```
///
/// - Each argument needs a plain name (`x: T` or `mut x: T`) and a type that
///   implements `Debug` and `Generate`, unless `#[generate(expr)]` gives it a
///   generator.
/// - A shared reference is generated as an owned value and lent for the
///   call: `data: &[u8]` as a `Vec<u8>` (any `&[E]` as a `Vec<E>`), `s: &str`
///   as a `String`, any other `&T` as a `T`. With `#[generate(expr)]`, the
///   generator's value is lent (`Borrow<T>`): a generator of `Vec<u8>` for
///   `&[u8]`, of `String` or `&'static str` for `&str`. `&mut T` and named
///   lifetimes (without a generator) are compile errors.
/// - The function returns `()` or `Result<(), E>` with `E: Debug`; a panic
///   or an `Err` fails the case.
/// - Options: `cases` (random cases per `cargo test`, default 256), `size`
///   (the longest open-ended collection or string, default 100), `seed` (a
///   fixed RNG seed) and `depth` (the nesting depth of recursive values,
///   default 8). `COVCHECK_CASES`, `COVCHECK_SIZE`, `COVCHECK_SEED` and
///   `COVCHECK_DEPTH` override them for one run.
/// - The property's dictionary, for `cargo covcheck`'s mutator:
///   `dict = ["GET ", b"\r\n"]` (string or byte-string literals) and
///   `dict_file = "fuzz/http.dict"` (libFuzzer's format, relative to the
///   crate root), alone or together. `cargo test` checks the file: a
///   missing or malformed one fails the test.
/// - Other attributes (`#[ignore]`, `#[cfg(...)]`, docs) stay on the test;
///   `#[test]` and `#[should_panic]` are compile errors that say what to do.
#[proc_macro_attribute]
pub fn covcheck(args: TokenStream, item: TokenStream) -> TokenStream {
    property::expand(args.into(), item.into())
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}

/// Derives `covcheck_rt::Generate` for a struct or enum.
///
/// Fields are generated in order, each with its type's `Generate`, or with
/// the generator that `#[generate(expr)]` on the field names. An enum's
/// variants are ordered so that index zero, which shrinking moves towards,
/// is the simplest: variants none of whose fields mention the type come
/// first (fewest fields first), then the recursive ones. Past the nesting
/// depth only the former are drawn, so values are finite, and an enum needs
/// at least one of them. Type parameters get a `Generate` bound.
///
/// ```ignore
/// #[derive(Debug, Generate)]
/// enum Json {
///     Null,
///     Number(#[generate(generators::range(-1000i64..=1000))] i64),
///     Array(Vec<Json>),
/// }
/// ```
#[proc_macro_derive(Generate, attributes(generate))]
pub fn derive_generate(input: TokenStream) -> TokenStream {
    derive::expand(syn::parse_macro_input!(input as syn::DeriveInput))
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}
