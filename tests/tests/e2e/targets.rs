//! End-to-end: the instrumented build links and runs whatever a real crate
//! declares beside its properties, and a campaign finds the bug planted
//! behind each property.
//!
//! One workspace holds most kinds of crate, so that one instrumented build
//! serves them all: a library with a `harness = false` test, a binary, a
//! `#![no_std]` library, build scripts that compile C (a static library
//! with the `cc` crate, a shared one with the C compiler), a proc-macro
//! with properties of its own and a crate that uses it, a `cdylib`,
//! edition 2015 and 2024 crates, a property behind a feature, a package
//! named like a crate covcheck-rt depends on, one in an
//! integration test and one in an example. Each test asserts on its kind's
//! result from one shared campaign run. A second crate has what changes
//! every unit of a build, so that only its own pays for it: a release
//! profile with `lto = true`, `panic = "abort"` and `codegen-units = 1`
//! (the campaigns' profile inherits it) and rustflags of its own in
//! `.cargo/config.toml`.
//!
//! Every bug hides behind `x == 0x5EED` with `x: u32`: no other value
//! triggers it, and comparison tracing finds it in a few dozen executions
//! when the code is instrumented, never by chance within the budget.

use std::sync::OnceLock;

use covcheck_e2e::{Fixture, events, findings, finished};
use covcheck_protocol::messages::FailureKind;
use covcheck_protocol::messages::Message;

const ROOT_MANIFEST: &str = r#"[workspace]
resolver = "2"
members = [
    "harness", "bin", "nostd", "cbuild", "csys", "derive", "macro_user",
    "cdylib", "ed2015", "ed2024", "features", "integ", "example", "namesake",
]

[workspace.dependencies]
covcheck-rt = { path = "{covcheck-rt}" }
"#;

/// A package `name` of edition `edition` with covcheck-rt as a
/// dev-dependency; `more` goes before `[dev-dependencies]`.
macro_rules! manifest {
    ($name:literal, $edition:literal, $more:literal) => {
        concat!(
            "[package]\nname = \"",
            $name,
            "\"\nversion = \"0.1.0\"\nedition = \"",
            $edition,
            "\"\n\n",
            $more,
            "\n[dev-dependencies]\ncovcheck-rt.workspace = true\n"
        )
    };
}

/// The code under test: `decode` fails on the magic value, and only there.
macro_rules! decoder {
    () => {
        "pub fn decode(x: u32) -> Result<u32, ()> {\n    if x == 0x5EED { Err(()) } else { Ok(x) }\n}\n"
    };
}

/// A test module under `$attrs` whose property asserts that `$call` is
/// `Ok`.
macro_rules! property {
    ($attrs:literal, $call:literal) => {
        concat!(
            "\n",
            $attrs,
            "mod tests {\n    use covcheck_rt::covcheck;\n\n    #[covcheck]\n    fn decodes(x: u32) {\n        assert!(",
            $call,
            ".is_ok(), \"the planted bug\");\n    }\n}\n"
        )
    };
}

