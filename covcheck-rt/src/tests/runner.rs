//! Behaviour of a burst of random cases that users rely on: reproducible from
//! a printed seed, a clear verdict when generation rejects too much, and a
//! shrinker that stops at its budget with the best value so far.

use crate::config::Config;
use crate::generators::{self, Generator};
use crate::runner::{BurstOutcome, Runner};
use crate::shrink::ShrinkBudget;
use crate::source::render_arg;
use crate::{Generate, Source};

#[test]
fn the_same_rng_seed_finds_the_same_case() {
    let property = |src: &mut Source| {
        let v = Vec::<u16>::generate(src);
        assert!(v.iter().all(|&x| x != 7));
        Ok(())
    };
    let runner = Runner::new(
        &property,
        Config {
            cases: 100_000,
            ..Config::default()
        },
    );
    let first = |seed| match runner.burst(seed) {
        BurstOutcome::Failed { case, case_number } => (case.indices(), case_number),
        other => panic!("expected a failure, got {other:?}"),
    };
    assert_eq!(first(42), first(42));
    assert_ne!(first(42), first(43));
}

#[test]
fn a_filter_that_rejects_everything_is_reported_not_looped_on() {
    let impossible = generators::any::<u8>().filter(|x| *x > 255 - 1 && *x < 255);
    let property = |src: &mut Source| {
        impossible.generate(src);
        Ok(())
    };
    let runner = Runner::new(&property, Config::default());
    match runner.burst(1) {
        BurstOutcome::TooManyRejected {
            passed,
            rejected,
            last_reason,
        } => {
            assert_eq!(passed, 0);
            assert!(rejected >= 100);
            assert!(
                last_reason.contains("closure"),
                "names the filter: {last_reason}"
            );
        }
        other => panic!("expected TooManyRejected, got {other:?}"),
    }
}

#[test]
fn shrinking_stops_at_its_budget_and_keeps_the_best_so_far() {
    let property = |src: &mut Source| {
        let v = Vec::<u64>::generate(src);
        render_arg(src, "v", &v);
        assert!(v.len() < 20);
        Ok(())
    };
    let budget = ShrinkBudget {
        max_runs: 5,
        ..ShrinkBudget::default()
    };
    let runner = Runner::new(
        &property,
        Config {
            shrink: budget,
            ..Config::default()
        },
    );
    let shrunk = runner.find_minimal_failure(3).unwrap();
    assert_eq!(shrunk.runs, 5);
    let note = shrunk.stopped_early.expect("reports that it stopped early");
    assert!(note.contains("smallest found so far"), "{note}");
    assert!(
        shrunk.case.failure().is_some(),
        "what it reports still fails"
    );
}

#[test]
fn heuristics_never_panic_on_any_integer_width() {
    // Powers of two up to 2^127 with a random sign once overflowed for i128.
    let property = |src: &mut Source| {
        let _ = <(i128, u128, i64, u64, i8, u8, isize, usize)>::generate(src);
        Ok(())
    };
    let runner = Runner::new(
        &property,
        Config {
            cases: 20_000,
            ..Config::default()
        },
    );
    assert!(matches!(
        runner.burst(0x78d0eecd640c1388),
        BurstOutcome::Passed
    ));
}
