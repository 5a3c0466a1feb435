//! The lines a change touched, and the coverage counters of the test
//! binaries that cover them: what `cargo covcheck --since <rev>` aims its
//! campaigns at.
//!
//! A change is reviewed by its lines, but a campaign is steered by
//! coverage counters, one per basic block of one test binary. So the
//! change is read from git as lines ([`diff`]), the counters with code on
//! those lines are found in each binary's debug information as the report
//! finds them ([`counters`]), and what the properties' corpora already
//! reach of them ([`crate::reach::measure::corpus_reach`], on the
//! campaigns' own build, whose counters are the campaigns') says which
//! property to run first and which changed lines no property has run yet
//! ([`mod@aim`]).
//!
//! - [`diff`]: the changed lines of the work tree since a revision.
//! - [`counters`]: one binary's counters on them.
//! - [`mod@aim`]: per binary and per property, what is changed and reached.

pub mod aim;
pub mod counters;
pub mod diff;

pub use crate::reach::measure::corpus_reach;
pub use aim::{Aim, aim};
pub use counters::{ChangedCode, changed_counters};
pub use diff::{ChangedLines, changed_lines};
