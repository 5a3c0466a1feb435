//! The text of `cargo covcheck run` for people: status lines, the report of
//! each finding and the summary table, as strings, with the small helpers
//! (counts, plurals) the other reports share.

use std::path::Path;

use covcheck_protocol::limits::is_past_cost_bound;
use covcheck_protocol::worker::{FailureKind, Finding, Progress, TargetBest, TokenUse};

use crate::discover::Property;
use crate::error::SeedNotSaved;
use crate::events::{BugCount, ChangeReach, Reported, RunSummary, Summary};
use crate::interrupt;
use crate::network::{FoundElsewhere, Network};

/// What discovery says when no property matched `filter`.
pub fn nothing_matched(filter: Option<&str>) -> String {
    let note = filter
        .map(|f| format!(" match `{f}`; `cargo covcheck list` shows them all"))
        .unwrap_or_default();
    format!("no #[covcheck] properties{note}")
}

/// Said before the engine's one-time build, which would otherwise be
/// minutes of cargo output nobody asked for.
pub fn engine_building(dir: &Path) -> String {
    format!(
        "Building covcheck's campaign engine (LibAFL) in {}: once for this machine and \
         covcheck version, a few minutes; later campaigns reuse it",
        dir.display()
    )
}

/// The line that opens a run: `jobs` workers in all, which are spread over
/// the properties when there are fewer properties than workers.
pub fn campaigns_starting(count: usize, jobs: usize, seed: u64) -> String {
    let at_once = if jobs > count {
        format!("{jobs} workers")
    } else {
        format!("{jobs} at a time")
    };
    format!(
        "covcheck: {}, {at_once}, RNG seed {seed}",
        properties(count)
    )
}

/// A running campaign's status: time, executions, rate (and, on more than
/// one worker, each worker's), coverage, findings, and the dictionary
/// tokens that led to the most new coverage.
pub fn status_line(p: &Progress, workers: usize, findings: usize) -> String {
    let secs = p.elapsed_ms as f64 / 1000.0;
    let rate = if secs > 0.0 {
        p.execs as f64 / secs
    } else {
        0.0
    };
    let mut line = format!(
        "{secs:>6.1}s {:>8} execs {:>8}/s {:>5} edges {:>5} corpus {findings} findings",
        human_count(p.execs),
        human_count(rate as u64),
        p.edges,
        p.corpus
    );
    if workers > 1 {
        line.push_str(&format!(
            " ({workers} workers, {}/s each)",
            human_count((rate / workers as f64) as u64)
        ));
    }
    if !p.tokens.is_empty() {
        line.push_str(&format!(
            " tokens: {}",
            token_list(&p.tokens[..p.tokens.len().min(STATUS_TOKENS)])
        ));
    }
    line
}

/// Tokens on a status line (the summary names all that the worker reports).
const STATUS_TOKENS: usize = 3;

/// `"GET " 12, "\x0d\x0a" 3`: each token as a dictionary spells it, and
/// the corpus entries it led to.
pub fn token_list(tokens: &[TokenUse]) -> String {
    let items: Vec<String> = tokens
        .iter()
        .map(|t| format!("\"{}\" {}", t.token, t.entries))
        .collect();
    items.join(", ")
}

/// `len = 12 by ops = [Push(1), Pop]`: a label's best `target()` value
/// and the arguments of the input that reached it (its choices when the
/// worker died before rendering them).
pub fn target_line(best: &TargetBest) -> String {
    let input = if best.args.is_empty() {
        format!("choices {:?}", best.choices)
    } else {
        let args: Vec<String> = best
            .args
            .iter()
            .map(|(name, value)| format!("{name} = {}", one_line(value)))
            .collect();
        args.join(", ")
    };
    format!("{} = {} by {input}", best.label, best.value)
}

