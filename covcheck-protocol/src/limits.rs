//! Resource limits that the supervisor and the workers measure the same way.

use std::time::Duration;

/// The resident set of process `pid` in MiB, as `--rss-limit-mb` counts it
/// (0 once it is gone). Both the supervisor and a shrinking worker enforce
/// the limit with it.
pub fn resident_mb(pid: i32) -> u64 {
    let statm = std::fs::read_to_string(format!("/proc/{pid}/statm")).unwrap_or_default();
    let pages: u64 = statm
        .split_whitespace()
        .nth(1)
        .and_then(|p| p.parse().ok())
        .unwrap_or(0);
    pages * 4096 / (1024 * 1024)
}

/// How long one case may run before it counts as hung: 10 s, or
/// `COVCHECK_HANG_SECS`. Generous, since plain `cargo test` runs the
/// unoptimised test build; used by `cargo test` for every case and by
/// `cargo covcheck replay` for every seed.
pub fn hang_limit() -> Duration {
    let secs = std::env::var("COVCHECK_HANG_SECS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(10);
    Duration::from_secs(secs)
}

/// The failure message of an input past its property's cost bound
/// (`#[covcheck(max_cost = N)]`): one shape, written by the runtime and
/// recognised by the reports.
pub fn past_cost_bound(cost: u64, max_cost: u64) -> String {
    format!("the input cost {cost} edges executed, past the bound `max_cost = {max_cost}`")
}

/// Whether `message` is [`past_cost_bound`]'s.
pub fn is_past_cost_bound(message: &str) -> bool {
    message.starts_with("the input cost ") && message.contains("past the bound `max_cost")
}
