//! End-to-end: a crate outside this workspace depends on `covcheck-rt` by
//! path, as a user's crate would, and runs plain `cargo test` on it.
//!
//! Covers the seed lifecycle users rely on: a failure is shrunk, reported and
//! saved beside the source; the next run replays the seed first; a fixed
//! property passes and the seed stays; a corrupted seed fails the test with
//! its path and is left untouched; nothing of the campaign engine (LibAFL,
//! C code) is built for plain `cargo test`; and an argument of a type
//! covcheck cannot generate is a compile error that names the ways out.

use std::fs;

use covcheck_e2e::Fixture;

const FAILING: &str = "    #[covcheck]\n    fn p(x: u64) {\n        assert!(x < 12345)\n    }";
const FIXED: &str =
    "    #[covcheck]\n    fn p(x: u64) {\n        assert!(x.wrapping_sub(x) == 0)\n    }";

#[test]
fn a_failure_is_shrunk_saved_replayed_and_kept_after_the_fix() {
    let fixture = Fixture::new("outside", FAILING);

    let (passed, output) = fixture.cargo(&["test"]);
    assert!(!passed, "the property fails:\n{output}");
    assert!(
        output.contains("x = 12345"),
        "minimal value reported:\n{output}"
    );
    assert!(
        output.contains("assertion failed: x < 12345"),
        "original message:\n{output}"
    );
    assert!(
        output.contains("src/lib.rs:"),
        "original location:\n{output}"
    );
    assert!(
        output.contains("cargo test -p outside --lib -- tests::p --exact"),
        "rerun command:\n{output}"
    );
    let seeds = fixture.seed_files("p");
    assert_eq!(seeds.len(), 1, "one seed saved:\n{output}");
    assert!(
        output.contains(&seeds[0].display().to_string()),
        "seed path reported:\n{output}"
    );
    let seed_text = fs::read_to_string(&seeds[0]).unwrap();
    let seed = covcheck_e2e::read_seed(&seeds[0]);
    assert_eq!(seed.indices, [12345], "{seed:?}");

    let (passed, output) = fixture.cargo(&["test"]);
    assert!(!passed, "the seed keeps failing:\n{output}");
    assert!(output.contains("replaying 1 saved seed(s)"), "{output}");
    assert!(output.contains("failed on a saved seed"), "{output}");
    assert!(output.contains(&seeds[0].display().to_string()), "{output}");

    fixture.write_property(FIXED);
    let (passed, output) = fixture.cargo(&["test"]);
    assert!(passed, "the fixed property passes:\n{output}");
    assert_eq!(fixture.seed_files("p"), seeds, "the seed is kept");
    assert_eq!(
        fs::read_to_string(&seeds[0]).unwrap(),
        seed_text,
        "and unchanged"
    );
}

#[test]
fn the_rerun_line_works_from_the_directory_cargo_test_ran_in() {
    let fixture = Fixture::new("outside_rerun", FAILING);
    let above = fixture.path().parent().unwrap();
    let manifest = fixture.path().join("Cargo.toml");
    let manifest = manifest.to_str().unwrap();
    let (passed, output) = fixture.cargo_in(above, &["test", "--manifest-path", manifest], &[]);
    assert!(!passed, "the property fails:\n{output}");
    let rerun = output
        .lines()
        .map(str::trim)
        .find(|line| line.starts_with("cargo test "))
        .unwrap_or_else(|| panic!("no rerun line:\n{output}"));
    let name = fixture.path().file_name().unwrap().to_str().unwrap();
    assert!(
        rerun.starts_with(&format!(
            "cargo test --manifest-path {name}/Cargo.toml -p outside_rerun"
        )),
        "a path relative to where cargo test ran: {rerun}"
    );

    let args: Vec<&str> = rerun.split_whitespace().skip(1).collect();
    let (passed, output) = fixture.cargo_in(above, &args, &[]);
    assert!(!passed, "`{rerun}` runs the failing property:\n{output}");
    assert!(
        output.contains("1 failed") && output.contains("tests::p"),
        "`{rerun}` runs just that property:\n{output}"
    );
}

#[test]
fn a_corrupt_seed_fails_the_test_by_name_and_is_left_untouched() {
    let fixture = Fixture::new("outside_corrupt", FIXED);
    let dir = fixture.seed_dir("p");
    fs::create_dir_all(&dir).unwrap();
    let seed = dir.join("0123456789abcdef.toml");
    let corrupt = "format = 1\nproperty = \"outside_corrupt::tests::p\"\nkind = \"failure\"\nchoices = \"12 banana\"\n";
    fs::write(&seed, corrupt).unwrap();

    let (passed, output) = fixture.cargo(&["test"]);
    assert!(!passed, "a corrupt seed fails the test:\n{output}");
    assert!(
        output.contains(&seed.display().to_string()),
        "names the file:\n{output}"
    );
    assert!(output.contains("banana"), "says what is wrong:\n{output}");
    assert_eq!(
        fs::read_to_string(&seed).unwrap(),
        corrupt,
        "file untouched"
    );
}

#[test]
fn plain_cargo_test_builds_no_engine_and_no_c_code() {
    let fixture = Fixture::new("outside_tree", FIXED);
    let (ok, tree) = fixture.cargo(&["tree", "-e", "normal,build,dev", "--prefix", "none"]);
    let tree = format!("\n{tree}");
    assert!(ok, "{tree}");
    assert!(tree.contains("covcheck-rt"), "{tree}");
    // C code is built through these crates; pure-Rust `-sys` crates such as
    // linux-raw-sys are fine.
    for forbidden in [
        "libafl",
        "\ncc v",
        "\ncmake v",
        "\npkg-config v",
        "\nbindgen v",
    ] {
        assert!(
            !tree.contains(forbidden),
            "`{forbidden}` in the dependency tree:\n{tree}"
        );
    }
}

const UNSUPPORTED: &str = r#"
    #[derive(Debug)]
    struct Packet {
        bytes: Vec<u8>,
    }

    #[covcheck]
    fn p(packet: &Packet) {
        let _ = &packet.bytes;
    }
"#;

/// trybuild cannot show it (it builds no tests, so the `#[test]` a property
/// expands to is compiled out): the compiler's error for an argument of a
/// type covcheck cannot generate carries the `Generate` trait's notes,
/// which name the ways out.
#[test]
fn an_argument_of_a_type_covcheck_cannot_generate_names_the_ways_out() {
    let fixture = Fixture::new("outside_unsupported", UNSUPPORTED);
    let (passed, output) = fixture.cargo(&["test", "--no-run"]);
    assert!(!passed, "{output}");
    for expected in [
        "covcheck cannot generate a `Packet`: it does not implement `covcheck_rt::Generate`",
        "fn p(packet: &Packet) {",
        "note: for byte or text data, take `Vec<u8>` or `String`",
        "note: for a type of your own, add `#[derive(covcheck_rt::Generate)]`",
        "note: for a type that implements `arbitrary::Arbitrary` (a cargo-fuzz input), put \
         `#[generate(covcheck_rt::generators::arbitrary())]` on the argument",
        "note: for a proptest strategy, put `#[generate(covcheck_rt::generators::strategy(..))]`",
    ] {
        assert!(output.contains(expected), "`{expected}` in:\n{output}");
    }
}
