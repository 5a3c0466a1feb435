//! `#[covcheck(seed = 1)]` and `#[derive(Generate)]` as users write them. Every property
//! here holds, so these tests pass by running their cases. Each has a fixed
//! RNG seed so that the suite is deterministic; `COVCHECK_SEED` overrides it.
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
