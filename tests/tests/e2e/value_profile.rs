//! End-to-end: `--value-profile` on the bundled `examples/hashed_tag`, whose
//! bug hides behind a rolling hash of the input compared with a constant.
//! With the compare-distance signal the campaign climbs to the constant
//! and finds the bug; the same campaign without it (same RNG seed, same
//! budget) does not, as neither coverage nor input-to-state opens the gate.

use covcheck_e2e::Fixture;

#[test]
fn compare_distance_opens_a_gate_that_coverage_does_not() {
    let fixture = Fixture::from_example("hashed_tag");
    let run = |extra: &[&str]| {
        let output = fixture.budgeted_campaign(100_000, extra);
        (output.status.code(), covcheck_e2e::text_of(&output))
    };

    let (code, text) = run(&["--value-profile"]);
    assert_eq!(code, Some(1), "{text}");
    assert!(text.contains("a message filed into the archive"), "{text}");

    let (code, text) = run(&[]);
    assert_eq!(code, Some(0), "not found without it: {text}");
}