const FILES: &[(&str, &str)] = &[
    ("Cargo.toml", ROOT_MANIFEST),
    // A `[[test]]` with `harness = false` (datatest, libtest-mimic and
    // custom-runner tests): cargo builds it without `--crate-type` nor
    // `--test`, and it links the instrumented library. Its `main` refuses
    // flags it does not know, as libtest2's harness does.
    (
        "harness/Cargo.toml",
        manifest!(
            "tk_harness",
            "2021",
            "[[test]]\nname = \"custom_runner\"\nharness = false\n"
        ),
    ),
    (
        "harness/src/lib.rs",
        concat!(decoder!(), property!("#[cfg(test)]\n", "super::decode(x)")),
    ),
    (
        "harness/tests/custom_runner.rs",
        concat!(
            "fn main() {\n",
            "    // As libtest2's harness (toml_edit's compliance tests) does.\n",
            "    if std::env::args().any(|a| a == \"--format\") {\n",
            "        eprintln!(\"`--format` requires `-Zunstable-options`\");\n",
            "        std::process::exit(1);\n",
            "    }\n",
            "    assert_eq!(tk_harness::decode(4), Ok(4));\n}\n"
        ),
    ),
    // A package with the name of a crate covcheck-rt depends on, as
    // serde_json's own workspace has: `-p thiserror` is ambiguous there.
    ("namesake/Cargo.toml", manifest!("thiserror", "2021", "")),
    (
        "namesake/src/lib.rs",
        concat!(decoder!(), property!("#[cfg(test)]\n", "super::decode(x)")),
    ),
    // A binary crate whose `src/main.rs` holds the property.
    ("bin/Cargo.toml", manifest!("tk_bin", "2021", "")),
    (
        "bin/src/main.rs",
        concat!(
            decoder!(),
            "\nfn main() {\n    println!(\"{:?}\", decode(std::env::args().count() as u32));\n}\n",
            property!("#[cfg(test)]\n", "super::decode(x)")
        ),
    ),
    // `#![no_std]`, its tests with std.
    ("nostd/Cargo.toml", manifest!("tk_nostd", "2021", "")),
    (
        "nostd/src/lib.rs",
        concat!(
            "#![no_std]\n\n#[cfg(test)]\nextern crate std;\n\n",
            decoder!(),
            property!("#[cfg(test)]\n", "super::decode(x)")
        ),
    ),
    // A build script that compiles C into a static library, with the `cc`
    // crate: the magic value goes to the wrong C function.
    (
        "cbuild/Cargo.toml",
        manifest!("tk_cbuild", "2021", "[build-dependencies]\ncc = \"1\"\n"),
    ),
    (
        "cbuild/build.rs",
        "fn main() {\n    println!(\"cargo::rerun-if-changed=src/parity.c\");\n    cc::Build::new().file(\"src/parity.c\").compile(\"tk_parity\");\n}\n",
    ),
    (
        "cbuild/src/parity.c",
        "#include <stdint.h>\n\nuint32_t tk_odd(uint32_t x) { return x * 2 + 1; }\nuint32_t tk_even(uint32_t x) { return x * 2; }\n",
    ),
    (
        "cbuild/src/lib.rs",
        concat!(
            "extern \"C\" {\n    fn tk_odd(x: u32) -> u32;\n    fn tk_even(x: u32) -> u32;\n}\n\n",
            "pub fn decode(x: u32) -> Result<u32, ()> {\n",
            "    let y = unsafe { if x == 0x5EED { tk_even(x) } else { tk_odd(x) } };\n",
            "    if y % 2 == 1 { Ok(y) } else { Err(()) }\n}\n",
            property!("#[cfg(test)]\n", "super::decode(x)")
        ),
    ),
    // A build script that compiles C into a shared library with the C
    // compiler and links it, as a `-sys` crate may: the tests load it from
    // the build script's output directory.
    (
        "csys/Cargo.toml",
        manifest!("tk_csys", "2021", "links = \"tk_shared\"\n"),
    ),
    (
        "csys/build.rs",
        r#"use std::path::PathBuf;
use std::process::Command;

fn main() {
    println!("cargo::rerun-if-changed=src/shared.c");
    let out = PathBuf::from(std::env::var_os("OUT_DIR").unwrap());
    let status = Command::new("cc")
        .args(["-shared", "-fPIC", "-O2", "-o"])
        .arg(out.join("libtk_shared.so"))
        .arg("src/shared.c")
        .status()
        .expect("the C compiler runs");
    assert!(status.success(), "the C compiler failed");
    println!("cargo::rustc-link-search=native={}", out.display());
    println!("cargo::rustc-link-lib=dylib=tk_shared");
}
"#,
    ),
    (
        "csys/src/shared.c",
        "#include <stdint.h>\n\nuint32_t tk_shared_check(uint32_t x) { return x != 0x5EED; }\n",
    ),
    (
        "csys/src/lib.rs",
        concat!(
            "extern \"C\" {\n    fn tk_shared_check(x: u32) -> u32;\n}\n\n",
            "/// The comparison in Rust, where it is traced; the C function has the bug.\n",
            "pub fn decode(x: u32) -> Result<u32, ()> {\n",
            "    let checked = if x == 0x5EED { unsafe { tk_shared_check(x) } } else { 1 };\n",
            "    if checked == 1 { Ok(x) } else { Err(()) }\n}\n",
            property!("#[cfg(test)]\n", "super::decode(x)")
        ),
    ),
    // A proc-macro with properties of its own (its tests link std
    // dynamically), and a crate that uses it.
    (
        "derive/Cargo.toml",
        manifest!("tk_derive", "2021", "[lib]\nproc-macro = true\n"),
    ),
    (
        "derive/src/lib.rs",
        concat!(
            "use proc_macro::TokenStream;\n\n",
            "/// The magic value, as a literal.\n#[proc_macro]\n",
            "pub fn magic(_: TokenStream) -> TokenStream {\n    \"0x5EED\".parse().unwrap()\n}\n\n",
            "#[cfg(test)]\n",
            decoder!(),
            property!("#[cfg(test)]\n", "super::decode(x)")
        ),
    ),
    (
        "macro_user/Cargo.toml",
        manifest!(
            "tk_macro_user",
            "2021",
            "[dependencies]\ntk_derive = { path = \"../derive\" }\n"
        ),
    ),
    (
        "macro_user/src/lib.rs",
        concat!(
            "pub fn decode(x: u32) -> Result<u32, ()> {\n",
            "    if x == tk_derive::magic!() { Err(()) } else { Ok(x) }\n}\n",
            property!("#[cfg(test)]\n", "super::decode(x)")
        ),
    ),
    // A cdylib built beside its rlib, linked with every symbol resolved,
    // as a library loaded by another program wants.
    (
        "cdylib/Cargo.toml",
        manifest!(
            "tk_cdylib",
            "2021",
            "[lib]\ncrate-type = [\"rlib\", \"cdylib\"]\n"
        ),
    ),
    (
        "cdylib/build.rs",
        "fn main() {\n    println!(\"cargo::rustc-cdylib-link-arg=-Wl,--no-undefined\");\n}\n",
    ),
    (
        "cdylib/src/lib.rs",
        concat!(
            "#[no_mangle]\npub extern \"C\" fn tk_decode(x: u32) -> i64 {\n",
            "    if x == 0x5EED { -1 } else { i64::from(x) }\n}\n\n",
            "pub fn decode(x: u32) -> Result<u32, ()> {\n",
            "    u32::try_from(tk_decode(x)).map_err(|_| ())\n}\n",
            property!("#[cfg(test)]\n", "super::decode(x)")
        ),
    ),
    // Edition 2015: `extern crate` at the crate root, as it wants.
    ("ed2015/Cargo.toml", manifest!("tk_ed2015", "2015", "")),
    (
        "ed2015/src/lib.rs",
        concat!(
            "#[cfg(test)]\nextern crate covcheck_rt;\n\n",
            decoder!(),
            property!("#[cfg(test)]\n", "super::decode(x)")
        ),
    ),
    ("ed2024/Cargo.toml", manifest!("tk_ed2024", "2024", "")),
    (
        "ed2024/src/lib.rs",
        concat!(decoder!(), property!("#[cfg(test)]\n", "super::decode(x)")),
    ),
    // A property that exists only with `--features tk_features/planted`.
    (
        "features/Cargo.toml",
        manifest!("tk_features", "2021", "[features]\nplanted = []\n"),
    ),
    (
        "features/src/lib.rs",
        concat!(
            decoder!(),
            property!(
                "#[cfg(all(test, feature = \"planted\"))]\n",
                "super::decode(x)"
            )
        ),
    ),
    // A property in an integration test, `tests/props.rs`.
    ("integ/Cargo.toml", manifest!("tk_integ", "2021", "")),
    ("integ/src/lib.rs", decoder!()),
    (
        "integ/tests/props.rs",
        // It reads what `cargo test` sets at run time, as data-driven tests
        // do: a campaign's workers must see it too.
        "use covcheck_rt::covcheck;\n\n#[covcheck]\nfn decodes(x: u32) {\n    \
         let dir = std::env::var(\"CARGO_MANIFEST_DIR\").expect(\"CARGO_MANIFEST_DIR at run time\");\n    \
         assert!(std::path::Path::new(&dir).join(\"tests/props.rs\").is_file());\n    \
         assert_eq!(std::env::var(\"CARGO_PKG_NAME\").as_deref(), Ok(\"tk_integ\"));\n    \
         assert!(tk_integ::decode(x).is_ok(), \"the planted bug\");\n}\n",
    ),
    // A property in an example, which `cargo test` builds as a test.
    (
        "example/Cargo.toml",
        manifest!(
            "tk_example",
            "2021",
            "[[example]]\nname = \"demo\"\ntest = true\n"
        ),
    ),
    ("example/src/lib.rs", decoder!()),
    (
        "example/examples/demo.rs",
        concat!(
            "fn main() {\n    println!(\"{:?}\", tk_example::decode(7));\n}\n",
            property!("#[cfg(test)]\n", "tk_example::decode(x)")
        ),
    ),
];

