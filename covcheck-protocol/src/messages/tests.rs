//! One line of every message in a snapshot (`snapshots/`), so that a
//! changed field name, a field that is no longer written or one that is
//! new shows in review as a diff of a committed file.

use super::*;

/// The tag (`event`) of each variant. The `match` is exhaustive: a new
/// variant does not compile until it is named here, and
/// [`every_message_has_a_line_in_the_snapshot`] then fails until
/// [`examples`] holds one of it.
fn tag(message: &Message) -> &'static str {
    match message {
        Message::Started { .. } => "started",
        Message::Resumed { .. } => "resumed",
        Message::Status { .. } => "status",
        Message::WorkerDied { .. } => "worker-died",
        Message::Finding { .. } => "finding",
        Message::Error { .. } => "error",
        Message::Warning { .. } => "warning",
        Message::Finished { .. } => "finished",
        Message::Interrupted { .. } => "interrupted",
        Message::Coverage { .. } => "coverage",
        Message::Report { .. } => "report",
        Message::Listed { .. } => "listed",
        Message::Minimized { .. } => "minimized",
        Message::SeedReplayed { .. } => "seed-replayed",
        Message::SeedCoverage { .. } => "seed-coverage",
        Message::Replayed { .. } => "replayed",
        Message::Junit { .. } => "junit",
        Message::KnownFailure { .. } => "known-failure",
        Message::Change { .. } => "change",
    }
}

