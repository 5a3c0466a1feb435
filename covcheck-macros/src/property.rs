//! `#[covcheck]`: expands a property function into a `#[test]` that hands a
//! non-generic closure to `covcheck_rt::__private::run_test`.
//!
//! The original function is kept, renamed, inside the test, so its body,
//! `return`s and `?`s work unchanged; the closure generates each argument
//! (with its `Generate` impl, or the generator given by `#[generate(expr)]`),
//! records their `Debug` renderings when asked, and calls it.
//!
//! An argument of a shared reference type `&T` is generated as an owned
//! value, which the call lends (`Borrow<T>`): `&str` as a `String`, `&[E]`
//! as a `Vec<E>`, any other `&T` as a `T` ([`lending`]); with
//! `#[generate(g)]`, as whatever `g` makes, so `&[u8]` takes a generator of
//! `Vec<u8>` and `&str` one of `String` or of `&'static str`. The owned
//! value is what is rendered, so a failure prints as it would for it.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::parse::Parser;
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{Error, FnArg, ItemFn, Meta, Pat, ReturnType, Token, Type};

/// Attribute arguments, checked at compile time.
#[derive(Default)]
struct Options {
    cases: Option<TokenStream>,
    size: Option<TokenStream>,
    seed: Option<TokenStream>,
    depth: Option<TokenStream>,
    /// `dict = ["GET ", b"\r\n"]`: each token as a byte string.
    dict: Option<Vec<syn::LitByteStr>>,
    /// `dict_file = "fuzz/http.dict"`.
    dict_file: Option<syn::LitStr>,
    /// `perf`: campaigns of this property run in performance mode.
    perf: bool,
    /// `max_cost = 50_000`: the most edges one execution may run.
    max_cost: Option<TokenStream>,
}

const OPTIONS: &str = "`cases`, `size`, `seed`, `depth`, `dict`, `dict_file`, `perf` or `max_cost`";

