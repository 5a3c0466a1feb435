//! # covcheck-rt
//!
//! Coverage-guided property testing for Rust: the runtime linked into your
//! test binaries. Write properties next to your tests:
//!
//! ```ignore
//! use covcheck_rt::covcheck;
//!
//! #[covcheck]
//! fn parse_round_trips(input: Vec<u8>) {
//!     if let Ok(value) = parse(&input) {
//!         assert_eq!(parse(&render(&value)), Ok(value));
//!     }
//! }
//! ```
//!
//! `cargo test` replays the property's saved seeds, then runs a burst of
//! random cases drawn with AFL's value heuristics; a failure is shrunk to a
//! minimal input, saved as a seed beside your source and reported with the
//! command that reruns it.
//!
//! ## How it is organised
//!
//! Everything works on one data model, the **choice sequence**
//! ([`choice`]): generators ([`generate`], [`generators`]) turn choices into
//! values through a [`Source`]; [`heuristics`] pick the choices of random
//! cases; [`property`] runs one case; [`shrink`] minimises a failing sequence;
//! [`store`] saves sequences as seed files; [`runner`] and [`harness`] put
//! these together for `cargo test`.

mod case_watch;
pub mod choice;
pub mod config;
mod coverage_gate;
#[cfg(feature = "campaign")]
pub mod engine;
pub mod generate;
pub mod generators;
pub mod harness;
pub mod heuristics;
mod info;
pub mod int;
pub mod property;
pub mod rng;
pub mod runner;
pub mod shrink;
pub mod source;
mod text;
mod watchdog;
mod worker;

pub use covcheck_macros::{Generate, covcheck};
pub use generate::{BoxedGenerator, Generate, Generator};
pub use property::assume;
pub use source::Source;

/// Items the macros expand to. Not a public API: it may change in any release.
#[doc(hidden)]
pub mod __private {
    pub use crate::config::Attributes;
    pub use crate::generate::{Generate, Generator};
    pub use crate::harness::run_test;
    pub use crate::info::{PropertyInfo, Target};
    pub use crate::source::{Source, label_of};
    pub use crate::worker::register;
}
