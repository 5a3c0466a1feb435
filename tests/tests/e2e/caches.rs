//! End-to-end: what `cargo covcheck` keeps between runs is trusted only as
//! far as it deserves (issue 25), with execution budgets and fixed RNG
//! seeds (no wall clock).
//!
//! - The instrumented build is each workspace's own: two checkouts of one
//!   package (same name, same version) each run their own tests and save
//!   seeds in their own directory; where they share a build directory
//!   anyway, the foreign test binary is refused with the way out.
//! - The campaign engine library, cached once per machine, is checked
//!   before each run: a damaged one is rebuilt and the campaign runs.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use covcheck_e2e::{Fixture, events, finding_for, finished, text_of};

const HOLDS: &str = r#"
    #[covcheck]
    fn holds(x: u8) {
        std::hint::black_box(x);
    }
"#;

/// The same property, failing from 200 on: fresh random cases find it at
/// once.
const FAILS_FROM_200: &str = r#"
    #[covcheck]
    fn holds(x: u8) {
        assert!(x < 200, "the second checkout's bug");
    }
"#;

/// `cargo covcheck` on `fixture` as a user runs it in a checkout whose
/// target directory is `target`: no `--target-dir`, no
/// `COVCHECK_BUILD_DIR`, and a machine-wide cache of its own, `cache`.
fn run_in_checkout(fixture: &Fixture, target: &Path, cache: &Path) -> Output {
    Command::new(covcheck_e2e::cargo_covcheck())
        .args(["covcheck", "--runs", "2000", "--seed", "1"])
        .args(["--message-format", "json", "--manifest-path"])
        .arg(fixture.path().join("Cargo.toml"))
        .env("CARGO_TARGET_DIR", target)
        .env("XDG_CACHE_HOME", cache)
        .env_remove("COVCHECK_BUILD_DIR")
        .env_remove("COVCHECK_ENGINE_DIR")
        .env("COVCHECK_JOBS", "1")
        .output()
        .unwrap()
}

/// Before, the instrumented build of every crate went to one build
/// directory for the machine, where cargo took the second checkout of
/// `twin` 0.1.0 for the first: the second reported "all passed" (it had
/// run the first's test binary), and the first, run again, reported the
/// second's bug and saved its seed in the second's directory.
#[test]
fn two_checkouts_of_one_package_each_run_their_own_tests() {
    // Both written before either is built, as two clones are.
    let first = Fixture::new("twin", HOLDS);
    let second = Fixture::another_checkout("twin", FAILS_FROM_200);
    // The machine-wide cache holds the engine only; a copy of the
    // fixtures' one spares this test a build of LibAFL.
    let cache = tempfile::tempdir().unwrap();
    covcheck_e2e::copy_engine(&cache.path().join("covcheck/engine"));
    // Each checkout has its own target directory, as it would by default
    // (`<checkout>/target`): these two are kept between runs.
    let first_target = covcheck_e2e::target_dir();
    let second_target = covcheck_e2e::second_target_dir();

    let output = run_in_checkout(&first, &first_target, cache.path());
    let text = text_of(&output);
    assert_eq!(output.status.code(), Some(0), "{text}");
    let messages = events(&output.stdout);
    assert_eq!(finished(&messages, "twin::tests::holds").unwrap().1, 0);
    let mut texts = text;

    let output = run_in_checkout(&second, &second_target, cache.path());
    let text = text_of(&output);
    assert_eq!(
        output.status.code(),
        Some(1),
        "the second checkout runs its own test binary:\n{text}"
    );
    let messages = events(&output.stdout);
    let found = finding_for(&messages, "twin::tests::holds");
    assert!(
        found.finding.message.contains("the second checkout's bug"),
        "{found:?}"
    );
    assert!(
        found.saved_seed().starts_with(second.path()),
        "the seed is saved in the second checkout: {found:?}"
    );
    texts.push_str(&text);

    let output = run_in_checkout(&first, &first_target, cache.path());
    let text = text_of(&output);
    assert_eq!(
        output.status.code(),
        Some(0),
        "the first checkout runs its own test binary again:\n{text}"
    );
    assert!(first.seed_files("holds").is_empty(), "{text}");
    assert_eq!(second.seed_files("holds").len(), 1, "{text}");
    assert!(
        !texts.contains("Compiling libafl"),
        "both found the engine in the machine-wide cache:\n{texts}"
    );
}