fn parse_options(args: TokenStream) -> syn::Result<Options> {
    let mut options = Options::default();
    let metas = Punctuated::<Meta, Token![,]>::parse_terminated.parse2(args)?;
    for meta in metas {
        if meta.path().is_ident("perf") {
            if !matches!(meta, Meta::Path(_)) {
                return Err(Error::new(
                    meta.span(),
                    "`perf` takes no value: `#[covcheck(perf)]`",
                ));
            }
            if std::mem::replace(&mut options.perf, true) {
                return Err(Error::new(meta.span(), "`perf` is given twice"));
            }
            continue;
        }
        let Meta::NameValue(pair) = &meta else {
            return Err(Error::new(
                meta.span(),
                "expected `name = value`, e.g. `#[covcheck(cases = 1000)]`",
            ));
        };
        let name = pair
            .path
            .get_ident()
            .map(ToString::to_string)
            .unwrap_or_default();
        let value = &pair.value;
        let given = match name.as_str() {
            "cases" => options.cases.replace(quote!(#value)).is_some(),
            "size" => options.size.replace(quote!(#value)).is_some(),
            "seed" => options.seed.replace(quote!(#value)).is_some(),
            "depth" => options.depth.replace(quote!(#value)).is_some(),
            "dict" => options.dict.replace(dict_tokens(value)?).is_some(),
            "dict_file" => options.dict_file.replace(dict_file(value)?).is_some(),
            "max_cost" => options.max_cost.replace(quote!(#value)).is_some(),
            _ => {
                return Err(Error::new(
                    pair.path.span(),
                    format!("unknown covcheck option; expected {OPTIONS}"),
                ));
            }
        };
        if given {
            return Err(Error::new(
                pair.path.span(),
                format!("`{name}` is given twice"),
            ));
        }
    }
    Ok(options)
}

/// The tokens of `dict = [...]`: string or byte-string literals, none empty.
fn dict_tokens(value: &syn::Expr) -> syn::Result<Vec<syn::LitByteStr>> {
    let syn::Expr::Array(array) = value else {
        return Err(Error::new_spanned(
            value,
            "`dict` takes an array of string or byte-string literals, e.g. \
             `dict = [\"GET \", b\"\\r\\n\"]`; for a dictionary file use `dict_file = \"fuzz/x.dict\"`",
        ));
    };
    if array.elems.is_empty() {
        return Err(Error::new_spanned(
            array,
            "`dict = []` gives no tokens; add some (`dict = [\"GET \"]`) or remove it",
        ));
    }
    let mut tokens = Vec::new();
    for element in &array.elems {
        let bytes = match element {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s),
                ..
            }) => s.value().into_bytes(),
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::ByteStr(s),
                ..
            }) => s.value(),
            other => {
                return Err(Error::new_spanned(
                    other,
                    "each `dict` token must be a string or byte-string literal (`\"GET \"`, \
                     `b\"\\x00\\xff\"`); for tokens made in code, write them to a file and \
                     use `dict_file = \"fuzz/x.dict\"`",
                ));
            }
        };
        if bytes.is_empty() {
            return Err(Error::new_spanned(
                element,
                "an empty `dict` token writes nothing; remove it",
            ));
        }
        tokens.push(syn::LitByteStr::new(&bytes, element.span()));
    }
    Ok(tokens)
}

/// The path of `dict_file = "..."`: a non-empty string literal.
fn dict_file(value: &syn::Expr) -> syn::Result<syn::LitStr> {
    match value {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Str(path),
            ..
        }) if !path.value().is_empty() => Ok(path.clone()),
        other => Err(Error::new_spanned(
            other,
            "`dict_file` takes the path of a libFuzzer dictionary as a string literal, relative \
             to the crate root (where Cargo.toml is), e.g. `dict_file = \"fuzz/http.dict\"`",
        )),
    }
}

/// One property argument.
struct Arg {
    name: syn::Ident,
    mutable: bool,
    /// The argument's type as written.
    ty: Type,
    /// For a `&T` argument, lent from an owned value: `T` and the owned
    /// type generated when no generator is given ([`lending`]).
    lent: Option<Lent>,
    generator: Option<syn::Expr>,
}

pub fn expand(args: TokenStream, item: TokenStream) -> syn::Result<TokenStream> {
    let options = parse_options(args)?;
    let mut function: ItemFn = syn::parse2(item)?;
    check_signature(&function)?;
    let test_attrs = test_attributes(&function)?;
    let args = collect_args(&mut function)?;

    let name = function.sig.ident.clone();
    let vis = function.vis.clone();
    let body_name = format_ident!("__covcheck_property_{}", name);
    function.sig.ident = body_name.clone();
    function.attrs.clear();
    function.vis = syn::Visibility::Inherited;

    let info = info_function(&name, &options);
    let asyncness = function.sig.asyncness.is_some();
    let closure = property_closure(&args, (&body_name, asyncness), &function.sig.output);
    Ok(quote! {
        #(#test_attrs)*
        #[test]
        #vis fn #name() {
            #[allow(clippy::needless_pass_by_value)]
            #function

            #info

            // Registers the property before `main`, so that `cargo covcheck`
            // can ask the built test binary which properties it holds
            // (`COVCHECK_LIST=1 <binary> --list`) without parsing source.
            #[used]
            #[cfg_attr(any(target_os = "linux", target_os = "android", target_os = "freebsd"), unsafe(link_section = ".init_array"))]
            #[cfg_attr(target_vendor = "apple", unsafe(link_section = "__DATA,__mod_init_func"))]
            static __COVCHECK_REGISTER: extern "C" fn() = {
                extern "C" fn __covcheck_register() {
                    ::covcheck_rt::__private::register(__covcheck_info);
                }
                __covcheck_register
            };

            #closure
            ::covcheck_rt::__private::run_test(&__covcheck_info(), &__covcheck_closure);
        }
    })
}

/// The attributes kept on the generated test (`#[ignore]`, `#[cfg]`, docs...);
/// `#[should_panic]` and `#[test]` are errors.
fn test_attributes(function: &ItemFn) -> syn::Result<Vec<syn::Attribute>> {
    let mut test_attrs = Vec::new();
    for attr in &function.attrs {
        if attr.path().is_ident("should_panic") {
            return Err(Error::new(
                attr.span(),
                "#[should_panic] cannot be used with #[covcheck]: a property must hold for every input, and \
                 its failures are shrunk and reported. To check that code panics, assert it inside the \
                 property with `std::panic::catch_unwind`",
            ));
        }
        if attr.path().is_ident("test") {
            return Err(Error::new(
                attr.span(),
                "#[covcheck] already makes this function a test; remove #[test]",
            ));
        }
        test_attrs.push(attr.clone());
    }
    Ok(test_attrs)
}

/// `fn __covcheck_info()`: what the runtime knows about the property.
fn info_function(name: &syn::Ident, options: &Options) -> TokenStream {
    let option = |value: &Option<TokenStream>| match value {
        Some(v) => quote!(::core::option::Option::Some(#v)),
        None => quote!(::core::option::Option::None),
    };
    let (cases, size, seed, depth, max_cost) = (
        option(&options.cases),
        option(&options.size),
        option(&options.seed),
        option(&options.depth),
        option(&options.max_cost),
    );
    let perf = options.perf;
    let dict = options.dict.iter().flatten();
    let dict_file = match &options.dict_file {
        Some(path) => quote!(::core::option::Option::Some(#path)),
        None => quote!(::core::option::Option::None),
    };
    let name_text = name.to_string();
    quote! {
        fn __covcheck_info() -> ::covcheck_rt::__private::PropertyInfo {
            ::covcheck_rt::__private::PropertyInfo {
                name: #name_text,
                module_path: ::core::module_path!(),
                crate_root: ::core::env!("CARGO_MANIFEST_DIR"),
                package: ::core::env!("CARGO_PKG_NAME"),
                target: ::covcheck_rt::__private::Target::detect(
                    ::core::option_env!("CARGO_TARGET_TMPDIR"),
                    ::core::option_env!("CARGO_BIN_NAME"),
                    ::core::env!("CARGO_CRATE_NAME"),
                ),
                attributes: ::covcheck_rt::__private::Attributes {
                    cases: #cases,
                    size: #size,
                    seed: #seed,
                    depth: #depth,
                    dict: &[#(#dict),*],
                    dict_file: #dict_file,
                    perf: #perf,
                    max_cost: #max_cost,
                },
            }
        }
    }
}

/// The generators given with `#[generate(...)]`, built once, then
/// `let __covcheck_closure`: the non-generic closure the runtime runs for
/// each case. It generates every argument, records their renderings when
/// asked, stops there when only the arguments are wanted, and calls the
/// body (`body_name`; an `async` one is run to completion on covcheck's
/// current-thread executor), turning a returned `Err` into its `Debug`
/// text.
fn property_closure(
    args: &[Arg],
    (body_name, asyncness): (&syn::Ident, bool),
    output: &ReturnType,
) -> TokenStream {
    let generators = args.iter().enumerate().filter_map(|(n, arg)| {
        let expr = arg.generator.as_ref()?;
        let var = format_ident!("__covcheck_generator_{}", n);
        Some(quote_spanned!(expr.span()=> let #var = #expr;))
    });
    let draws = args.iter().enumerate().map(|(n, arg)| {
        let (ident, ty) = (&arg.name, &arg.ty);
        // A lent value is only borrowed here: `mut` is the body's own.
        let binding = if arg.mutable && arg.lent.is_none() {
            quote!(mut #ident)
        } else {
            quote!(#ident)
        };
        match (&arg.generator, &arg.lent) {
            (Some(expr), None) => {
                let var = format_ident!("__covcheck_generator_{}", n);
                quote_spanned!(expr.span()=>
                    let #binding: #ty = ::covcheck_rt::__private::Generator::generate(&#var, __covcheck_src);)
            }
            // The generator's value, whatever it is, is lent if it can be.
            (Some(expr), Some(_)) => {
                let var = format_ident!("__covcheck_generator_{}", n);
                quote_spanned!(expr.span()=>
                    let #binding = ::covcheck_rt::__private::Generator::generate(&#var, __covcheck_src);)
            }
            (None, None) => quote_spanned!(ty.span()=>
                let #binding: #ty = <#ty as ::covcheck_rt::__private::Generate>::generate(__covcheck_src);),
            (None, Some(Lent { owned, .. })) => quote_spanned!(ty.span()=>
                let #binding: #owned = <#owned as ::covcheck_rt::__private::Generate>::generate(__covcheck_src);),
        }
    });
    let renders = args.iter().map(|arg| {
        let ident = &arg.name;
        let text = ident.to_string();
        quote_spanned!(arg.ty.span()=> ::covcheck_rt::__private::render_arg(__covcheck_src, #text, &#ident);)
    });
    let call_args = args.iter().map(|arg| {
        let ident = &arg.name;
        // A generator whose value cannot be lent is the error's place.
        let span = arg
            .generator
            .as_ref()
            .map_or_else(|| arg.ty.span(), Spanned::span);
        match &arg.lent {
            Some(Lent { referent, .. }) => quote_spanned!(span=>
                <_ as ::covcheck_rt::__private::Lend<#referent>>::lend(&#ident)),
            None => quote!(#ident),
        }
    });
    let invoke = if asyncness {
        quote!(::covcheck_rt::__private::block_on(#body_name(#(#call_args),*)))
    } else {
        quote!(#body_name(#(#call_args),*))
    };
    let call = match output {
        ReturnType::Type(..) => quote! {
            match #invoke {
                ::core::result::Result::Ok(()) => ::core::result::Result::Ok(()),
                ::core::result::Result::Err(error) => ::core::result::Result::Err(::std::format!("Err({:?})", error)),
            }
        },
        ReturnType::Default => quote! {
            #invoke;
            ::core::result::Result::Ok(())
        },
    };
    quote! {
        #(#generators)*
        let __covcheck_closure = |__covcheck_src: &mut ::covcheck_rt::__private::Source|
            -> ::core::result::Result<(), ::std::string::String> {
            #(#draws)*
            if ::covcheck_rt::__private::is_rendering(__covcheck_src) {
                #(#renders)*
            }
            if ::covcheck_rt::__private::is_generate_only(__covcheck_src) {
                return ::core::result::Result::Ok(());
            }
            ::covcheck_rt::__private::begin_body(__covcheck_src);
            #call
        };
    }
}

fn check_signature(function: &ItemFn) -> syn::Result<()> {
    let sig = &function.sig;
    if let Some(token) = &sig.constness {
        return Err(Error::new(
            token.span(),
            "a #[covcheck] property cannot be `const`",
        ));
    }
    if let Some(token) = &sig.unsafety {
        return Err(Error::new(
            token.span(),
            "a #[covcheck] property cannot be `unsafe`; use an `unsafe` block inside",
        ));
    }
    if let Some(abi) = &sig.abi {
        return Err(Error::new(
            abi.span(),
            "a #[covcheck] property cannot have an `extern` ABI",
        ));
    }
    if let Some(variadic) = &sig.variadic {
        return Err(Error::new(
            variadic.span(),
            "a #[covcheck] property cannot be variadic",
        ));
    }
    if let Some(lifetime) = sig.generics.lifetimes().next()
        && sig.generics.type_params().next().is_none()
        && sig.generics.const_params().next().is_none()
    {
        return Err(Error::new(
            lifetime.span(),
            "a #[covcheck] property takes no lifetime parameters: covcheck generates an owned value \
             for each argument and lends it for one call. Write `data: &[u8]` or `s: &str`, \
             without a lifetime",
        ));
    }
    if !sig.generics.params.is_empty() || sig.generics.where_clause.is_some() {
        let span = if sig.generics.params.is_empty() {
            sig.generics.where_clause.span()
        } else {
            sig.generics.params.span()
        };
        return Err(Error::new(
            span,
            "a #[covcheck] property cannot be generic: covcheck must know each argument's concrete type \
             to generate it. Write one property per type, each calling a generic helper",
        ));
    }
    if let ReturnType::Type(_, ty) = &sig.output
        && !is_unit(ty)
        && !is_result(ty)
    {
        return Err(Error::new(
            ty.span(),
            "a #[covcheck] property must return `()` or `Result<(), E>` with `E: Debug`; \
             assert on the value instead of returning it",
        ));
    }
    Ok(())
}

fn is_unit(ty: &Type) -> bool {
    matches!(ty, Type::Tuple(t) if t.elems.is_empty())
}

fn is_result(ty: &Type) -> bool {
    matches!(ty, Type::Path(p) if p.path.segments.last().is_some_and(|s| s.ident == "Result"))
}

fn collect_args(function: &mut ItemFn) -> syn::Result<Vec<Arg>> {
    let mut args = Vec::new();
    for input in &mut function.sig.inputs {
        let typed = match input {
            FnArg::Receiver(receiver) => {
                return Err(Error::new(
                    receiver.span(),
                    "a #[covcheck] property cannot take `self`: it must be a free function whose arguments \
                     covcheck generates. Generate the receiver as an argument instead",
                ));
            }
            FnArg::Typed(typed) => typed,
        };
        let mut generator = None;
        let mut kept = Vec::new();
        for attr in typed.attrs.drain(..) {
            if attr.path().is_ident("generate") {
                if generator.is_some() {
                    return Err(Error::new(
                        attr.span(),
                        "`#[generate(...)]` is given twice for this argument",
                    ));
                }
                generator = Some(attr.parse_args::<syn::Expr>()?);
            } else {
                kept.push(attr);
            }
        }
        if let Some(attr) = kept.first() {
            return Err(Error::new(
                attr.span(),
                "unsupported attribute on a property argument; only `#[generate(<generator>)]` is allowed",
            ));
        }
        let (name, mutable) = match &*typed.pat {
            Pat::Ident(ident) if ident.by_ref.is_none() && ident.subpat.is_none() => {
                (ident.ident.clone(), ident.mutability.is_some())
            }
            other => {
                return Err(Error::new(
                    other.span(),
                    "each #[covcheck] argument needs a plain name (`x: T`), used to report its value; \
                     destructure it inside the function body instead",
                ));
            }
        };
        let lent = lending(&typed.ty, generator.is_some())?;
        args.push(Arg {
            name,
            mutable,
            ty: (*typed.ty).clone(),
            lent,
            generator,
        });
    }
    if args.is_empty() {
        return Err(Error::new(
            function.sig.ident.span(),
            "a #[covcheck] property needs at least one argument to generate; use #[test] for a test without inputs",
        ));
    }
    Ok(args)
}

/// How a `&T` argument is lent: from a value that implements `Borrow<T>`,
/// through `covcheck_rt::__private::Lend`, whose error says what a
/// generator of a `&T` argument must make.
struct Lent {
    /// `T`.
    referent: Type,
    /// What is generated without `#[generate(..)]`: `String` for `&str`,
    /// `Vec<E>` for `&[E]`, `T` itself for any other `T` (which must then
    /// be `Sized`). Decided on the tokens as written, so an alias of `str`
    /// or of a slice is not recognised.
    owned: Type,
}

/// For an argument of type `&T`, how it is lent; `None` for a type that is
/// not a reference, and for a reference with a named lifetime that has a
/// generator (`#[generate(sampled_from(..))] method: &'static str`), which
/// gets the generator's value as before.
///
/// A `&mut T` is an error (the property would change a value covcheck
/// renders and replays), and so is a named lifetime without a generator:
/// a generated value lives for one call, which `&T` and `&'_ T` say.
fn lending(ty: &Type, has_generator: bool) -> syn::Result<Option<Lent>> {
    let reference = match ty {
        Type::Group(group) => return lending(&group.elem, has_generator),
        Type::Paren(paren) => return lending(&paren.elem, has_generator),
        Type::Reference(reference) => reference,
        _ => return Ok(None),
    };
    if reference.mutability.is_some() {
        return Err(Error::new_spanned(
            reference,
            "a #[covcheck] argument cannot be `&mut`: covcheck generates each argument afresh and \
             reports the value it generated. Take the value itself (`mut x: T`) and borrow it \
             mutably inside the function",
        ));
    }
    if let Some(lifetime) = &reference.lifetime
        && lifetime.ident != "_"
    {
        if has_generator {
            return Ok(None);
        }
        return Err(Error::new(
            lifetime.span(),
            "a #[covcheck] argument's reference takes no named lifetime: covcheck generates an \
             owned value and lends it to the property for one call. Write `&[u8]` or `&str`, \
             without the lifetime",
        ));
    }
    let referent = (*reference.elem).clone();
    let owned = match &referent {
        Type::Slice(slice) => {
            let item = &slice.elem;
            syn::parse_quote_spanned!(ty.span()=> ::std::vec::Vec<#item>)
        }
        Type::Path(path) if path.qself.is_none() && path.path.is_ident("str") => {
            syn::parse_quote_spanned!(ty.span()=> ::std::string::String)
        }
        other => other.clone(),
    };
    Ok(Some(Lent { referent, owned }))
}
