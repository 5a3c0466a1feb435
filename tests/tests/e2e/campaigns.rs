//! End-to-end: `cargo covcheck` on a crate outside this workspace whose
//! properties fail in every way a worker can die, plus one that passes.
//!
//! One invocation, two jobs, a fixed RNG seed and an execution budget (no
//! wall-clock): every failure is reported with its kind and saved as a seed,
//! the other properties still complete, the passing property writes nothing,
//! and plain `cargo test` then fails on the saved panic seed.

use covcheck_e2e::{Fixture, finding_for, finished, read_seed};
use covcheck_protocol::messages::FailureKind;
use covcheck_protocol::seeds::SeedKind;

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
    let events = covcheck_e2e::events(&output.stdout);
    let finding = |property: &str| finding_for(&events, &format!("crashes::tests::{property}"));
    for (property, kind) in [
        ("panics", FailureKind::Panic),
        ("aborts", FailureKind::Abort),
        ("overflows_the_stack", FailureKind::StackOverflow),
        ("hangs", FailureKind::Timeout),
    ] {
        let event = finding(property);
        assert_eq!(event.finding.kind, kind, "{property}: {event:?}");
        let seed = event.saved_seed();
        assert_eq!(read_seed(seed).file.kind, SeedKind::Failure, "{event:?}");
        assert!(
            seed.starts_with(fixture.seed_dir(property)),
            "{}",
            seed.display()
        );
        assert!(
            event
                .rerun
                .contains(&format!("-- tests::{property} --exact")),
            "{event:?}"
        );
    }
    let coffee = finding("panics");
    assert_eq!(
        coffee.first_arg(),
        "12648430",
        "shrunk to the value: {coffee:?}"
    );
    assert!(coffee.finding.message.contains("found the coffee"));

    let (execs, findings) =
        finished(&events, "crashes::tests::always_passes").expect("the passing property completes");
    assert_eq!(findings, 0);
    assert!(execs >= 200_000, "{execs}");
    assert!(!fixture.seed_dir("always_passes").exists());

    // Plain `cargo test` replays the saved panic seed and fails on it.
    let (passed, text) = fixture.cargo(&["test", "--", "tests::panics", "--exact"]);
    assert!(!passed, "{text}");
    assert!(text.contains("failed on a saved seed"), "{text}");
    assert!(text.contains("found the coffee"), "{text}");
}
