//! End-to-end: an `async` property is a property like any other: a
//! campaign finds its bug behind an `.await`, shrinks and saves it, and
//! plain `cargo test` then fails on the seed.

use covcheck_e2e::{Fixture, events, findings, text_of};

const ASYNC_BUG: &str = r#"
    async fn lookup(key: u32) -> Option<u32> {
        // Awaits like a store's client would, then answers.
        async {}.await;
        (key != 0x5EED_0042).then_some(key)
    }

    #[covcheck]
    async fn every_key_is_found(key: u32) {
        assert!(lookup(key).await.is_some(), "key {key:#x} lost");
    }
"#;

#[test]
fn an_async_property_is_campaigned_shrunk_saved_and_replayed() {
    let fixture = Fixture::new("async_property", ASYNC_BUG);
    let output = fixture.covcheck(&[
        "--runs",
        "200000",
        "--seed",
        "1",
        "--no-resume",
        "--message-format",
        "json",
    ]);
    let messages = events(&output.stdout);
    let found = findings(&messages);
    assert_eq!(found.len(), 1, "{}", text_of(&output));
    assert!(found[0].finding.message.contains("key 0x5eed0042 lost"));
    assert_eq!(found[0].first_arg(), "1592590402");
    assert_eq!(fixture.seeds("every_key_is_found").len(), 1);
    let (passed, text) = fixture.cargo(&[
        "test",
        "--lib",
        "--",
        "--exact",
        "tests::every_key_is_found",
    ]);
    assert!(!passed, "cargo test fails on the saved seed: {text}");
    assert!(text.contains("key 0x5eed0042 lost"), "{text}");
}
