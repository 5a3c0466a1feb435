//! End-to-end: the faults a user hits, each found with its input and never
//! lost, with execution budgets and fixed RNG seeds (no wall clock).
//!
//! - Crashes, hangs and `std::process::exit` reached by fresh random inputs
//!   (not only by mutation) are saved with the input that caused them, and
//!   plain `cargo test` then fails on the seed, naming it.
//! - A panic message that is not valid UTF-8 still reaches the report and
//!   the seed file (escaped).
//! - A flaky property is reported, and its campaign runs to the end of its
//!   budget.
//! - A thread's panic propagated by `join().unwrap()` is reported with the
//!   thread's message.
//! - The printed rerun command works from where `cargo covcheck` ran.
//! - Two runs on one crate at the same time, SIGTERM to the supervisor, a
//!   filter that matches nothing and a corrupt seed file.
//! - Once the engine is built, a campaign runs without network.

use std::fs;
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use covcheck_e2e::{Fixture, Reported, finished, read_seed};
use covcheck_protocol::messages::FailureKind;
use covcheck_protocol::messages::{Message, parse_message};

/// Each fault sits behind `x >= 1000 && x % 3 == 1`, which a third of the
/// fresh random `u32`s reach, and `exits_behind_a_gate` behind a value only
/// mutation finds.
const FAULTS: &str = r#"
    use std::hint::black_box;

    fn reached(x: u32) -> bool {
        x >= 1000 && x % 3 == 1
    }

    #[covcheck]
    fn aborts(x: u32) {
        if reached(x) {
            std::process::abort();
        }
    }

    #[covcheck]
    fn segfaults(x: u32) {
        if reached(x) {
            // SAFETY: none; this is the bug the campaign must catch.
            unsafe { std::ptr::null_mut::<u32>().write_volatile(black_box(x)) };
        }
    }

    #[covcheck]
    fn hangs(x: u32) {
        if reached(x) {
            loop {
                black_box(x);
            }
        }
    }

    #[covcheck]
    fn runs_out_of_memory(x: u32) {
        if reached(x) {
            let mut hoard = Vec::new();
            loop {
                hoard.push(vec![1u8; 1 << 20]);
                black_box(&hoard);
            }
        }
    }

    fn deeper(n: u64) -> u64 {
        black_box(n) + deeper(black_box(n + 1)) + 1
    }

    #[covcheck]
    fn overflows_the_stack(x: u32) {
        if reached(x) {
            black_box(deeper(u64::from(x)));
        }
    }

    #[covcheck]
    fn exits(x: u32) {
        if reached(x) {
            std::process::exit(0);
        }
    }

    #[covcheck]
    fn segfaults_behind_a_gate(x: u32) {
        if x == 0x5E6F {
            // SAFETY: none; this is the bug the campaign must catch.
            unsafe { std::ptr::null_mut::<u32>().write_volatile(black_box(x)) };
        }
    }

    #[covcheck]
    fn runs_out_of_memory_behind_a_gate(x: u32) {
        if x == 0x00AA_0033 {
            black_box(vec![0u8; 1 << 40]);
        }
    }

    #[covcheck]
    fn exits_behind_a_gate(x: u32) {
        if x == 0xE817 {
            std::process::exit(0);
        }
    }

    #[covcheck]
    fn panics_with_invalid_utf8(x: u32) {
        if reached(x) {
            // SAFETY: none: a `str` holding a byte that is not UTF-8, the bug
            // class `from_utf8_unchecked` makes.
            let bytes = black_box([b'o', 0xff, b'k']);
            let text = unsafe { std::str::from_utf8_unchecked(&bytes) };
            panic!("bad text {text}");
        }
    }

    #[covcheck]
    fn panics_in_a_thread(x: u32) {
        if reached(x) {
            std::thread::spawn(move || assert!(x < 1000, "the thread saw {x}"))
                .join()
                .unwrap();
        }
    }

    static CALLS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

    /// Fails on every 1000th call, whatever the input: not deterministic.
    #[covcheck]
    fn flaky(x: u32) {
        let call = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        assert!(call % 1000 != 999, "call {call} with {x}");
    }
"#;

fn finding<'a>(events: &'a [Message], fixture: &str, property: &str) -> Reported<'a> {
    covcheck_e2e::finding_for(events, &format!("{fixture}::tests::{property}"))
}

/// The `x` a finding was shrunk to.
fn value_of(finding: &Reported) -> u32 {
    finding
        .first_arg()
        .parse()
        .unwrap_or_else(|_| panic!("a u32 argument: {finding:?}"))
}