/// The crate with a profile and flags of its own: its bug exists only with
/// the rustflags of its `.cargo/config.toml`.
const PROFILE_FILES: &[(&str, &str)] = &[
    (
        "Cargo.toml",
        concat!(
            "[package]\nname = \"tk_profile\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n",
            "[dev-dependencies]\ncovcheck-rt = { path = \"{covcheck-rt}\" }\n\n",
            "[lints.rust]\nunexpected_cfgs = { level = \"warn\", check-cfg = [\"cfg(tk_user_flag)\"] }\n\n",
            "[profile.release]\nlto = true\npanic = \"abort\"\ncodegen-units = 1\n\n",
            "[workspace]\n"
        ),
    ),
    (
        ".cargo/config.toml",
        "[build]\nrustflags = [\"--cfg\", \"tk_user_flag\"]\n",
    ),
    (
        "src/lib.rs",
        concat!(
            "pub fn decode(x: u32) -> Result<u32, ()> {\n",
            "    #[cfg(tk_user_flag)]\n",
            "    if x == 0x5EED {\n        return Err(());\n    }\n",
            "    Ok(x)\n}\n",
            property!("#[cfg(test)]\n", "super::decode(x)")
        ),
    ),
];

/// What a campaign run said.
struct Run {
    code: Option<i32>,
    events: Vec<Message>,
    stderr: String,
    /// The fixture's `Cargo.toml`, which the rerun commands name.
    manifest: String,
}

