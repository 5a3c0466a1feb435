//! `#[derive(Generate)]` for structs and enums.
//!
//! Structs generate their fields in order. Enums draw a variant index whose
//! zero is the *simplest* variant: variants that do not mention the type
//! itself (leaves) come first, fewest fields first, then recursive variants in
//! declaration order. Past the nesting limit only leaves are drawn, so values
//! of recursive types are finite by construction and shrink towards a leaf.
//! Everything is wrapped in `__private::nested`, which records a span per value
//! (shrinking replaces a subtree by a subtree) and tracks nesting depth.

use proc_macro2::{TokenStream, TokenTree};
use quote::{ToTokens, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Data, DataEnum, DeriveInput, Error, Fields, GenericParam, parse_quote};

pub fn expand(mut input: DeriveInput) -> syn::Result<TokenStream> {
    let name = input.ident.clone();
    for param in &mut input.generics.params {
        if let GenericParam::Type(ty) = param {
            ty.bounds
                .push(parse_quote!(::covcheck_rt::__private::Generate));
        }
    }
    let body = match &input.data {
        Data::Struct(data) => construct(quote!(Self), &data.fields)?,
        Data::Enum(data) => enum_body(&name, data)?,
        Data::Union(data) => {
            return Err(Error::new(
                data.union_token.span(),
                "#[derive(Generate)] does not support unions",
            ));
        }
    };
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    Ok(quote! {
        impl #impl_generics ::covcheck_rt::__private::Generate for #name #ty_generics #where_clause {
            fn generate(__covcheck_src: &mut ::covcheck_rt::__private::Source) -> Self {
                ::covcheck_rt::__private::nested(
                    __covcheck_src,
                    ::covcheck_rt::__private::label_of::<Self>(),
                    |__covcheck_src| #body,
                )
            }
        }
    })
}

/// An expression drawing a variant of the enum `name` and building it.
/// Variants are ordered so that index zero is the simplest: leaves (no
/// field mentions the type) before recursive variants, fewer fields first.
fn enum_body(name: &syn::Ident, data: &DataEnum) -> syn::Result<TokenStream> {
    if data.variants.is_empty() {
        return Err(Error::new(
            name.span(),
            "cannot generate a value of an enum without variants",
        ));
    }
    let mut variants: Vec<_> = data
        .variants
        .iter()
        .enumerate()
        .map(|(n, v)| {
            let recursive = v
                .fields
                .iter()
                .any(|f| mentions(f.ty.to_token_stream(), name));
            (recursive, if recursive { 0 } else { v.fields.len() }, n, v)
        })
        .collect();
    variants.sort_by_key(|&(recursive, fields, n, _)| (recursive, fields, n));
    let leaves = variants.iter().filter(|(recursive, ..)| !recursive).count();
    if leaves == 0 {
        return Err(Error::new(
            name.span(),
            format!(
                "every variant of `{name}` contains a `{name}`, so no value of it is finite; \
                 add a variant without one (a base case) for covcheck to generate it"
            ),
        ));
    }
    let count = variants.len();
    let arms = variants
        .iter()
        .enumerate()
        .map(|(index, (_, _, _, variant))| {
            let ident = &variant.ident;
            let construct = construct(quote!(Self::#ident), &variant.fields)?;
            Ok(quote!(#index => #construct,))
        })
        .collect::<syn::Result<Vec<_>>>()?;
    Ok(quote! {
        match __covcheck_src.draw_variant(#count, #leaves) {
            #(#arms)*
            _ => ::core::unreachable!("draw_variant returns an index below its count"),
        }
    })
}

/// An expression building `path` with generated fields.
fn construct(path: TokenStream, fields: &Fields) -> syn::Result<TokenStream> {
    let values = fields
        .iter()
        .map(|field| {
            let ty = &field.ty;
            let mut generator = None;
            for attr in &field.attrs {
                if attr.path().is_ident("generate") {
                    if generator.is_some() {
                        return Err(Error::new(
                            attr.span(),
                            "`#[generate(...)]` is given twice for this field",
                        ));
                    }
                    generator = Some(attr.parse_args::<syn::Expr>()?);
                }
            }
            Ok(match generator {
                Some(expr) => quote_spanned!(expr.span()=>
                    ::covcheck_rt::__private::Generator::generate(&(#expr), __covcheck_src)),
                None => quote_spanned!(ty.span()=>
                    <#ty as ::covcheck_rt::__private::Generate>::generate(__covcheck_src)),
            })
        })
        .collect::<syn::Result<Vec<_>>>()?;
    Ok(match fields {
        Fields::Named(named) => {
            let names = named.named.iter().map(|f| &f.ident);
            quote!(#path { #(#names: #values),* })
        }
        Fields::Unnamed(_) => quote!(#path(#(#values),*)),
        Fields::Unit => path,
    })
}

/// Whether a type's tokens mention `name` or `Self`: such a field makes its
/// variant recursive.
fn mentions(tokens: TokenStream, name: &syn::Ident) -> bool {
    tokens.into_iter().any(|tree| match tree {
        TokenTree::Ident(ident) => ident == *name || ident == "Self",
        TokenTree::Group(group) => mentions(group.stream(), name),
        _ => false,
    })
}
