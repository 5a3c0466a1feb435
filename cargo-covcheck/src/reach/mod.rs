//! What the campaigns reached: the data of `cargo covcheck report`.
//!
//! - [`series`]: each campaign's progress over time, recorded as it runs.
//! - [`symbols`]: coverage counters to source lines.
//! - [`measure`]: what each property's corpus cache and seeds reach, run
//!   in reach workers.
//! - [`baseline`]: what an earlier report reached (`report --baseline`).
//! - [`collect`]: from what the reach workers measured to the model.
//! - [`functions`]: which functions the properties reached.
//! - [`source_lines`]: what the source text says about lines: macro code,
//!   lines without code inside a statement.
//! - [`model`]: what the report is drawn from (by [`crate::report::site`]).

pub mod baseline;
pub mod collect;
pub mod functions;
pub mod measure;
pub mod model;
pub mod series;
pub mod source_lines;
pub mod symbols;
