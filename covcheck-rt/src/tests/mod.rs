//! Behaviour users rely on, checked through the runner's own API: the value
//! heuristics find classic edge cases, a burst is reproducible from its RNG
//! seed and stops on what it cannot test, and shrinking reaches exact minimal
//! values. (Properties as users write them are the integration tests in
//! `tests/`.)

mod heuristics;
mod runner;
mod shrinking;
pub(crate) mod stateful;
