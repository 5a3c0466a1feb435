//! End-to-end: `cargo covcheck` on a crate outside this workspace whose
//! properties fail in every way a worker can die, plus one that passes.
//!
//! One invocation, two jobs, a fixed RNG seed and an execution budget (no
//! wall-clock): every failure is reported with its kind and saved as a seed,
//! the other properties still complete, the passing property writes nothing,
//! and plain `cargo test` then fails on the saved panic seed.

use std::fs;
use std::path::PathBuf;

use covcheck_e2e::Fixture;
use serde_json::Value;

const PROPERTIES: &str = r#"
    use std::hint::black_box;

    #[covcheck]
    fn panics(x: u32) {
        assert!(x != 0xC0FFEE, "found the coffee");
    }

    #[covcheck]
    fn aborts(x: u32) {
        if x == 0xAB0A7 {
            std::process::abort();
        }
    }

    fn forever(n: u64) -> u64 {
        black_box(n) + forever(black_box(n + 1)) + 1
    }

    #[covcheck]
    fn overflows_the_stack(x: u32) {
        if x == 0x57AC4 {
            black_box(forever(u64::from(x)));
        }
    }

    #[covcheck]
    fn hangs(x: u32) {
        if x == 0x4A46 {
            loop {
                black_box(x);
            }
        }
    }

    #[covcheck]
    fn always_passes(x: u64) {
        black_box(x);
    }
"#;

#[test]
fn every_crash_kind_is_reported_and_saved_and_the_rest_completes() {
    let fixture = Fixture::new("crashes", PROPERTIES);
    let output = fixture.covcheck(&[
        "--runs",
        "200000",
        "--seed",
        "7",
        "-j",
        "2",
        "--timeout",
        "300ms",
        "--message-format",
        "json",
    ]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(
        output.status.code(),
        Some(1),
        "failures exit with 1:\n{stdout}\n{stderr}"
    );
    let events: Vec<Value> = stdout
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    let finding = |property: &str| -> &Value {
        events
            .iter()
            .find(|e| {
                e["event"] == "finding" && e["property"] == format!("crashes::tests::{property}")
            })
            .unwrap_or_else(|| panic!("no finding for {property}:\n{stdout}\n{stderr}"))
    };
    for (property, kind) in [
        ("panics", "panic"),
        ("aborts", "abort"),
        ("overflows_the_stack", "stack-overflow"),
        ("hangs", "timeout"),
    ] {
        let event = finding(property);
        assert_eq!(event["finding"]["kind"], kind, "{property}: {event}");
        let seed = PathBuf::from(event["seed"].as_str().expect("saved"));
        let text = fs::read_to_string(&seed).unwrap();
        assert!(text.contains("kind = \"failure\""), "{text}");
        assert!(
            seed.starts_with(fixture.seed_dir(property)),
            "{}",
            seed.display()
        );
        assert!(
            event["rerun"]
                .as_str()
                .unwrap()
                .contains(&format!("-- tests::{property} --exact")),
            "{event}"
        );
    }
    let coffee = &finding("panics")["finding"];
    assert_eq!(
        coffee["args"][0][1], "12648430",
        "shrunk to the value: {coffee}"
    );
    assert!(
        coffee["message"]
            .as_str()
            .unwrap()
            .contains("found the coffee")
    );

    let finished = events
        .iter()
        .find(|e| e["event"] == "finished" && e["property"] == "crashes::tests::always_passes")
        .expect("the passing property completes");
    assert_eq!(finished["findings"], 0);
    assert!(finished["execs"].as_u64().unwrap() >= 200_000, "{finished}");
    assert!(!fixture.seed_dir("always_passes").exists());

    // Plain `cargo test` replays the saved panic seed and fails on it.
    let (passed, text) = fixture.cargo(&["test", "--", "tests::panics", "--exact"]);
    assert!(!passed, "{text}");
    assert!(text.contains("failed on a saved seed"), "{text}");
    assert!(text.contains("found the coffee"), "{text}");
}
