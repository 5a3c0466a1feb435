//! proptest's harness: the same properties with proptest's default
//! strategies (`any::<T>()`). Cases and seed come from `PROPTEST_CASES` and
//! `PROPTEST_RNG_SEED`, which proptest reads itself.
//!
//! Failure persistence is off (`failure_persistence: None`): by default
//! proptest writes every failure's seed to a `.proptest-regressions` file
//! beside this source and replays all of them before any new case, in every
//! test of the file, so one run's failures would be handed to later runs.

use covcheck_bench_suite::probe;
use covcheck_bench_suite::targets::*;
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;

fn run(outcome: Result<(), String>, size: usize) -> Result<(), TestCaseError> {
    probe::check(|| outcome, || size).map_err(TestCaseError::fail)
}

/// `ring32`'s operations. Its `Arbitrary` is what `proptest-derive`'s
/// `#[derive(Arbitrary)]` generates for it: the variants in order, equally
/// likely, each field from its own `any`.
#[derive(Clone, Copy, Debug)]
enum Op {
    Push(u8),
    Pop,
}

impl Arbitrary for Op {
    type Parameters = ();
    type Strategy = BoxedStrategy<Op>;

    fn arbitrary_with((): ()) -> Self::Strategy {
        prop_oneof![any::<u8>().prop_map(Op::Push), Just(Op::Pop)].boxed()
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

proptest! {
    // `ProptestConfig::default()` reads the `PROPTEST_*` variables; the
    // macro applies them again on top of this config.
    #![proptest_config(ProptestConfig {
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn dut(a in any::<Vec<i64>>()) { run(dut::check_dut(&a), dut::size(&a))?; }

    #[test]
    fn dut_magic(a in any::<Vec<i64>>()) { run(dut::check_dut_magic(&a), dut::size(&a))?; }

    #[test]
    fn bst(ops in any::<Vec<(u8, u8, u8)>>()) { run(bst::check(&ops), bst::size(&ops))?; }

    #[test]
    fn rbt(inserts in any::<Vec<(u8, u8)>>()) { run(rbt::check(&inserts), rbt::size(&inserts))?; }

    #[test]
    fn puzzle(items in any::<Vec<(u8, u8)>>()) { run(puzzle::check(&items), puzzle::size(&items))?; }

    #[test]
    fn checksum(packet in any::<Vec<u8>>()) { run(checksum::check(&packet), checksum::size(&packet))?; }

    #[test]
    fn rle(segments in any::<Vec<(u8, u16)>>()) { run(rle::check(&segments), rle::size(&segments))?; }

    #[test]
    fn ring(ops in any::<Vec<(bool, u8)>>()) { run(ring::check(&ops), ring::size(&ops))?; }

    #[test]
    fn bsearch(len in any::<u64>(), target in any::<u64>()) { run(bsearch::check(len, target), 1)?; }

    #[test]
    fn float_window(x in any::<f64>(), y in any::<f64>()) { run(float_window::check(x, y), 1)?; }

    #[test]
    fn num_parse(text in any::<String>()) { run(num_parse::check(&text), num_parse::size(&text))?; }

    #[test]
    fn length_prefixed(record in any::<Vec<u8>>()) {
        run(length_prefixed::check(&record), length_prefixed::size(&record))?;
    }

    #[test]
    fn format_string(template in any::<String>()) {
        run(format_string::check(&template), format_string::size(&template))?;
    }

    #[test]
    fn long_run(data in any::<Vec<u8>>()) { run(long_run::check(&data), long_run::size(&data))?; }

    #[test]
    fn ring32(ops in any::<Vec<Op>>()) { run(ring32::check(&ops), ring32::size(&ops))?; }

    #[test]
    fn keyword(text in any::<String>()) { run(keyword::check(&text), keyword::size(&text))?; }

    #[test]
    fn adler_frame(frame in any::<Vec<u8>>()) { run(adler_frame::check(&frame), adler_frame::size(&frame))?; }

    #[test]
    fn bound5(lists in any::<[Vec<i16>; 5]>()) {
        run(shrinking::check_bound5(&lists), shrinking::size_bound5(&lists))?;
    }

    #[test]
    fn reverse(xs in any::<Vec<i32>>()) { run(shrinking::check_reverse(&xs), shrinking::size_reverse(&xs))?; }

    #[test]
    fn large_union_list(lists in any::<Vec<Vec<i32>>>()) {
        run(shrinking::check_large_union_list(&lists), shrinking::size_large_union_list(&lists))?;
    }

    #[test]
    fn difference(x in any::<i32>(), y in any::<i32>()) {
        run(shrinking::check_difference(x, y), shrinking::size_difference(x, y))?;
    }

    #[test]
    fn calculator(program in any::<Vec<(u8, i8)>>()) {
        run(shrinking::check_calculator(&program), shrinking::size_calculator(&program))?;
    }
}
