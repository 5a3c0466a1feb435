//! The report: its introduction, saying how to read the numbers, and the
//! Markdown table of each target.

use std::collections::BTreeMap;
use std::time::Duration;

use super::catalog;
use super::probe::Outcome;
use super::score::{Stats, ratios, stats};
use crate::stats::Median;

/// The report's title and how to read its tables.
pub fn intro(seeds: u64, budget: Duration) -> String {
    format!(
        "# covcheck benchmark\n\n{} seed(s) per tool and target, {:.0} s budget per run. \
         Time and executions are counted by the suite's probe in every tool, from the first \
         execution (build and start-up excluded) to the first failure, and are medians over \
         all runs: a run that found nothing counts as the whole budget for time and as the \
         executions it made in the budget for executions; `≥` marks a median that such a run \
         reaches, which is a lower bound. Sizes are of the final counterexample (libFuzzer's \
         after its crash minimiser); a run that found nothing counts as larger than any, and \
         `-` means half the runs or more found nothing. Ratio: median time (bugs) or size \
         (shrinking) over the best exact median.\n",
        seeds,
        budget.as_secs_f64()
    )
}

/// A median as text: `-` for none or infinity, `≥` before a lower bound.
pub fn show(median: Option<Median>, format: impl Fn(f64) -> String) -> String {
    match median {
        Some(m) if m.value.is_finite() => {
            format!(
                "{}{}",
                if m.lower_bound { "≥ " } else { "" },
                format(m.value)
            )
        }
        _ => "-".to_string(),
    }
}

/// The Markdown table of one target.
pub fn table(
    target: &str,
    bug: &str,
    results: &BTreeMap<&str, Vec<Outcome>>,
    seeds: u64,
    budget: Duration,
) -> String {
    let shrinking = catalog::SHRINKING.contains(&target);
    let title = if bug.is_empty() {
        format!("`{target}`")
    } else {
        format!("`{target}`: `{bug}`")
    };
    let stats: BTreeMap<&str, Stats> = results
        .iter()
        .map(|(tool, outcomes)| (*tool, stats(outcomes, budget)))
        .collect();
    let scores: Vec<(&str, Option<Median>)> = stats
        .iter()
        .map(|(tool, s)| (*tool, if shrinking { s.size } else { s.time }))
        .collect();
    let ratios = ratios(&scores);
    let mut out = format!("### {title}\n\n");
    if shrinking {
        out.push_str(
            "| tool | found | median final size | median time | ratio |\n|---|---|---|---|---|\n",
        );
    } else {
        out.push_str(
            "| tool | found | median time | median executions | ratio |\n|---|---|---|---|---|\n",
        );
    }
    for (tool, outcomes) in results {
        let found = outcomes.iter().filter(|o| o.found).count();
        let s = stats[tool];
        let time = show(s.time, human_micros);
        let ratio = &ratios[tool];
        if shrinking {
            let size = show(s.size, |v| format!("{v:.0}"));
            out.push_str(&format!(
                "| {tool} | {found}/{seeds} | {size} | {time} | {ratio} |\n"
            ));
        } else {
            let execs = show(s.execs, |v| format!("{v:.0}"));
            out.push_str(&format!(
                "| {tool} | {found}/{seeds} | {time} | {execs} | {ratio} |\n"
            ));
        }
    }
    out.push('\n');
    out
}

pub fn human_micros(micros: f64) -> String {
    if micros < 1000.0 {
        format!("{micros:.0} µs")
    } else if micros < 1e6 {
        format!("{:.1} ms", micros / 1000.0)
    } else {
        format!("{:.2} s", micros / 1e6)
    }
}
