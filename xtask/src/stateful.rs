//! `cargo xtask stateful`: what stateful properties find, on the two
//! examples of the "Stateful properties" chapter.
//!
//! 1. **A sequence bug.** `examples/kv_store` (an entry lost by a delete
//!    after a resize): executions to the bug and the length of the shrunk
//!    sequence, per seed, under an execution budget.
//! 2. **A race.** `examples/counter_race` (a lost update): the parallel
//!    property under a time budget per seed (time and executions to the
//!    report, and in how many of the case's runs the race showed), and the
//!    sequential property under the same budget, which must report nothing.
//!
//! Runs that find nothing are scored at the budget, never dropped.

use covcheck_protocol::messages::{Finding, Message, parse_message};

use crate::campaigns::Examples;
use crate::measure::read_events;
use crate::stats::{Measured, median};

struct Options {
    seeds: u64,
    runs: u64,
    secs: u64,
}

impl Options {
    fn parse(args: &[String]) -> Result<Options, String> {
        let mut options = Options {
            seeds: 5,
            runs: 200_000,
            secs: 60,
        };
        let mut args = args.iter();
        while let Some(arg) = args.next() {
            let text = args.next().ok_or(format!("{arg} needs a value"))?;
            let value: u64 = text
                .parse()
                .map_err(|_| format!("{arg} {text}: not a number"))?;
            match arg.as_str() {
                "--seeds" => options.seeds = value,
                "--runs" => options.runs = value,
                "--time" => options.secs = value,
                other => return Err(format!("unknown option {other}")),
            }
        }
        Ok(options)
    }
}

pub fn main(args: &[String]) -> Result<(), String> {
    let options = Options::parse(args)?;
    let examples = Examples::build()?;
    sequence_bug(&examples, &options)?;
    race(&examples, &options)
}

/// One campaign's outcome: its first finding, and its executions.
struct Outcome {
    finding: Option<Finding>,
    execs: u64,
}

fn campaign(
    examples: &Examples,
    example: &str,
    seed: u64,
    args: &[&str],
) -> Result<Outcome, String> {
    let manifest = examples
        .root()
        .join("examples")
        .join(example)
        .join("Cargo.toml");
    let output = examples
        .measuring_command(&manifest, seed, 1)
        .args(args)
        .output()
        .map_err(|e| format!("cannot run cargo covcheck: {e}"))?;
    if matches!(output.status.code(), Some(2 | 3)) {
        return Err(format!(
            "cargo covcheck on {example} failed ({}); run it by hand to see why",
            output.status
        ));
    }
    let stdout = String::from_utf8_lossy(&output.stdout);
    let run = read_events(&stdout)?;
    let finding = stdout.lines().find_map(|line| match parse_message(line) {
        Some(Ok(Message::Finding { finding, .. })) => Some(finding),
        _ => None,
    });
    Ok(Outcome {
        finding,
        execs: run.execs,
    })
}

fn sequence_bug(examples: &Examples, options: &Options) -> Result<(), String> {
    let runs = options.runs.to_string();
    println!(
        "\n## examples/kv_store: `cargo covcheck the_store_behaves_like_a_map --runs {runs} --seed S -j 1`\n"
    );
    println!("| seed | execs to the bug | shrunk sequence |");
    println!("|---|---|---|");
    let (mut execs, mut lengths) = (Vec::new(), Vec::new());
    for seed in 1..=options.seeds {
        let outcome = campaign(
            examples,
            "kv_store",
            seed,
            &["the_store_behaves_like_a_map", "--runs", &runs],
        )?;
        let (found, length) = match &outcome.finding {
            Some(finding) => {
                let rendering = finding.args.first().map_or("", |(_, value)| value.as_str());
                let length = top_level_items(rendering);
                (
                    Measured::Found(finding.execs_to_find as f64),
                    Measured::Found(length as f64),
                )
            }
            None => (
                Measured::AtLeast(outcome.execs as f64),
                Measured::AtLeast(f64::INFINITY),
            ),
        };
        println!(
            "| {seed} | {} | {} |",
            show(found, ""),
            show(length, " commands")
        );
        execs.push(found);
        lengths.push(length);
    }
    println!(
        "| median | {} | {} |",
        show_median(&execs, ""),
        show_median(&lengths, " commands")
    );
    Ok(())
}

