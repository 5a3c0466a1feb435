//! Procedural macros of covcheck. Use them through `covcheck-rt`, which
//! re-exports them: `use covcheck_rt::{covcheck, Generate};`.

mod derive;
mod property;

use proc_macro::TokenStream;

/// Turns a function into a property test. See the `covcheck-rt` crate docs.
///
/// ```ignore
/// #[covcheck(cases = 1000, size = 20, seed = 42)]
/// fn round_trips(#[generate(generators::range(0..100))] n: u32, text: String) { ... }
/// ```
#[proc_macro_attribute]
pub fn covcheck(args: TokenStream, item: TokenStream) -> TokenStream {
    property::expand(args.into(), item.into())
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}

/// Derives `covcheck_rt::Generate` for a struct or enum. Enum variants are
/// ordered so that index zero is the simplest non-recursive variant; fields
/// can use a custom generator with `#[generate(expr)]`.
#[proc_macro_derive(Generate, attributes(generate))]
pub fn derive_generate(input: TokenStream) -> TokenStream {
    derive::expand(syn::parse_macro_input!(input as syn::DeriveInput))
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}