/// One campaign over the whole workspace, run once for all its tests.
fn shared_run() -> &'static Run {
    static RUN: OnceLock<Run> = OnceLock::new();
    RUN.get_or_init(|| {
        let fixture = Fixture::workspace("targets", FILES);
        run(
            &fixture,
            &["--workspace", "--features", "tk_features/planted"],
        )
    })
}

/// One campaign on the crate with a profile and flags of its own.
fn profile_run() -> &'static Run {
    static RUN: OnceLock<Run> = OnceLock::new();
    RUN.get_or_init(|| run(&Fixture::workspace("tk_profile", PROFILE_FILES), &[]))
}

/// A campaign with a fixed seed and execution budget on `fixture`, run
/// from its directory, where cargo reads `.cargo/config.toml`.
fn run(fixture: &Fixture, args: &[&str]) -> Run {
    let budget = ["--runs", "100000", "--seed", "1", "--no-save"];
    let output = fixture
        .covcheck_command(&[args, &budget, &["--message-format", "json"]].concat())
        .current_dir(fixture.path())
        .output()
        .unwrap();
    Run {
        code: output.status.code(),
        events: events(&output.stdout),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        manifest: fixture.path().join("Cargo.toml").display().to_string(),
    }
}

/// Asserts that the shared run found the planted bug of `property`: a
/// panic on the magic value, its campaign's only finding, which `cargo
/// test <rerun>` reruns.
fn planted_bug_found(property: &str, rerun: &str) {
    planted_bug_found_in(shared_run(), property, rerun);
}

