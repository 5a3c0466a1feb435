//! How performance mode's conclusions read in the summary: per property,
//! the fitted growth, the costliest input against the median input of its
//! size, what became of its seed, and a few sizes of the cost profile.

use std::fmt::Write as _;

use super::text::{human_count, one_line};
use crate::perf::{PerfReport, PerfSeed};
use covcheck_protocol::worker::CostPoint;

/// Rows of the cost profile shown (spread over the sizes seen).
const ROWS: usize = 8;
/// The longest argument rendering shown.
const ARGS_WIDTH: usize = 120;

/// The performance section of the summary for `property`'s `report`.
pub fn section(property: &str, report: &PerfReport) -> String {
    let mut out = format!("{property}\n");
    match &report.fit {
        Some(fit) => {
            let _ = writeln!(
                out,
                "  growth: {}, cost ≈ {}·{} (log-log slope {:.2}, fitted on {} sizes)",
                fit.growth.name(),
                factor(fit.factor),
                fit.growth.formula(),
                fit.exponent,
                fit.sizes
            );
        }
        None => out.push_str("  growth: too few input sizes seen to fit one\n"),
    }
    if let Some(costliest) = &report.profile.costliest {
        let _ = write!(
            out,
            "  costliest input: {} edges at size {}",
            human_count(costliest.cost),
            costliest.size,
        );
        if costliest.fresh == 0 || costliest.median == 0 {
            out.push_str(" (no random input of its size ran, to compare with)\n");
        } else {
            let _ = writeln!(
                out,
                ", {:.0}× the median random input of its size ({}, of {})",
                costliest.cost as f64 / costliest.median as f64,
                human_count(costliest.median),
                costliest.fresh
            );
        }
        if !costliest.args.is_empty() {
            let args: Vec<String> = costliest
                .args
                .iter()
                .map(|(name, value)| format!("{name} = {}", one_line(value)))
                .collect();
            let _ = writeln!(out, "    {}", shortened(&args.join(", ")));
        }
    }
    match &report.seed {
        PerfSeed::Saved(path) => {
            let _ = writeln!(out, "  saved as a performance seed: {}", path.display());
        }
        PerfSeed::NotCostlier { existing, cost } => {
            let _ = writeln!(
                out,
                "  not saved: the performance seed {} costs as much or more ({})",
                existing.display(),
                human_count(*cost)
            );
        }
        PerfSeed::Failed(problem) => {
            let _ = writeln!(out, "  not saved: {problem}");
        }
        PerfSeed::None => {}
    }
    out.push_str(&profile_rows(&report.profile.points));
    if let Some(plot) = &report.plot {
        let _ = writeln!(out, "  plot: {}", plot.display());
    }
    out
}

/// A few rows of the profile: size, costliest, and the median of the
/// random (fresh) inputs of that size, with how many ran.
fn profile_rows(points: &[CostPoint]) -> String {
    let mut out = format!(
        "  {:>8} {:>12} {:>12} {:>10}\n",
        "size", "costliest", "median", "random"
    );
    let step = points.len().div_ceil(ROWS).max(1);
    let last = points.len().saturating_sub(1);
    for (i, point) in points.iter().enumerate() {
        if i % step != 0 && i != last {
            continue;
        }
        let median = if point.fresh == 0 {
            "-".to_string()
        } else {
            human_count(point.median)
        };
        let _ = writeln!(
            out,
            "  {:>8} {:>12} {:>12} {:>10}",
            point.size,
            human_count(point.max),
            median,
            human_count(point.fresh)
        );
    }
    out
}

/// A factor with three significant digits.
fn factor(value: f64) -> String {
    if value >= 100.0 {
        format!("{value:.0}")
    } else if value >= 1.0 {
        format!("{value:.2}")
    } else {
        format!("{value:.3}")
    }
}

fn shortened(text: &str) -> String {
    match text.char_indices().nth(ARGS_WIDTH) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_string(),
    }
}
