//! End-to-end: ordinary events never lose, invent or mix up a finding.
//!
//! - A failure is saved the moment it is caught: Ctrl-C after two bugs of a
//!   `--keep-going` campaign were found keeps both, and one while the
//!   failure is being shrunk keeps it unshrunk; either way the run exits 1.
//! - A failure on a worker's first input leaves the campaign something to
//!   mutate: it runs its whole budget, without restarting workers; so does
//!   one that did not come back when replayed, even when the simplest
//!   input, the one a campaign falls back on, fails too.
//! - A corpus broker that dies stops its workers with an error naming it,
//!   never a finding.
//! - Shrinking keeps the failure it was given: a property whose failure
//!   leaves state behind that makes every later run fail elsewhere is
//!   reported at the failure found, and the other failure on its own.
//!
//! Each uses an execution budget and a fixed RNG seed; the signals are sent
//! once the event they follow was seen, never after a delay.

use std::fs;
use std::io::{BufRead, BufReader, Lines};
use std::process::{Child, ChildStdout, Command, Stdio};

use covcheck_e2e::{Fixture, events, findings};
use covcheck_protocol::messages::{Message, parse_message};

const TWO_BUGS: &str = r#"
    #[covcheck]
    fn two_bugs(x: u64, y: u64) {
        if x == 0xDEAD_BEEF_1234_5678 {
            panic!("bug one");
        }
        if y == 0xCAFE_F00D_8765_4321 {
            panic!("bug two");
        }
    }

    static RUNS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

    /// Fails on large values; any run after the first failing one waits
    /// until the worker is killed, as a long shrink would.
    #[covcheck]
    fn slow_to_shrink(x: u32) {
        if x > 1000 {
            if RUNS.fetch_add(1, std::sync::atomic::Ordering::Relaxed) > 0 {
                loop {
                    std::thread::sleep(std::time::Duration::from_millis(10));
                }
            }
            panic!("too large: {x}");
        }
    }
"#;

/// `cargo covcheck` with `args` and JSON messages, its stdout read line by line.
fn spawn(fixture: &Fixture, args: &[&str]) -> (Child, Lines<BufReader<ChildStdout>>) {
    let mut child = fixture
        .covcheck_command(&[args, &["--message-format", "json"]].concat())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let lines = BufReader::new(child.stdout.take().unwrap()).lines();
    (child, lines)
}

fn interrupt(child: &Child) {
    let sent = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
}

#[test]
fn ctrl_c_after_findings_of_a_keep_going_campaign_keeps_them_all() {
    let fixture = Fixture::new("interrupted_findings", TWO_BUGS);
    for jobs in ["2", "1"] {
        let _ = fs::remove_dir_all(fixture.seed_dir("two_bugs"));
        let (mut run, lines) = spawn(
            &fixture,
            &[
                "--exact",
                "tests::two_bugs",
                "-j",
                jobs,
                "--keep-going",
                "--runs",
                "400000000",
                "--seed",
                "1",
                "--no-resume",
            ],
        );
        let mut seen = Vec::new();
        for line in lines.map_while(Result::ok) {
            let finding = matches!(parse_message(&line), Some(Ok(Message::Finding { .. })));
            seen.push(line);
            if finding && findings(&events(seen.join("\n").as_bytes())).len() == 2 {
                interrupt(&run);
            }
        }
        let status = run.wait().unwrap();
        let messages = events(seen.join("\n").as_bytes());
        let found = findings(&messages);
        let mut messages_of: Vec<&str> = found.iter().map(|f| f.finding.message.as_str()).collect();
        messages_of.sort();
        assert_eq!(
            messages_of,
            ["bug one", "bug two"],
            "-j {jobs}: each bug reported once, as it was found: {messages:?}"
        );
        assert_eq!(status.code(), Some(1), "-j {jobs}: findings exit 1");
        let seeds = fixture.seeds("two_bugs");
        let mut saved: Vec<&str> = seeds
            .iter()
            .map(|s| s.file.failure.as_ref().unwrap().message.as_str())
            .collect();
        saved.sort();
        assert_eq!(saved, ["bug one", "bug two"], "-j {jobs}: both saved");
    }
}