/// Where two checkouts of one package do share a build directory (here
/// the fixtures' target directory, as `CARGO_TARGET_DIR` or
/// `COVCHECK_BUILD_DIR` shared between them would), cargo still hands the
/// second the first's test binary: it is refused, with the way out,
/// rather than run as the second's. Before, `list` listed the first's
/// properties as the second's.
#[test]
fn a_test_binary_built_from_another_checkout_is_refused() {
    let first = Fixture::another_checkout("twin_sharing", HOLDS);
    let second = Fixture::another_checkout("twin_sharing", FAILS_FROM_200);
    let output = first.covcheck(&["list"]);
    assert!(output.status.success(), "{}", text_of(&output));

    let output = second.covcheck(&["list"]);
    let text = text_of(&output);
    assert_eq!(output.status.code(), Some(2), "{text}");
    assert!(
        text.contains(&format!(
            "was built from {}, not from {}",
            first.path().display(),
            second.path().display()
        )),
        "the error names both checkouts:\n{text}"
    );
    assert!(
        text.contains("Give each checkout a build directory of its own"),
        "and the way out:\n{text}"
    );
}

/// The engine libraries of the engine directory `dir`, one per version.
fn libraries(dir: &Path) -> Vec<PathBuf> {
    fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().path().join("libcovcheck_engine.so"))
        .filter(|library| library.is_file())
        .collect()
}

/// `cargo covcheck` with the engine directory `engine` and a build
/// directory of its own (kept between runs): both as `--target-dir`
/// places them.
fn run_with_engine(fixture: &Fixture, engine: &Path) -> Output {
    let build = covcheck_e2e::second_target_dir().join("covcheck/build");
    let engine_link = build.join("covcheck-engine");
    fs::create_dir_all(&build).unwrap();
    // `--target-dir` keeps the engine beside the build: point it at this
    // test's copy.
    let _ = fs::remove_file(&engine_link);
    std::os::unix::fs::symlink(engine, &engine_link).unwrap();
    fixture
        .covcheck_command(&["--runs", "2000", "--seed", "1"])
        .env("COVCHECK_BUILD_DIR", &build)
        .output()
        .unwrap()
}

/// Before, a cached engine library cut short or overwritten was never
/// rebuilt: every worker failed with "dlopen failed", without the loader's
/// reason.
#[test]
fn a_damaged_engine_library_is_rebuilt_and_the_campaign_runs() {
    let engine = tempfile::tempdir().unwrap();
    covcheck_e2e::copy_engine(engine.path());
    let fixture = Fixture::new("damaged_engine", HOLDS);
    for (damage, problem) in [
        (Damage::CutShort, "is 4096 bytes long, but was"),
        (Damage::Garbage, "is not the file that was built"),
    ] {
        for library in libraries(engine.path()) {
            damage.apply(&library);
        }
        let output = run_with_engine(&fixture, engine.path());
        let text = text_of(&output);
        assert!(output.status.success(), "{text}");
        assert!(text.contains("0 failures: all passed"), "{text}");
        assert!(
            text.contains("warning: the cached campaign engine is damaged: ")
                && text.contains(problem),
            "the rebuild says why:\n{text}"
        );
    }
}

/// How a test damages an engine library.
#[derive(Clone, Copy)]
enum Damage {
    /// Its first 4096 bytes only, as a full disk leaves a copy.
    CutShort,
    /// The same number of bytes, none of them the library's.
    Garbage,
}

impl Damage {
    fn apply(self, library: &Path) {
        let bytes = fs::read(library).unwrap();
        let damaged = match self {
            Damage::CutShort => bytes[..4096].to_vec(),
            Damage::Garbage => vec![0x5a; bytes.len()],
        };
        fs::write(library, damaged).unwrap();
    }
}
