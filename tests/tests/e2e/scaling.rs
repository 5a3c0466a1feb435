//! End-to-end: one property on several workers, and a campaign across
//! machines played by two invocations on one machine, joined over
//! 127.0.0.1.
//!
//! Budgets are executions, not wall time. The joined runs depend on each
//! other's timing only in what the assertions tolerate: a joiner that
//! starts after the hub has run a while receives what the hub found so far
//! (its broker replays the hub's messages from the start), whatever the
//! machine's speed.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::time::{Duration, Instant};

use covcheck_e2e::{Fixture, events, findings, target_dir, text_of};
use covcheck_protocol::messages::{Message, parse_message};

/// A little parser with branches a campaign finds one after another, and a
/// bug behind three byte comparisons (`{"k`); `deep_key_is_rejected` fails
/// only where `ARMED` is set, so that of two joined invocations exactly
/// one can find it.
const PROPERTIES: &str = r#"
    fn score(data: &[u8]) -> u32 {
        let mut s = 0u32;
        for w in data.windows(2) {
            match (w[0], w[1]) {
                (b'a', b'b') => s += 1,
                (b'c', x) if x > 200 => s += 2,
                (x, y) if x == y.wrapping_add(7) => s += 3,
                (0..=9, 250..) => s += 4,
                (b'[', b']') => s += 5,
                _ => {}
            }
        }
        if data.len() > 3 && data[0] == b'{' {
            s += 10;
            if data[1] == b'"' {
                s += 20;
            }
        }
        s
    }

    fn has_deep_key(data: &[u8]) -> bool {
        data.len() > 3 && data[0] == b'{' && data[1] == b'"' && data[2] == b'k'
    }

    #[covcheck]
    fn scores_any_input(data: Vec<u8>) {
        let _ = score(&data);
    }

    #[covcheck]
    fn deep_key_is_rejected(data: Vec<u8>) {
        assert!(!has_deep_key(&data), "a deep key");
    }

    #[covcheck]
    fn deep_key_is_rejected_when_armed(data: Vec<u8>) {
        if std::env::var_os("ARMED").is_some() {
            assert!(!has_deep_key(&data), "a deep key");
        }
    }
"#;

fn finished(events: &[Message]) -> (usize, u64, u64) {
    events
        .iter()
        .find_map(|event| match event {
            Message::Finished {
                workers,
                imported,
                execs,
                ..
            } => Some((*workers, *imported, *execs)),
            _ => None,
        })
        .unwrap_or_else(|| panic!("a finished message: {events:#?}"))
}

#[test]
fn a_property_on_two_workers_shares_its_corpus_and_reports_a_failure_once() {
    let fixture = Fixture::new("scaling_two_workers", PROPERTIES);
    let run = |property: &str, runs: &str| {
        let output = fixture.covcheck(&[
            property,
            "--exact",
            "-j",
            "2",
            "--runs",
            runs,
            "--seed",
            "1",
            "--no-resume",
            "--message-format",
            "json",
        ]);
        (
            output.status.code(),
            events(&output.stdout),
            text_of(&output),
        )
    };

    let (code, events, text) = run("tests::scores_any_input", "200000");
    assert_eq!(code, Some(0), "{text}");
    let (workers, imported, execs) = finished(&events);
    assert_eq!(workers, 2, "{text}");
    assert!(execs >= 200_000, "the budget is the property's: {execs}");
    assert!(
        imported > 0,
        "each worker keeps entries the other found: {text}"
    );

    let (code, events, text) = run("tests::deep_key_is_rejected", "2000000");
    assert_eq!(code, Some(1), "{text}");
    let found = findings(&events);
    assert_eq!(found.len(), 1, "reported once: {text}");
    assert!(
        matches!(
            events.iter().find(|e| matches!(e, Message::Finding { .. })),
            Some(Message::Finding {
                worker: Some(1 | 2),
                ..
            })
        ),
        "says which worker found it: {text}"
    );
    assert_eq!(
        fixture.seed_files("deep_key_is_rejected").len(),
        1,
        "saved once"
    );
}

/// A `cargo covcheck` started in the background on `fixture`, with its
/// campaign state in `target` and the end-to-end tests' instrumented build.
struct Background {
    child: Child,
    stdout: Receiver<Message>,
    stderr: Receiver<String>,
}

