//! The reporter for people. `run` shows a live status line per running
//! property on a terminal outside CI (periodic plain lines otherwise), each
//! finding's report and the summary table, on stderr; `list`, `minimize`
//! and `replay` print their results on stdout, as `cargo test` does.

use std::io::IsTerminal;
use std::time::{Duration, Instant};

use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};

use super::{Reporter, minimize, reach_summary, replay, text};
use crate::discover::Property;
use crate::events::{Event, Update};

/// How often plain (non-terminal) output prints a status line per property.
const PLAIN_EVERY: Duration = Duration::from_secs(5);

#[derive(Default)]
pub struct HumanReporter {
    /// The display of a run's campaigns, once they start.
    live: Option<Live>,
}

/// What the live display of the campaigns remembers, per property.
struct Live {
    /// On a terminal, a status line (spinner) per running property.
    bars: Option<(MultiProgress, Vec<Option<ProgressBar>>)>,
    /// Otherwise, when each property's last plain status line was printed.
    last_plain: Vec<Option<Instant>>,
    /// The findings reported so far, for the status line.
    findings: Vec<usize>,
}

impl HumanReporter {
    pub fn new() -> HumanReporter {
        HumanReporter::default()
    }
}

impl Reporter for HumanReporter {
    fn report(&mut self, event: Event<'_>) {
        match event {
            Event::NothingMatched { filter } => eprintln!("{}", text::nothing_matched(filter)),
            Event::NoDictionary(error) => eprintln!("warning: no campaign dictionary: {error}"),
            Event::Warning(warning) => eprintln!("warning: {warning}"),
            Event::EngineDamaged(damage) => {
                eprintln!(
                    "warning: the cached campaign engine is damaged: {damage}; rebuilding it"
                );
            }
            Event::EngineBuilding { dir } => eprintln!("{}", text::engine_building(dir)),
            Event::Listed {
                property,
                seeds,
                unreadable,
            } => {
                let noun = if seeds == 1 { "seed" } else { "seeds" };
                println!("{}  ({seeds} {noun})", property.listing.full_path);
                for error in unreadable {
                    eprintln!("warning: {error}");
                }
            }
            Event::CampaignsStarting {
                properties,
                jobs,
                seed,
            } => {
                eprintln!("{}", text::campaigns_starting(properties, jobs, seed));
                self.live = Some(Live::new(properties));
            }
            Event::Network(network) => eprintln!("{}", text::network(network)),
            Event::Campaign {
                index,
                property,
                update,
            } => {
                if let Some(live) = &mut self.live {
                    live.update(index, property, update);
                }
            }
            Event::CampaignsFinished(summary) => eprintln!("{}", text::summary_table(summary)),
            Event::Aimed(change) => eprintln!("{}", text::aimed(change)),
            Event::ChangeReached(change) => eprintln!("{}", text::change_reached(change)),
            Event::Minimized(minimized) => print!("{}", minimize::block(minimized)),
            Event::SeedReplayed { property, seed } => {
                println!("{}", replay::verdict(property, &seed));
            }
            Event::ReplayFinished(summary) => print!("{}", replay::summary(summary)),
            Event::JunitWritten(path) => println!("JUnit report: {}", path.display()),
            Event::CoverageWritten(written) => print!("{}", reach_summary::summary(written)),
        }
    }
}

impl Live {
    /// Status lines redrawn in place on a terminal, but not in CI even on
    /// one (runners that give the job a pseudo-terminal): each redraw would
    /// stay in the log. Cargo's progress bar is off there by the same test.
    fn new(properties: usize) -> Live {
        let live = std::io::stderr().is_terminal() && !cargo_util::is_ci();
        let bars = live.then(|| {
            let multi = MultiProgress::with_draw_target(ProgressDrawTarget::stderr());
            (multi, vec![None; properties])
        });
        Live {
            bars,
            last_plain: vec![None; properties],
            findings: vec![0; properties],
        }
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

    fn update(&mut self, i: usize, property: &Property, update: Update) {
        let name = &property.listing.full_path;
        match update {
            Update::Started => self.started(i, name),
            Update::Resumed { read, kept } => {
                self.println(&format!("covcheck: {name}: {}", text::resumed(read, kept)));
            }
            Update::Progress {
                progress,
                workers,
                last_new,
            } => {
                let mut line = text::status_line(&progress, workers, self.findings[i]);
                if let Some(at) = last_new {
                    line.push_str(&format!(", last new at {:.1}s", at.as_secs_f64()));
                }
                if let Some((_, bars)) = &self.bars {
                    if let Some(bar) = &bars[i] {
                        bar.set_message(line);
                    }
                } else if self.last_plain[i].is_none_or(|t| t.elapsed() >= PLAIN_EVERY) {
                    self.last_plain[i] = Some(Instant::now());
                    eprintln!("covcheck: {name}: {line}");
                }
            }
            Update::KnownFailure { seed, location } => self.println(&format!(
                "covcheck: {name}: {}",
                text::known_failure(&seed, &location)
            )),
            Update::Crashed(kind) => self.println(&format!(
                "covcheck: {name}: the worker died ({}); reproducing and shrinking its input",
                kind.describe()
            )),
            Update::Finding(reported) => {
                self.findings[i] += 1;
                self.println(&text::finding_report(property, &reported));
            }
            Update::Warning(message) => self.println(&format!("warning: {name}: {message}")),
            Update::FoundElsewhere(found) => {
                self.println(&format!(
                    "covcheck: {name}: {}",
                    text::found_elsewhere(&found)
                ));
            }
            Update::HubLost(address) => {
                self.println(&format!("error: {name}: {}", text::hub_lost(&address)));
            }
            Update::Error(error) => self.println(&format!("error: {name}: {error}")),
            Update::Finished(_) => {
                if let Some((_, bars)) = &mut self.bars
                    && let Some(bar) = bars[i].take()
                {
                    bar.finish_and_clear();
                }
            }
        }
    }

    fn started(&mut self, i: usize, name: &str) {
        if let Some((multi, bars)) = &mut self.bars {
            let bar = multi.add(ProgressBar::new_spinner());
            bar.set_style(
                ProgressStyle::with_template("{spinner} {prefix:.bold} {msg}")
                    .expect("valid template"),
            );
            bar.set_prefix(name.to_string());
            bar.set_message("starting");
            bar.enable_steady_tick(Duration::from_millis(120));
            bars[i] = Some(bar);
        } else {
            eprintln!("covcheck: {name}: started");
        }
    }
}