fn planted_bug_found_in(run: &Run, property: &str, rerun: &str) {
    let found = findings(&run.events);
    let Some(finding) = found.into_iter().find(|f| f.property == property) else {
        panic!(
            "no finding for {property} (exit {:?}):\n{}\n{:#?}",
            run.code, run.stderr, run.events
        );
    };
    assert_eq!(finding.first_arg(), "24301", "{finding:?}");
    assert_eq!(finding.finding.kind, FailureKind::Panic, "{finding:?}");
    let rerun = format!("cargo test --manifest-path {} {rerun}", run.manifest);
    assert_eq!(finding.rerun, rerun, "{finding:?}");
    assert_eq!(
        finished(&run.events, property).map(|(_, findings)| findings),
        Some(1)
    );
}

#[test]
fn a_test_target_without_harness() {
    planted_bug_found(
        "tk_harness::tests::decodes",
        "-p tk_harness --lib -- tests::decodes --exact",
    );
}

#[test]
fn every_property_of_the_workspace_finds_its_own_bug() {
    let run = shared_run();
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    let found = findings(&run.events);
    assert_eq!(found.len(), 14, "one bug per property: {found:#?}");
}

/// Campaigns build in the release profile's image, LTO and one codegen
/// unit included. `panic = "abort"` is ignored for tests, as `cargo test`
/// ignores it: the panic is caught in the worker, a panic and not an abort.
#[test]
fn a_release_profile_with_lto_panic_abort_and_one_codegen_unit() {
    let run = profile_run();
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    planted_bug_found_in(
        run,
        "tk_profile::tests::decodes",
        "-p tk_profile --lib -- tests::decodes --exact",
    );
}

/// The bug exists only with the flags `.cargo/config.toml` gives.
#[test]
fn rustflags_of_the_users_cargo_config() {
    planted_bug_found_in(
        profile_run(),
        "tk_profile::tests::decodes",
        "-p tk_profile --lib -- tests::decodes --exact",
    );
}

/// Before, the build named packages by name alone, and cargo stopped on
/// `-p thiserror`: the workspace's and covcheck-rt's dependency both have
/// it. The rerun command names the version too, which cargo needs.
#[test]
fn a_package_named_like_a_dependency_of_the_runtime() {
    planted_bug_found(
        "thiserror::tests::decodes",
        "-p thiserror@0.1.0 --lib -- tests::decodes --exact",
    );
}

#[test]
fn a_binary_crate_with_properties_in_its_main() {
    planted_bug_found(
        "tk_bin::tests::decodes",
        "-p tk_bin --bin tk_bin -- tests::decodes --exact",
    );
}

#[test]
fn a_no_std_library_with_std_tests() {
    planted_bug_found(
        "tk_nostd::tests::decodes",
        "-p tk_nostd --lib -- tests::decodes --exact",
    );
}

#[test]
fn a_build_script_that_compiles_c_with_the_cc_crate() {
    planted_bug_found(
        "tk_cbuild::tests::decodes",
        "-p tk_cbuild --lib -- tests::decodes --exact",
    );
}

#[test]
fn a_build_script_that_compiles_c_into_a_shared_library() {
    planted_bug_found(
        "tk_csys::tests::decodes",
        "-p tk_csys --lib -- tests::decodes --exact",
    );
}

#[test]
fn a_proc_macro_with_properties_of_its_own() {
    planted_bug_found(
        "tk_derive::tests::decodes",
        "-p tk_derive --lib -- tests::decodes --exact",
    );
}

#[test]
fn a_crate_that_uses_a_proc_macro_of_the_workspace() {
    planted_bug_found(
        "tk_macro_user::tests::decodes",
        "-p tk_macro_user --lib -- tests::decodes --exact",
    );
}

#[test]
fn a_cdylib_beside_its_rlib() {
    planted_bug_found(
        "tk_cdylib::tests::decodes",
        "-p tk_cdylib --lib -- tests::decodes --exact",
    );
}

#[test]
fn an_edition_2015_crate() {
    planted_bug_found(
        "tk_ed2015::tests::decodes",
        "-p tk_ed2015 --lib -- tests::decodes --exact",
    );
}

#[test]
fn an_edition_2024_crate() {
    planted_bug_found(
        "tk_ed2024::tests::decodes",
        "-p tk_ed2024 --lib -- tests::decodes --exact",
    );
}

