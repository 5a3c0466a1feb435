//! Everything `cargo covcheck` shows, and nothing else: the files it
//! writes for display are rendered here too. The commands decide and emit
//! [`Event`]s ([`crate::events`]); a [`Reporter`] shows them:
//! [`HumanReporter`] as status lines, reports and tables for people,
//! [`JsonReporter`] as `covcheck_protocol::messages` lines for tools. The
//! text itself is made by plain functions that return it ([`text`],
//! [`minimize`], [`replay`]), so that it can be snapshot-tested, and
//! [`junit`] renders `replay` as JUnit XML. [`site`] renders the coverage
//! report of `cargo covcheck report` (HTML pages with SVG plots, and
//! `lcov.info`) from [`crate::reach::model`], and [`reach_summary`] says
//! what it holds; [`cost_plot`] draws performance mode's plot. Both draw
//! with [`svg`].

pub mod cost_plot;
pub mod escape;
pub mod human;
pub mod json;
pub mod junit;
pub mod minimize;
pub mod perf;
pub mod reach_summary;
pub mod replay;
pub mod site;
pub mod svg;
pub mod text;

pub use crate::events::Event;
pub use human::HumanReporter;
pub use json::JsonReporter;
pub use text::{finding_report, human_count, properties};

use crate::cli::MessageFormat;

/// Shows the events of a command, in the order they come.
pub trait Reporter {
    fn report(&mut self, event: Event<'_>);
}

/// The reporter of `--message-format`.
pub fn for_format(format: MessageFormat) -> Box<dyn Reporter> {
    match format {
        MessageFormat::Human => Box::new(HumanReporter::new()),
        MessageFormat::Json => Box::new(JsonReporter::new()),
    }
}
