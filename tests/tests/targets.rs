//! End-to-end: the instrumented build links and runs whatever test targets
//! a real crate declares beside its properties.
//!
//! - A `[[test]]` with `harness = false` (datatest, libtest-mimic and
//!   custom-runner tests): cargo builds it without `--crate-type` nor
//!   `--test`, and it links the instrumented library, so it needs the
//!   weak callbacks too.

use std::fs;

use covcheck_e2e::{Fixture, events, findings};

const PLANTED: &str = r#"
    #[covcheck]
    fn parses(x: u32) {
        assert!(super::parse(x) != 0xBAD, "the planted bug");
    }
"#;

#[test]
fn a_crate_with_a_test_target_without_harness_builds_and_finds_its_bug() {
    let fixture = Fixture::new("no_harness", PLANTED);
    let lib = fs::read_to_string(fixture.path().join("src/lib.rs")).unwrap();
    let lib = format!(
        "pub fn parse(x: u32) -> u32 {{\n    if x == 0x5EED {{ 0xBAD }} else {{ x.wrapping_mul(2) }}\n}}\n\n{lib}"
    );
    fs::write(fixture.path().join("src/lib.rs"), lib).unwrap();
    let manifest = fixture.path().join("Cargo.toml");
    let mut text = fs::read_to_string(&manifest).unwrap();
    text.push_str("\n[[test]]\nname = \"custom_runner\"\nharness = false\n");
    fs::write(&manifest, text).unwrap();
    fs::create_dir_all(fixture.path().join("tests")).unwrap();
    fs::write(
        fixture.path().join("tests/custom_runner.rs"),
        "fn main() {\n    assert_eq!(no_harness::parse(4), 8);\n}\n",
    )
    .unwrap();

    let output = fixture.covcheck(&[
        "--runs",
        "200000",
        "--seed",
        "1",
        "--message-format",
        "json",
    ]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    let messages = events(&output.stdout);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    let found = findings(&messages);
    assert_eq!(found.len(), 1, "{messages:?}");
    assert_eq!(found[0].first_arg(), "24301", "{:?}", found[0]);
}
