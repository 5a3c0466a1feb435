//! End-to-end: bugs that need long inputs are reachable, and the seeds that
//! show them keep failing under plain `cargo test`, whose default size limit
//! (100 elements) is far smaller than a campaign's.

use covcheck_e2e::Fixture;

/// An encoder of runs whose count is one byte: a run of more than 255
/// equal bytes wraps around.
const RUNS: &str = r#"
    fn encode(data: &[u8]) -> Vec<(u8, u8)> {
        let mut out: Vec<(u8, u8)> = Vec::new();
        for &byte in data {
            match out.last_mut() {
                Some((b, count)) if *b == byte => *count = count.wrapping_add(1),
                _ => out.push((byte, 1)),
            }
        }
        out
    }

    fn decode(runs: &[(u8, u8)]) -> Vec<u8> {
        runs.iter()
            .flat_map(|&(b, n)| std::iter::repeat_n(b, usize::from(n)))
            .collect()
    }

    #[covcheck]
    fn runs_round_trip(data: Vec<u8>) {
        assert_eq!(decode(&encode(&data)), data);
    }
"#;

#[test]
fn a_bug_that_needs_a_run_of_256_bytes_is_found_and_stays_caught() {
    let fixture = Fixture::new("long_runs", RUNS);
    let output = fixture.covcheck(&[
        "--runs",
        "300000",
        "--seed",
        "1",
        "--message-format",
        "json",
    ]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stdout}\n{stderr}");
    let events = covcheck_e2e::events(&output.stdout);
    let finding = covcheck_e2e::findings(&events)
        .into_iter()
        .next()
        .expect("found");
    let data = finding.first_arg();
    assert!(
        data.matches(',').count() >= 255,
        "shrunk, but still a run past 255: {data}"
    );
    let seed = covcheck_e2e::read_seed(finding.saved_seed());
    assert_eq!(seed.file.size, Some(4096), "{seed:?}");

    // Plain `cargo test` replays it under the limit it was found under, not
    // cut to its own default of 100 elements, so it fails.
    let (passed, text) = fixture.cargo(&["test"]);
    assert!(!passed, "{text}");
    assert!(text.contains("failed on a saved seed"), "{text}");
}

#[test]
fn a_seed_found_under_a_larger_size_replays_under_it() {
    let fixture = Fixture::new(
        "sized",
        "    #[covcheck]\n    fn short(v: Vec<u8>) {\n        assert!(v.len() < 150);\n    }",
    );
    // Found with a size limit of 300 (plain `cargo test`, fixed RNG seed).
    let (passed, text) = fixture.cargo_with_env(
        &["test", "--quiet"],
        &[("COVCHECK_SIZE", "300"), ("COVCHECK_SEED", "1")],
    );
    assert!(!passed, "found:\n{text}");
    let seeds = fixture.seeds("short");
    assert_eq!(seeds.len(), 1, "{text}");
    assert_eq!(seeds[0].file.size, Some(300), "{:?}", seeds[0]);

    // The default limit (100) would cut it to 100 elements and pass.
    let (passed, text) = fixture.cargo(&["test"]);
    assert!(!passed, "{text}");
    assert!(text.contains("failed on a saved seed"), "{text}");
    assert!(!text.contains("warning: seed"), "no drift warning: {text}");
}
