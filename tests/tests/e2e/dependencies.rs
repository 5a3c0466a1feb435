//! End-to-end: a campaign sees the code of the crates a property calls,
//! not only the crate the property is in.
//!
//! The bug sits behind a 64-bit magic value in a parser crate the property's
//! crate depends on. Comparison tracing finds it in a few thousand
//! executions when the parser is instrumented; uninstrumented, the campaign
//! is blind to it (2^64 values). Fixed RNG seeds and execution budgets.

use std::fs;
use std::path::Path;

use covcheck_e2e::Fixture;
use covcheck_protocol::messages::Finding;

/// The parser: no covcheck in it, as a crate from crates.io would be.
/// `inline(never)` keeps rustc from inlining it into the caller, which would
/// instrument it there.
const PARSER: &str = r#"
#[inline(never)]
pub fn parse(word: u64) -> u32 {
    if word == 0x5EED_F00D_CAFE_BEEF {
        panic!("the parser's bug");
    }
    word.count_ones()
}
"#;

const PROPERTY: &str = "    #[covcheck]\n    fn parses(word: u64) {\n        std::hint::black_box(parser::parse(word));\n    }";

fn write_parser(dir: &Path, name: &str) {
    fs::create_dir_all(dir.join("src")).unwrap();
    fs::write(
        dir.join("Cargo.toml"),
        format!("[package]\nname = \"{name}\"\nversion = \"0.1.0\"\nedition = \"2021\"\n"),
    )
    .unwrap();
    fs::write(dir.join("src/lib.rs"), PARSER).unwrap();
}

/// Adds `[dependencies] parser = { path = ... }` to the fixture's manifest.
fn depend_on_parser(fixture: &Fixture, parser_dir: &Path) {
    let manifest = fs::read_to_string(fixture.path().join("Cargo.toml")).unwrap();
    let manifest = manifest.replace(
        "[dev-dependencies]",
        &format!(
            "[dependencies]\nparser = {{ path = {:?} }}\n\n[dev-dependencies]",
            parser_dir.display().to_string()
        ),
    );
    fs::write(fixture.path().join("Cargo.toml"), manifest).unwrap();
}

/// Runs a budgeted campaign; returns the finding it reported, if any.
fn campaign(fixture: &Fixture, extra: &[&str]) -> Option<Finding> {
    let mut args = vec!["--message-format", "json"];
    args.extend(extra);
    let output = fixture.budgeted_campaign(100_000, &args);
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    let events = covcheck_e2e::events(&output.stdout);
    let finding = covcheck_e2e::findings(&events)
        .first()
        .map(|reported| reported.finding.clone());
    let expected = if finding.is_some() { 1 } else { 0 };
    assert_eq!(output.status.code(), Some(expected), "{stdout}\n{stderr}");
    finding
}

#[test]
fn a_bug_in_a_dependency_is_found_only_when_it_is_instrumented() {
    let fixture = Fixture::new("uses_a_parser", PROPERTY);
    let outside = tempfile::tempdir().unwrap();
    let parser_dir = outside.path().join("parser");
    write_parser(&parser_dir, "parser");
    depend_on_parser(&fixture, &parser_dir);

    let finding = campaign(&fixture, &[]).expect("found with the parser instrumented");
    assert_eq!(finding.args[0].1, "6840387351076585199", "{finding:?}");
    // Leaving the parser out rebuilds it uninstrumented (the choice is part
    // of cargo's fingerprint), and the campaign no longer sees the bug.
    let blind = campaign(&fixture, &["--no-instrument", "parser"]);
    assert!(blind.is_none(), "{blind:?}");
    // And back.
    assert!(campaign(&fixture, &[]).is_some());
}

#[test]
fn a_package_built_first_as_a_dependency_is_instrumented_when_selected() {
    // A workspace: `app` has the property, `parser` (a member, with no
    // property of its own) has the bug.
    let fixture = Fixture::new("app", PROPERTY);
    let parser_dir = fixture.path().join("parser");
    write_parser(&parser_dir, "parser");
    depend_on_parser(&fixture, &parser_dir);
    let manifest = fs::read_to_string(fixture.path().join("Cargo.toml")).unwrap();
    fs::write(
        fixture.path().join("Cargo.toml"),
        manifest.replace("[workspace]", "[workspace]\nmembers = [\".\", \"parser\"]"),
    )
    .unwrap();

    // `-p app` first builds `parser` as a dependency of `app` ...
    let listed = fixture.covcheck(&["list", "-p", "app"]);
    assert!(
        listed.status.success(),
        "{}",
        covcheck_e2e::text_of(&listed)
    );
    // ... and `-p app -p parser` must not reuse an uninstrumented build of it.
    let finding = campaign(&fixture, &["-p", "app", "-p", "parser"]);
    assert!(finding.is_some(), "the parser's bug is seen");
}
