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
