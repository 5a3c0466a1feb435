//! End-to-end: stateful properties, on the bundled examples (built here
//! from a copy, as a user's crate). `examples/kv_store`'s campaign finds the
//! entry lost by a delete after a resize, shrinks it to a few commands and
//! saves it; plain `cargo test` fails on the seed; and the test the report
//! prints, pasted beside the property, fails the same way.
//! `examples/counter_race`'s sequential property never fails under a
//! campaign, and its parallel one reports nothing but linearizability
//! failures (whether a race shows up in a given run is up to the
//! scheduler, so the finding itself is measured by `cargo xtask stateful`,
//! not asserted here).

use covcheck_e2e::{Fixture, events, finding_for, findings, finished, text_of};

const KV_PROPERTY: &str = "kv_store::tests::the_store_behaves_like_a_map";

/// The commands of a rendered `Commands` value.
fn commands_in(rendering: &str) -> usize {
    ["Put", "Get", "Delete"]
        .iter()
        .map(|kind| rendering.matches(kind).count())
        .sum()
}

#[test]
fn a_stateful_campaign_finds_shrinks_saves_and_prints_a_test_that_reproduces() {
    let fixture = Fixture::from_example("kv_store");
    let output = fixture.covcheck(&[
        "--runs",
        "200000",
        "--seed",
        "1",
        "--no-resume",
        "--message-format",
        "json",
    ]);
    let text = text_of(&output);
    assert_eq!(output.status.code(), Some(1), "{text}");
    let messages = events(&output.stdout);
    let found = finding_for(&messages, KV_PROPERTY);
    let message = &found.finding.message;
    assert!(message.contains(" is lost"), "{message}");
    let commands = commands_in(found.first_arg());
    assert!(
        (4..=5).contains(&commands),
        "shrunk to a few commands: {}",
        found.first_arg()
    );
    assert_eq!(fixture.seeds("the_store_behaves_like_a_map").len(), 1);

    let (passed, replayed) = fixture.cargo(&["test", "--lib"]);
    assert!(!passed, "cargo test fails on the saved seed: {replayed}");
    assert!(replayed.contains(" is lost"), "{replayed}");

    // The printed test, pasted into the property's module as it is.
    let test = &message[message.find("#[test]").expect("a test is printed")..];
    let lib = fixture.path().join("src/lib.rs");
    let source = std::fs::read_to_string(&lib).unwrap();
    let pasted = source.replacen("mod tests {", &format!("mod tests {{\n{test}\n"), 1);
    std::fs::write(&lib, pasted).unwrap();
    let (passed, reproduced) = fixture.cargo(&[
        "test",
        "--lib",
        "--",
        "--exact",
        "tests::reproduces_the_failure",
    ]);
    assert!(!passed, "the pasted test fails: {reproduced}");
    assert!(reproduced.contains(" is lost"), "{reproduced}");
}

#[test]
fn a_parallel_campaign_reports_only_linearizability_failures_and_a_sequential_one_none() {
    let fixture = Fixture::from_example("counter_race");
    let sequential = "counter_race::tests::one_thread_counts_every_hit";
    let parallel = "counter_race::tests::concurrent_hits_are_linearizable";
    let output = fixture.covcheck(&[
        "one_thread_counts_every_hit",
        "--runs",
        "20000",
        "--seed",
        "1",
        "--no-resume",
        "--no-save",
        "--message-format",
        "json",
    ]);
    let text = text_of(&output);
    assert_eq!(output.status.code(), Some(0), "{text}");
    let messages = events(&output.stdout);
    assert_eq!(
        finished(&messages, sequential).map(|f| f.1),
        Some(0),
        "{text}"
    );

    let output = fixture.covcheck(&[
        "concurrent_hits_are_linearizable",
        "--runs",
        "2000",
        "--seed",
        "1",
        "--no-resume",
        "--no-save",
        "--message-format",
        "json",
    ]);
    let text = text_of(&output);
    let messages = events(&output.stdout);
    assert!(
        finished(&messages, parallel).is_some(),
        "the campaign ran to its end: {text}"
    );
    for found in findings(&messages) {
        assert!(
            found
                .finding
                .message
                .starts_with("the threads' results are not linearizable"),
            "{text}"
        );
    }
    assert!(matches!(output.status.code(), Some(0 | 1)), "{text}");
}
