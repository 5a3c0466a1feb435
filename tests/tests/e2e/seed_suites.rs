//! End-to-end: the seed-suite commands on a crate outside this workspace.
//!
//! A campaign (fixed RNG seed, execution budget) saves a failure seed and
//! fills the corpus cache; `minimize --save` keeps every feature in covering
//! seeds and lists a stale covering seed without deleting it; `--prune`
//! deletes it; plain `cargo test` replays the covering seeds and passes;
//! `replay --junit` reports one test case per seed. Through all of it the
//! failure seeds stay byte for byte as they were. With `--message-format
//! json`, `list`, `minimize` and `replay` print only messages on stdout.

use std::collections::BTreeMap;
use std::fs;
use std::path::PathBuf;
use std::process::Output;

use covcheck_e2e::{Fixture, text_of};
use covcheck_protocol::messages::{Message, SuiteFate, parse_message};
use covcheck_protocol::seeds::SeedKind;

const PROPERTIES: &str = r#"
    #[covcheck]
    fn finds_coffee(x: u32) {
        assert!(x != 0xC0FFEE, "found the coffee");
    }

    #[covcheck]
    fn scores(bytes: Vec<u8>) {
        let mut score = 0u32;
        for b in &bytes {
            match b {
                0 => score += 1,
                1..=9 => score += 2,
                10 | 20 | 30 => score = score.wrapping_mul(3),
                100..=120 => score ^= 7,
                b'{' => score = score.rotate_left(3),
                _ => {}
            }
        }
        if bytes.len() > 3 && bytes[0] == b'{' {
            score += 11;
        }
        std::hint::black_box(score);
    }
"#;

/// Every failure seed's path and exact bytes.
fn failure_seeds(fixture: &Fixture) -> BTreeMap<PathBuf, Vec<u8>> {
    ["finds_coffee", "scores"]
        .into_iter()
        .flat_map(|p| fixture.seeds(p))
        .filter(|seed| seed.file.kind == SeedKind::Failure)
        .map(|seed| {
            let bytes = fs::read(&seed.path).unwrap();
            (seed.path, bytes)
        })
        .collect()
}

