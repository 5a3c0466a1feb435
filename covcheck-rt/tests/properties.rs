//! `#[covcheck(seed = 1)]` and `#[derive(Generate)]` as users write them. Every property
//! here holds, so these tests pass by running their cases. Each has a fixed
//! RNG seed so that the suite is deterministic; `COVCHECK_SEED` overrides it.
//! The exceptions, the `planted` module's, fail on purpose and are ignored:
//! one test runs each in a child process and checks its report.
#![allow(clippy::type_complexity)]

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, VecDeque};
use std::rc::Rc;
use std::sync::Arc;

use covcheck_rt::generators::{self, Generator};
use covcheck_rt::{Generate, assume, covcheck};

#[covcheck(seed = 2)]
fn addition_commutes(a: i32, b: i32) {
    assert_eq!(a.wrapping_add(b), b.wrapping_add(a));
}

#[covcheck(cases = 50, size = 5, seed = 7)]
fn options_limit_the_size(v: Vec<String>) {
    assert!(v.len() <= 5 && v.iter().all(|s| s.chars().count() <= 5));
}

#[covcheck(seed = 3)]
fn custom_generators_apply(#[generate(generators::range(10u8..20))] x: u8, mut v: Vec<u8>) {
    assert!((10..20).contains(&x));
    v.push(x);
    assert!(!v.is_empty());
}

/// A property's dictionary does not change `cargo test`, which only checks
/// that the file reads (the campaign's mutator writes the tokens).
#[covcheck(seed = 6, dict = ["GET ", b"\r\n\xff"], dict_file = "tests/http.dict")]
fn dictionaries_are_accepted(request: Vec<u8>) {
    let _ = request.windows(4).any(|w| w == b"GET ");
}

#[covcheck(seed = 4)]
fn results_can_be_returned(text: String) -> Result<(), std::fmt::Error> {
    use std::fmt::Write;
    let mut out = String::new();
    write!(out, "{text}")?;
    assert_eq!(out, text);
    Ok(())
}

#[covcheck(seed = 5)]
fn every_std_type_generates(
    a: (u8, u16, u32, u64, u128, usize),
    b: (i8, i16, i32, i64, i128, isize),
    c: (bool, char, f32, f64, String, ()),
    d: (
        Option<u8>,
        Result<u8, bool>,
        Box<u8>,
        Rc<u8>,
        Arc<u8>,
        [u8; 4],
    ),
    e: (
        VecDeque<u8>,
        HashMap<u8, u8>,
        BTreeMap<u8, u8>,
        HashSet<u8>,
        BTreeSet<u8>,
    ),
    f: (u8, u8, u8, u8, u8, u8, u8, u8, u8, u8, u8, u8),
) {
    let _ = (a, b, c, d, e, f);
}

#[derive(Debug, Clone, PartialEq, Generate)]
struct Point<T> {
    x: T,
    y: T,
    #[generate(generators::sampled_from(vec!["red", "green"]))]
    color: &'static str,
}

#[derive(Debug, Clone, Generate)]
enum Shape {
    Dot,
    Line(Point<i8>, Point<i8>),
    Group { members: Vec<Shape> },
}

fn count(shape: &Shape) -> usize {
    match shape {
        Shape::Dot => 1,
        Shape::Line(from, to) => usize::from(from != to) + 1,
        Shape::Group { members } => members.iter().map(count).sum(),
    }
}

#[covcheck(seed = 6)]
fn derived_types_generate(p: Point<u8>, shape: Shape) {
    assert!(p.color == "red" || p.color == "green");
    let _ = count(&shape);
}

#[derive(Debug, Generate)]
struct Unit;

#[derive(Debug, Generate)]
struct Pair(u8, Unit);

#[covcheck(seed = 7)]
fn unit_and_tuple_structs_generate(pair: Pair) {
    let Pair(byte, Unit) = pair;
    let _ = byte.count_ones();
}

#[covcheck(seed = 8)]
fn assume_rejects_cases(x: u8) {
    assume(x.is_multiple_of(2));
    assert!(x.is_multiple_of(2));
}

#[covcheck(seed = 9)]
fn combinators_compose(
    #[generate(generators::range(0usize..5).flat_map(|n| generators::vec(generators::any::<u8>(), n..=n)))]
    exact: Vec<u8>,
    #[generate(covcheck_rt::one_of![generators::just(1u8), generators::range(100u8..=101)])]
    pick: u8,
    #[generate(generators::any::<u32>().map(|x| x | 1))] odd: u32,
    #[generate(generators::any::<u8>().filter(|x| *x != 3))] not_three: u8,
    #[generate(generators::float_range(1.0, 2.0))] unit: f64,
) {
    assert!(exact.len() < 5);
    assert!(pick == 1 || pick == 100 || pick == 101);
    assert_eq!(odd % 2, 1);
    assert_ne!(not_three, 3);
    assert!((1.0..=2.0).contains(&unit));
}

mod nested {
    use covcheck_rt::covcheck;

    #[covcheck(seed = 10)]
    #[ignore = "shows that #[ignore] is kept"]
    fn ignored_properties_stay_ignored(x: u8) {
        panic!("an ignored property must not run: {x}");
    }
}

