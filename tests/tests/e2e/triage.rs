//! End-to-end: the CI campaign's triage and its one budget.
//!
//! - `--keep-going` tells apart two bugs that panic at one `unwrap()` from
//!   two callers (kind, location *and* call path), saves each once, counts
//!   how often each was hit, and writes one JUnit test case per bug.
//! - A failure seed that still fails is known: the next campaign says so,
//!   counts its hits and reports nothing new (exit 0).
//! - `--runs-total` shares one execution budget among a suite's
//!   properties, slice by slice, and stops at it; Ctrl-C under a shared
//!   time budget ends every campaign, the waiting ones too, at once.
//!
//! Each uses an execution budget and a fixed RNG seed, on one worker.

use std::fs;
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

use covcheck_e2e::{Fixture, events, findings, text_of};
use covcheck_protocol::messages::{DistinctFailure, Message};

const ONE_UNWRAP_TWO_BUGS: &str = r#"
    /// The shared helper both bugs panic in: one location for two bugs.
    fn digit(byte: u8) -> u32 {
        (byte as char).to_digit(10).unwrap()
    }

    fn header(tag: u32) -> u32 {
        if tag == 0x4845_4144 { digit(b'h') } else { 0 }
    }

    fn trailer(tag: u32) -> u32 {
        if tag == 0x5452_4c52 { digit(b't') } else { 1 }
    }

    #[covcheck]
    fn frames_decode(head: u32, tail: u32) {
        let _ = header(head) + trailer(tail);
    }
"#;

/// The `finished` message's distinct failures of `property`.
fn distinct_failures(messages: &[Message], property: &str) -> Vec<DistinctFailure> {
    messages
        .iter()
        .find_map(|m| match m {
            Message::Finished {
                property: p,
                failures,
                ..
            } if p.ends_with(property) => Some(failures.clone()),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no finished message of {property}: {messages:?}"))
}

#[test]
fn keep_going_tells_two_bugs_at_one_unwrap_apart_counts_them_and_knows_them_next_time() {
    let fixture = Fixture::new("triage_two_bugs", ONE_UNWRAP_TWO_BUGS);
    let junit = fixture.path().join("campaign.xml");
    let args = [
        "--exact",
        "tests::frames_decode",
        "--keep-going",
        "--runs",
        "300000",
        "--seed",
        "1",
        "--no-resume",
        "--message-format",
        "json",
        "--junit",
        junit.to_str().unwrap(),
    ];
    let output = fixture.covcheck(&args);
    let messages = events(&output.stdout);
    let found = findings(&messages);
    assert_eq!(found.len(), 2, "both bugs, once each: {}", text_of(&output));
    let (a, b) = (&found[0].finding, &found[1].finding);
    assert_eq!(a.location, b.location, "both panic at the one unwrap()");
    assert_ne!(a.call_path, b.call_path, "told apart by their callers");
    assert_eq!(output.status.code(), Some(1), "{}", text_of(&output));
    assert_eq!(fixture.seeds("frames_decode").len(), 2, "each saved once");
    let counted = distinct_failures(&messages, "frames_decode");
    assert_eq!(counted.len(), 2, "{counted:?}");
    assert!(
        counted
            .iter()
            .all(|f| f.hits >= 1 && !f.known && f.seed.is_some())
    );
    let xml = fs::read_to_string(&junit).unwrap();
    assert_eq!(xml.matches("<testcase").count(), 2, "{xml}");
    assert_eq!(xml.matches("<failure").count(), 2, "{xml}");

    // Again, with both saved: known, not news.
    let output = fixture.covcheck(&args);
    let messages = events(&output.stdout);
    assert!(findings(&messages).is_empty(), "{}", text_of(&output));
    let known = messages
        .iter()
        .filter(|m| matches!(m, Message::KnownFailure { .. }))
        .count();
    assert_eq!(known, 2, "{}", text_of(&output));
    let counted = distinct_failures(&messages, "frames_decode");
    assert!(counted.iter().all(|f| f.known), "{counted:?}");
    assert_eq!(output.status.code(), Some(0), "{}", text_of(&output));
    assert_eq!(
        fixture.seeds("frames_decode").len(),
        2,
        "nothing saved again"
    );
}

const A_SUITE: &str = r#"
    #[covcheck]
    fn adds_commute(a: u8, b: u8) {
        assert_eq!(a.wrapping_add(b), b.wrapping_add(a));
    }

    #[covcheck]
    fn sorting_keeps_the_length(mut v: Vec<u8>) {
        let len = v.len();
        v.sort();
        assert_eq!(v.len(), len);
    }

    #[covcheck]
    fn magic_word(w: u32) {
        assert_ne!(w, 0x1234_5678, "found the magic word");
    }
"#;

#[test]
fn one_execution_budget_is_shared_by_a_suite_slice_by_slice() {
    let fixture = Fixture::new("triage_suite", A_SUITE);
    let output = fixture.covcheck(&[
        "--runs-total",
        "60000",
        "--seed",
        "1",
        "--no-resume",
        "--message-format",
        "json",
    ]);
    let messages = events(&output.stdout);
    assert_eq!(findings(&messages).len(), 1, "{}", text_of(&output));
    let mut execs = 0;
    for message in &messages {
        if let Message::Finished {
            property,
            slices,
            execs: ran,
            ..
        } = message
        {
            assert!(
                *slices >= 1,
                "{property} ran in slices: {}",
                text_of(&output)
            );
            execs += ran;
        }
    }
    // Each slice's worker stops at its share; the first inputs a resumed
    // worker replays may run past it by a few.
    assert!(execs <= 60_000 + 3 * 1_000, "{execs} executions");
    assert!(execs >= 30_000, "the budget is used: {execs}");
    assert_eq!(output.status.code(), Some(1), "{}", text_of(&output));
}

#[test]
fn ctrl_c_under_a_shared_budget_ends_the_running_and_the_waiting_campaigns() {
    let quiet = A_SUITE
        .split("    #[covcheck]\n    fn magic_word")
        .next()
        .unwrap();
    let fixture = Fixture::new("triage_suite_interrupted", quiet);
    let mut run = fixture
        .covcheck_command(&[
            "--time-total",
            "10m",
            "--seed",
            "1",
            "--no-resume",
            "--message-format",
            "json",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(run.stdout.take().unwrap()).lines();
    let mut seen = Vec::new();
    // Once one slice ran, the other campaign waits for the slot.
    for line in lines.by_ref().map_while(Result::ok) {
        let running = line.contains(r#""event":"status""#);
        seen.push(line);
        if running {
            break;
        }
    }
    let sent = Command::new("kill")
        .args(["-INT", &run.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    seen.extend(lines.map_while(Result::ok));
    let status = run.wait().unwrap();
    let messages = events(seen.join("\n").as_bytes());
    assert_eq!(status.code(), Some(130), "{seen:?}");
    assert!(
        messages
            .iter()
            .any(|m| matches!(m, Message::Interrupted { .. })),
        "{seen:?}"
    );
}