/// A `{:#?}` rendering on one line: `[\n    1,\n    2,\n]` becomes `[1, 2]`.
pub fn one_line(rendering: &str) -> String {
    let mut out = String::new();
    for line in rendering.lines().map(str::trim) {
        let closes = line.starts_with([']', ')', '}']);
        if closes && out.ends_with(',') {
            out.pop();
        }
        let tight =
            out.is_empty() || out.ends_with(['[', '(']) || (closes && !line.starts_with('}'));
        if !tight {
            out.push(' ');
        }
        out.push_str(line);
    }
    out
}

/// "1 property", "2 properties".
pub fn properties(count: usize) -> String {
    if count == 1 {
        "1 property".to_string()
    } else {
        format!("{count} properties")
    }
}

/// "1 failure", "2 failures", "0 failures".
pub fn failures(count: usize) -> String {
    if count == 1 {
        "1 failure".to_string()
    } else {
        format!("{count} failures")
    }
}

/// 1234 → "1.2k", 1234567 → "1.2M".
pub fn human_count(n: u64) -> String {
    match n {
        0..1_000 => n.to_string(),
        1_000..1_000_000 => format!("{:.1}k", n as f64 / 1e3),
        1_000_000..1_000_000_000 => format!("{:.1}M", n as f64 / 1e6),
        _ => format!("{:.1}G", n as f64 / 1e9),
    }
}

/// How this machine takes part in a campaign across machines.
pub fn network(network: &Network) -> String {
    if network.is_hub() {
        format!(
            "covcheck: the hub of a campaign across machines, on {}: other machines join with \
             `cargo covcheck --join <this host>:{}` (the properties' brokers listen on ports {})",
            network.address,
            network.address.rsplit(':').next().unwrap_or_default(),
            network.broker_ports()
        )
    } else {
        format!(
            "covcheck: joined the hub at {}; this machine's workers share its corpus",
            network.address
        )
    }
}

/// A failure another machine of a campaign across machines found.
pub fn found_elsewhere(found: &FoundElsewhere) -> String {
    format!(
        "{} found a failure ({} at {}) and saved its seed there; stopped here",
        found.machine,
        found.kind.describe(),
        if found.location.is_empty() {
            "an unknown location"
        } else {
            &found.location
        }
    )
}

/// Why a resumed campaign's corpus starts smaller than its cache: a saved
/// input is an entry again only if it reaches coverage the ones before it
/// did not, but the coverage of every one counts.
pub fn resumed(read: usize, kept: usize) -> String {
    format!(
        "resumed from {} saved inputs (the corpus cache and seeds): the corpus starts with {} \
         entries, as inputs that reach no coverage the others do not are left out; the \
         coverage of all of them counts",
        human_count(read as u64),
        human_count(kept as u64)
    )
}

/// A joining machine lost its hub.
/// `--since`: what the change touched, before the campaigns.
pub fn aimed(change: &ChangeReach) -> String {
    let base: String = change.base.chars().take(12).collect();
    let reach = match change.reaching.as_slice() {
        [] if change.with_code == 0 => {
            "no test binary has code on them: nothing to aim at".to_string()
        }
        [] => "no property's corpus reaches them yet: the properties share the time as \
               usual, and any that reaches them is favoured"
            .to_string(),
        reaching => format!(
            "the corpus of {} reaches them, which {} first: {}",
            properties(reaching.len()),
            if reaching.len() == 1 { "runs" } else { "run" },
            reaching.join(", ")
        ),
    };
    format!(
        "covcheck: since {base}: {} changed, {} with code; {reach}",
        lines(change.changed),
        change.with_code
    )
}

