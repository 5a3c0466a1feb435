//! `cargo xtask dict`: what a property's own dictionary is worth.
//!
//! `examples/hashed_keyword`'s bug needs an 8-byte command word that no
//! comparison reveals and that is no literal of the crate; the property
//! names it in `#[covcheck(dict = [...])]`. This runs its campaign over
//! several RNG seeds with the dictionary and with `--no-dict`, under the
//! same execution budget, and prints how often each found the bug and the
//! median executions to it, a run that did not find it counting as the
//! whole budget (as the benchmarks do: such a median is a lower bound,
//! marked `≥`).

use crate::campaigns::Examples;
use crate::options::Options;
use crate::stats::{Measured, median};

const EXAMPLE: &str = "hashed_keyword";

pub fn main(args: &[String]) -> Result<(), String> {
    let options = Options::parse(args, 1_000_000)?;
    let examples = Examples::build()?;
    println!(
        "`{EXAMPLE}`, {} seeds, {} executions each:\n",
        options.seeds, options.runs
    );
    println!("| dictionaries | found | median executions to the bug |");
    println!("|---|---|---|");
    for (label, flags) in [
        ("the property's `dict` (and the literals)", &[][..]),
        ("none (`--no-dict`)", &["--no-dict"][..]),
    ] {
        println!("{}", row(&examples, &options, label, flags)?);
    }
    Ok(())
}

/// The table row of the campaigns with `flags`, over every seed.
fn row(
    examples: &Examples,
    options: &Options,
    label: &str,
    flags: &[&str],
) -> Result<String, String> {
    let runs = options.runs.to_string();
    let mut measured = Vec::new();
    for seed in 1..=options.seeds {
        let mut budget = vec!["--runs", runs.as_str()];
        budget.extend_from_slice(flags);
        let run = examples.campaign(EXAMPLE, seed, &budget)?;
        eprintln!("  {EXAMPLE}, {label}, seed {seed}: {:?}", run.found);
        measured.push(match run.found {
            Some((execs, _)) => Measured::Found(execs as f64),
            None => Measured::AtLeast(options.runs as f64),
        });
    }
    let found = measured
        .iter()
        .filter(|m| matches!(m, Measured::Found(_)))
        .count();
    let median = median(&measured).map_or("-".to_string(), |m| {
        format!("{}{:.0}", if m.lower_bound { "≥" } else { "" }, m.value)
    });
    Ok(format!(
        "| {label} | {found}/{} | {median} |",
        options.seeds
    ))
}