fn race(examples: &Examples, options: &Options) -> Result<(), String> {
    let time = format!("{}s", options.secs);
    println!(
        "\n## examples/counter_race: `cargo covcheck <property> --time {time} --seed S -j 1`\n"
    );
    println!(
        "| seed | parallel: time to the race | execs | runs of the case that failed | sequential: reports |"
    );
    println!("|---|---|---|---|---|");
    let mut times = Vec::new();
    let mut sequential_reports = 0;
    for seed in 1..=options.seeds {
        let parallel = campaign(
            examples,
            "counter_race",
            seed,
            &["concurrent_hits_are_linearizable", "--time", &time],
        )?;
        let sequential = campaign(
            examples,
            "counter_race",
            seed,
            &["one_thread_counts_every_hit", "--time", &time],
        )?;
        let reports = usize::from(sequential.finding.is_some());
        sequential_reports += reports;
        let (at, execs, failed_runs) = match &parallel.finding {
            Some(f) => (
                Measured::Found(f.found_after_us as f64 / 1e6),
                f.execs_to_find.to_string(),
                failed_runs(&f.message),
            ),
            None => (
                Measured::AtLeast(options.secs as f64),
                format!("{} (in all)", parallel.execs),
                "-".to_string(),
            ),
        };
        println!(
            "| {seed} | {} | {execs} | {failed_runs} | {reports} ({} execs) |",
            show(at, " s"),
            sequential.execs
        );
        times.push(at);
    }
    let found = times
        .iter()
        .filter(|t| matches!(t, Measured::Found(_)))
        .count();
    println!(
        "\nParallel: found in {found} of {} seeds, median time {}. Sequential: {sequential_reports} reports.",
        options.seeds,
        show_median(&times, " s")
    );
    Ok(())
}

/// "3 of 8" from a linearizability failure's message.
fn failed_runs(message: &str) -> String {
    message
        .split_once('(')
        .and_then(|(_, rest)| rest.split_once(" runs of this case"))
        .map_or("?".to_string(), |(count, _)| count.to_string())
}

/// The items of a rendered list, `[a, B { x: 1, y: 2 }, c]` → 3.
fn top_level_items(rendering: &str) -> usize {
    let inner = rendering
        .trim()
        .trim_start_matches('[')
        .trim_end_matches(']');
    if inner.trim().is_empty() {
        return 0;
    }
    let mut depth = 0i32;
    let mut items = 1;
    for c in inner.chars() {
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth -= 1,
            ',' if depth == 0 => items += 1,
            _ => {}
        }
    }
    // A pretty rendering ends its last item with a comma too.
    if inner.trim_end().ends_with(',') {
        items -= 1;
    }
    items
}

fn show(measured: Measured, unit: &str) -> String {
    match measured {
        Measured::Found(value) if unit == " s" => format!("{value:.2}{unit}"),
        Measured::Found(value) => format!("{value:.0}{unit}"),
        Measured::AtLeast(value) if value.is_infinite() => "not found".to_string(),
        Measured::AtLeast(value) => format!("not found (≥ {value:.0}{unit})"),
    }
}

fn show_median(values: &[Measured], unit: &str) -> String {
    let decimals = if unit == " s" { 2 } else { 0 };
    match median(values) {
        Some(m) if m.lower_bound => format!("≥ {:.*}{unit}", decimals, m.value),
        Some(m) => format!("{:.*}{unit}", decimals, m.value),
        None => "-".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn items_are_counted_at_the_top_level_of_compact_and_pretty_renderings() {
        assert_eq!(
            top_level_items("[Put { key: 1, value: 2 }, Delete { key: 1 }]"),
            2
        );
        assert_eq!(
            top_level_items("[\n    Get {\n        key: 1,\n    },\n    Clear,\n]"),
            2
        );
        assert_eq!(top_level_items("[]"), 0);
    }

    #[test]
    fn the_failed_runs_are_read_from_the_message() {
        let message = "the threads' results are not linearizable: no order (3 of 32 runs of this case failed)";
        assert_eq!(failed_runs(message), "3 of 32");
    }
}