/// `--since`: the changed lines no property reached, after the campaigns.
pub fn change_reached(change: &ChangeReach) -> String {
    if change.with_code == 0 {
        return "No changed line has code in a test binary.".to_string();
    }
    if change.unreached.is_empty() {
        return format!(
            "Every changed line with code ({}) was reached by a property.",
            change.with_code
        );
    }
    let mut text = format!(
        "Changed lines no property reached ({} of {} with code): write a property for them\n",
        change.unreached.len(),
        change.with_code
    );
    let mut by_file: Vec<(&Path, Vec<u32>)> = Vec::new();
    for (file, line) in &change.unreached {
        match by_file.last_mut() {
            Some((f, lines)) if *f == file.as_path() => lines.push(*line),
            _ => by_file.push((file, vec![*line])),
        }
    }
    for (file, lines) in by_file {
        let shown = file.strip_prefix(&change.top).unwrap_or(file);
        text.push_str(&format!("  {}: {}\n", shown.display(), line_ranges(&lines)));
    }
    text
}

/// `lines` (ascending) as ranges: `3, 5-7, 10`.
fn line_ranges(lines: &[u32]) -> String {
    let mut ranges: Vec<(u32, u32)> = Vec::new();
    for &line in lines {
        match ranges.last_mut() {
            Some((_, end)) if *end + 1 == line => *end = line,
            _ => ranges.push((line, line)),
        }
    }
    (ranges.iter())
        .map(|&(a, b)| {
            if a == b {
                a.to_string()
            } else {
                format!("{a}-{b}")
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn lines(count: usize) -> String {
    if count == 1 {
        "1 line".to_string()
    } else {
        format!("{count} lines")
    }
}

/// A failure seed that still fails before the campaign starts.
pub fn known_failure(seed: &Path, location: &str) -> String {
    format!(
        "the failure saved in {} still fails (at {location}): a known failure, not reported \
         again (`cargo test` fails on it); the campaign looks for others",
        seed.display()
    )
}

pub fn hub_lost(address: &str) -> String {
    format!(
        "the hub at {address} went away; stopped (the corpus cache is kept, and the next run \
         resumes from it)"
    )
}

/// The report of one finding: what a developer needs to reproduce and fix it.
pub fn finding_report(property: &Property, reported: &Reported) -> String {
    let f = &reported.finding;
    let found_by = reported
        .found_by
        .map(|by| format!(", by worker {} of {}", by.worker, by.workers))
        .unwrap_or_default();
    let mut out = format!(
        "\nFAILED {} ({}) after {} executions{found_by}\n",
        property.listing.full_path,
        f.kind.describe(),
        f.execs_to_find
    );
    let shrunk = f.shrink_note.is_none() || f.shrink_runs > 0;
    if f.args.is_empty() {
        out.push_str(&format!(
            "  Failing input (choices): {}\n",
            elided_choices(&f.choices)
        ));
    } else {
        out.push_str(&if shrunk {
            format!(
                "  Minimal failing input (shrunk in {} runs):\n",
                f.shrink_runs
            )
        } else {
            "  Failing input, not shrunk:\n".to_string()
        });
        for (name, value) in &f.args {
            let value = elided(value).replace('\n', "\n      ");
            out.push_str(&format!("    {name} = {value}\n"));
        }
    }
    if let Some(note) = &f.shrink_note {
        out.push_str(&format!("  Note: {note}\n"));
    }
    let location = if f.location.is_empty() {
        String::new()
    } else {
        format!(" at {}", f.location)
    };
    let message = f.message.replace('\n', "\n    ");
    let past_bound = is_past_cost_bound(&f.message);
    match f.kind {
        FailureKind::Panic if past_bound => {
            out.push_str(&format!("  Cost past its bound: {message}\n"));
        }
        FailureKind::Panic if f.flaky => out.push_str(&format!(
            "  Panicked{location}, but passed when replayed: the property is not deterministic \
             (it depends on time, randomness or state outside its arguments):\n    {message}\n"
        )),
        FailureKind::Panic => out.push_str(&format!("  Panicked{location}:\n    {message}\n")),
        kind => out.push_str(&format!(
            "  {}{location}: {message}\n",
            capitalize(kind.describe())
        )),
    }
    match &reported.seed {
        Ok(path) => {
            out.push_str(&format!("  Saved seed: {}\n", path.display()));
            // Plain `cargo test` counts no edges: only a replay on the
            // counting build checks a cost bound.
            let command = if past_bound {
                property.replay_perf_command()
            } else {
                property.rerun_command()
            };
            out.push_str(&format!("  Reproduce:  {command}\n"));
        }
        // Without its seed, the rerun command would pass: say what does
        // reproduce it.
        Err(problem @ SeedNotSaved::NoSave) => out.push_str(&format!(
            "  Seed: {problem}\n  Reproduce:  run again without --no-save to save its seed, \
             which `{}` then replays\n",
            property.rerun_command()
        )),
        Err(problem) => {
            out.push_str(&format!("  Seed: {problem}\n"));
            out.push_str(&unsaved_seed(property, f));
        }
    }
    out
}

/// How to reproduce a finding whose seed was not saved: the seed file to
/// write by hand, then the command that replays it.
fn unsaved_seed(property: &Property, finding: &Finding) -> String {
    let file = finding.seed_file(&property.listing.full_path, finding.flaky);
    let store = property.seed_store();
    let path = store
        .path_of(&file)
        .unwrap_or_else(|_| store.dir().join("seed.toml"));
    let text = file.to_text().unwrap_or_default();
    format!(
        "  Reproduce:  no seed was saved, so `{}` would pass; write these lines to {} \
         and run it:\n    {}\n",
        property.rerun_command(),
        path.display(),
        text.trim_end().replace('\n', "\n    ")
    )
}

/// How many choices a report shows of an input it has no values for.
const SHOWN_CHOICES: usize = 32;
/// How long a rendered value a report shows.
const SHOWN_VALUE_CHARS: usize = 400;

/// `choices` for a report: the first [`SHOWN_CHOICES`], then how many more
/// (the seed has them all).
pub(super) fn elided_choices(choices: &[u64]) -> String {
    if choices.len() <= SHOWN_CHOICES {
        return format!("{choices:?}");
    }
    let shown: Vec<String> = choices[..SHOWN_CHOICES]
        .iter()
        .map(u64::to_string)
        .collect();
    format!(
        "[{}, ...] ({} more; the seed has them all)",
        shown.join(", "),
        choices.len() - SHOWN_CHOICES
    )
}

/// A rendered value for a report: its first [`SHOWN_VALUE_CHARS`]
/// characters, then how many more (the seed has it all).
pub(super) fn elided(value: &str) -> String {
    let count = value.chars().count();
    if count <= SHOWN_VALUE_CHARS {
        return value.to_string();
    }
    let shown: String = value.chars().take(SHOWN_VALUE_CHARS).collect();
    format!(
        "{shown}... ({} more characters; the seed has it all)",
        count - SHOWN_VALUE_CHARS
    )
}

fn capitalize(text: &str) -> String {
    let mut chars = text.chars();
    chars
        .next()
        .map(|c| c.to_uppercase().collect::<String>() + chars.as_str())
        .unwrap_or_default()
}

/// The summary table of a run and its verdict line.
pub fn summary_table(summary: &RunSummary<'_>) -> String {
    let width = summary
        .rows
        .iter()
        .map(|(p, _)| p.listing.full_path.len())
        .max()
        .unwrap_or(8)
        .max(8);
    let mut table = format!(
        "\n{:width$}  {:<24} {:>10} {:>9} {:>6} {:>6} {:>7}\n",
        "property", "result", "execs", "exec/s", "edges", "corpus", "time"
    );
    for (property, row) in &summary.rows {
        table.push_str(&table_row(&property.listing.full_path, row, width));
    }
    if summary.rows.iter().any(|(_, row)| row.workers > 1) {
        table.push_str(
            "\nWorkers (exec/s of each, on average; corpus entries one took from another):\n",
        );
        for (property, row) in summary.rows.iter().filter(|(_, r)| r.workers > 1) {
            table.push_str(&format!(
                "{:width$}  {} workers, {}/s each, {} shared\n",
                property.listing.full_path,
                row.workers,
                human_count(rate(row) / row.workers as u64),
                row.imported
            ));
        }
    }
    if summary.rows.iter().any(|(_, row)| row.slices > 0) {
        table.push_str(&time_shares(summary, width));
    }
    if summary.rows.iter().any(|(_, row)| worth_a_triage(row)) {
        table.push_str(
            "\nDistinct failures (hits: executions that hit each, the first included):\n",
        );
        for (property, row) in summary.rows.iter().filter(|(_, r)| worth_a_triage(r)) {
            for bug in &row.bugs {
                table.push_str(&format!(
                    "{:width$}  {}\n",
                    property.listing.full_path,
                    bug_line(bug)
                ));
            }
        }
    }
    if summary.rows.iter().any(|(_, row)| !row.tokens.is_empty()) {
        table.push_str("\nDictionary tokens that led to new coverage (corpus entries made):\n");
        for (property, row) in summary.rows.iter().filter(|(_, r)| !r.tokens.is_empty()) {
            table.push_str(&format!(
                "{:width$}  {}\n",
                property.listing.full_path,
                token_list(&row.tokens)
            ));
        }
    }
    if summary.rows.iter().any(|(_, row)| !row.targets.is_empty()) {
        table.push_str("\nBest target() values, and the input that reached each:\n");
        for (property, row) in &summary.rows {
            for best in &row.targets {
                table.push_str(&format!(
                    "{:width$}  {}\n",
                    property.listing.full_path,
                    target_line(best)
                ));
            }
        }
    }
    if summary.rows.iter().any(|(_, row)| row.perf.is_some()) {
        table.push_str("\nPerformance (cost: edges executed; size: choices the input drew):\n");
        for (property, row) in &summary.rows {
            if let Some(report) = &row.perf {
                table.push_str(&super::perf::section(&property.listing.full_path, report));
            }
        }
    }
    let failed = summary.failures() > 0 || summary.errors() > 0;
    let verdict = match summary.interrupted {
        Some(signal) => format!(
            ": interrupted by {}; the corpus cache is kept and the next run resumes from it",
            interrupt::signal_name(signal)
        ),
        None if failed => String::new(),
        None if summary.untested() > 0 => format!(
            ": {} ran no input (the budget ended before the first execution), so nothing \
             was tested there",
            properties(summary.untested())
        ),
        None => ": all passed".to_string(),
    };
    table.push_str(&format!(
        "\n{}, {}{verdict}",
        properties(summary.rows.len()),
        failures(summary.failures()),
    ));
    table
}

/// Where a shared budget went: each property's slices, time and share of
/// the whole, and when it last found something new.
fn time_shares(summary: &RunSummary<'_>, width: usize) -> String {
    let total: f64 = summary
        .rows
        .iter()
        .map(|(_, r)| r.elapsed.as_secs_f64())
        .sum();
    let mut text = String::from(
        "\nWhere the time went (one budget, shared by what each property was finding):\n",
    );
    for (property, row) in &summary.rows {
        let share = if total > 0.0 {
            100.0 * row.elapsed.as_secs_f64() / total
        } else {
            0.0
        };
        let last_new = row.last_new.map_or("never".to_string(), |at| {
            format!("at {:.1}s", at.as_secs_f64())
        });
        text.push_str(&format!(
            "{:width$}  {} slice{}, {:.1}s ({share:.0}%), last new coverage {last_new}\n",
            property.listing.full_path,
            row.slices,
            if row.slices == 1 { "" } else { "s" },
            row.elapsed.as_secs_f64(),
        ));
    }
    text
}

/// Whether a campaign's failures need a line each: more than one, or one
/// hit more than once (`--keep-going`), or one known from a seed.
fn worth_a_triage(row: &Summary) -> bool {
    row.bugs.len() > 1 || row.bugs.iter().any(|b| b.hits > 1 || b.known)
}

/// One distinct failure: where, how often, and its seed.
pub fn bug_line(bug: &BugCount) -> String {
    let place = if bug.location.is_empty() {
        String::new()
    } else {
        format!(" at {}", bug.location)
    };
    let path = if bug.path == 0 {
        String::new()
    } else {
        format!(" (call path {:04x})", bug.path & 0xffff)
    };
    let known = if bug.known { ", known" } else { "" };
    let seed = bug
        .seed
        .as_ref()
        .map_or(String::new(), |s| format!(", seed {}", s.display()));
    format!(
        "{}{place}{path}: hit {}{known}{seed}",
        bug.kind.describe(),
        human_count(bug.hits)
    )
}

fn table_row(name: &str, row: &Summary, width: usize) -> String {
    let result = if !row.failures.is_empty() {
        let kinds: Vec<&str> = row.failures.iter().map(|k| k.describe()).collect();
        format!("FAILED ({})", kinds.join(", "))
    } else if row.errors > 0 {
        "ERROR".to_string()
    } else if row.bugs.iter().any(|b| b.known) {
        "ok (known failure)".to_string()
    } else if row.execs == 0 {
        "NOT TESTED".to_string()
    } else {
        "ok".to_string()
    };
    format!(
        "{name:width$}  {result:<24} {:>10} {:>9} {:>6} {:>6} {:>6.1}s\n",
        human_count(row.execs),
        human_count(rate(row)),
        row.edges,
        row.corpus,
        row.elapsed.as_secs_f64(),
    )
}

/// A campaign's executions per second, over all its workers.
fn rate(row: &Summary) -> u64 {
    let secs = row.elapsed.as_secs_f64();
    if secs > 0.0 {
        (row.execs as f64 / secs) as u64
    } else {
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_status_line_names_the_tokens_that_led_to_new_coverage() {
        let mut progress = Progress {
            execs: 51_234,
            corpus: 40,
            edges: 211,
            elapsed_ms: 2_000,
            ..Progress::default()
        };
        let plain = status_line(&progress, 1, 0);
        assert!(!plain.contains("tokens"), "{plain}");
        progress.tokens = ["GET ", "\\x0d\\x0a", "Host:", "HTTP/1.1"]
            .iter()
            .zip([12, 3, 2, 1])
            .map(|(token, entries)| TokenUse {
                token: token.to_string(),
                entries,
            })
            .collect();
        assert_eq!(
            status_line(&progress, 1, 1),
            format!("{plain} tokens: \"GET \" 12, \"\\x0d\\x0a\" 3, \"Host:\" 2")
                .replace("0 findings", "1 findings")
        );
    }

    #[test]
    fn the_status_line_of_several_workers_gives_the_rate_of_each() {
        let progress = Progress {
            execs: 400_000,
            elapsed_ms: 2_000,
            ..Progress::default()
        };
        let line = status_line(&progress, 4, 0);
        assert!(
            line.contains("200.0k/s") && line.contains("(4 workers, 50.0k/s each)"),
            "{line}"
        );
        assert!(!status_line(&progress, 1, 0).contains("workers"));
    }

    #[test]
    fn a_target_line_names_the_best_value_and_its_input() {
        let mut best = TargetBest {
            label: "ascending run".into(),
            value: 12.0,
            choices: vec![3, 4],
            args: vec![("data".into(), "[1, 2, 3]".into())],
        };
        assert_eq!(target_line(&best), "ascending run = 12 by data = [1, 2, 3]");
        best.args = vec![(
            "op".into(),
            "Push {\n    values: [\n        1,\n        2,\n    ],\n}".into(),
        )];
        assert_eq!(
            target_line(&best),
            "ascending run = 12 by op = Push { values: [1, 2] }"
        );
        best.args.clear();
        best.value = 0.5;
        assert_eq!(target_line(&best), "ascending run = 0.5 by choices [3, 4]");
    }

    #[test]
    fn counts_are_humane() {
        assert_eq!(human_count(999), "999");
        assert_eq!(human_count(12_345), "12.3k");
        assert_eq!(human_count(2_500_000), "2.5M");
    }
}