#[test]
fn ctrl_c_while_shrinking_keeps_the_failure_unshrunk() {
    let fixture = Fixture::new("interrupted_shrink", TWO_BUGS);
    let (mut run, lines) = spawn(
        &fixture,
        &[
            "--exact",
            "tests::slow_to_shrink",
            "--runs",
            "100000",
            "--seed",
            "1",
        ],
    );
    let reader = std::thread::spawn(move || lines.map_while(Result::ok).collect::<Vec<_>>());
    // The seed appears before shrinking ends (here: never ends).
    let seed_dir = fixture.seed_dir("slow_to_shrink");
    loop {
        if fs::read_dir(&seed_dir).is_ok_and(|mut d| d.next().is_some()) {
            interrupt(&run);
            break;
        }
        if run.try_wait().unwrap().is_some() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let status = run.wait().unwrap();
    let lines = reader.join().unwrap();
    let messages = events(lines.join("\n").as_bytes());
    assert_eq!(status.code(), Some(1), "a failure was found: {messages:?}");
    let found = findings(&messages);
    assert_eq!(found.len(), 1, "{messages:?}");
    let finding = &found[0].finding;
    assert!(finding.message.starts_with("too large"), "{finding:?}");
    assert!(
        finding
            .shrink_note
            .as_deref()
            .is_some_and(|n| n.contains("interrupted")),
        "says it was not shrunk: {finding:?}"
    );
    let seed = fs::read_to_string(found[0].saved_seed()).unwrap();
    assert!(
        seed.contains("unshrunk = true"),
        "the seed says so too: {seed}"
    );
    assert!(seed.contains("message = \"too large"), "{seed}");
}

const FIRST_INPUT_FAILS: &str = r#"
    use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

    static COUNTER: AtomicU64 = AtomicU64::new(0);

    /// Fails on a third of its runs, the first one included, whatever the
    /// input: not on every replay.
    #[covcheck]
    fn flaky(x: u64) {
        std::hint::black_box(x);
        if COUNTER.fetch_add(1, Relaxed) % 3 == 0 {
            panic!("sometimes");
        }
    }
"#;

#[test]
fn a_failure_on_the_first_input_leaves_the_campaign_its_budget() {
    let fixture = Fixture::new("first_input_fails", FIRST_INPUT_FAILS);
    // Before, the worker ended after 0 executions ("No items in the
    // corpus") and `--keep-going` restarted it for ever; `--time` only
    // bounds the test on such code.
    let output = fixture.covcheck(&[
        "--keep-going",
        "--runs",
        "20000",
        "--time",
        "300s",
        "--seed",
        "1",
        "--message-format",
        "json",
    ]);
    let messages = events(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    let found = ran_its_whole_budget(&messages, "first_input_fails::tests::flaky", 20000, &stderr);
    assert_eq!(found, 1, "one failure, once: {messages:?}");
    let finding = &findings(&messages)[0].finding;
    assert!(finding.flaky, "not the same on every replay: {finding:?}");
    let seed = fs::read_to_string(findings(&messages)[0].saved_seed()).unwrap();
    assert!(seed.contains("flaky = true"), "the seed says so: {seed}");
}

/// Asserts that `property`'s campaign ran its whole budget of `runs`
/// executions and that no worker ended with an error; returns how many
/// failures it found.
fn ran_its_whole_budget(messages: &[Message], property: &str, runs: u64, stderr: &str) -> usize {
    assert!(
        !messages.iter().any(|m| matches!(m, Message::Error { .. })),
        "no worker error: {messages:?}\n{stderr}"
    );
    let (execs, found) = covcheck_e2e::finished(messages, property).expect("finished");
    assert!(execs >= runs, "the whole budget ran: {execs} executions");
    found
}

const SIMPLEST_INPUT_FAILS: &str = r#"
    use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

    static COUNTER: AtomicU64 = AtomicU64::new(0);

    /// Passes on every third run only, whatever the input: its first input
    /// and the simplest input after it both fail, and a replay passes.
    #[covcheck]
    fn mostly_fails(x: u64) {
        std::hint::black_box(x);
        if COUNTER.fetch_add(1, Relaxed) % 3 != 2 {
            panic!("mostly");
        }
    }
"#;

#[test]
fn a_flaky_failure_of_the_simplest_input_leaves_the_campaign_its_budget() {
    let fixture = Fixture::new("simplest_input_fails", SIMPLEST_INPUT_FAILS);
    // Before, the failing simplest input was an objective, not a corpus
    // entry, and the worker ended at once: "No items in the corpus".
    let output = fixture.covcheck(&[
        "--runs",
        "20000",
        "--time",
        "300s",
        "--seed",
        "1",
        "--no-resume",
        "--message-format",
        "json",
    ]);
    let messages = events(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    let property = "simplest_input_fails::tests::mostly_fails";
    let found = ran_its_whole_budget(&messages, property, 20000, &stderr);
    assert_eq!(found, 1, "one failure, once: {messages:?}");
    assert!(findings(&messages)[0].finding.flaky, "{messages:?}");
}

const ALWAYS_ABORTS: &str = r#"
    #[covcheck]
    fn always_aborts(x: u64) {
        std::hint::black_box(x);
        std::process::abort();
    }
"#;

#[test]
fn workers_that_die_before_their_campaign_starts_are_not_restarted_for_ever() {
    let fixture = Fixture::new("always_aborts", ALWAYS_ABORTS);
    // `--time` only bounds the test on code that restarts for ever.
    let output = fixture.covcheck(&[
        "--keep-going",
        "--runs",
        "1000000",
        "--time",
        "120s",
        "--seed",
        "1",
        "--message-format",
        "json",
    ]);
    let messages = events(&output.stdout);
    assert_eq!(output.status.code(), Some(1), "the abort: {messages:?}");
    assert_eq!(findings(&messages).len(), 1, "reported once: {messages:?}");
    assert!(
        messages.iter().any(|m| matches!(
            m,
            Message::Error { message, .. } if message.contains("5 workers in a row ended")
        )),
        "then the lane gives up, saying why: {messages:?}"
    );
    let (execs, _) =
        covcheck_e2e::finished(&messages, "always_aborts::tests::always_aborts").unwrap();
    assert!(
        execs < 100,
        "{execs} executions: no restarts for the budget"
    );
}

const BLACK_BOX: &str = r#"
    #[covcheck]
    fn runs(x: u64) {
        std::hint::black_box(x);
    }
"#;

/// Process ids of the children of `parent` whose command line holds `needle`.
fn children_with(parent: u32, needle: &str) -> Vec<u32> {
    let mut found = Vec::new();
    for entry in fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let status = fs::read_to_string(entry.path().join("status")).unwrap_or_default();
        let ppid = status
            .lines()
            .find_map(|l| l.strip_prefix("PPid:"))
            .and_then(|p| p.trim().parse::<u32>().ok());
        let cmdline = fs::read(entry.path().join("cmdline")).unwrap_or_default();
        if ppid == Some(parent) && String::from_utf8_lossy(&cmdline).contains(needle) {
            found.push(pid);
        }
    }
    found
}

/// Reads the run's messages to the end; at its first status, SIGKILLs its
/// one child process whose command line holds `needle`. The lines, and
/// whether it got to kill it.
fn kill_at_first_status(
    run: &Child,
    lines: Lines<BufReader<ChildStdout>>,
    needle: &str,
) -> (Vec<String>, bool) {
    let mut seen = Vec::new();
    let mut killed = false;
    for line in lines.map_while(Result::ok) {
        let status = matches!(parse_message(&line), Some(Ok(Message::Status { .. })));
        seen.push(line);
        if status && !killed {
            let children = children_with(run.id(), needle);
            assert_eq!(children.len(), 1, "one {needle}: {children:?}");
            // SAFETY: kill(2) on a process of this test's.
            unsafe { libc::kill(children[0] as i32, libc::SIGKILL) };
            killed = true;
        }
    }
    (seen, killed)
}

#[test]
fn a_broker_that_dies_is_an_error_never_a_finding() {
    let fixture = Fixture::new("broker_dies", BLACK_BOX);
    let (mut run, lines) = spawn(
        &fixture,
        &[
            "-j",
            "2",
            "--runs",
            "200000000",
            "--seed",
            "1",
            "--no-resume",
        ],
    );
    // As a crash of the broker would.
    let (seen, killed) = kill_at_first_status(&run, lines, "covcheck-broker");
    let status = run.wait().unwrap();
    let messages = events(seen.join("\n").as_bytes());
    assert!(killed, "the campaign reported progress: {messages:?}");
    assert_eq!(status.code(), Some(3), "covcheck's own error: {messages:?}");
    assert!(findings(&messages).is_empty(), "{messages:?}");
    assert!(
        messages.iter().any(|m| matches!(
            m,
            Message::Error { message, .. } if message.contains("corpus broker")
        )),
        "the error names the broker: {messages:?}"
    );
    assert!(fixture.seed_files("runs").is_empty());
}

const LEAVES_STATE_BEHIND: &str = r#"
    use std::sync::atomic::{AtomicBool, Ordering::Relaxed};

    /// Set while a parse runs: a panic leaves it set, as unwinding leaves
    /// a depth counter or a busy flag behind.
    static BUSY: AtomicBool = AtomicBool::new(false);

    fn parse(x: u32) -> u32 {
        assert!(!BUSY.swap(true, Relaxed), "re-entered while busy");
        if x >= 1000 && x % 3 == 1 {
            panic!("the bug at {x}");
        }
        BUSY.store(false, Relaxed);
        x
    }

    #[covcheck]
    fn slips(x: u32) {
        std::hint::black_box(parse(x));
    }
"#;

#[test]
fn shrinking_keeps_the_failure_found_and_reports_another_on_its_own() {
    let fixture = Fixture::new("slips", LEAVES_STATE_BEHIND);
    let output = fixture.covcheck(&["--runs", "20000", "--seed", "1", "--message-format", "json"]);
    let messages = events(&output.stdout);
    assert_eq!(output.status.code(), Some(1), "{messages:?}");
    let found = findings(&messages);
    let bug = found
        .iter()
        .find(|f| f.finding.message.starts_with("the bug at"))
        .unwrap_or_else(|| panic!("the failure found is reported: {messages:?}"));
    let x: u32 = bug.first_arg().parse().unwrap();
    assert!(
        x >= 1000 && x % 3 == 1,
        "with a value that shows it, not one that slipped to the other failure: {bug:?}"
    );
    assert!(
        bug.finding.flaky,
        "it does not fail again by itself: {bug:?}"
    );
    assert!(
        found
            .iter()
            .any(|f| f.finding.message.contains("re-entered while busy")),
        "the other failure is reported on its own: {messages:?}"
    );
}

const SMALL: &str = r#"
    #[covcheck]
    fn passes(x: u64) {
        std::hint::black_box(x);
    }

    #[covcheck(max_cost = 1000)]
    fn bounded(x: u64) {
        std::hint::black_box(x);
    }
"#;

#[test]
fn limits_that_cannot_work_and_seeds_that_cannot_be_read_are_named() {
    let fixture = Fixture::new("small_ones", SMALL);
    let output = fixture.covcheck(&["--rss-limit-mb", "1"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "a usage error: {stderr}");
    assert!(stderr.contains("give at least 64 MiB"), "{stderr}");

    let output = fixture.covcheck(&["--exact", "tests::bounded", "--runs", "100"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("`max_cost = 1000` of `small_ones::tests::bounded` is not checked"),
        "says the bound went unchecked: {stderr}"
    );

    let dir = fixture.seed_dir("passes");
    fs::create_dir_all(&dir).unwrap();
    fs::write(dir.join("bad1.toml"), "choices = [").unwrap();
    fs::write(dir.join("bad2.toml"), "format = 99").unwrap();
    let output = fixture.covcheck(&["--exact", "tests::passes", "--runs", "100"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(3), "not `all passed`: {stderr}");
    assert!(
        stderr.contains("bad1.toml") && stderr.contains("bad2.toml"),
        "names every bad file: {stderr}"
    );
    let (passed, text) = fixture.cargo(&["test", "--lib", "--", "tests::passes", "--exact"]);
    assert!(!passed, "cargo test fails on them too:\n{text}");
    assert!(
        text.contains("bad1.toml") && text.contains("bad2.toml"),
        "and names every one:\n{text}"
    );
    assert_eq!(
        fs::read_to_string(dir.join("bad1.toml")).unwrap(),
        "choices = [",
        "never touched"
    );
}

const RUNS_OUT_OF_MEMORY: &str = r#"
    #[covcheck]
    fn runs_out_of_memory(x: u32) {
        if x >= 1000 && x % 3 == 1 {
            let mut hoard = Vec::new();
            loop {
                hoard.push(vec![1u8; 1 << 20]);
                std::hint::black_box(&hoard);
            }
        }
    }
"#;

/// Plays a machine too busy to run the campaign's processes: until
/// dropped, stops every process whose command line holds `needle` (the
/// workers and their forked children) for 400 ms at a time, as a loaded
/// machine's scheduler may leave one without a core, with 100 ms to run in
/// between.
struct Starved {
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Starved {
    fn start(needle: &'static str) -> Starved {
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let flag = stop.clone();
        let thread = std::thread::spawn(move || {
            let signal_all = |signal| {
                for pid in processes_with(needle) {
                    // SAFETY: kill(2) on a process of this test's.
                    unsafe { libc::kill(pid as i32, signal) };
                }
            };
            while !flag.load(std::sync::atomic::Ordering::Relaxed) {
                signal_all(libc::SIGSTOP);
                std::thread::sleep(std::time::Duration::from_millis(400));
                signal_all(libc::SIGCONT);
                std::thread::sleep(std::time::Duration::from_millis(100));
            }
            signal_all(libc::SIGCONT);
        });
        Starved {
            stop,
            thread: Some(thread),
        }
    }
}

impl Drop for Starved {
    fn drop(&mut self) {
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// Process ids of the processes whose command line holds `needle`.
fn processes_with(needle: &str) -> Vec<u32> {
    let mut found = Vec::new();
    for entry in fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let cmdline = fs::read(entry.path().join("cmdline")).unwrap_or_default();
        if String::from_utf8_lossy(&cmdline).contains(needle) {
            found.push(pid);
        }
    }
    found
}

#[test]
fn running_out_of_memory_is_named_so_on_a_busy_machine() {
    let fixture = Fixture::new("oom_under_load", RUNS_OUT_OF_MEMORY);
    // Built before the machine gets busy: only the campaign runs beside it.
    let (listed, text) = fixture.cargo(&["build", "--tests"]);
    assert!(listed, "{text}");
    let output = {
        let _starved = Starved::start("tests::runs_out_of_memory");
        fixture
            .covcheck_command(&[
                "--runs",
                "20000",
                "--seed",
                "3",
                "--timeout",
                "300ms",
                "--rss-limit-mb",
                "512",
                "--message-format",
                "json",
            ])
            // Only the kind is asserted, not a shrunk value: no shrinking,
            // which for a starved out-of-memory failure would otherwise take
            // its whole 30 s budget.
            .env("COVCHECK_SHRINK_SECS", "0")
            .output()
            .unwrap()
    };
    let messages = events(&output.stdout);
    assert_eq!(output.status.code(), Some(1), "{messages:?}");
    let found = findings(&messages);
    assert_eq!(found.len(), 1, "{messages:?}");
    assert_eq!(
        found[0].finding.kind,
        covcheck_protocol::messages::FailureKind::OutOfMemory,
        "however slowly the machine ran it: {:?}",
        found[0]
    );
}

#[test]
fn a_worker_killed_from_outside_is_no_finding_unless_its_input_kills_again() {
    let fixture = Fixture::new("killed_worker", BLACK_BOX);
    let (mut run, lines) = spawn(
        &fixture,
        &["--runs", "3000000", "--seed", "1", "--no-resume"],
    );
    // As the kernel's OOM killer or a person would.
    let (seen, killed) = kill_at_first_status(&run, lines, "tests::runs");
    let status = run.wait().unwrap();
    let messages = events(seen.join("\n").as_bytes());
    assert!(killed, "the campaign reported progress: {messages:?}");
    assert!(
        findings(&messages).is_empty(),
        "nothing invented: {messages:?}"
    );
    assert!(
        messages.iter().any(|m| matches!(
            m,
            Message::Warning { message, .. } if message.contains("from outside covcheck")
        )),
        "says what happened: {messages:?}"
    );
    assert_eq!(status.code(), Some(0), "{messages:?}");
    let (execs, _) = covcheck_e2e::finished(&messages, "killed_worker::tests::runs").unwrap();
    assert!(execs >= 3_000_000, "a new worker ran the rest: {execs}");
    assert!(fixture.seed_files("runs").is_empty());
}
