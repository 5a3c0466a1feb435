//! Tests of the bench's scoring and of its reading of the probe: how runs
//! that found nothing count, which medians can rank best, how they show.

use std::time::Duration;

use super::catalog;
use super::plan::{TOOLS, runs};
use super::probe::{Outcome, parse_probe};
use super::score::{ratios, stats};
use super::table::{human_micros, show};
use crate::stats::Median;

const BUDGET: Duration = Duration::from_secs(10);

fn found(micros: u64, execs: u64, size: u64) -> Outcome {
    Outcome {
        found: true,
        execs: Some(execs),
        micros: Some(micros),
        size: Some(size),
        budget_execs: None,
    }
}

fn missed(budget_execs: u64) -> Outcome {
    Outcome {
        budget_execs: Some(budget_execs),
        ..Outcome::default()
    }
}

fn exact(value: f64) -> Option<Median> {
    Some(Median {
        value,
        lower_bound: false,
    })
}

fn at_least(value: f64) -> Option<Median> {
    Some(Median {
        value,
        lower_bound: true,
    })
}

#[test]
fn runs_that_all_found_give_the_plain_median() {
    let s = stats(&[found(30, 3, 7), found(10, 1, 5), found(20, 2, 9)], BUDGET);
    assert_eq!(s.time, exact(20.0));
    assert_eq!(s.execs, exact(2.0));
    assert_eq!(s.size, exact(7.0));
    let even = stats(&[found(10, 1, 5), found(20, 2, 9)], BUDGET);
    assert_eq!(even.time, exact(15.0));
}

#[test]
fn a_run_that_found_nothing_counts_as_the_budget() {
    // Two of three found: the miss sorts above both, so the median is
    // the slower find, and it is exact.
    let s = stats(&[found(10, 1, 5), missed(900), found(40, 4, 6)], BUDGET);
    assert_eq!(s.time, exact(40.0));
    assert_eq!(s.execs, exact(4.0));
    assert_eq!(s.size, exact(6.0));
    // One of three: the median is a miss, so it is the budget, a lower bound.
    let s = stats(&[missed(900), found(10, 1, 5), missed(800)], BUDGET);
    assert_eq!(s.time, at_least(10e6));
    assert_eq!(s.execs, at_least(800.0));
    assert_eq!(s.size.map(|m| m.value), Some(f64::INFINITY));
    // An even count averages a find with the budget: still a lower bound.
    let s = stats(&[found(0, 1, 5), missed(9)], BUDGET);
    assert_eq!(s.time, at_least(5e6));
    // Nothing found: the budget.
    assert_eq!(stats(&[missed(5)], BUDGET).time, at_least(10e6));
}

#[test]
fn a_miss_below_the_middle_makes_the_median_a_lower_bound() {
    // A miss that made fewer executions in its budget than the finds
    // needed sorts low; its true count is unknown, so the median is not
    // exact.
    let s = stats(&[missed(1), found(10, 50, 5), found(20, 60, 6)], BUDGET);
    assert_eq!(s.execs, at_least(50.0));
    assert_eq!(s.time, exact(20.0));
}

#[test]
fn a_lucky_single_find_does_not_rank_best() {
    let lucky = stats(
        &[
            found(5, 1, 3),
            missed(10),
            missed(10),
            missed(10),
            missed(10),
        ],
        BUDGET,
    );
    let steady = stats(
        &[
            found(900, 9, 4),
            found(1000, 10, 4),
            found(1100, 11, 4),
            found(800, 8, 4),
            found(1200, 12, 4),
        ],
        BUDGET,
    );
    let times = ratios(&[("lucky", lucky.time), ("steady", steady.time)]);
    assert_eq!(times["steady"], "1.0×");
    assert_eq!(times["lucky"], "≥ 10000.0×");
    let sizes = ratios(&[("lucky", lucky.size), ("steady", steady.size)]);
    assert_eq!(sizes["steady"], "1.0×");
    assert_eq!(sizes["lucky"], "-");
}

#[test]
fn only_exact_medians_can_be_the_best() {
    let r = ratios(&[
        ("a", at_least(5.0)),
        ("b", exact(10.0)),
        ("c", exact(20.0)),
        ("d", None),
    ]);
    assert_eq!(r["a"], "≥ 0.5×");
    assert_eq!(r["b"], "1.0×");
    assert_eq!(r["c"], "2.0×");
    assert_eq!(r["d"], "-");
    let none = ratios(&[("a", at_least(5.0))]);
    assert_eq!(none["a"], "-");
}

#[test]
fn medians_show_lower_bounds_and_hide_infinity() {
    assert_eq!(show(at_least(10e6), human_micros), "≥ 10.00 s");
    assert_eq!(show(exact(1500.0), human_micros), "1.5 ms");
    assert_eq!(show(at_least(f64::INFINITY), |v| format!("{v}")), "-");
    assert_eq!(show(None, |v| format!("{v}")), "-");
}

#[test]
fn the_probe_counts_the_first_failure_within_the_budget() {
    let text = "BENCH-EXECS 1 0\nBENCH-EXECS 160 9000\nBENCH-FOUND 170 9500\n\
                BENCH-SIZE 40\nBENCH-SIZE 3\nBENCH-EXECS 400 20000\n";
    let o = parse_probe(text, Duration::from_millis(15));
    assert!(o.found);
    assert_eq!(
        (o.execs, o.micros, o.size),
        (Some(170), Some(9500), Some(3))
    );
    assert_eq!(o.budget_execs, None);
    // The same failure after a 5 ms budget does not count.
    let late = parse_probe(text, Duration::from_millis(5));
    assert!(!late.found);
    assert_eq!(
        (late.execs, late.size, late.budget_execs),
        (None, None, Some(1))
    );
    assert!(parse_probe("BENCH-FOUND 1 5\n", Duration::MAX).found);
}

#[test]
fn every_tool_runs_every_target_but_the_state_machine() {
    for (target, _) in catalog::ALL {
        for tool in TOOLS {
            let stateful_only = *target == "kv_store" && matches!(tool, "quickcheck" | "libfuzzer");
            assert_eq!(runs(target, tool), !stateful_only, "{tool} on {target}");
        }
    }
    for (target, tools) in catalog::TOOLS_OF {
        assert!(catalog::ALL.iter().any(|(t, _)| t == target), "{target}");
        assert!(tools.iter().all(|tool| TOOLS.contains(tool)), "{tools:?}");
    }
}
