//! The lines a change touched, and the coverage counters of the test
//! binaries that cover them: what `cargo covcheck --since <rev>` aims its
//! campaigns at.
//!
//! - [`diff`]: the changed lines of the work tree since a revision.
//! - [`counters`]: one binary's counters on them.

pub mod counters;
pub mod diff;

pub use counters::{ChangedCode, changed_counters};
pub use diff::{ChangedLines, changed_lines};