#[test]
fn faults_reached_by_random_inputs_are_saved_with_their_input() {
    let fixture = Fixture::new("faults", FAULTS);
    let output = fixture
        .covcheck_command(&[
            "--runs",
            "20000",
            "--seed",
            "3",
            "-j",
            "2",
            "--timeout",
            "300ms",
            "--rss-limit-mb",
            "512",
            "--message-format",
            "json",
        ])
        // What is asserted holds for any input that fails, shrunk or not:
        // a 1 s shrinking budget keeps each fork-per-try shrink (a hang
        // costs its whole timeout) from taking most of the test's time.
        .env("COVCHECK_SHRINK_SECS", "1")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(
        output.status.code(),
        Some(1),
        "findings exit with 1:\n{stderr}"
    );
    let events = covcheck_e2e::events(&output.stdout);

    for (property, kind) in [
        ("aborts", FailureKind::Abort),
        ("segfaults", FailureKind::Segfault),
        ("hangs", FailureKind::Timeout),
        ("runs_out_of_memory", FailureKind::OutOfMemory),
        ("overflows_the_stack", FailureKind::StackOverflow),
        ("exits", FailureKind::Exit),
    ] {
        let event = finding(&events, "faults", property);
        assert_eq!(event.finding.kind, kind, "{property}: {event:?}");
        let x = value_of(&event);
        assert!(
            x >= 1000 && x % 3 == 1,
            "{property}: the input that does it: {event:?}"
        );
        let seed = read_seed(event.saved_seed());
        assert!(
            !seed.indices.is_empty(),
            "{property}: a seed with its input: {seed:?}"
        );
    }
    for (property, kind, value) in [
        ("exits_behind_a_gate", FailureKind::Exit, 0xE817),
        ("segfaults_behind_a_gate", FailureKind::Segfault, 0x5E6F),
        (
            "runs_out_of_memory_behind_a_gate",
            FailureKind::OutOfMemory,
            0x00AA_0033,
        ),
    ] {
        let gated = finding(&events, "faults", property);
        assert_eq!(gated.finding.kind, kind, "{gated:?}");
        assert_eq!(value_of(&gated), value, "{gated:?}");
    }

    let utf8 = finding(&events, "faults", "panics_with_invalid_utf8");
    assert!(
        utf8.finding.message.contains("bad text o\\xffk"),
        "escaped, not lost: {utf8:?}"
    );
    let seed = read_seed(utf8.saved_seed());
    let failure = seed.file.failure.as_ref().expect("a failure seed");
    assert!(
        failure.message.contains("bad text o\\xffk"),
        "the seed file keeps it: {seed:?}"
    );

    let thread = finding(&events, "faults", "panics_in_a_thread");
    assert!(
        thread.finding.message.contains("the thread saw"),
        "the thread's own message: {thread:?}"
    );

    let flaky = finding(&events, "faults", "flaky");
    assert!(flaky.finding.flaky, "{flaky:?}");
    let (execs, _) =
        finished(&events, "faults::tests::flaky").expect("the flaky property's campaign finishes");
    assert!(
        execs >= 20_000,
        "it kept fuzzing to the end of its budget: {execs}"
    );

    // The printed command reruns the property from where covcheck ran (the
    // fixture is elsewhere: covcheck was given --manifest-path).
    let rerun = utf8.rerun;
    assert!(rerun.contains("--manifest-path"), "{rerun}");
    let elsewhere = tempfile::tempdir().unwrap();
    let rerun_output = Command::new("sh")
        .args(["-c", rerun])
        .current_dir(elsewhere.path())
        .env("CARGO_TARGET_DIR", covcheck_e2e::target_dir())
        .output()
        .unwrap();
    let text = covcheck_e2e::text_of(&rerun_output);
    assert!(
        text.contains("failed on a saved seed"),
        "`{rerun}`:\n{text}"
    );

    // Plain `cargo test` fails on a seed whose input ends the process with
    // exit(0), instead of passing silently, and names a crash seed before
    // the test binary dies of it.
    let (passed, text) = fixture.cargo(&["test", "--", "tests::exits", "--exact"]);
    assert!(!passed, "{text}");
    assert!(
        text.contains("ended the process (std::process::exit)"),
        "{text}"
    );
    // A hang seed ends the test binary after COVCHECK_HANG_SECS, naming it.
    let (passed, text) = fixture.cargo_with_env(
        &["test", "--", "tests::hangs", "--exact"],
        &[("COVCHECK_HANG_SECS", "1")],
    );
    assert!(!passed, "{text}");
    assert!(text.contains("it hangs"), "{text}");
    assert!(text.contains("replaying the saved seed"), "{text}");
    let (passed, text) = fixture.cargo(&["test", "--", "tests::aborts", "--exact"]);
    assert!(!passed, "{text}");
    assert!(
        text.contains("if the test binary dies now, this seed is why"),
        "{text}"
    );
}

