//! The benchmark targets. Each has a `check` that returns `Err` only on its
//! bug, and a `size` used to score shrinking.

pub mod bsearch;
pub mod bst;
pub mod checksum;
pub mod dut;
pub mod float_window;
pub mod puzzle;
pub mod rbt;
pub mod ring;
pub mod rle;
pub mod shrinking;

include!("catalog.rs");
