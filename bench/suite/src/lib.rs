//! The benchmark suite of `cargo xtask bench`: buggy functions, each with a
//! check that fails only on its bug, written against plain Rust data
//! (vectors, tuples, integers) so that every tool generates inputs with its
//! own default strategies. The integration tests (`tests/*.rs`) are the
//! harnesses: one property per target and tool.
//!
//! - [`bug`]: which injected bug is on (`BENCH_BUG`); all are off by default.
//!   `bench/witnesses` shows each bug reachable with it on and absent with
//!   it off, from a package of its own: the campaign's dictionary reads the
//!   literals of the suite's package, tests included, and a witness's
//!   input would hand it the answer.
//! - [`fixed`]: fixed-length forms of the real-code targets, for measuring
//!   executions per second.
//! - [`probe`]: counts executions and reports the first failure and the size
//!   of the last failing input, the same way for every tool.
//! - [`targets`]: the buggy functions.
//! - [`unwind`]: turns a panic in a real crate's code into a check's failure.

pub mod bug;
pub mod fixed;
pub mod probe;
pub mod targets;
pub mod unwind;