const PASSING: &str = r#"
    #[covcheck]
    fn passes(x: u64) {
        std::hint::black_box(x);
    }
"#;

#[test]
fn two_runs_on_one_crate_do_not_disturb_each_other() {
    let fixture = Fixture::new("together", PASSING);
    // Built once first, so that both runs start their workers together.
    assert!(fixture.covcheck(&["list"]).status.success());
    let start = || {
        fixture
            .covcheck_command(&["--runs", "400000", "--seed", "1", "-j", "1"])
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    let (first, second) = (start(), start());
    for run in [first, second] {
        let output = run.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(output.status.success(), "no false crash:\n{stderr}");
        assert!(stderr.contains("all passed"), "{stderr}");
    }
}

#[test]
fn nothing_tested_is_not_success_and_a_bad_seed_is_named() {
    let fixture = Fixture::new("nothing", PASSING);
    let output = fixture.covcheck(&["no_such_property", "--runs", "10"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(4), "{stderr}");
    assert!(
        stderr.contains("no #[covcheck] properties match `no_such_property`"),
        "{stderr}"
    );

    let bad = fixture.seed_dir("passes").join("bad.toml");
    fs::create_dir_all(bad.parent().unwrap()).unwrap();
    fs::write(&bad, "choices = [").unwrap();
    let output = fixture.covcheck(&["--runs", "1000", "--seed", "1"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("bad.toml"), "the run names it:\n{stderr}");
    let output = fixture.covcheck(&["list"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("bad.toml"), "list names it:\n{stderr}");
    assert_eq!(
        fs::read_to_string(&bad).unwrap(),
        "choices = [",
        "never touched"
    );
}

const LONG: &str = r#"
    #[covcheck]
    fn runs_until_stopped(x: u64) {
        std::hint::black_box(x);
    }
"#;

/// Processes whose command line mentions `needle`.
fn processes_with(needle: &str) -> Vec<String> {
    let mut found = Vec::new();
    for entry in fs::read_dir("/proc").unwrap().flatten() {
        if let Ok(cmdline) = fs::read(entry.path().join("cmdline")) {
            let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
            if cmdline.contains(needle) {
                found.push(format!(
                    "{}: {cmdline}",
                    entry.file_name().to_string_lossy()
                ));
            }
        }
    }
    found
}

#[test]
fn sigterm_and_sigint_stop_the_workers_and_print_the_summary() {
    let fixture = Fixture::new("stopped", LONG);
    for (signal, code) in [("TERM", 143), ("INT", 130)] {
        let mut run = fixture
            .covcheck_command(&["--time", "10m", "--message-format", "json"])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // Wait for the campaign's first status report: the worker is running.
        let mut lines = BufReader::new(run.stdout.take().unwrap()).lines();
        let status = lines
            .by_ref()
            .map_while(Result::ok)
            .find(|l| matches!(parse_message(l), Some(Ok(Message::Status { .. }))));
        assert!(status.is_some(), "the campaign reports progress");
        assert!(!processes_with("tests::runs_until_stopped").is_empty());

        // To the supervisor alone, as `kill` or a CI runner's timeout sends it.
        let killed = Command::new("kill")
            .args([&format!("-{signal}"), &run.id().to_string()])
            .status()
            .unwrap();
        assert!(killed.success());
        let rest: Vec<String> = lines.map_while(Result::ok).collect();
        let rest = covcheck_e2e::events(rest.join("\n").as_bytes());
        let status = run.wait().unwrap();
        assert_eq!(status.code(), Some(code), "128 + SIG{signal}: {rest:?}");
        assert!(
            rest.iter().any(
                |m| matches!(m, Message::Interrupted { signal: named } if named.contains(signal))
            ),
            "says it was interrupted: {rest:?}"
        );
        assert!(
            rest.iter().any(|m| matches!(m, Message::Finished { .. })),
            "and summarises: {rest:?}"
        );
        // The worker is gone with its supervisor (it is killed, not waited
        // for: give the kernel a moment to reap it).
        let deadline = Instant::now() + Duration::from_secs(5);
        while !processes_with("tests::runs_until_stopped").is_empty() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(50));
        }
        assert_eq!(
            processes_with("tests::runs_until_stopped"),
            Vec::<String>::new()
        );
    }
}

#[test]
fn a_seed_that_cannot_be_saved_is_still_reported_with_its_value() {
    let fixture = Fixture::new(
        "unsaved",
        "    #[covcheck]\n    fn p(x: u32) {\n        assert!(x != 0xC0DE, \"found it\");\n    }",
    );
    // A file where the seed directory must go: creating it fails (even for
    // root, which a read-only permission would not stop).
    fs::write(fixture.path().join("covcheck-seeds"), "not a directory").unwrap();
    let output = fixture.covcheck(&["--runs", "100000", "--seed", "1"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("x = 49374"),
        "the value is printed:\n{stderr}"
    );
    assert!(
        stderr.contains(&format!(
            "could not save the seed in {}",
            fixture.seed_dir("p").display()
        )),
        "the error names the path:\n{stderr}"
    );
    assert_eq!(
        fs::read_to_string(fixture.path().join("covcheck-seeds")).unwrap(),
        "not a directory"
    );
}

/// `cargo covcheck` on a crate with no `--target-dir` and a build
/// directory shared with other crates, `COVCHECK_BUILD_DIR` (here the
/// end-to-end tests' own), which also keeps the engine.
fn list_with_shared_build(fixture: &Fixture) -> String {
    let output = Command::new(covcheck_e2e::cargo_covcheck())
        .args(["covcheck", "list", "--manifest-path"])
        .arg(fixture.path().join("Cargo.toml"))
        .env(
            "COVCHECK_BUILD_DIR",
            covcheck_e2e::target_dir().join("covcheck/build"),
        )
        .env_remove("CARGO_TARGET_DIR")
        .output()
        .unwrap();
    let text = covcheck_e2e::text_of(&output);
    assert!(output.status.success(), "{text}");
    text
}

#[test]
fn a_second_crate_reuses_the_engine_build() {
    let first = Fixture::new("first_crate", PASSING);
    list_with_shared_build(&first);
    let second = Fixture::new("second_crate", PASSING);
    let text = list_with_shared_build(&second);
    assert!(text.contains("second_crate::tests::passes"), "{text}");
    assert!(
        !text.contains("Compiling libafl"),
        "LibAFL is built once per machine:\n{text}"
    );
    assert!(
        !text.contains("Compiling covcheck-rt"),
        "and so is the runtime:\n{text}"
    );
}

/// The engine is built apart from the user's graph (covcheck-engine, a
/// library of its own): a crate that pins a version of one of LibAFL's
/// dependencies that LibAFL cannot use still runs campaigns. Before, cargo
/// failed to resolve the campaign build ("failed to select a version").
#[test]
fn a_crate_pinning_an_old_version_of_an_engine_dependency_runs_campaigns() {
    let fixture = Fixture::new("pinned", PASSING);
    // An old pin that LibAFL's `backtrace` cannot share (it needs ^0.1.24).
    let manifest = fs::read_to_string(fixture.path().join("Cargo.toml")).unwrap();
    let manifest = manifest.replace(
        "[dev-dependencies]",
        "[dependencies]\nrustc-demangle = \"=0.1.21\"\n\n[dev-dependencies]",
    );
    fs::write(fixture.path().join("Cargo.toml"), manifest).unwrap();
    let output = fixture.covcheck(&["--runs", "2000", "--seed", "1"]);
    let text = covcheck_e2e::text_of(&output);
    assert!(output.status.success(), "{text}");
    assert!(text.contains("pinned::tests::passes"), "{text}");
    assert!(text.contains("0 failures: all passed"), "{text}");
}

/// Once the engine is built, a campaign needs no network: plain `cargo
/// test` writes the crate's lock file, and the instrumented build (which
/// turns on covcheck-rt's `campaign` feature) must find in it everything it
/// needs. Before, the feature's dependencies were optional and so missing
/// from the lock, and every campaign build asked the registry for them
/// again: offline, `cargo covcheck` failed to build.
#[test]
fn a_campaign_needs_no_network_once_the_engine_is_built() {
    covcheck_e2e::build_engine();
    let fixture = Fixture::new(
        "offline",
        "    #[covcheck]\n    fn holds(x: u8) {\n        std::hint::black_box(x);\n    }",
    );
    let (built, text) = fixture.cargo(&["test", "--no-run"]);
    assert!(built, "{text}");
    let output = fixture
        .covcheck_command(&["--runs", "100", "--seed", "1"])
        // As on a machine without network: nothing listens on port 1.
        .env("CARGO_HTTP_PROXY", "http://127.0.0.1:1")
        .env_remove("CARGO_NET_OFFLINE")
        .output()
        .unwrap();
    let text = covcheck_e2e::text_of(&output);
    assert_eq!(output.status.code(), Some(0), "{text}");
    assert!(!text.contains("Updating crates.io index"), "{text}");
}
