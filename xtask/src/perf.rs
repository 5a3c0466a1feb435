//! `cargo xtask perf`: what performance mode finds on `examples/run_length`,
//! a run-length encoder that is linear except on long runs of one byte,
//! where it is quadratic.
//!
//! For each RNG seed it runs `cargo covcheck --perf` on the encoder's
//! round-trip property for a time budget (60 s by default, one worker) and
//! reads the JSON `finished` message: the costliest input's cost (edges
//! executed) against the median cost of random inputs of its size (64
//! inputs of its shape with random values, and the campaign's fresh
//! inputs of that size), and the growth fitted to the costliest input of
//! each size. Every seed is reported, whatever it found.

use crate::campaigns::Examples;
use crate::stats::exact_median;

const EXAMPLE: &str = "run_length";
const PROPERTY: &str = "tests::encoding_round_trips";

pub fn main(args: &[String]) -> Result<(), String> {
    let (seeds, secs) = crate::options::seeds_and(args, "--time", 60)?;
    let examples = Examples::build()?;
    let time = format!("{}s", secs);
    println!(
        "`{EXAMPLE}` ({PROPERTY}), `cargo covcheck --perf`, {} s, one worker, {} seeds:\n",
        secs, seeds
    );
    println!(
        "| seed | costliest input (edges) | its size (choices) | median random input of its size | ratio | growth fitted | log-log slope |"
    );
    println!("|---|---|---|---|---|---|---|");
    let mut ratios = Vec::new();
    let mut quadratic = 0;
    for seed in 1..=seeds {
        let budget = ["--perf", "--exact", PROPERTY, "--time", time.as_str()];
        let run = examples.campaign(EXAMPLE, seed, &budget)?;
        let perf = run
            .perf
            .ok_or_else(|| format!("{EXAMPLE} seed {seed}: no performance result"))?;
        let growth = perf.growth.clone().unwrap_or_else(|| "none".to_string());
        quadratic += usize::from(growth == "quadratic");
        let slope = perf.exponent.map_or("-".to_string(), |e| format!("{e:.2}"));
        match &perf.costliest {
            Some(c) if c.median > 0 => {
                let ratio = c.cost as f64 / c.median as f64;
                ratios.push(ratio);
                println!(
                    "| {seed} | {} | {} | {} (of {}) | {ratio:.0}× | {growth} | {slope} |",
                    c.cost, c.size, c.median, c.fresh
                );
            }
            Some(c) => {
                // Scored as no gain: nothing to compare with is not a find.
                ratios.push(0.0);
                println!(
                    "| {seed} | {} | {} | none ran | - | {growth} | {slope} |",
                    c.cost, c.size
                );
            }
            None => {
                ratios.push(0.0);
                println!("| {seed} | none | - | - | - | {growth} | {slope} |");
            }
        }
    }
    let at_least_100 = ratios.iter().filter(|r| **r >= 100.0).count();
    println!(
        "\nMedian ratio: {:.0}×; at least 100× in {at_least_100} of {} seeds; quadratic growth \
         reported in {quadratic} of {}.",
        exact_median(&ratios).unwrap_or(0.0),
        seeds,
        seeds
    );
    Ok(())
}
