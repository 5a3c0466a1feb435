//! What one campaign flag is worth on the example made for it: the
//! campaign runs over several RNG seeds with and without the flag's
//! setting, under the same execution budget, and this prints how often
//! each found the bug and the median executions to it, a run that did not
//! find it counting as the whole budget (as the benchmarks do: such a
//! median is a lower bound, marked `≥`).
//!
//! - `cargo xtask dict`: `examples/hashed_keyword`'s bug needs an 8-byte
//!   command word that no comparison reveals and that is no literal of the
//!   crate; the property names it in `#[covcheck(dict = [...])]`, and
//!   `--no-dict` takes it away.
//! - `cargo xtask value-profile`: `examples/hashed_tag`'s bug hides behind
//!   a rolling hash compared with a constant, which neither coverage nor
//!   input-to-state opens; `--value-profile` keeps the inputs that bring the
//!   hash closer to it.

use crate::campaigns::Examples;
use crate::options::Options;
use crate::stats::{Measured, median};

/// An example, and the campaigns compared on it: a label and the flags of
/// each.
struct Comparison {
    example: &'static str,
    campaigns: [(&'static str, &'static [&'static str]); 2],
}

const DICT: Comparison = Comparison {
    example: "hashed_keyword",
    campaigns: [
        ("the property's `dict` (and the literals)", &[]),
        ("none (`--no-dict`)", &["--no-dict"]),
    ],
};

const VALUE_PROFILE: Comparison = Comparison {
    example: "hashed_tag",
    campaigns: [
        ("`--value-profile`", &["--value-profile"]),
        ("without", &[]),
    ],
};

/// `cargo xtask dict`.
pub fn dict(args: &[String]) -> Result<(), String> {
    compare(&DICT, "dictionaries", args)
}

/// `cargo xtask value-profile`.
pub fn value_profile(args: &[String]) -> Result<(), String> {
    compare(&VALUE_PROFILE, "compare distance", args)
}

fn compare(comparison: &Comparison, heading: &str, args: &[String]) -> Result<(), String> {
    let options = Options::parse(args, 1_000_000)?;
    let examples = Examples::build()?;
    println!(
        "`{}`, {} seeds, {} executions each:\n",
        comparison.example, options.seeds, options.runs
    );
    println!("| {heading} | found | median executions to the bug |");
    println!("|---|---|---|");
    for (label, flags) in comparison.campaigns {
        println!(
            "{}",
            row(&examples, comparison.example, &options, label, flags)?
        );
    }
    Ok(())
}

/// The table row of the campaigns with `flags`, over every seed.
fn row(
    examples: &Examples,
    example: &str,
    options: &Options,
    label: &str,
    flags: &[&str],
) -> Result<String, String> {
    let runs = options.runs.to_string();
    let mut measured = Vec::new();
    for seed in 1..=options.seeds {
        let mut budget = vec!["--runs", runs.as_str()];
        budget.extend_from_slice(flags);
        let run = examples.campaign(example, seed, &budget)?;
        eprintln!("  {example}, {label}, seed {seed}: {:?}", run.found);
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