/// Started with `--message-format json`, so that its status can be read.
fn start(fixture: &Fixture, target: &Path, args: &[&str], env: &[(&str, &str)]) -> Background {
    let mut child = invocation(fixture, target, args, env)
        .args(["--message-format", "json"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (out_tx, stdout) = mpsc::channel();
    let out = BufReader::new(child.stdout.take().unwrap());
    std::thread::spawn(move || {
        for line in out.lines().map_while(Result::ok) {
            if let Some(Ok(message)) = parse_message(&line) {
                let _ = out_tx.send(message);
            }
        }
    });
    let (err_tx, stderr) = mpsc::channel();
    let err = BufReader::new(child.stderr.take().unwrap());
    std::thread::spawn(move || {
        for line in err.lines().map_while(Result::ok) {
            let _ = err_tx.send(line);
        }
    });
    Background {
        child,
        stdout,
        stderr,
    }
}

fn invocation(fixture: &Fixture, target: &Path, args: &[&str], env: &[(&str, &str)]) -> Command {
    let mut command = Command::new(covcheck_e2e::cargo_covcheck());
    command
        .arg("covcheck")
        .args(args)
        .arg("--manifest-path")
        .arg(fixture.path().join("Cargo.toml"))
        .arg("--target-dir")
        .arg(target)
        .env("COVCHECK_BUILD_DIR", target_dir().join("covcheck/build"))
        .env("COVCHECK_JOBS", "1")
        .envs(env.iter().copied());
    command
}

/// Generous: the first wait includes the instrumented build.
const PATIENCE: Duration = Duration::from_secs(600);

impl Background {
    /// The hub's address, from its first line about the network.
    fn hub_address(&self) -> String {
        let deadline = Instant::now() + PATIENCE;
        while let Ok(line) = self.stderr.recv_timeout(deadline - Instant::now()) {
            if let Some(rest) = line.split(" across machines, on ").nth(1) {
                return rest.split(':').take(2).collect::<Vec<_>>().join(":");
            }
        }
        panic!("the hub never said where it listens");
    }

    /// Waits for a status whose corpus has at least `entries` entries.
    fn wait_for_corpus(&self, entries: usize) {
        let deadline = Instant::now() + PATIENCE;
        while let Ok(message) = self.stdout.recv_timeout(deadline - Instant::now()) {
            if let Message::Status { progress, .. } = message
                && progress.corpus >= entries
            {
                return;
            }
        }
        panic!("no status with {entries} corpus entries");
    }

    fn still_running(&mut self) -> bool {
        self.child.try_wait().unwrap().is_none()
    }

    fn signal(&self, signal: i32) {
        // SAFETY: kill(2) on our own child, not yet reaped.
        unsafe { libc::kill(self.child.id() as i32, signal) };
    }

    /// Its exit code and its messages, each as its JSON line, with what
    /// it printed on stderr.
    fn finish(mut self) -> (Option<i32>, String) {
        let status = self.child.wait().unwrap();
        let mut text: Vec<String> = self.stdout.try_iter().map(|m| m.to_line()).collect();
        text.extend(self.stderr.try_iter());
        (status.code(), text.join("\n"))
    }
}

fn run_to_end(fixture: &Fixture, target: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    invocation(fixture, target, args, env).output().unwrap()
}

/// A target directory of the test's own (the build stays shared).
fn own_target(fixture: &Fixture, name: &str) -> PathBuf {
    fixture.path().join(name)
}

/// A hub on a free local port with a budget it never reaches, once its
/// corpus has `entries` entries; and its address.
fn start_hub(fixture: &Fixture, select: &[&str], entries: usize) -> (Background, String) {
    let hub = start(
        fixture,
        &own_target(fixture, "hub"),
        &[
            select,
            &["1", "--listen", "127.0.0.1:0", "--runs", "1000000000"],
        ]
        .concat(),
        &[],
    );
    let address = hub.hub_address();
    hub.wait_for_corpus(entries);
    (hub, address)
}

/// A joiner of the hub at `address` with RNG seed `seed`, a target
/// directory `name` and a budget it never reaches, once its corpus has an
/// entry.
fn start_joiner(
    fixture: &Fixture,
    name: &str,
    select: &[&str],
    (seed, address): (&str, &str),
) -> Background {
    let joiner = start(
        fixture,
        &own_target(fixture, name),
        &[select, &[seed, "--join", address, "--runs", "1000000000"]].concat(),
        &[],
    );
    joiner.wait_for_corpus(1);
    joiner
}

#[test]
fn two_invocations_joined_over_loopback_share_their_corpus_and_outlive_each_other() {
    let fixture = Fixture::new("scaling_loopback", PROPERTIES);
    let select = ["tests::scores_any_input", "--exact", "--seed"];
    let (mut hub, address) = start_hub(&fixture, &select, 10);

    // An input the hub found appears in the joiner's corpus.
    let joiner = run_to_end(
        &fixture,
        &own_target(&fixture, "joiner"),
        &[
            &select[..],
            &["2", "--join", &address, "--runs", "20000"],
            &["--message-format", "json"],
        ]
        .concat(),
        &[],
    );
    let text = text_of(&joiner);
    assert_eq!(joiner.status.code(), Some(0), "{text}");
    let (_, imported, _) = finished(&events(&joiner.stdout));
    assert!(imported > 0, "the joiner kept the hub's entries: {text}");

    // A machine with other properties is refused, and told why.
    let other = run_to_end(
        &fixture,
        &own_target(&fixture, "other"),
        &["tests::deep_key_is_rejected", "--exact", "--join", &address],
        &[],
    );
    let text = text_of(&other);
    assert_eq!(other.status.code(), Some(2), "{text}");
    assert!(
        text.contains(&format!("the hub at {address} refused this machine"))
            && text.contains(
                "only on the hub: scaling_loopback scaling_loopback::tests::scores_any_input"
            )
            && text.contains(
                "only here: scaling_loopback scaling_loopback::tests::deep_key_is_rejected"
            ),
        "{text}"
    );

    // Killing a joiner leaves the hub running.
    let killed = start_joiner(&fixture, "killed", &select, ("3", &address));
    killed.signal(libc::SIGKILL);
    let _ = killed.finish();
    std::thread::sleep(Duration::from_millis(500));
    assert!(hub.still_running(), "the hub outlives a killed joiner");

    // Killing the hub stops a joiner with a clear message; its corpus stays.
    let orphan_target = own_target(&fixture, "orphan");
    let orphan = start_joiner(&fixture, "orphan", &select, ("4", &address));
    hub.signal(libc::SIGKILL);
    let _ = hub.finish();
    let (code, text) = orphan.finish();
    assert_eq!(code, Some(3), "{text}");
    assert!(
        text.contains(&format!("the hub at {address} went away"))
            && text.contains("the corpus cache is kept"),
        "{text}"
    );
    let cache = std::fs::read_dir(orphan_target.join("covcheck/corpus"))
        .unwrap()
        .flatten()
        .flat_map(|property| std::fs::read_dir(property.path()).unwrap())
        .count();
    assert!(cache > 0, "the joiner's corpus cache is kept");
}

#[test]
fn a_failure_found_by_one_joined_invocation_is_saved_once_and_stops_the_other() {
    let fixture = Fixture::new("scaling_saved_once", PROPERTIES);
    let property = "deep_key_is_rejected_when_armed";
    let select = [
        "tests::deep_key_is_rejected_when_armed",
        "--exact",
        "--seed",
    ];
    let (hub, address) = start_hub(&fixture, &select, 1);

    let joiner = run_to_end(
        &fixture,
        &own_target(&fixture, "joiner"),
        &[&select[..], &["2", "--join", &address, "--runs", "2000000"]].concat(),
        &[("ARMED", "1")],
    );
    let text = text_of(&joiner);
    assert_eq!(joiner.status.code(), Some(1), "the joiner found it: {text}");

    let (code, text) = hub.finish();
    assert_eq!(code, Some(1), "the hub reports it too: {text}");
    assert!(text.contains("found a failure (panic at"), "{text}");
    assert!(
        text.contains("saved its seed there; stopped here"),
        "{text}"
    );
    assert_eq!(fixture.seed_files(property).len(), 1, "saved once");
}
