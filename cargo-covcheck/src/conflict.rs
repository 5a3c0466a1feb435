//! Explains the one build failure that is covcheck's doing rather than the
//! user's: a clash over a dependency between their crate and the campaign
//! engine. `cargo covcheck` builds the tests with covcheck-rt's `campaign`
//! feature, which brings LibAFL's dependency tree into the crate's graph,
//! and cargo allows only one semver-compatible version of a crate per build.
//! A crate that pins an older one (seen with `rustc-demangle = "=0.1.21"`
//! against LibAFL's `backtrace`, which needs `^0.1.24`) builds under plain
//! `cargo test` and fails here with cargo's "failed to select a version".

/// What to tell the user about cargo's error output `stderr`, if it is a
/// version clash.
pub fn explain(stderr: &str) -> Option<String> {
    let krate = between(stderr, "failed to select a version for `", "`")?;
    let engine_needs = between(stderr, "versions that meet the requirements `", "`");
    let through = between(stderr, "... required by package `", "`");
    let pinned = between(stderr, "previously selected package `", "`");
    let mut message =
        format!("your crate's dependencies clash with covcheck's campaign engine over `{krate}`");
    if let (Some(needs), Some(through)) = (engine_needs, through) {
        message.push_str(&format!(
            ": the engine needs `{krate} {needs}` (through {through})"
        ));
    }
    if let Some(pinned) = pinned {
        message.push_str(&format!(", and your dependency graph pins {pinned}"));
    }
    message.push_str(&format!(
        ".\n  Cargo allows one semver-compatible version of a crate in a build, and campaigns \
         build the engine into your tests' graph. To run campaigns, relax the requirement on \
         `{krate}` in your Cargo.toml so that it admits {}; plain `cargo test` does not \
         build the engine and is not affected. Cargo's explanation is above.",
        engine_needs.map_or_else(|| "the engine's version".to_string(), |n| format!("`{n}`"))
    ));
    Some(message)
}

/// The text between the first `start` and the next `end` after it.
fn between<'a>(text: &'a str, start: &str, end: &str) -> Option<&'a str> {
    let from = text.find(start)? + start.len();
    let len = text[from..].find(end)?;
    Some(&text[from..from + len])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Cargo 1.95's output for a crate pinning `rustc-demangle = "=0.1.21"`.
    const CARGO_SAYS: &str = r#"error: failed to select a version for `rustc-demangle`.
    ... required by package `backtrace v0.3.76`
    ... which satisfies dependency `backtrace = "^0.3.76"` of package `libafl v0.16.1`
    ... which satisfies dependency `libafl = "^0.16.1"` of package `covcheck-rt v0.1.0 (/work/main/covcheck-rt)`
    ... which satisfies path dependency `covcheck-rt` (locked to 0.1.0) of package `pinfix v0.1.0 (/tmp/pinfix)`
versions that meet the requirements `^0.1.24` are: 0.1.28, 0.1.27, 0.1.26, 0.1.25, 0.1.24

all possible versions conflict with previously selected packages.

  previously selected package `rustc-demangle v0.1.21`
    ... which satisfies dependency `rustc-demangle = "=0.1.21"` (locked to 0.1.21) of package `pinfix v0.1.0 (/tmp/pinfix)`

failed to select a version for `rustc-demangle` which could resolve this conflict
"#;

    #[test]
    fn a_version_clash_names_the_crate_both_sides_and_the_way_out() {
        let message = explain(CARGO_SAYS).expect("a clash");
        assert!(message.contains("over `rustc-demangle`"), "{message}");
        assert!(
            message.contains("needs `rustc-demangle ^0.1.24` (through backtrace v0.3.76)"),
            "{message}"
        );
        assert!(message.contains("pins rustc-demangle v0.1.21"), "{message}");
        assert!(message.contains("relax the requirement"), "{message}");
    }

    #[test]
    fn other_build_failures_are_left_to_cargo() {
        assert_eq!(explain("error[E0425]: cannot find value `x`"), None);
    }
}