/// `&[u8]`, `&str` and any other `&T` are generated as their owned forms
/// (`Vec<u8>`, `String`, `T`) and lent to the property for the call.
#[covcheck(seed = 11)]
fn borrowed_arguments_are_lent(data: &[u8], text: &str, pair: &(u8, bool), words: &[String]) {
    assert_eq!(data.to_vec().len(), data.len());
    assert_eq!(text.chars().collect::<String>(), text);
    let _ = (pair.0, pair.1, words.iter().map(String::len).sum::<usize>());
}

/// A fuzz target's usual shape: the slice is reassigned as it is consumed.
#[covcheck(seed = 12)]
fn a_borrowed_argument_can_be_mut(mut data: &[u8]) {
    let len = data.len();
    let mut count = 0;
    while let [_, rest @ ..] = data {
        data = rest;
        count += 1;
    }
    assert_eq!(count, len);
}

/// `#[generate(..)]` on a `&T` argument takes any generator whose values
/// lend a `&T` (`Borrow<T>`): of `Vec<u8>` for `&[u8]`, of `String` or of
/// `&'static str` for `&str`. A named lifetime takes the generator's values
/// as they are.
#[covcheck(seed = 13)]
fn a_borrowed_argument_takes_a_generator_of_its_owned_form(
    #[generate(generators::vec(generators::range(b'a'..=b'z'), 1..=8))] word: &[u8],
) -> Result<(), std::str::Utf8Error> {
    assert!((1..=8).contains(&word.len()));
    assert!(
        std::str::from_utf8(word)?
            .chars()
            .all(|c| c.is_ascii_lowercase())
    );
    Ok(())
}

#[covcheck(seed = 16)]
fn a_borrowed_str_takes_a_generator_of_strings_or_of_literals(
    #[generate(generators::sampled_from(vec!["GET", "POST"]))] method: &str,
    #[generate(generators::sampled_from(vec!["a", "b"]))] letter: &'static str,
    #[generate(generators::any::<String>().map(|s| s.to_uppercase()))] upper: &str,
) {
    assert!(method == "GET" || method == "POST");
    assert!(letter == "a" || letter == "b");
    assert_eq!(upper, upper.to_uppercase());
}

async fn sum_of(data: &[u8]) -> u32 {
    data.iter().map(|&b| u32::from(b)).sum()
}

/// An `async` property runs to completion on covcheck's executor, with
/// borrowed arguments and `.await`s inside.
#[covcheck(seed = 17)]
async fn async_properties_run_to_completion(data: &[u8], extra: u8) {
    let sum = sum_of(data).await;
    assert!(sum <= 255 * data.len() as u32);
    let more = async { u32::from(extra) }.await;
    assert_eq!(sum_of(&[extra]).await, more);
}

/// Properties that fail on purpose. `#[ignore]`d: only
/// `planted_bugs_in_borrowed_arguments_are_found_and_shrunk` runs them, each
/// in a child process of this test binary with `COVCHECK_SEEDS=off`, so
/// that no seed is written into the source tree.
mod planted {
    use covcheck_rt::covcheck;

    #[covcheck(seed = 14)]
    #[ignore = "fails on purpose: run by planted_bugs_in_borrowed_arguments_are_found_and_shrunk"]
    fn two_high_bytes(data: &[u8]) {
        let high = data.iter().filter(|&&b| b > 200).count();
        assert!(high < 2, "{high} bytes above 200");
    }

    #[covcheck(seed = 15)]
    #[ignore = "fails on purpose: run by planted_bugs_in_borrowed_arguments_are_found_and_shrunk"]
    fn a_digit_after_a_letter(text: &str) {
        let chars: Vec<char> = text.chars().collect();
        assert!(
            !chars
                .windows(2)
                .any(|w| w[0].is_ascii_alphabetic() && w[1].is_ascii_digit()),
            "a digit after a letter"
        );
    }
    #[covcheck(seed = 18)]
    #[ignore = "fails on purpose: run by planted_bugs_in_borrowed_arguments_are_found_and_shrunk"]
    async fn an_async_bug(x: u32) {
        let y = async { x }.await;
        assert!(y < 1000, "{y} is too large");
    }
}

/// Runs the ignored property `planted::<name>` alone in a child process of
/// this test binary (no saved seeds, none written, no overrides from the
/// environment); returns its output, after checking that it failed.
fn run_planted(name: &str) -> String {
    let output = std::process::Command::new(std::env::current_exe().unwrap())
        .args([&format!("planted::{name}"), "--exact", "--ignored"])
        .env("COVCHECK_SEEDS", "off")
        .env_remove("COVCHECK_SEED")
        .env_remove("COVCHECK_CASES")
        .env_remove("COVCHECK_SIZE")
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(!output.status.success(), "{name} fails:\n{text}");
    text
}

#[test]
fn planted_bugs_in_borrowed_arguments_are_found_and_shrunk() {
    let bytes = run_planted("two_high_bytes");
    assert!(bytes.contains("2 bytes above 200"), "{bytes}");
    assert!(bytes.contains("data = [201, 201]"), "{bytes}");

    let text = run_planted("a_digit_after_a_letter");
    assert!(text.contains("a digit after a letter"), "{text}");
    assert!(text.contains("text = \"a0\""), "{text}");

    let text = run_planted("an_async_bug");
    assert!(text.contains("is too large"), "{text}");
    assert!(
        text.contains("x = 1000"),
        "an async property shrinks: {text}"
    );
}