#[test]
fn a_property_behind_a_feature() {
    planted_bug_found(
        "tk_features::tests::decodes",
        "-p tk_features --lib -- tests::decodes --exact",
    );
}

#[test]
fn a_property_in_an_integration_test() {
    planted_bug_found(
        "props::decodes",
        "-p tk_integ --test props -- decodes --exact",
    );
}

#[test]
fn a_property_in_an_example() {
    planted_bug_found(
        "demo::tests::decodes",
        "-p tk_example --example demo -- tests::decodes --exact",
    );
}

/// A workspace whose instrumented build fails where `cargo test`'s does
/// not: one crate links C that defines a SanitizerCoverage callback (as a
/// fuzzer's runtime does), which covcheck-rt defines in campaigns too.
const CLASH_FILES: &[(&str, &str)] = &[
    (
        "Cargo.toml",
        "[workspace]\nresolver = \"2\"\nmembers = [\"clash\", \"fine\"]\n\n[workspace.dependencies]\ncovcheck-rt = { path = \"{covcheck-rt}\" }\n",
    ),
    (
        "clash/Cargo.toml",
        manifest!("tk_clash", "2021", "[build-dependencies]\ncc = \"1\"\n"),
    ),
    (
        "clash/build.rs",
        "fn main() {\n    println!(\"cargo::rerun-if-changed=src/hooks.c\");\n    cc::Build::new().file(\"src/hooks.c\").compile(\"tk_hooks\");\n}\n",
    ),
    (
        "clash/src/hooks.c",
        concat!(
            "#include <stdint.h>\n\n",
            "/* Comparison hooks of its own, as a fuzzer's runtime has. */\n",
            "static uint64_t comparisons;\n\n",
            "void __sanitizer_cov_trace_cmp4(uint32_t a, uint32_t b) { (void)a; (void)b; comparisons++; }\n\n",
            "uint64_t tk_comparisons(void) { return comparisons; }\n"
        ),
    ),
    (
        "clash/src/lib.rs",
        concat!(
            "extern \"C\" {\n    fn tk_comparisons() -> u64;\n}\n\n",
            "pub fn decode(x: u32) -> Result<u32, ()> {\n",
            "    if unsafe { tk_comparisons() } == u64::MAX { Err(()) } else { Ok(x) }\n}\n",
            property!("#[cfg(test)]\n", "super::decode(x)")
        ),
    ),
    ("fine/Cargo.toml", manifest!("tk_fine", "2021", "")),
    (
        "fine/src/lib.rs",
        concat!(decoder!(), property!("#[cfg(test)]\n", "super::decode(x)")),
    ),
];

/// covcheck names the target whose instrumented build failed, says why in
/// its own words and gives the way out, which works.
#[test]
fn a_failed_instrumented_build_names_the_target_why_and_the_way_out() {
    let fixture = Fixture::workspace("tk_clash", CLASH_FILES);
    let (built, output) = fixture.cargo(&["test", "--workspace", "--no-run"]);
    assert!(built, "plain `cargo test` builds it:\n{output}");

    let failed = run(&fixture, &["--workspace"]);
    assert_eq!(failed.code, Some(2), "{}", failed.stderr);
    for expected in [
        "error: the instrumented build failed in `tk_clash` (tests of the library): linking with",
        "It links a SanitizerCoverage callback of its own, `__sanitizer_cov_trace_cmp4`",
        "its properties still run under plain `cargo test`.\n  \
         `--exclude tk_clash` runs the campaigns of the other packages without it",
    ] {
        assert!(
            failed.stderr.contains(expected),
            "{expected}\n{}",
            failed.stderr
        );
    }

    let rest = run(&fixture, &["--workspace", "--exclude", "tk_clash"]);
    assert_eq!(rest.code, Some(1), "{}", rest.stderr);
    planted_bug_found_in(
        &rest,
        "tk_fine::tests::decodes",
        "-p tk_fine --lib -- tests::decodes --exact",
    );
    assert_eq!(findings(&rest.events).len(), 1);
}
