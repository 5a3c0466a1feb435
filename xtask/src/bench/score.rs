//! Scoring: each run's time, executions and counterexample size as a
//! [`Measured`] value (a run that found nothing counts as a lower bound),
//! their medians per tool, and each tool's ratio to the best.

use std::collections::BTreeMap;
use std::time::Duration;

use super::probe::Outcome;
use crate::stats::{Measured, Median, median};

/// A run's time to the bug in µs, or at least the budget.
pub fn time_value(outcome: &Outcome, budget: Duration) -> Measured {
    match outcome.micros {
        Some(micros) if outcome.found => Measured::Found(micros as f64),
        _ => Measured::AtLeast(budget.as_micros() as f64),
    }
}

/// A run's executions to the bug, or at least those it made in the budget.
pub fn execs_value(outcome: &Outcome) -> Measured {
    match outcome.execs {
        Some(execs) if outcome.found => Measured::Found(execs as f64),
        _ => Measured::AtLeast(outcome.budget_execs.unwrap_or(0) as f64),
    }
}

/// A run's final counterexample size, or larger than any.
pub fn size_value(outcome: &Outcome) -> Measured {
    match outcome.size {
        Some(size) if outcome.found => Measured::Found(size as f64),
        _ => Measured::AtLeast(f64::INFINITY),
    }
}

/// The medians of one tool on one target.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Stats {
    pub time: Option<Median>,
    pub execs: Option<Median>,
    pub size: Option<Median>,
}

pub fn stats(outcomes: &[Outcome], budget: Duration) -> Stats {
    let of = |f: &dyn Fn(&Outcome) -> Measured| median(&outcomes.iter().map(f).collect::<Vec<_>>());
    Stats {
        time: of(&|o| time_value(o, budget)),
        execs: of(&execs_value),
        size: of(&size_value),
    }
}

/// The ratio of each tool's score to the best score, by tool, as text. Only
/// exact, finite medians can be the best; a lower bound gives a ratio that
/// is a lower bound too (`≥`), and an infinite or missing score gives `-`.
pub fn ratios<'a>(scores: &[(&'a str, Option<Median>)]) -> BTreeMap<&'a str, String> {
    let best = scores
        .iter()
        .filter_map(|(_, m)| *m)
        .filter(|m| !m.lower_bound && m.value.is_finite())
        .map(|m| m.value)
        .reduce(f64::min);
    scores
        .iter()
        .map(|(tool, score)| {
            let text = match (score, best) {
                (Some(s), Some(best)) if s.value.is_finite() => {
                    // Values under one (µs) count as one, so ratios stay finite.
                    let ratio = s.value.max(1.0) / best.max(1.0);
                    format!("{}{ratio:.1}×", if s.lower_bound { "≥ " } else { "" })
                }
                _ => "-".to_string(),
            };
            (*tool, text)
        })
        .collect()
}
