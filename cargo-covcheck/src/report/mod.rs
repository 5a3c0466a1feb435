//! Everything `cargo covcheck` shows. The commands decide and emit
//! [`Event`]s ([`events`]); a [`Reporter`] shows them: [`HumanReporter`]
//! as status lines, reports and tables for people, [`JsonReporter`] as
//! `covcheck_protocol::messages` lines for tools. The text itself is made
//! by plain functions that return it ([`text`], [`minimize`], [`replay`]),
//! so that it can be snapshot-tested, and [`junit`] renders `replay` as
//! JUnit XML. [`coverage`] renders the coverage report of `cargo covcheck
//! report` (HTML pages with SVG plots, and `lcov.info`) from
//! [`crate::coverage::model`], and [`coverage_summary`] says what it holds.

pub mod coverage;
pub mod coverage_summary;
pub mod events;
pub mod human;
pub mod json;
pub mod junit;
pub mod minimize;
pub mod perf;
pub mod replay;
pub mod text;

pub use events::Event;
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