#[test]
fn minimize_keeps_every_feature_and_no_command_touches_failure_seeds() {
    let fixture = Fixture::new("suites", PROPERTIES);
    let campaign = fixture.covcheck(&["--runs", "30000", "--seed", "3", "-j", "2"]);
    let text = text_of(&campaign);
    assert_eq!(campaign.status.code(), Some(1), "the bug is found:\n{text}");
    let failures = failure_seeds(&fixture);
    assert_eq!(failures.len(), 1, "one failure seed:\n{text}");
    // A failure seed written by hand for the passing property too: failure
    // seeds are never removed, even where they no longer fail.
    let scores_dir = fixture.seed_dir("scores");
    fs::create_dir_all(&scores_dir).unwrap();
    fs::write(
        scores_dir.join("aaaaaaaaaaaaaaaa.toml"),
        "format = 1\nproperty = \"suites::tests::scores\"\nkind = \"failure\"\n\
         choices = \"1 5\"\n\n[failure]\nmessage = \"an old bug\"\nlocation = \"src/lib.rs:1:1\"\n",
    )
    .unwrap();
    // A covering seed no suite needs (`[6]` reaches what the failure seed
    // `[5]` reaches): listed as stale, deleted only with --prune.
    let stale = scores_dir.join("bbbbbbbbbbbbbbbb.toml");
    fs::write(
        &stale,
        "format = 1\nproperty = \"suites::tests::scores\"\nkind = \"covering\"\n\
         choices = \"1 6\"\n",
    )
    .unwrap();
    let failures = failure_seeds(&fixture);
    assert_eq!(failures.len(), 2);

    let minimize = fixture.covcheck(&["minimize", "--save"]);
    let text = text_of(&minimize);
    assert!(minimize.status.success(), "{text}");
    let scores = text
        .split("suites::tests::scores")
        .nth(1)
        .expect("a report for `scores`");
    let kept = scores
        .lines()
        .find(|l| l.contains("measured features"))
        .expect("a `shrunk` line");
    let (of, measured) = kept
        .split_once("keeps ")
        .and_then(|(_, rest)| rest.split_once(" measured"))
        .map(|(numbers, _)| {
            let words: Vec<&str> = numbers.split_whitespace().collect();
            (words[0].to_string(), words[3].to_string())
        })
        .unwrap_or_else(|| panic!("{kept:?}"));
    assert_eq!(of, measured, "every feature is kept: {kept}");
    assert!(kept.contains("(100%)"), "{kept}");
    assert!(scores.contains("saved "), "{scores}");
    assert!(
        scores.contains("no longer needed") && scores.contains("bbbbbbbbbbbbbbbb.toml"),
        "the stale covering seed is listed:\n{scores}"
    );
    assert!(stale.exists(), "and not deleted without --prune");
    let covering: Vec<PathBuf> = fixture
        .seeds("scores")
        .into_iter()
        .filter(|seed| seed.file.kind == SeedKind::Covering)
        .map(|seed| seed.path)
        .filter(|p| *p != stale)
        .collect();
    assert!(!covering.is_empty(), "covering seeds are saved:\n{text}");
    assert_eq!(failure_seeds(&fixture), failures, "minimize --save");

    // With the messages for tools, which say what was deleted.
    let prune = fixture.covcheck(&["minimize", "--save", "--prune", "--message-format", "json"]);
    let text = text_of(&prune);
    assert!(prune.status.success(), "{text}");
    assert!(!stale.exists(), "--prune deletes the stale seed:\n{text}");
    // A second run prefers the covering seeds of the first, so the suite
    // does not churn: every one of them is still there, and it still covers
    // everything.
    for path in &covering {
        assert!(path.exists(), "{} was replaced:\n{text}", path.display());
    }
    let messages = json_lines(&prune);
    let minimized = messages
        .iter()
        .find_map(|m| match m {
            Message::Minimized {
                property,
                suite,
                deleted_seeds,
                coverage,
                ..
            } if property == "suites::tests::scores" => Some((suite, deleted_seeds, coverage)),
            _ => None,
        })
        .unwrap_or_else(|| panic!("a `minimized` message for `scores`:\n{text}"));
    let (suite, deleted, coverage) = minimized;
    assert_eq!(*suite, SuiteFate::Saved, "{text}");
    let deleted: Vec<_> = deleted.iter().filter_map(|p| p.file_name()).collect();
    assert_eq!(deleted, [stale.file_name().unwrap()], "{text}");
    let percent = 100.0 * coverage.covered as f64 / coverage.features.max(1) as f64;
    assert_eq!(
        format!("{percent:.0}"),
        "100",
        "as the text says it:\n{text}"
    );
    assert_eq!(failure_seeds(&fixture), failures, "minimize --save --prune");

    let list = fixture.covcheck(&["list", "--message-format", "json"]);
    let text = text_of(&list);
    assert!(list.status.success(), "{text}");
    let listed: BTreeMap<String, usize> = json_lines(&list)
        .into_iter()
        .filter_map(|m| match m {
            Message::Listed {
                property, seeds, ..
            } => Some((property, seeds)),
            _ => None,
        })
        .collect();
    let on_disk = |p| fixture.seed_files(p).len();
    assert_eq!(
        listed,
        BTreeMap::from([
            (
                "suites::tests::finds_coffee".into(),
                on_disk("finds_coffee")
            ),
            ("suites::tests::scores".into(), on_disk("scores")),
        ]),
        "{text}"
    );

    let (passed, text) = fixture.cargo(&["test", "--", "tests::scores", "--exact", "--nocapture"]);
    assert!(passed, "the covering seeds pass under cargo test:\n{text}");
    assert!(
        text.contains(&format!("replaying {} saved seed(s)", covering.len() + 1)),
        "{text}"
    );
    assert_eq!(failure_seeds(&fixture), failures, "cargo test");

    let junit = fixture.path().join("out.xml");
    let replay = fixture.covcheck(&["replay", "--junit", junit.to_str().unwrap()]);
    let text = text_of(&replay);
    assert_eq!(
        replay.status.code(),
        Some(1),
        "the coffee bug is still there:\n{text}"
    );
    assert!(text.contains("seeds cover"), "seed-suite coverage:\n{text}");
    assert!(
        text.contains("failures:") && text.contains("found the coffee"),
        "the failure's message, after the seed lines:\n{text}"
    );
    let report =
        quick_junit::Report::deserialize_from_str(&fs::read_to_string(&junit).unwrap()).unwrap();
    let cases: Vec<_> = report
        .test_suites
        .iter()
        .flat_map(|s| s.test_cases.iter())
        .collect();
    let seeds = fixture.seed_files("finds_coffee").len() + fixture.seed_files("scores").len();
    assert_eq!(cases.len(), seeds, "one test case per seed:\n{text}");
    let failed: Vec<_> = cases
        .iter()
        .filter(|c| !matches!(c.status, quick_junit::TestCaseStatus::Success { .. }))
        .map(|c| c.classname.as_ref().map(|n| n.to_string()))
        .collect();
    assert_eq!(
        failed,
        [Some("suites::tests::finds_coffee".to_string())],
        "{text}"
    );

    let replay = fixture.covcheck(&["replay", "--message-format", "json"]);
    let text = text_of(&replay);
    assert_eq!(replay.status.code(), Some(1), "{text}");
    let messages = json_lines(&replay);
    let failed: Vec<&str> = (messages.iter())
        .filter_map(|m| match m {
            Message::SeedReplayed {
                property,
                passed: false,
                ..
            } => Some(property.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(failed, ["suites::tests::finds_coffee"], "{text}");
    let replayed = (messages
        .iter()
        .filter(|m| matches!(m, Message::SeedReplayed { .. })))
    .count();
    assert_eq!(replayed, seeds, "a message per seed:\n{text}");
    assert!(
        matches!(
            messages.last(),
            Some(Message::Replayed { seeds: s, failed: 1, errors: 0, .. }) if *s == seeds
        ),
        "the summary comes last:\n{text}"
    );
    assert_eq!(failure_seeds(&fixture), failures, "replay");
}

/// The messages of `--message-format json` on stdout, where every line
/// must be one.
fn json_lines(output: &Output) -> Vec<Message> {
    let stdout = String::from_utf8_lossy(&output.stdout);
    for line in stdout.lines() {
        assert!(
            parse_message(line).is_some_and(|m| m.is_ok()),
            "not a message on stdout: {line:?}\n{}",
            text_of(output)
        );
    }
    covcheck_e2e::events(&output.stdout)
}

/// Saved covering seeds that abort or hang the property: each ends a
/// minimize worker, which restarts without it, so the rest of the suite is
/// still minimized; the bad seeds are named with their failure kind and kept
/// even with `--prune`, since each shows a bug.
#[test]
fn minimize_gets_past_inputs_that_crash_or_hang() {
    let fixture = Fixture::new(
        "crashy",
        r#"
    #[covcheck]
    fn survives(x: u8) {
        if x == 77 {
            std::process::abort();
        }
        if x == 78 {
            loop {
                std::hint::black_box(x);
            }
        }
        // Hangs the first time only, as an input may on a busy machine.
        let marker = concat!(env!("CARGO_MANIFEST_DIR"), "/hung-once");
        if x == 79 && std::fs::File::create_new(marker).is_ok() {
            loop {
                std::hint::black_box(x);
            }
        }
        if x > 100 {
            std::hint::black_box(x.wrapping_mul(3));
        }
    }
"#,
    );
    let dir = fixture.seed_dir("survives");
    fs::create_dir_all(&dir).unwrap();
    for (file, x) in [("a", 77), ("b", 78), ("c", 5), ("d", 120), ("e", 79)] {
        fs::write(
            dir.join(format!("{}.toml", file.repeat(16))),
            format!(
                "format = 1\nproperty = \"crashy::tests::survives\"\nkind = \"covering\"\n\
                 choices = \"{x}\"\n"
            ),
        )
        .unwrap();
    }
    let aborts = dir.join(format!("{}.toml", "a".repeat(16)));
    let hangs = dir.join(format!("{}.toml", "b".repeat(16)));

    let minimize = fixture.covcheck(&["minimize", "--save", "--prune", "--timeout", "500ms"]);
    let text = text_of(&minimize);
    assert!(minimize.status.success(), "{text}");
    assert!(
        text.contains("2 input(s) crashed or hung the property and were left out"),
        "{text}"
    );
    // Each shown by its value, run alone again first, and replayed by the
    // seed that holds it.
    assert!(text.contains("abort") && text.contains("x = 77"), "{text}");
    // Ended by the worker's own timeout, not by the supervisor's silence limit.
    assert!(
        text.contains("timeout")
            && text.contains("ran longer than 500 ms")
            && text.contains("x = 78"),
        "{text}"
    );
    for seed in [&aborts, &hangs] {
        let held = format!("held by {}; `cargo test", seed.display());
        assert!(text.contains(&held), "{held}:\n{text}");
    }
    assert!(
        text.contains("2 covering seed(s) now fail and are kept"),
        "{text}"
    );
    assert!(
        aborts.exists() && hangs.exists(),
        "--prune keeps them:\n{text}"
    );
    let kept = text
        .lines()
        .find(|l| l.contains("measured features"))
        .unwrap_or_else(|| panic!("a `shrunk` line:\n{text}"));
    assert!(kept.contains("(100%)"), "{kept}");

    // The input that hung once passed when run alone: measured again, and
    // no failure.
    assert!(fixture.path().join("hung-once").exists(), "{text}");
    assert!(
        !text.contains("x = 79") && !text.contains("warning"),
        "{text}"
    );

    // `replay` reports both as failed seeds, as each ends (the hang after
    // COVCHECK_HANG_SECS), and goes on with the others.
    let replay = fixture
        .covcheck_command(&["replay"])
        .env("COVCHECK_HANG_SECS", "1")
        .output()
        .unwrap();
    let text = text_of(&replay);
    assert_eq!(replay.status.code(), Some(1), "{text}");
    let verdict = |file: &str| {
        text.lines()
            .find(|l| l.starts_with("seed crashy::tests::survives") && l.contains(file))
            .unwrap_or_else(|| panic!("a line for {file}:\n{text}"))
            .rsplit(' ')
            .next()
            .unwrap()
            .to_string()
    };
    assert_eq!(verdict(&format!("{}.toml", "a".repeat(16))), "FAILED");
    assert_eq!(verdict(&format!("{}.toml", "b".repeat(16))), "FAILED");
    assert!(
        text.contains("failures:") && text.contains("timeout: ran longer than 1000 ms"),
        "{text}"
    );
    assert!(text.contains(" passed, 2 failed"), "{text}");

    // A campaign finds the failure from the seeds and saves it shrunk.
    let campaign = fixture.covcheck(&[
        "--exact",
        "crashy::tests::survives",
        "--runs",
        "20000",
        "--seed",
        "1",
        "--timeout",
        "500ms",
    ]);
    let text = text_of(&campaign);
    assert_eq!(campaign.status.code(), Some(1), "{text}");
    let saved = fixture
        .seeds("survives")
        .iter()
        .filter(|seed| seed.file.kind == SeedKind::Failure)
        .count();
    assert_eq!(saved, 1, "a failure seed is saved:\n{text}");
}

/// The corpus keeps inputs as the campaign mutated them, often with choices
/// the input never used or trailing zeros; covering seeds are saved without
/// them, and the generators' own (instrumented) code takes other branches
/// for an implied zero. The features minimize counts must be those of what
/// it saves, or a feature only the untrimmed input reached goes missing.
#[test]
fn minimize_counts_the_features_of_the_inputs_it_saves() {
    let fixture = Fixture::new(
        "trimmed",
        r#"
    #[covcheck]
    fn twice_is_even(v: Vec<u8>) {
        assert_eq!(v.len() * 2 % 2, 0);
    }
"#,
    );
    // The corpus cache lives in the shared target directory: start afresh.
    let _ = fs::remove_dir_all(
        covcheck_e2e::target_dir().join("covcheck/corpus/trimmed.trimmed..tests..twice_is_even"),
    );
    let campaign = fixture.covcheck(&["--runs", "50000", "--seed", "1"]);
    assert!(campaign.status.success(), "{}", text_of(&campaign));
    for run in ["first", "second"] {
        let minimize = fixture.covcheck(&["minimize", "--save"]);
        let text = text_of(&minimize);
        assert!(minimize.status.success(), "{text}");
        let kept = text
            .lines()
            .find(|l| l.contains("measured features"))
            .unwrap_or_else(|| panic!("a `shrunk` line:\n{text}"));
        assert!(kept.contains("(100%)"), "{run} run: {kept}\n{text}");
        // One file per saved input: no two picks are the same input.
        let saved: usize = text
            .split("saved ")
            .nth(1)
            .and_then(|rest| rest.split_whitespace().next())
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("a `saved` line:\n{text}"));
        assert_eq!(
            saved,
            fixture.seed_files("twice_is_even").len(),
            "{run} run:\n{text}"
        );
        if run == "second" {
            assert!(text.contains("(0 new)"), "nothing changes:\n{text}");
        }
    }
}
