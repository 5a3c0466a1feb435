//! proptest's harness: the same properties with proptest's default
//! strategies (`any::<T>()`). Cases and seed come from `PROPTEST_CASES` and
//! `PROPTEST_RNG_SEED`, which proptest reads itself.
//!
//! Failure persistence is off (`failure_persistence: None`): by default
//! proptest writes every failure's seed to a `.proptest-regressions` file
//! beside this source and replays all of them before any new case, in every
//! test of the file, so one run's failures would be handed to later runs.

use covcheck_bench_suite::targets::*;
use covcheck_bench_suite::{probe, unwind};
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use proptest_state_machine::{ReferenceStateMachine, StateMachineTest};

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

/// `kv_store`'s model under proptest-state-machine, the same as covcheck's
/// (`bench/suite/tests/covcheck_harness.rs`): puts, gets and deletes
/// equally likely, of any `u16` key (`any::<u16>()`, proptest's default),
/// with values 0-1000. The state keeps the model's last output beside the
/// map, because `StateMachineTest::apply` sees the reference state only
/// after the transition.
struct KvReference;

#[derive(Clone, Debug, Default)]
struct KvState {
    map: kv_store::Map,
    /// What the last command returned in the model.
    output: Option<u32>,
}

impl ReferenceStateMachine for KvReference {
    type State = KvState;
    type Transition = kv_store::Op;

    fn init_state() -> BoxedStrategy<KvState> {
        Just(KvState::default()).boxed()
    }

    fn transitions(_: &KvState) -> BoxedStrategy<kv_store::Op> {
        prop_oneof![
            (any::<u16>(), 0..=1000u32).prop_map(|(key, value)| kv_store::Op::Put { key, value }),
            any::<u16>().prop_map(|key| kv_store::Op::Get { key }),
            any::<u16>().prop_map(|key| kv_store::Op::Delete { key }),
        ]
        .boxed()
    }

    fn preconditions(state: &KvState, op: &kv_store::Op) -> bool {
        kv_store::precondition(&state.map, op)
    }

    fn apply(mut state: KvState, op: &kv_store::Op) -> KvState {
        state.output = kv_store::apply(&mut state.map, op);
        state
    }
}

/// The store under test, driven by [`KvReference`]'s transitions.
struct KvTest;

impl StateMachineTest for KvTest {
    type SystemUnderTest = kv_store::KvStore;
    type Reference = KvReference;

    fn init_test(_: &KvState) -> kv_store::KvStore {
        kv_store::KvStore::new()
    }

    fn apply(mut store: kv_store::KvStore, state: &KvState, op: kv_store::Op) -> kv_store::KvStore {
        let output = kv_store::run(&mut store, &op);
        assert_eq!(
            output, state.output,
            "{op:?}: the store's result against the model's"
        );
        store
    }

    fn check_invariants(store: &kv_store::KvStore, state: &KvState) {
        if let Err(message) = kv_store::invariant(store, &state.map) {
            panic!("{message}");
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
    fn crc_chunks(stream in any::<Vec<u8>>()) { run(crc_chunks::check(&stream), crc_chunks::size(&stream))?; }

    #[test]
    fn mod_gates(a in any::<Vec<u32>>()) { run(mod_gates::check(&a), mod_gates::size(&a))?; }
    fn arith_gates(a in any::<Vec<u32>>()) { run(arith_gates::check(&a), arith_gates::size(&a))?; }

    #[test]
    fn png_palette(image in any::<Vec<u8>>()) { run(png_palette::check(&image), png_palette::size(&image))?; }

    // What `prop_state_machine!` expands `fn kv_store(sequential 1..=100 =>
    // KvTest)` to, with the probe around the run: 1 to 100 transitions (as
    // many as covcheck's default size allows; the runner needs at least
    // one), shrunk by deleting transitions and then shrinking each. The
    // sequence's panic is caught and handed to the probe as the check's
    // failure; its size is the number of transitions.
    #[test]
    fn kv_store(
        (state, transitions, seen) in KvReference::sequential_strategy(1..=100)
    ) {
        let size = kv_store::size(&transitions);
        let config = ProptestConfig::default();
        run(unwind::caught(|| KvTest::test_sequential(config, state, transitions, seen)), size)?;
    }

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
