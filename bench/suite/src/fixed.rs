//! Fixed-length inputs, for `cargo xtask throughput`: the real-code targets
//! and a trivial one, fed [`LEN`] bytes on every execution whatever the
//! tool, so that executions per second compare the tools and not the
//! lengths of the inputs each one happens to draw.
//!
//! covcheck's harness takes a `[u8; LEN]`, which it always generates whole;
//! libFuzzer's pads or cuts its input to [`LEN`] bytes ([`padded`]), and is
//! run with `-max_len` at [`LEN`] and a seed of that length. Failures do not
//! count here ([`measure`]): a campaign that found a bug would stop, and a
//! throughput run has no bug to find.

use std::borrow::Cow;

use crate::probe;
use crate::targets::{format_string, length_prefixed, num_parse};

/// The length of every input.
pub const LEN: usize = crate::targets::FIXED_LEN;

/// `data` padded with zeros, or cut, to [`LEN`] bytes.
pub fn padded(data: &[u8]) -> [u8; LEN] {
    let mut bytes = [0; LEN];
    let n = data.len().min(LEN);
    bytes[..n].copy_from_slice(&data[..n]);
    bytes
}

/// Runs the fixed-length target named `target` (one of
/// [`crate::targets::FIXED`]) on `bytes`; false for an unknown name.
/// libFuzzer's harness picks the target by name; covcheck's calls the
/// functions below directly, one property each.
pub fn run(target: &str, bytes: &[u8; LEN]) -> bool {
    match target {
        "fixed_trivial" => trivial(bytes),
        "fixed_num_parse" => num_parse(bytes),
        "fixed_length_prefixed" => length_prefixed(bytes),
        "fixed_format_string" => format_string(bytes),
        _ => return false,
    }
    true
}

/// Nothing but the probe's count.
pub fn trivial(bytes: &[u8; LEN]) {
    std::hint::black_box(bytes);
    measure(Ok(()));
}

pub fn num_parse(bytes: &[u8; LEN]) {
    measure(num_parse::check(&text(bytes)));
}

pub fn length_prefixed(bytes: &[u8; LEN]) {
    measure(length_prefixed::check(bytes));
}

pub fn format_string(bytes: &[u8; LEN]) {
    measure(format_string::check(&text(bytes)));
}

/// The bytes as text, as the string targets take it (invalid UTF-8 becomes
/// U+FFFD, the same for every tool).
fn text(bytes: &[u8; LEN]) -> Cow<'_, str> {
    String::from_utf8_lossy(bytes)
}

/// Counts one execution with the probe, whatever its outcome.
fn measure(outcome: Result<(), String>) {
    std::hint::black_box(&outcome);
    let _ = probe::check(|| Ok(()), || LEN);
}