/// Every tag serde knows, from the error it gives for one it does not:
/// derived from the enum itself, so that no list here can forget one.
fn every_tag() -> Vec<String> {
    let error = serde_json::from_str::<Message>(r#"{"event":"no-such-message"}"#)
        .expect_err("an unknown tag");
    let error = error.to_string();
    let expected = error
        .split("expected one of ")
        .nth(1)
        .unwrap_or_else(|| panic!("serde names the variants: {error}"));
    expected
        .split(", ")
        .map(|tag| tag.trim_matches(|c: char| c == '`' || !c.is_ascii_graphic()))
        .map(|tag| tag.split('`').next().unwrap().to_string())
        .collect()
}

const P: &str = "demo::tests::parses";

fn seed(name: &str) -> PathBuf {
    PathBuf::from(format!(
        "/src/demo/covcheck-seeds/demo/tests/parses/{name}.toml"
    ))
}

fn finding(kind: FailureKind) -> Finding {
    Finding {
        kind,
        choices: vec![3, 0, 255],
        message: "assertion `left != right` failed".into(),
        location: "src/lib.rs:49:9".into(),
        args: vec![("a".into(), "[-1, -1]".into())],
        execs_to_find: 1194,
        found_after_us: 6664,
        shrink_runs: 62,
        shrink_note: None,
        flaky: false,
        size: Some(4096),
        call_path: 0x3f2a_91c0_55d1_0e77,
    }
}

fn stats(inputs: usize, bytes: usize, features: usize) -> SuiteStats {
    SuiteStats {
        inputs,
        bytes,
        features,
    }
}

/// One message of every variant, in the enum's order, with every optional
/// field set, so that each field's name is in the snapshot.
fn examples() -> Vec<Message> {
    let property = || P.to_string();
    let tokens = vec![TokenUse {
        token: "GET ".into(),
        entries: 12,
    }];
    let targets = vec![TargetBest {
        label: "depth".into(),
        value: 7.5,
        choices: vec![1, 2],
        args: vec![("tree".into(), "[[]]".into())],
    }];
    let point = CostPoint {
        size: 64,
        max: 4160,
        median: 2100,
        fresh: 31,
    };
    let costliest = CostliestInput {
        size: 64,
        cost: 4160,
        median: 2100,
        fresh: 31,
        choices: vec![9, 9, 9],
        size_limit: Some(4096),
        args: vec![("v".into(), "[9, 9, 9]".into())],
    };
    vec![
        Message::Started {
            property: property(),
        },
        Message::Resumed {
            property: property(),
            read: 40,
            kept: 31,
        },
        Message::Status {
            property: property(),
            progress: Progress {
                execs: 51234,
                corpus: 88,
                edges: 412,
                elapsed_ms: 5000,
                imported: 3,
                tokens: tokens.clone(),
                targets: targets.clone(),
                costs: Some(CostProfile {
                    points: vec![point],
                    costliest: Some(costliest.clone()),
                }),
                hits: vec![FailureHits {
                    location: "src/lib.rs:49:9".into(),
                    call_path: 0x3f2a_91c0_55d1_0e77,
                    hits: 1203,
                }],
            },
            workers: 2,
            last_new_ms: Some(4_200),
        },
        Message::KnownFailure {
            property: property(),
            seed: seed("0c8ca863b3f69fa5"),
            location: "src/lib.rs:49:9".into(),
        },
        Message::WorkerDied {
            property: property(),
            kind: FailureKind::StackOverflow,
        },
        Message::Finding {
            property: property(),
            finding: Finding {
                shrink_note: Some("shrinking stopped after 10000 runs".into()),
                flaky: true,
                ..finding(FailureKind::Panic)
            },
            seed: Some(seed("0c8ca863b3f69fa5")),
            seed_error: None,
            rerun: "cargo test -p demo --lib -- tests::parses --exact".into(),
            worker: Some(2),
        },
        Message::Error {
            property: property(),
            message: "its worker ended without a report".into(),
        },
        Message::Warning {
            property: property(),
            message: "seed file /src/demo/covcheck-seeds/x.toml is not a valid covcheck seed"
                .into(),
        },
        Message::Finished {
            property: property(),
            execs: 200000,
            edges: 412,
            corpus: 88,
            elapsed_ms: 60000,
            findings: 1,
            workers: 2,
            imported: 17,
            tokens,
            targets,
            perf: Some(PerfResult {
                growth: Some("quadratic".into()),
                exponent: Some(2.0),
                points: vec![point],
                costliest: Some(costliest),
                seed: Some(seed("aaaaaaaaaaaaaaaa")),
                plot: Some(PathBuf::from(
                    "/target/covcheck/perf/demo.demo..tests..parses.svg",
                )),
            }),
            failures: vec![DistinctFailure {
                kind: FailureKind::Panic,
                location: "src/lib.rs:49:9".into(),
                call_path: 0x3f2a_91c0_55d1_0e77,
                message: "assertion `left != right` failed".into(),
                hits: 1204,
                seed: Some(seed("0c8ca863b3f69fa5")),
                known: false,
            }],
            slices: 7,
            last_new_ms: Some(41_300),
        },
        Message::Change {
            base: "4be43f8a0c1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f".into(),
            changed_lines: 12,
            lines_with_code: 4,
            reaching: vec![P.into()],
            unreached: vec![SourceLine {
                file: PathBuf::from("/src/demo/src/scale.rs"),
                line: 16,
            }],
        },
        Message::Interrupted {
            signal: "SIGINT".into(),
        },
        Message::Coverage {
            property: property(),
            lines_reached: 120,
            lines_total: 150,
            inputs: 89,
        },
        Message::Report {
            index: PathBuf::from("/target/covcheck/report/index.html"),
            lcov: PathBuf::from("/target/covcheck/report/lcov.info"),
        },
        Message::Listed {
            property: property(),
            package: "demo".into(),
            test_name: "tests::parses".into(),
            rerun: "cargo test -p demo --lib -- tests::parses --exact".into(),
            seed_dir: PathBuf::from("/src/demo/covcheck-seeds/demo/tests/parses"),
            seeds: 3,
            perf: false,
        },
        Message::Minimized {
            property: property(),
            measured: stats(14, 8400, 64),
            corpus_inputs: 12,
            failure_seeds: 1,
            unmeasured_failure_seeds: 1,
            failing_inputs: 1,
            forward_pass: stats(9, 5100, 64),
            set_cover: stats(4, 2000, 64),
            shrunk: stats(4, 300, 66),
            kept_features: 64,
            left_out: vec![
                LeftOut {
                    kind: FailureKind::Abort,
                    detail: "aborted (SIGABRT)".into(),
                    choices: vec![77],
                    finding: Some(Finding {
                        args: vec![("x".into(), "77".into())],
                        ..finding(FailureKind::Abort)
                    }),
                    seed: Some(seed("bbbbbbbbbbbbbbbb")),
                    seed_error: None,
                    passed_alone: None,
                },
                LeftOut {
                    kind: FailureKind::Timeout,
                    detail: "ran longer than 1000 ms".into(),
                    choices: vec![5, 0, 9],
                    finding: None,
                    seed: None,
                    seed_error: Some("permission denied".into()),
                    passed_alone: Some("it passed when run alone".into()),
                },
            ],
            suite: SuiteFate::Saved,
            saved: Some(SavedSeeds {
                seeds: 4,
                new: 1,
                dir: PathBuf::from("/src/demo/covcheck-seeds/demo/tests/parses"),
            }),
            failing_seeds: vec![seed("bbbbbbbbbbbbbbbb")],
            stale_seeds: vec![seed("cccccccccccccccc")],
            deleted_seeds: vec![seed("dddddddddddddddd")],
            coverage: SuiteCoverage {
                covered: 66,
                features: 66,
                unmeasured: 0,
            },
        },
        Message::SeedReplayed {
            property: property(),
            seed: seed("0c8ca863b3f69fa5"),
            kind: "failure".into(),
            passed: false,
            message: Some("assertion `left != right` failed".into()),
            location: Some("src/lib.rs:49:9".into()),
            elapsed_us: 120,
        },
        Message::SeedCoverage {
            property: property(),
            coverage: Some(SuiteCoverage {
                covered: 40,
                features: 50,
                unmeasured: 1,
            }),
        },
        Message::Replayed {
            properties: 2,
            seeds: 3,
            passed: 2,
            failed: 1,
            errors: 1,
            elapsed_ms: 84,
        },
        Message::Junit {
            path: PathBuf::from("covcheck.xml"),
        },
    ]
}

#[test]
fn every_message_has_a_line_in_the_snapshot() {
    let examples = examples();
    let tags: Vec<&str> = examples.iter().map(tag).collect();
    assert_eq!(
        tags,
        every_tag(),
        "one example of every variant, in the enum's order"
    );
    let mut lines = String::new();
    for message in &examples {
        let line = message.to_line();
        let json: serde_json::Value = serde_json::from_str(&line).unwrap();
        assert_eq!(json["event"], tag(message), "{line}");
        let parsed = parse_message(&line).unwrap().unwrap();
        assert_eq!(&parsed, message, "{line} reads back as it was");
        lines.push_str(&line);
        lines.push('\n');
    }
    insta::assert_snapshot!(lines);
}

#[test]
fn messages_keep_their_wire_names() {
    let line = Message::WorkerDied {
        property: "d::p".into(),
        kind: FailureKind::StackOverflow,
    }
    .to_line();
    assert_eq!(
        line,
        r#"{"event":"worker-died","property":"d::p","kind":"stack-overflow"}"#
    );
    let parsed = parse_message(&line).unwrap().unwrap();
    assert_eq!(parsed.property(), Some("d::p"));
    assert!(parse_message("   Compiling demo v0.1.0").is_none());
}

/// Lines written before a field existed still read, with its default.
#[test]
fn older_lines_read_with_the_defaults_of_later_fields() {
    let status = r#"{"event":"status","property":"d::p","progress":{"execs":5,"corpus":2,"edges":9,"elapsed_ms":10}}"#;
    let Some(Ok(Message::Status {
        progress, workers, ..
    })) = parse_message(status)
    else {
        panic!("a status")
    };
    assert_eq!((progress.execs, progress.tokens.len(), workers), (5, 0, 1));
    let replayed = r#"{"event":"seed-replayed","property":"d::p","seed":"s.toml","kind":"covering","passed":true,"elapsed_us":3}"#;
    let Some(Ok(Message::SeedReplayed {
        message, location, ..
    })) = parse_message(replayed)
    else {
        panic!("a replayed seed")
    };
    assert_eq!((message, location), (None, None));
}
