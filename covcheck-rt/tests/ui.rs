//! Compile errors for unsupported property signatures: each message must
//! point at the offending token and say what to do.
//!
//! trybuild builds each case as a binary, not a test, so the `#[test]` a
//! property expands to is compiled out: only the macro's own errors show
//! here. A type that covcheck cannot generate shows through a derived
//! field (`unsupported_field.rs`, the `Generate` trait's notes); the same
//! notes on a property argument are checked by the end-to-end test
//! `tests/tests/outside_crate.rs`, which runs `cargo test` on a crate.

#[test]
fn unsupported_signatures_are_rejected() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("tests/ui/*.rs");
}
