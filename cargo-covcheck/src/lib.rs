//! `cargo covcheck`: builds a crate's tests with SanitizerCoverage, asks the
//! test binaries for their `#[covcheck]` properties and runs a coverage-guided
//! campaign per property in supervised worker processes.
//!
//! This library is the whole of the command; `main.rs` only parses the
//! arguments, dispatches to [`cmd`] and turns the result into an exit
//! status. It is not a stable API: tools read `covcheck_protocol` instead.
//!
//! Data flows one way: [`compile`] (instrumented build, and the campaign
//! engine library of [`engine`] beside it) → [`discover`]
//! (properties from the binaries) → [`supervise`] (workers, crash recovery,
//! seeds) → [`report`] (what the user sees). The same executable also serves
//! as cargo's rustc wrapper during the build ([`wrapper`]).
//!
//! The seed-suite commands use the same pieces: [`cmd::minimize`] (covering
//! seeds by set cover, on the instrumented build) and [`cmd::replay`] (every
//! seed as a test case, on the normal build), with [`suite_reach`]
//! between them.
//!
//! `--since <rev>` aims the campaigns at what a change touched: its lines,
//! and the coverage counters on them ([`changed`]).
//!
//! What can go wrong is typed in [`error`], and each way a command ends has
//! its documented exit status in [`exit`].
//!
//! Campaigns run on Linux only ([`platform`]). Elsewhere only the command
//! line ([`cli`]), the exit statuses and [`platform`] are built, so that
//! `cargo install` works and every command stops with a clear message.

#[cfg(target_os = "linux")]
pub mod atomic;
#[cfg(target_os = "linux")]
pub mod changed;
pub mod cli;
#[cfg(target_os = "linux")]
pub mod cmd;
#[cfg(target_os = "linux")]
pub mod compile;
#[cfg(target_os = "linux")]
pub mod discover;
#[cfg(target_os = "linux")]
pub mod engine;
#[cfg(target_os = "linux")]
pub mod error;
#[cfg(target_os = "linux")]
pub mod events;
pub mod exit;
#[cfg(target_os = "linux")]
pub mod instrument;
#[cfg(target_os = "linux")]
pub mod interrupt;
#[cfg(target_os = "linux")]
pub mod literals;
#[cfg(target_os = "linux")]
pub mod network;
#[cfg(target_os = "linux")]
pub mod perf;
pub mod platform;
#[cfg(target_os = "linux")]
pub mod reach;
#[cfg(target_os = "linux")]
pub mod report;
#[cfg(target_os = "linux")]
pub mod suite_reach;
#[cfg(target_os = "linux")]
pub mod supervise;
#[cfg(target_os = "linux")]
pub mod wrapper;
