//! Everything `cargo covcheck run` prints: live status (a line per running
//! property on a terminal, periodic plain lines otherwise, or JSON events),
//! the report of each finding, and the summary table. The supervisor only
//! sends [`Update`]s; how they look is decided here.

use std::io::IsTerminal;
use std::time::{Duration, Instant};

use covcheck_protocol::messages::Message;
use covcheck_protocol::worker::{FailureKind, Progress};
use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::cli::MessageFormat;
use crate::discover::Property;
use crate::exit::Outcome;
use crate::supervise::{Reported, Summary, Update};

/// How often plain (non-terminal) output prints a status line per property.
const PLAIN_EVERY: Duration = Duration::from_secs(5);

pub struct Reporter<'a> {
    format: MessageFormat,
    properties: &'a [Property],
    bars: Option<(MultiProgress, Vec<Option<ProgressBar>>)>,
    last_plain: Vec<Option<Instant>>,
    results: Vec<Row>,
}

#[derive(Clone, Default)]
struct Row {
    summary: Option<Summary>,
    failures: Vec<FailureKind>,
    errors: usize,
}

impl<'a> Reporter<'a> {
    pub fn new(format: MessageFormat, properties: &'a [Property]) -> Self {
        let bars = (format == MessageFormat::Human && std::io::stderr().is_terminal()).then(|| {
            let multi = MultiProgress::with_draw_target(ProgressDrawTarget::stderr());
            (multi, vec![None; properties.len()])
        });
        Reporter {
            format,
            properties,
            bars,
            last_plain: vec![None; properties.len()],
            results: vec![Row::default(); properties.len()],
        }
    }

    fn name(&self, index: usize) -> &str {
        &self.properties[index].listing.full_path
    }

    /// Prints a block of text above the status lines.
    fn println(&self, text: &str) {
        match &self.bars {
            Some((multi, _)) => {
                let _ = multi.println(text);
            }
            None => eprintln!("{text}"),
        }
    }

    pub fn handle(&mut self, update: Update) {
        if self.format == MessageFormat::Json {
            self.json(&update);
        }
        match update {
            Update::Started(i) => {
                if let Some((multi, bars)) = &mut self.bars {
                    let bar = multi.add(ProgressBar::new_spinner());
                    bar.set_style(
                        ProgressStyle::with_template("{spinner} {prefix:.bold} {msg}")
                            .expect("valid template"),
                    );
                    bar.set_prefix(self.properties[i].listing.full_path.clone());
                    bar.set_message("starting");
                    bar.enable_steady_tick(Duration::from_millis(120));
                    bars[i] = Some(bar);
                } else if self.format == MessageFormat::Human {
                    eprintln!("covcheck: {}: started", self.name(i));
                }
            }
            Update::Progress(i, progress) => {
                let line = status_line(&progress, self.results[i].failures.len());
                if let Some((_, bars)) = &self.bars {
                    if let Some(bar) = &bars[i] {
                        bar.set_message(line);
                    }
                } else if self.format == MessageFormat::Human
                    && self.last_plain[i].is_none_or(|t| t.elapsed() >= PLAIN_EVERY)
                {
                    self.last_plain[i] = Some(Instant::now());
                    eprintln!("covcheck: {}: {line}", self.name(i));
                }
            }
            Update::Crashed(i, kind) => {
                if self.format == MessageFormat::Human {
                    self.println(&format!(
                        "covcheck: {}: the worker died ({}); reproducing and shrinking its input",
                        self.name(i),
                        kind.describe()
                    ));
                }
            }
            Update::Finding(i, reported) => {
                self.results[i].failures.push(reported.finding.kind);
                if self.format == MessageFormat::Human {
                    self.println(&finding_report(&self.properties[i], &reported));
                }
            }
            Update::Warning(i, message) => {
                if self.format == MessageFormat::Human {
                    self.println(&format!("warning: {}: {message}", self.name(i)));
                }
            }
            Update::Error(i, message) => {
                self.results[i].errors += 1;
                if self.format == MessageFormat::Human {
                    self.println(&format!("error: {}: {message}", self.name(i)));
                }
            }
            Update::Finished(i, summary) => {
                if let Some((_, bars)) = &mut self.bars
                    && let Some(bar) = bars[i].take()
                {
                    bar.finish_and_clear();
                }
                self.results[i].summary = Some(summary);
            }
        }
    }

    fn json(&self, update: &Update) {
        let property = |i: &usize| self.name(*i).to_string();
        let message = match update {
            Update::Started(i) => Message::Started {
                property: property(i),
            },
            Update::Progress(i, p) => Message::Status {
                property: property(i),
                progress: *p,
            },
            Update::Crashed(i, kind) => Message::WorkerDied {
                property: property(i),
                kind: *kind,
            },
            Update::Finding(i, r) => Message::Finding {
                property: property(i),
                finding: r.finding.clone(),
                seed: r.seed.as_ref().ok().cloned(),
                seed_error: r.seed.as_ref().err().map(ToString::to_string),
                rerun: self.properties[*i].rerun_command(),
            },
            Update::Error(i, error) => Message::Error {
                property: property(i),
                message: error.to_string(),
            },
            Update::Warning(i, message) => Message::Warning {
                property: property(i),
                message: message.clone(),
            },
            Update::Finished(i, s) => Message::Finished {
                property: property(i),
                execs: s.execs,
                edges: s.edges,
                corpus: s.corpus,
                elapsed_ms: s.elapsed.as_millis() as u64,
                findings: s.findings,
            },
        };
        println!("{}", message.to_line());
    }

