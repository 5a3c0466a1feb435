//! The campaign's dictionary: the string, byte-string, `char` and integer
//! literals of the code a property exercises — its own package and the
//! instrumented crates that package depends on directly — written once per
//! package in libFuzzer's format (`covcheck_protocol::dictionary`) for the
//! worker's mutator.
//!
//! A parser compares its input against its keywords, delimiters and magic
//! numbers, and they are spelled in its source. Comparison tracing finds
//! them too, but only once an input gets as far as the comparison, and not
//! for `match` arms compiled into jump tables or byte-by-byte checks;
//! reading the source gives them before the first execution. The source is
//! tokenised (not parsed), so literals inside macro calls count too; doc
//! comments are prose, and a property's own `dict` is its own.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use cargo_metadata::{Metadata, Package};
use proc_macro2::{Delimiter, Group, TokenTree};

use crate::atomic::write_atomically;
use crate::error::WriteError;
use crate::instrument::InstrumentSet;

/// Tokens per package's dictionary, its own literals first.
const MAX_TOKENS: usize = 2048;
/// Tokens longer than this are messages, not keywords.
const MAX_TOKEN_LEN: usize = 32;
/// Files read per crate, so that a huge dependency cannot stall the start.
const MAX_FILES_PER_CRATE: usize = 500;

/// Where the dictionary of `package`'s properties is written.
pub fn dictionary_path(covcheck_dir: &Path, package: &str) -> PathBuf {
    covcheck_dir
        .join("dictionary")
        .join(format!("{package}.dict"))
}

/// Writes the dictionary of each of `packages` (by name, workspace members).
pub fn write_dictionaries(
    metadata: &Metadata,
    instrumented: &InstrumentSet,
    packages: &HashSet<&str>,
    covcheck_dir: &Path,
) -> Result<(), WriteError> {
    for package in metadata.workspace_packages() {
        if !packages.contains(package.name.as_str()) {
            continue;
        }
        let mut tokens = Vec::new();
        let mut seen = HashSet::new();
        for source in crates_exercised(metadata, instrumented, package) {
            for token in literals_of_crate(source) {
                if tokens.len() < MAX_TOKENS && seen.insert(token.clone()) {
                    tokens.push(token);
                }
            }
        }
        let path = dictionary_path(covcheck_dir, &package.name);
        let text = covcheck_protocol::dictionary::render(&tokens);
        write_atomically(&path, text.as_bytes())?;
    }
    Ok(())
}

/// `package` itself, then the instrumented packages it depends on directly.
fn crates_exercised<'m>(
    metadata: &'m Metadata,
    instrumented: &InstrumentSet,
    package: &'m Package,
) -> Vec<&'m Package> {
    let mut out = vec![package];
    let Some(resolve) = &metadata.resolve else {
        return out;
    };
    let Some(node) = resolve.nodes.iter().find(|n| n.id == package.id) else {
        return out;
    };
    for dep in &node.deps {
        let dep = &metadata[&dep.pkg];
        let key = (dep.name.to_string(), dep.version.to_string());
        if instrumented.packages.contains(&key) {
            out.push(dep);
        }
    }
    out
}

