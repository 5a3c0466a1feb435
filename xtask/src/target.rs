//! `cargo xtask target`: what `covcheck_rt::target` is worth.
//!
//! `examples/targeted`'s property reports the longest range its encoder
//! wrote with `target("longest range", ...)`, a quantity no coverage
//! counter measures. This runs its campaign over several RNG seeds with
//! the target steering (the default) and with `--no-target` (the value is
//! recorded but makes no input interesting), under the same execution
//! budget, and prints the median best value of each and their ratio.

use crate::campaigns::Examples;
use crate::options::Options;
use crate::stats::exact_median;

const EXAMPLE: &str = "targeted";
const LABEL: &str = "longest range";

pub fn main(args: &[String]) -> Result<(), String> {
    let options = Options::parse(args, 200_000)?;
    let examples = Examples::build()?;
    let steered = best_values(&examples, &options, &[])?;
    let recorded = best_values(&examples, &options, &["--no-target"])?;
    println!(
        "`{EXAMPLE}`, `target(\"{LABEL}\", ...)`, {} seeds, {} executions each:\n",
        options.seeds, options.runs
    );
    println!("| campaign | median best value | per seed |");
    println!("|---|---|---|");
    let (a, b) = (
        row("steered by `target()`", &steered),
        row("`--no-target`", &recorded),
    );
    println!("{}\n{}", a.0, b.0);
    println!("\nRatio of the medians: {:.1}×", a.1 / b.1);
    Ok(())
}

/// The best value of [`LABEL`] each seed's campaign with `flags` reached.
fn best_values(examples: &Examples, options: &Options, flags: &[&str]) -> Result<Vec<f64>, String> {
    let runs = options.runs.to_string();
    let mut values = Vec::new();
    for seed in 1..=options.seeds {
        let mut budget = vec!["--runs", runs.as_str()];
        budget.extend_from_slice(flags);
        let run = examples.campaign(EXAMPLE, seed, &budget)?;
        let best = run
            .targets
            .iter()
            .find(|t| t.label == LABEL)
            .ok_or_else(|| {
                format!("{EXAMPLE} seed {seed} {flags:?}: no `{LABEL}` value reported")
            })?;
        eprintln!("  {EXAMPLE} {flags:?} seed {seed}: {}", best.value);
        values.push(best.value);
    }
    Ok(values)
}

/// A table row and its median.
fn row(label: &str, values: &[f64]) -> (String, f64) {
    let median = exact_median(values).unwrap_or(0.0);
    let each: Vec<String> = values.iter().map(|v| v.to_string()).collect();
    (
        format!("| {label} | {median} | {} |", each.join(", ")),
        median,
    )
}
