//! `cargo xtask scale`: what more workers on one property are worth.
//!
//! Two measurements, each with `-j 1` and `-j N` (N from `--jobs`, 2 by
//! default) on one property:
//! - executions in the same wall time (`--time`), on a property with no
//!   bug: `examples/json`'s parser and `examples/throughput`'s trivial
//!   property (where the cost of sharing shows most), with `--fixed-size`
//!   so that both run inputs of the same sizes (with size steps the second
//!   worker starts at the full size);
//! - time to the bug over `--seeds` RNG seeds, on `examples/dut_magic64`
//!   and on `puzzle`, the hardest target of the benchmark suite that
//!   covcheck's campaign solves in every run (`book/src/benchmarks.md`).
//!   A run that does not find the bug within `--budget` is scored as the
//!   budget, not dropped; times are covcheck's own (`found_after_us`,
//!   from the campaign's start), the same ruler for both.

use std::path::PathBuf;

use crate::campaigns::Examples;
use crate::measure::Run;
use crate::stats::exact_median;

struct Options {
    seeds: u64,
    jobs: usize,
    time_secs: u64,
    budget_secs: u64,
}

impl Options {
    fn parse(args: &[String]) -> Result<Options, String> {
        let mut options = Options {
            seeds: 10,
            jobs: 2,
            time_secs: 10,
            budget_secs: 30,
        };
        let mut args = args.iter();
        while let Some(arg) = args.next() {
            let value = args
                .next()
                .and_then(|v| v.parse::<u64>().ok())
                .filter(|&n| n > 0)
                .ok_or(format!("{arg} needs a positive number"))?;
            match arg.as_str() {
                "--seeds" => options.seeds = value,
                "--jobs" => options.jobs = value as usize,
                "--time" => options.time_secs = value,
                "--budget" => options.budget_secs = value,
                other => {
                    return Err(format!(
                        "unknown option `{other}`; options: --seeds N, --jobs N, --time SECS, \
                         --budget SECS"
                    ));
                }
            }
        }
        Ok(options)
    }
}

pub fn main(args: &[String]) -> Result<(), String> {
    let options = Options::parse(args)?;
    let examples = Examples::build()?;
    let jobs = [1, options.jobs];
    println!(
        "Executions in {} s on one property, --fixed-size (median of 3 seeds):\n",
        options.time_secs
    );
    println!("| property | -j 1 | -j {} | ratio |", options.jobs);
    println!("|---|---|---|---|");
    // One property each: with two, `-j 2` would run both side by side.
    for (example, property) in [
        ("json", "printed_json_parses_back_to_the_same_value"),
        ("throughput", "trivial"),
    ] {
        let manifest = examples
            .root()
            .join("examples")
            .join(example)
            .join("Cargo.toml");
        let time = format!("{}s", options.time_secs);
        let mut medians = Vec::new();
        for j in jobs {
            let execs = (1..=3)
                .map(|seed| {
                    // Fixed size: with size steps, a second worker starts
                    // at a larger bound (longer inputs, slower executions),
                    // so the counts would compare different inputs, not
                    // the cost of running side by side.
                    let args = [property, "--time", &time, "--fixed-size"];
                    let run = examples.campaign_on(&manifest, j, seed, &args)?;
                    eprintln!("  {example} -j {j} seed {seed}: {} execs", run.execs);
                    Ok(run.execs as f64)
                })
                .collect::<Result<Vec<f64>, String>>()?;
            medians.push(exact_median(&execs).unwrap_or(0.0));
        }
        println!(
            "| `{example}` | {:.0} | {:.0} | {:.2}× |",
            medians[0],
            medians[1],
            medians[1] / medians[0].max(1.0)
        );
    }
    println!(
        "\nTime to the bug, {} seeds, budget {} s (unfound runs scored as the budget):\n",
        options.seeds, options.budget_secs
    );
    println!("| target | workers | found | median time | median executions |");
    println!("|---|---|---|---|---|");
    for target in targets(&examples) {
        for j in jobs {
            println!("{}", time_to_bug(&examples, &target, j, &options)?);
        }
    }
    Ok(())
}

/// A property to find the bug of.
struct Target {
    name: &'static str,
    manifest: PathBuf,
    args: Vec<String>,
    env: Vec<(&'static str, &'static str)>,
}

fn targets(examples: &Examples) -> Vec<Target> {
    let root = examples.root();
    vec![
        Target {
            name: "dut_magic64",
            manifest: root.join("examples/dut_magic64/Cargo.toml"),
            args: Vec::new(),
            env: Vec::new(),
        },
        Target {
            name: "puzzle",
            manifest: root.join("bench/suite/Cargo.toml"),
            args: vec!["--exact".into(), "covcheck_harness::puzzle".into()],
            env: vec![("BENCH_BUG", "")],
        },
    ]
}

/// The table row of `target` on `jobs` workers over every seed.
fn time_to_bug(
    examples: &Examples,
    target: &Target,
    jobs: usize,
    options: &Options,
) -> Result<String, String> {
    let budget = format!("{}s", options.budget_secs);
    let (mut millis, mut execs, mut found) = (Vec::new(), Vec::new(), 0);
    for seed in 1..=options.seeds {
        let mut args: Vec<&str> = target.args.iter().map(String::as_str).collect();
        args.extend(["--time", &budget]);
        let run: Run =
            examples.campaign_with_env(&target.manifest, jobs, seed, &args, &target.env)?;
        eprintln!("  {} -j {jobs} seed {seed}: {:?}", target.name, run.found);
        match run.found {
            Some((e, us)) => {
                found += 1;
                millis.push(us as f64 / 1000.0);
                execs.push(e as f64);
            }
            None => {
                millis.push(options.budget_secs as f64 * 1000.0);
                execs.push(run.execs as f64);
            }
        }
    }
    let prefix = |f: usize| {
        if f * 2 <= options.seeds as usize {
            "≥ "
        } else {
            ""
        }
    };
    Ok(format!(
        "| `{}` | {jobs} | {found}/{} | {}{:.1} ms | {}{:.0} |",
        target.name,
        options.seeds,
        prefix(found),
        exact_median(&millis).unwrap_or(0.0),
        prefix(found),
        exact_median(&execs).unwrap_or(0.0),
    ))
}