/// The literals of every `.rs` file under the directories of `package`'s
/// targets (`src/`, `tests/`, ...).
fn literals_of_crate(package: &Package) -> Vec<Vec<u8>> {
    let mut dirs: Vec<PathBuf> = package
        .targets
        .iter()
        .filter_map(|t| t.src_path.parent().map(|p| p.as_std_path().to_path_buf()))
        .collect();
    dirs.sort();
    // A directory inside another is read with it.
    dirs.dedup_by(|inner, outer| inner.starts_with(outer));
    let mut files = Vec::new();
    for dir in dirs {
        rust_files(&dir, &mut files);
    }
    files.truncate(MAX_FILES_PER_CRATE);
    files
        .iter()
        .filter_map(|file| std::fs::read_to_string(file).ok())
        .flat_map(|text| literals_of_source(&text))
        .collect()
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for path in entries {
        if out.len() >= MAX_FILES_PER_CRATE {
            return;
        }
        if path.is_dir() && !path.ends_with("target") {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The literals of one source file worth a dictionary entry, in order. A
/// file that does not tokenise gives none.
pub fn literals_of_source(text: &str) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    if let Ok(stream) = proc_macro2::TokenStream::from_str(text) {
        collect(stream, &mut out, false);
    }
    out
}

/// Elements past which a bracketed list is a lookup table.
const MAX_LIST_ELEMENTS: usize = 32;

/// Whether `group` is a bracketed list of more than [`MAX_LIST_ELEMENTS`]
/// elements: a lookup table (a CRC-32's 256 entries, a range table), whose
/// numbers are data, not values any input is compared with. One crate's
/// CRC table would otherwise outnumber the constants its code compares
/// against, which the mutator picks among evenly.
fn is_table(group: &Group) -> bool {
    group.delimiter() == Delimiter::Bracket
        && group
            .stream()
            .into_iter()
            .filter(|tree| matches!(tree, TokenTree::Punct(p) if p.as_char() == ','))
            .nth(MAX_LIST_ELEMENTS - 1)
            .is_some()
}

/// Collects the literals of `stream`; in a lookup table (`in_table`, see
/// [`is_table`]) integers are left out, strings kept (a table of keywords
/// is still keywords).
fn collect(stream: proc_macro2::TokenStream, out: &mut Vec<Vec<u8>>, in_table: bool) {
    // Whether the last tokens were `#` or `#!`: a bracketed group is then
    // an attribute.
    let mut after_hash = false;
    for tree in stream {
        match &tree {
            TokenTree::Group(group) if after_hash && group.delimiter() == Delimiter::Bracket => {
                match attribute(group) {
                    Attribute::Doc => {}
                    Attribute::Covcheck(args) => collect_attribute_args(args, out),
                    Attribute::Other => collect(group.stream(), out, in_table),
                }
            }
            TokenTree::Group(group) => collect(group.stream(), out, in_table || is_table(group)),
            TokenTree::Literal(literal) => {
                let literal = syn::Lit::new(literal.clone());
                let table_entry = in_table && matches!(literal, syn::Lit::Int(_));
                if let Some(token) = token_of(literal).filter(|_| !table_entry) {
                    out.push(token);
                }
            }
            _ => {}
        }
        after_hash = match &tree {
            TokenTree::Punct(p) if p.as_char() == '#' => true,
            TokenTree::Punct(p) if p.as_char() == '!' => after_hash,
            _ => false,
        };
    }
}

/// What an attribute is, as far as the dictionary cares.
enum Attribute {
    /// A doc comment (`///`, `//!`, `#[doc = "..."]`): prose, not tokens.
    Doc,
    /// `#[covcheck(...)]` (or `#[covcheck_rt::covcheck(...)]`), with its
    /// arguments.
    Covcheck(proc_macro2::TokenStream),
    Other,
}

/// The kind of the attribute whose bracketed group follows a `#`.
fn attribute(group: &Group) -> Attribute {
    let mut last_ident = None;
    for tree in group.stream() {
        match tree {
            TokenTree::Ident(ident) => last_ident = Some(ident.to_string()),
            TokenTree::Punct(p) if p.as_char() == ':' => {}
            TokenTree::Punct(p) if p.as_char() == '=' && last_ident.as_deref() == Some("doc") => {
                return Attribute::Doc;
            }
            TokenTree::Group(args)
                if args.delimiter() == Delimiter::Parenthesis
                    && last_ident.as_deref() == Some("covcheck") =>
            {
                return Attribute::Covcheck(args.stream());
            }
            _ => return Attribute::Other,
        }
    }
    Attribute::Other
}

/// The literals of a `#[covcheck(...)]` attribute's arguments, but those of
/// `dict = [...]` and `dict_file = "..."`: a property's own tokens are its
/// own, not its package's, and the file's path is no token.
fn collect_attribute_args(args: proc_macro2::TokenStream, out: &mut Vec<Vec<u8>>) {
    let mut trees = args.into_iter().peekable();
    while let Some(tree) = trees.next() {
        let dictionary = matches!(&tree, TokenTree::Ident(i) if i == "dict" || i == "dict_file");
        if dictionary && matches!(trees.peek(), Some(TokenTree::Punct(p)) if p.as_char() == '=') {
            trees.next();
            trees.next();
            continue;
        }
        collect(std::iter::once(tree).collect(), out, false);
    }
}

/// A literal's bytes, if it makes a useful token: strings and byte strings
/// of up to [`MAX_TOKEN_LEN`] bytes that are not sentences, non-ASCII
/// `char`s, and integers of two or more digits (as decimal text).
fn token_of(literal: syn::Lit) -> Option<Vec<u8>> {
    let bytes = match literal {
        syn::Lit::Str(s) => s.value().into_bytes(),
        syn::Lit::ByteStr(s) => s.value(),
        syn::Lit::CStr(s) => s.value().into_bytes(),
        syn::Lit::Char(c) => {
            let c = c.value();
            (!c.is_ascii()).then(|| c.to_string().into_bytes())?
        }
        syn::Lit::Int(i) => {
            let value: u128 = i.base10_parse().ok()?;
            (value >= 10).then(|| value.to_string().into_bytes())?
        }
        _ => return None,
    };
    let words = bytes
        .split(|&b| b == b' ')
        .filter(|w| !w.is_empty())
        .count();
    (!bytes.is_empty() && bytes.len() <= MAX_TOKEN_LEN && words <= 2).then_some(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(text: &str) -> Vec<String> {
        literals_of_source(text)
            .into_iter()
            .map(|t| String::from_utf8_lossy(&t).into_owned())
            .collect()
    }

    #[test]
    fn keywords_numbers_and_byte_strings_are_taken_messages_are_not() {
        let source = r#"
            const MAGIC: &[u8] = b"\x89PNG";
            fn parse(s: &str) -> Result<u32, String> {
                if s.starts_with("GET ") || matches!(s, "true" | "e") {
                    return Ok(4096);
                }
                let x = 7;
                Err(format!("expected a number or a keyword at {}", x))
            }
            const SNOWMAN: char = '☃';
        "#;
        assert_eq!(
            strings(source),
            ["\u{fffd}PNG", "GET ", "true", "e", "4096", "☃"],
        );
    }

    #[test]
    fn a_property_s_own_dictionary_is_not_its_package_s() {
        let source = r#"
            #[covcheck(cases = 1000, dict = ["FROBNITZ", b"\r\n"], dict_file = "fuzz/x.dict")]
            fn p(s: String) { assert_ne!(s, "plugh"); }
            #[covcheck_rt::covcheck(dict = ["XYZZY"])]
            fn q(s: String) {}
            #[cfg_attr(test, covcheck(dict = ["kept"]))]
            fn r() {}
        "#;
        assert_eq!(strings(source), ["1000", "plugh", "kept"]);
    }

    #[test]
    fn doc_comments_are_prose_not_tokens() {
        let source = r#"
            //! The crate.
            /// FNV-1a, 64-bit.
            #[doc = "more docs"]
            #[deprecated = "old api"]
            fn fnv1a() -> &'static str { "FNV" }
        "#;
        assert_eq!(strings(source), ["old api", "FNV"]);
    }

    #[test]
    fn the_numbers_of_a_lookup_table_are_left_out_its_strings_kept() {
        let table: Vec<String> = (1000..1040).map(|n| n.to_string()).collect();
        let words: Vec<String> = (0..40).map(|n| format!("\"kw{n}\"")).collect();
        let source = format!(
            "const CRC: [u32; 40] = [{}];\n\
             const WORDS: [&str; 40] = [{}];\n\
             const SMALL: [u32; 3] = [65521, 40503, 7919];\n\
             fn f(x: u32) -> bool {{ x == 12345 }}",
            table.join(", "),
            words.join(", ")
        );
        let tokens: Vec<String> = literals_of_source(&source)
            .into_iter()
            .map(|t| String::from_utf8(t).unwrap())
            .collect();
        assert!(!tokens.iter().any(|t| t.starts_with("10")), "{tokens:?}");
        assert!(tokens.contains(&"kw39".to_string()), "{tokens:?}");
        for kept in ["65521", "40503", "7919", "12345"] {
            assert!(tokens.contains(&kept.to_string()), "{kept}: {tokens:?}");
        }
    }

    #[test]
    fn a_file_that_does_not_tokenise_gives_nothing() {
        assert!(literals_of_source("fn f() { \"unterminated ").is_empty());
    }
}
