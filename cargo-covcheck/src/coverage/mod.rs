//! What the campaigns reached: the data of `cargo covcheck report`.
//!
//! [`model`] is what the report is drawn from.

pub mod model;
