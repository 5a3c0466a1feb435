//! End-to-end: an `async` property is a property like any other: a
//! campaign finds its bug behind an `.await`, shrinks and saves it, and
//! plain `cargo test` then fails on the seed. On covcheck's own executor,
//! and with the `tokio` feature over a tokio channel and a spawned task.

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

const TOKIO_MANIFEST: &str = r#"[package]
name = "async_tokio"
version = "0.1.0"
edition = "2021"

[dev-dependencies]
covcheck-rt = { path = "{covcheck-rt}", features = ["tokio"] }
tokio = { version = "1", default-features = false, features = ["rt", "sync"] }

[workspace]
"#;

const TOKIO_RELAY: &str = r#"
#[cfg(test)]
mod tests {
    use covcheck_rt::covcheck;

    /// Sends `values` through a channel from a spawned task, and collects
    /// what arrives. The bug: the producer skips 0xAB.
    async fn relay(values: Vec<u8>) -> Vec<u8> {
        let (tx, mut rx) = tokio::sync::mpsc::channel(2);
        let producer = tokio::spawn(async move {
            for value in values {
                if value != 0xAB {
                    tx.send(value).await.unwrap();
                }
                tokio::task::yield_now().await;
            }
        });
        let mut received = Vec::new();
        while let Some(value) = rx.recv().await {
            received.push(value);
        }
        producer.await.unwrap();
        received
    }

    #[covcheck]
    async fn the_relay_loses_nothing(values: Vec<u8>) {
        assert_eq!(relay(values.clone()).await, values);
    }
}
"#;

#[test]
fn an_async_property_over_a_tokio_channel_is_campaigned_shrunk_and_replayed() {
    let fixture = Fixture::workspace(
        "async_tokio",
        &[("Cargo.toml", TOKIO_MANIFEST), ("src/lib.rs", TOKIO_RELAY)],
    );
    let output = fixture.covcheck(&[
        "--runs",
        "100000",
        "--seed",
        "1",
        "--no-resume",
        "--message-format",
        "json",
    ]);
    let messages = events(&output.stdout);
    let found = findings(&messages);
    assert_eq!(found.len(), 1, "{}", text_of(&output));
    assert_eq!(found[0].first_arg(), "[171]", "shrunk to the value skipped");
    let (passed, text) = fixture.cargo(&["test", "--lib"]);
    assert!(!passed, "cargo test fails on the saved seed: {text}");
    assert!(text.contains("values = [171]"), "{text}");
}