    /// Prints the summary table (human format) and returns how the run went;
    /// `interrupted` names the signal that cut the run short, if one did.
    pub fn finish(self, interrupted: Option<&str>) -> Outcome {
        let outcome = Outcome::of(
            self.results.iter().any(|r| !r.failures.is_empty()),
            self.results.iter().any(|r| r.errors > 0),
        );
        let failed = outcome != Outcome::Passed;
        if self.format == MessageFormat::Human {
            let width = self
                .properties
                .iter()
                .map(|p| p.listing.full_path.len())
                .max()
                .unwrap_or(8)
                .max(8);
            let mut table = format!(
                "\n{:width$}  {:<24} {:>10} {:>9} {:>6} {:>6} {:>7}\n",
                "property", "result", "execs", "exec/s", "edges", "corpus", "time"
            );
            for (property, row) in self.properties.iter().zip(&self.results) {
                let summary = row.summary.clone().unwrap_or_default();
                let result = if !row.failures.is_empty() {
                    let kinds: Vec<&str> = row.failures.iter().map(|k| k.describe()).collect();
                    format!("FAILED ({})", kinds.join(", "))
                } else if row.errors > 0 {
                    "ERROR".to_string()
                } else {
                    "ok".to_string()
                };
                let secs = summary.elapsed.as_secs_f64();
                table.push_str(&format!(
                    "{:width$}  {:<24} {:>10} {:>9} {:>6} {:>6} {:>6.1}s\n",
                    property.listing.full_path,
                    result,
                    human_count(summary.execs),
                    human_count(if secs > 0.0 {
                        (summary.execs as f64 / secs) as u64
                    } else {
                        0
                    }),
                    summary.edges,
                    summary.corpus,
                    secs,
                ));
            }
            let failures: usize = self.results.iter().map(|r| r.failures.len()).sum();
            let verdict = match interrupted {
                Some(signal) => format!(
                    ": interrupted by {signal}; the corpus cache is kept and the next run resumes from it"
                ),
                None if failed => String::new(),
                None => ": all passed".to_string(),
            };
            table.push_str(&format!(
                "\n{}, {} failure(s){verdict}",
                properties(self.properties.len()),
                failures,
            ));
            eprintln!("{table}");
        } else if let Some(signal) = interrupted {
            let message = Message::Interrupted {
                signal: signal.to_string(),
            };
            println!("{}", message.to_line());
        }
        outcome
    }
}

fn status_line(p: &Progress, findings: usize) -> String {
    let secs = p.elapsed_ms as f64 / 1000.0;
    let rate = if secs > 0.0 {
        p.execs as f64 / secs
    } else {
        0.0
    };
    format!(
        "{secs:>6.1}s {:>8} execs {:>8}/s {:>5} edges {:>5} corpus {findings} findings",
        human_count(p.execs),
        human_count(rate as u64),
        p.edges,
        p.corpus
    )
}

/// "1 property", "2 properties".
pub fn properties(count: usize) -> String {
    if count == 1 {
        "1 property".to_string()
    } else {
        format!("{count} properties")
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

/// The report of one finding: what a developer needs to reproduce and fix it.
pub fn finding_report(property: &Property, reported: &Reported) -> String {
    let f = &reported.finding;
    let mut out = format!(
        "\nFAILED {} ({}) after {} executions\n",
        property.listing.full_path,
        f.kind.describe(),
        f.execs_to_find
    );
    if f.args.is_empty() {
        out.push_str(&format!("  Failing input (choices): {:?}\n", f.choices));
    } else {
        out.push_str(&format!(
            "  Minimal failing input (shrunk in {} runs):\n",
            f.shrink_runs
        ));
        for (name, value) in &f.args {
            let value = value.replace('\n', "\n      ");
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
    match f.kind {
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
        Ok(path) => out.push_str(&format!("  Saved seed: {}\n", path.display())),
        Err(problem) => out.push_str(&format!("  Seed: {problem}\n")),
    }
    out.push_str(&format!("  Reproduce:  {}\n", property.rerun_command()));
    out
}

fn capitalize(text: &str) -> String {
    let mut chars = text.chars();
    chars
        .next()
        .map(|c| c.to_uppercase().collect::<String>() + chars.as_str())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_are_humane() {
        assert_eq!(human_count(999), "999");
        assert_eq!(human_count(12_345), "12.3k");
        assert_eq!(human_count(2_500_000), "2.5M");
    }
}
