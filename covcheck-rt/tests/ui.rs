//! Compile errors for unsupported property signatures: each message must
//! point at the offending token and say what to do.

#[test]
fn unsupported_signatures_are_rejected() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("tests/ui/*.rs");
}
