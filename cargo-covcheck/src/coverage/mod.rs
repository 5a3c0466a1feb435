//! What the campaigns reached: the data of `cargo covcheck report`.
//!
//! - [`series`]: each campaign's progress over time, recorded as it runs.
//! - [`symbols`]: coverage counters to source lines.
//! - [`collect`]: from what the reach workers measured to the model.
//! - [`model`]: what the report is drawn from (by [`crate::report::coverage`]).

pub mod collect;
pub mod model;
pub mod series;
pub mod symbols;
