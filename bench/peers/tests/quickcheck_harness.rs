//! quickcheck's harness: the same properties with quickcheck's `Arbitrary`
//! implementations. Cases come from `BENCH_CASES` and the seed from
//! `BENCH_SEED` (quickcheck has no environment variable for a seed).

use std::fmt::Debug;

use covcheck_bench_suite::probe;
use covcheck_bench_suite::targets::*;
use quickcheck::{Arbitrary, Gen, QuickCheck, Testable};

fn run(outcome: Result<(), String>, size: usize) -> bool {
    probe::check(|| outcome, || size).is_ok()
}

fn env(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn qc<A: Arbitrary + Debug>(property: fn(A) -> bool)
where
    fn(A) -> bool: Testable,
{
    let cases = env("BENCH_CASES", 100);
    // `gen` is deprecated in favour of a `set_rng` that quickcheck 1.1 lacks.
    #[allow(deprecated)]
    QuickCheck::new()
        .r#gen(Gen::from_size_and_seed(100, env("BENCH_SEED", 0)))
        .tests(cases)
        .max_tests(cases.saturating_mul(10))
        .quickcheck(property);
}

/// `ring32`'s operations, with an `Arbitrary` written as a derive would:
/// either variant equally likely, each field from its own `Arbitrary`, and
/// shrinking within the variant.
#[derive(Clone, Copy, Debug)]
enum Op {
    Push(u8),
    Pop,
}

impl Arbitrary for Op {
    fn arbitrary(g: &mut Gen) -> Self {
        if bool::arbitrary(g) {
            Op::Push(u8::arbitrary(g))
        } else {
            Op::Pop
        }
    }

    fn shrink(&self) -> Box<dyn Iterator<Item = Self>> {
        match *self {
            Op::Push(x) => Box::new(x.shrink().map(Op::Push)),
            Op::Pop => quickcheck::empty_shrinker(),
        }
    }
}

impl From<Op> for ring32::Op {
    fn from(op: Op) -> Self {
        match op {
            Op::Push(x) => ring32::Op::Push(x),
            Op::Pop => ring32::Op::Pop,
        }
    }
}

#[test]
fn dut() {
    qc((|a: Vec<i64>| run(dut::check_dut(&a), dut::size(&a))) as fn(Vec<i64>) -> bool);
}

#[test]
fn dut_magic() {
    qc((|a: Vec<i64>| run(dut::check_dut_magic(&a), dut::size(&a))) as fn(Vec<i64>) -> bool);
}

#[test]
fn bst() {
    qc((|ops: Vec<(u8, u8, u8)>| run(bst::check(&ops), bst::size(&ops))) as fn(_) -> bool);
}

#[test]
fn rbt() {
    qc((|ins: Vec<(u8, u8)>| run(rbt::check(&ins), rbt::size(&ins))) as fn(_) -> bool);
}

#[test]
fn puzzle() {
    qc((|items: Vec<(u8, u8)>| run(puzzle::check(&items), puzzle::size(&items))) as fn(_) -> bool);
}

#[test]
fn checksum() {
    qc((|p: Vec<u8>| run(checksum::check(&p), checksum::size(&p))) as fn(_) -> bool);
}

#[test]
fn rle() {
    qc((|s: Vec<(u8, u16)>| run(rle::check(&s), rle::size(&s))) as fn(_) -> bool);
}

#[test]
fn ring() {
    qc((|ops: Vec<(bool, u8)>| run(ring::check(&ops), ring::size(&ops))) as fn(_) -> bool);
}

#[test]
fn bsearch() {
    qc((|(len, target): (u64, u64)| run(bsearch::check(len, target), 1)) as fn(_) -> bool);
}

#[test]
fn float_window() {
    qc((|(x, y): (f64, f64)| run(float_window::check(x, y), 1)) as fn(_) -> bool);
}

#[test]
fn num_parse() {
    qc((|s: String| run(num_parse::check(&s), num_parse::size(&s))) as fn(_) -> bool);
}

#[test]
fn length_prefixed() {
    qc((|r: Vec<u8>| run(length_prefixed::check(&r), length_prefixed::size(&r))) as fn(_) -> bool);
}

#[test]
fn format_string() {
    qc((|t: String| run(format_string::check(&t), format_string::size(&t))) as fn(_) -> bool);
}

#[test]
fn long_run() {
    qc((|d: Vec<u8>| run(long_run::check(&d), long_run::size(&d))) as fn(_) -> bool);
}

#[test]
fn ring32() {
    qc((|ops: Vec<Op>| run(ring32::check(&ops), ring32::size(&ops))) as fn(_) -> bool);
}

#[test]
fn keyword() {
    qc((|s: String| run(keyword::check(&s), keyword::size(&s))) as fn(_) -> bool);
}

#[test]
fn adler_frame() {
    qc((|f: Vec<u8>| run(adler_frame::check(&f), adler_frame::size(&f))) as fn(_) -> bool);
}

#[test]
fn crc_chunks() {
    qc((|s: Vec<u8>| run(crc_chunks::check(&s), crc_chunks::size(&s))) as fn(_) -> bool);
}

#[test]
fn mod_gates() {
    qc((|a: Vec<u32>| run(mod_gates::check(&a), mod_gates::size(&a))) as fn(_) -> bool);
}

#[test]
fn arith_gates() {
    qc((|a: Vec<u32>| run(arith_gates::check(&a), arith_gates::size(&a))) as fn(_) -> bool);
}

#[test]
fn png_palette() {
    qc((|i: Vec<u8>| run(png_palette::check(&i), png_palette::size(&i))) as fn(_) -> bool);
}

type Five = (Vec<i16>, Vec<i16>, Vec<i16>, Vec<i16>, Vec<i16>);

#[test]
fn bound5() {
    qc((|(a, b, c, d, e): Five| {
        let lists = [a, b, c, d, e];
        run(
            shrinking::check_bound5(&lists),
            shrinking::size_bound5(&lists),
        )
    }) as fn(Five) -> bool);
}

#[test]
fn reverse() {
    qc(
        (|xs: Vec<i32>| run(shrinking::check_reverse(&xs), shrinking::size_reverse(&xs)))
            as fn(_) -> bool,
    );
}

#[test]
fn large_union_list() {
    qc((|l: Vec<Vec<i32>>| {
        run(
            shrinking::check_large_union_list(&l),
            shrinking::size_large_union_list(&l),
        )
    }) as fn(_) -> bool);
}

#[test]
fn difference() {
    qc((|(x, y): (i32, i32)| {
        run(
            shrinking::check_difference(x, y),
            shrinking::size_difference(x, y),
        )
    }) as fn(_) -> bool);
}

#[test]
fn calculator() {
    qc((|p: Vec<(u8, i8)>| {
        run(
            shrinking::check_calculator(&p),
            shrinking::size_calculator(&p),
        )
    }) as fn(_) -> bool);
}
