//! Snapshots of what people read: a finding's report, the summary table of
//! a run, a `minimize` block and the end of a `replay`, each built from
//! constructed results with fixed paths and times; and of what tools read
//! of `list`, `minimize` and `replay` with `--message-format json`.

// The reports are built on Linux only, where campaigns run.
#![cfg(target_os = "linux")]

use std::path::PathBuf;
use std::time::Duration;

use cargo_covcheck::compile::TestBinary;
use cargo_covcheck::discover::Property;
use cargo_covcheck::error::{MinimizeError, SeedNotSaved, WorkerError, WriteError};
use cargo_covcheck::events::{
    BugCount, ChangeReach, FailureSeed, FoundBy, JudgedDeath, Minimized, PropertyMinimized,
    ReplaySummary, Reported, RunSummary, Saving, Stale, Suite, Summary, Written,
};
use cargo_covcheck::perf::{PerfReport, PerfSeed, growth};
use cargo_covcheck::report::{Event, finding_report, json, minimize, replay, text};
use cargo_covcheck::suite_reach::SuiteCoverage;
use cargo_covcheck::supervise::Death;
use covcheck_protocol::seeds::SeedError;
use covcheck_protocol::worker::{
    CostPoint, CostProfile, CostliestInput, FailureKind, Finding, ListedProperty, MinimizeReport,
    SeedResult, SuiteStats, TargetBest, TokenUse,
};

fn property(name: &str) -> Property {
    Property {
        listing: ListedProperty {
            test_name: format!("tests::{name}"),
            full_path: format!("demo::tests::{name}"),
            package: "demo".to_string(),
            seed_dir: PathBuf::from(format!("/src/demo/covcheck-seeds/demo/tests/{name}")),
            crate_root: PathBuf::from("/src/demo"),
            target_args: vec!["--lib".to_string()],
            perf: false,
        },
        binary: TestBinary {
            path: PathBuf::from("/target/debug/deps/demo-0123456789abcdef"),
            package_root: PathBuf::from("/src/demo"),
            library_dirs: Vec::new(),
            env: Vec::new(),
            package_spec: "demo".to_string(),
        },
        manifest_path: Some(PathBuf::from("demo/Cargo.toml")),
    }
}

fn finding(kind: FailureKind) -> Finding {
    Finding {
        kind,
        choices: vec![3, 0, 255],
        message: "assertion `left != right` failed\n  left: 0\n right: 0".to_string(),
        location: "src/lib.rs:49:9".to_string(),
        args: vec![("a".to_string(), "[-1, -1, -1, -1]".to_string())],
        execs_to_find: 1194,
        found_after_us: 6664,
        shrink_runs: 62,
        shrink_note: None,
        flaky: false,
        size: Some(4096),
        path: 0,
    }
}

#[test]
fn the_report_of_a_shrunk_panic_saved_as_a_seed() {
    let reported = Reported {
        finding: finding(FailureKind::Panic),
        seed: Ok(PathBuf::from(
            "/src/demo/covcheck-seeds/demo/tests/parses/0c8ca863b3f69fa5.toml",
        )),
        found_by: None,
    };
    insta::assert_snapshot!(finding_report(&property("parses"), &reported));
}

#[test]
fn the_report_of_a_crash_that_could_not_be_shrunk_nor_saved() {
    let mut finding = finding(FailureKind::Abort);
    finding.args.clear();
    finding.location.clear();
    finding.message = "aborted (SIGABRT) (the shrinking worker reported nothing)".to_string();
    finding.shrink_note = Some("not shrunk".to_string());
    let reported = Reported {
        finding,
        seed: Err(SeedNotSaved::NoSave),
        found_by: None,
    };
    insta::assert_snapshot!(finding_report(&property("parses"), &reported));
}

#[test]
fn the_report_of_a_long_input_caught_and_interrupted_before_shrinking() {
    let mut finding = finding(FailureKind::Panic);
    finding.args = vec![("data".to_string(), format!("{:?}", vec![7u8; 1500]))];
    finding.shrink_runs = 0;
    finding.shrink_note =
        Some("not shrunk: the run was interrupted while shrinking it".to_string());
    let mut choices_only = finding.clone();
    choices_only.args.clear();
    choices_only.choices = (0..5000).collect();
    let saved = |finding| Reported {
        finding,
        seed: Ok(PathBuf::from(
            "/src/demo/covcheck-seeds/demo/tests/parses/0c8ca863b3f69fa5.toml",
        )),
        found_by: None,
    };
    insta::assert_snapshot!(format!(
        "{}{}",
        finding_report(&property("parses"), &saved(finding)),
        finding_report(&property("parses"), &saved(choices_only))
    ));
}

#[test]
fn the_report_of_an_input_past_its_cost_bound_names_the_replay_that_checks_it() {
    let mut finding = finding(FailureKind::Panic);
    finding.message = covcheck_protocol::limits::past_cost_bound(204_346, 200_000);
    finding.location = "the property returned Err".to_string();
    let reported = Reported {
        finding,
        seed: Ok(PathBuf::from(
            "/src/demo/covcheck-seeds/demo/tests/encodes/0c8ca863b3f69fa5.toml",
        )),
        found_by: None,
    };
    insta::assert_snapshot!(finding_report(&property("encodes"), &reported));
}

#[test]
fn the_report_of_a_finding_whose_seed_could_not_be_saved_says_how_to_reproduce_it() {
    let reported = Reported {
        finding: finding(FailureKind::Panic),
        seed: Err(SeedNotSaved::Io {
            dir: PathBuf::from("/src/demo/covcheck-seeds/demo/tests/parses"),
            source: std::io::Error::from(std::io::ErrorKind::StorageFull),
        }),
        found_by: None,
    };
    insta::assert_snapshot!(finding_report(&property("parses"), &reported));
}

#[test]
fn a_run_that_ran_no_input_tested_nothing_and_findings_outlast_an_interrupt() {
    let (p, q) = (property("p"), property("q"));
    let row = |execs| Summary {
        execs,
        ..Summary::default()
    };
    fn run<'a>(rows: Vec<(&'a Property, Summary)>, interrupted: Option<i32>) -> RunSummary<'a> {
        RunSummary { rows, interrupted }
    }
    let nothing = run(vec![(&p, row(0)), (&q, row(0))], None);
    assert_eq!(nothing.outcome().code(), 4, "nothing was tested");
    assert!(text::summary_table(&nothing).contains("NOT TESTED"));
    let some = run(vec![(&p, row(0)), (&q, row(5))], None);
    assert_eq!(some.outcome().code(), 0);
    assert!(
        text::summary_table(&some).contains("1 property ran no input"),
        "{}",
        text::summary_table(&some)
    );
    let mut interrupted = run(vec![(&p, row(5))], Some(2));
    assert_eq!(interrupted.outcome().code(), 130);
    interrupted.rows[0].1.failures.push(FailureKind::Panic);
    assert_eq!(interrupted.outcome().code(), 1, "found and saved: exit 1");
}

#[test]
fn the_report_and_summary_of_a_property_on_several_workers() {
    let reported = Reported {
        finding: finding(FailureKind::Panic),
        seed: Err(SeedNotSaved::NoSave),
        found_by: Some(FoundBy {
            worker: 3,
            workers: 4,
        }),
    };
    let (parses, prints) = (property("parses"), property("prints"));
    let row = |workers, failures| Summary {
        workers,
        imported: 35 * workers as u64,
        execs: 1_234_567,
        edges: 31,
        corpus: 12,
        elapsed: Duration::from_millis(2500),
        failures,
        errors: 0,
        tokens: Vec::new(),
        targets: Vec::new(),
        perf: None,
        bugs: Vec::new(),
        slices: 0,
        last_new: None,
    };
    let summary = RunSummary {
        rows: vec![
            (&parses, row(4, vec![FailureKind::Panic])),
            (&prints, row(1, Vec::new())),
        ],
        interrupted: None,
    };
    insta::assert_snapshot!(format!(
        "{}{}",
        finding_report(&parses, &reported),
        text::summary_table(&summary)
    ));
}

#[test]
fn the_summary_table_of_a_run() {
    let (parses, prints, hangs) = (property("parses"), property("prints"), property("hangs"));
    let row = |failures: Vec<FailureKind>, errors| Summary {
        workers: 1,
        imported: 0,
        execs: 123_456,
        edges: 31,
        corpus: 12,
        elapsed: Duration::from_millis(2500),
        failures,
        errors,
        tokens: Vec::new(),
        targets: Vec::new(),
        perf: None,
        bugs: Vec::new(),
        slices: 0,
        last_new: None,
    };
    let summary = RunSummary {
        rows: vec![
            (
                &parses,
                row(vec![FailureKind::Panic, FailureKind::Timeout], 0),
            ),
            (&prints, row(Vec::new(), 0)),
            (&hangs, row(Vec::new(), 1)),
        ],
        interrupted: None,
    };
    insta::assert_snapshot!(text::summary_table(&summary));
}

#[test]
fn the_summary_of_a_shared_budget_with_triaged_failures() {
    let (decodes, prints) = (property("decodes"), property("prints"));
    let bug = |path: u64, hits, known| BugCount {
        kind: FailureKind::Panic,
        location: "src/frames.rs:4:38".to_string(),
        path,
        message: "called `Option::unwrap()` on a `None` value".to_string(),
        hits,
        seed: Some(PathBuf::from(format!(
            "covcheck-seeds/demo/{path:016x}.toml"
        ))),
        known,
    };
    let row = |secs, bugs: Vec<BugCount>, slices, last_new| Summary {
        workers: 1,
        execs: 400_000,
        edges: 31,
        corpus: 12,
        elapsed: Duration::from_secs(secs),
        failures: bugs.iter().filter(|b| !b.known).map(|b| b.kind).collect(),
        bugs,
        slices,
        last_new: Some(Duration::from_millis(last_new)),
        ..Summary::default()
    };
    let summary = RunSummary {
        rows: vec![
            (
                &decodes,
                row(
                    45,
                    vec![bug(0x3f2a, 1204, false), bug(0x91c0, 37, false)],
                    9,
                    41_300,
                ),
            ),
            (&prints, row(15, vec![bug(0x0e77, 12, true)], 3, 2_100)),
        ],
        interrupted: None,
    };
    insta::assert_snapshot!(text::summary_table(&summary));
}

#[test]
fn what_since_says_before_and_after_the_campaigns() {
    let change = ChangeReach {
        base: "4be43f8a0c1d2e3f4a5b".to_string(),
        top: PathBuf::from("/src/demo"),
        changed: 12,
        with_code: 5,
        reaching: vec!["demo::tests::parses".to_string()],
        unreached: vec![
            (PathBuf::from("/src/demo/src/scale.rs"), 16),
            (PathBuf::from("/src/demo/src/scale.rs"), 17),
            (PathBuf::from("/src/demo/src/scale.rs"), 20),
            (PathBuf::from("/src/demo/src/lib.rs"), 3),
        ],
    };
    let none = ChangeReach {
        reaching: Vec::new(),
        unreached: Vec::new(),
        ..change.clone()
    };
    insta::assert_snapshot!(format!(
        "{}\n{}\n{}\n{}\n{}",
        text::aimed(&change),
        text::change_reached(&change),
        text::aimed(&none),
        text::change_reached(&none),
        text::known_failure(
            std::path::Path::new("covcheck-seeds/demo/tests/parses/0c8c.toml"),
            "src/lib.rs:49:9"
        )
    ));
}

#[test]
fn the_summary_of_a_run_with_dictionary_tokens() {
    let (parses, prints) = (property("parses"), property("prints"));
    let tokens = |counts: &[(&str, u64)]| -> Vec<TokenUse> {
        counts
            .iter()
            .map(|&(token, entries)| TokenUse {
                token: token.to_string(),
                entries,
            })
            .collect()
    };
    let row = |failures: Vec<FailureKind>, tokens| Summary {
        workers: 1,
        imported: 0,
        execs: 123_456,
        edges: 31,
        corpus: 12,
        elapsed: Duration::from_millis(2500),
        failures,
        errors: 0,
        tokens,
        targets: Vec::new(),
        perf: None,
        bugs: Vec::new(),
        slices: 0,
        last_new: None,
    };
    let summary = RunSummary {
        rows: vec![
            (
                &parses,
                row(
                    vec![FailureKind::Panic],
                    tokens(&[("GET ", 12), ("\\x0d\\x0a", 3), ("Host:", 1)]),
                ),
            ),
            (&prints, row(Vec::new(), Vec::new())),
        ],
        interrupted: None,
    };
    insta::assert_snapshot!(text::summary_table(&summary));
}

#[test]
fn the_summary_of_a_run_with_target_values() {
    let (parses, prints) = (property("parses"), property("prints"));
    let best = |label: &str, value: f64, args: &[(&str, &str)]| TargetBest {
        label: label.to_string(),
        value,
        choices: vec![3, 1, 4],
        args: args
            .iter()
            .map(|&(name, value)| (name.to_string(), value.to_string()))
            .collect(),
    };
    let row = |targets| Summary {
        workers: 1,
        imported: 0,
        execs: 123_456,
        edges: 31,
        corpus: 12,
        elapsed: Duration::from_millis(2500),
        failures: Vec::new(),
        errors: 0,
        tokens: Vec::new(),
        targets,
        perf: None,
        bugs: Vec::new(),
        slices: 0,
        last_new: None,
    };
    let summary = RunSummary {
        rows: vec![
            (
                &parses,
                row(vec![
                    best("depth", 7.0, &[("doc", "[[[]]]"), ("strict", "true")]),
                    best("fields", 2.5, &[]),
                ]),
            ),
            (&prints, row(Vec::new())),
        ],
        interrupted: None,
    };
    insta::assert_snapshot!(text::summary_table(&summary));
}

#[test]
fn the_summary_of_a_performance_campaign() {
    let encodes = property("encodes");
    let points: Vec<CostPoint> = (0..12)
        .map(|k| {
            let size = 8usize << k;
            CostPoint {
                size,
                max: (size * size / 2) as u64,
                median: if k % 3 == 0 { 11 * size as u64 } else { 0 },
                fresh: if k % 3 == 0 { 64 } else { 0 },
            }
        })
        .collect();
    let costliest = CostliestInput {
        size: 16384,
        cost: 134_217_728,
        median: 180_224,
        fresh: 64,
        choices: vec![1, 14, 1, 14],
        size_limit: Some(4096),
        args: vec![("data".to_string(), format!("{:?}", vec![14u8; 60]))],
    };
    let profile = CostProfile {
        points: points.clone(),
        costliest: Some(costliest),
    };
    let report = PerfReport {
        fit: growth::fit(&points),
        profile,
        plot: Some(PathBuf::from(
            "/target/covcheck/perf/demo.demo..tests..encodes.svg",
        )),
        seed: PerfSeed::Saved(PathBuf::from(
            "/src/demo/covcheck-seeds/demo/tests/encodes/5f1e2d3c4b5a6978.toml",
        )),
    };
    let summary = RunSummary {
        rows: vec![(
            &encodes,
            Summary {
                workers: 1,
                execs: 127_800,
                edges: 65,
                corpus: 232,
                elapsed: Duration::from_millis(60_900),
                perf: Some(Box::new(report)),
                ..Summary::default()
            },
        )],
        interrupted: None,
    };
    insta::assert_snapshot!(text::summary_table(&summary));
}

fn seed(file: &str, kind: &str, failure: Option<(&str, &str)>) -> SeedResult {
    SeedResult {
        file: file.to_string(),
        kind: kind.to_string(),
        passed: failure.is_none(),
        message: failure.map(|f| f.0.to_string()).unwrap_or_default(),
        location: failure.map(|f| f.1.to_string()).unwrap_or_default(),
        path: 0,
        micros: 120,
    }
}

/// The seeds of `parses`: one that passed, one that failed, one that
/// killed the test binary.
fn replayed_seeds() -> Vec<SeedResult> {
    vec![
        seed("072804bb30078505.toml", "covering", None),
        seed(
            "0c8ca863b3f69fa5.toml",
            "failure",
            Some((
                "assertion `left != right` failed\n  left: 0\n right: 0",
                "src/lib.rs:49:9",
            )),
        ),
        seed(
            "aaaaaaaaaaaaaaaa.toml",
            "covering",
            Some((
                "the test binary died replaying this seed (abort: aborted (SIGABRT)); its last output:\nfatal",
                "",
            )),
        ),
    ]
}

/// The end of a replay of `parses`' seeds and of `crashes`, whose seeds
/// could not be replayed.
fn replay_summary<'a>(parses: &'a Property, crashes: &'a Property) -> ReplaySummary<'a> {
    let ended = WorkerError::EndedEarly {
        log: PathBuf::from("/target/covcheck/work/run-1/demo.demo..tests..crashes/replay.log"),
    };
    ReplaySummary {
        results: vec![(parses, Ok(replayed_seeds())), (crashes, Err(ended))],
        coverage: vec![
            (
                parses,
                Some(SuiteCoverage {
                    covered: 40,
                    features: 50,
                    unmeasured: 1,
                }),
            ),
            (crashes, None),
        ],
        elapsed: Duration::from_millis(84),
    }
}

#[test]
fn the_end_of_a_replay() {
    let (parses, crashes) = (property("parses"), property("crashes"));
    let mut text: String = replayed_seeds()
        .iter()
        .map(|seed| replay::verdict(&parses, seed) + "\n")
        .collect();
    text.push_str(&replay::summary(&replay_summary(&parses, &crashes)));
    insta::assert_snapshot!(text);
}

fn stats(inputs: usize, bytes: usize, features: usize) -> SuiteStats {
    SuiteStats {
        inputs,
        bytes,
        features,
    }
}

/// The `minimize` of `survives`: a suite saved and pruned, with inputs
/// that crashed or hung a worker left out.
fn minimized(survives: &Property) -> PropertyMinimized<'_> {
    let report = MinimizeReport {
        measured: stats(14, 8400, 64),
        corpus_inputs: 12,
        failure_seeds: 1,
        forward_pass: stats(9, 5100, 64),
        set_cover: stats(4, 2000, 64),
        after: stats(4, 300, 66),
        kept_features: 64,
        ..MinimizeReport::default()
    };
    let dir = PathBuf::from("/src/demo/covcheck-seeds/demo/tests/survives");
    let death = |kind, detail: &str, choices: Vec<u64>| Death {
        kind,
        detail: detail.to_string(),
        choices,
        from_outside: false,
    };
    let shrunk = |kind, x: &str| Finding {
        args: vec![("x".to_string(), x.to_string())],
        shrink_runs: 3,
        ..finding(kind)
    };
    let deaths = vec![
        JudgedDeath::Failure {
            death: death(FailureKind::Abort, "aborted (SIGABRT)", vec![77]),
            finding: Box::new(shrunk(FailureKind::Abort, "77")),
            seed: FailureSeed::Existing(dir.join("aaaaaaaaaaaaaaaa.toml")),
        },
        JudgedDeath::Failure {
            death: death(FailureKind::Timeout, "ran longer than 1000 ms", vec![78, 1]),
            finding: Box::new(shrunk(FailureKind::Timeout, "78")),
            seed: FailureSeed::NotSaved,
        },
        JudgedDeath::PassedAlone {
            death: death(
                FailureKind::Timeout,
                "ran longer than 1000 ms",
                vec![5, 0, 9],
            ),
            problem: "the input that ended the worker did not crash when run alone (it passed)"
                .to_string(),
        },
    ];
    PropertyMinimized {
        property: survives,
        result: Ok(Minimized {
            report: Box::new(report),
            deaths,
            suite: Suite::Saved(Saving {
                written: Some(Written {
                    seeds: 4,
                    new: 1,
                    dir: dir.clone(),
                }),
                failing: vec![dir.join("aaaaaaaaaaaaaaaa.toml")],
                stale: Stale::Deleted(vec![dir.join("eeeeeeeeeeeeeeee.toml")]),
                error: None,
            }),
            coverage: SuiteCoverage {
                covered: 66,
                features: 66,
                unmeasured: 0,
            },
            record_error: None,
        }),
    }
}

/// A `minimize` whose worker gave no report.
fn minimize_failed(property: &Property) -> PropertyMinimized<'_> {
    PropertyMinimized {
        property,
        result: Err(MinimizeError::Worker(WorkerError::NoReport)),
    }
}

#[test]
fn a_minimize_block_that_saved_pruned_and_left_out_crashes() {
    let survives = property("survives");
    insta::assert_snapshot!(
        minimize::block(&minimized(&survives)) + &minimize::block(&minimize_failed(&survives))
    );
}

/// The lines `--message-format json` prints for `events`.
fn json_lines(events: Vec<Event<'_>>) -> String {
    let mut lines = String::new();
    for event in events {
        let messages = json::messages(event).expect("the event has messages");
        for message in messages {
            lines.push_str(&message.to_line());
            lines.push('\n');
        }
    }
    lines
}

#[test]
fn the_json_lines_of_list() {
    let mut perf = property("costs");
    perf.listing.perf = true;
    let unreadable = SeedError::Invalid {
        path: PathBuf::from("/src/demo/covcheck-seeds/demo/tests/costs/bad.toml"),
        problem: "missing field `choices`".to_string(),
    };
    insta::assert_snapshot!(json_lines(vec![
        Event::Listed {
            property: &property("parses"),
            seeds: 3,
            unreadable: Vec::new(),
        },
        Event::Listed {
            property: &perf,
            seeds: 0,
            unreadable: vec![unreadable],
        },
    ]));
}

#[test]
fn the_json_lines_of_minimize() {
    let survives = property("survives");
    let mut unsaved = minimized(&survives);
    if let Ok(m) = &mut unsaved.result {
        m.deaths.clear();
        m.suite = Suite::Saved(Saving {
            written: None,
            failing: Vec::new(),
            stale: Stale::Listed(Vec::new()),
            error: Some(MinimizeError::SaveSeed {
                dir: PathBuf::from("/src/demo/covcheck-seeds/demo/tests/survives"),
                source: std::io::Error::from(std::io::ErrorKind::PermissionDenied),
            }),
        });
        m.record_error = Some(WriteError {
            path: PathBuf::from("/target/covcheck/coverage/demo.demo..tests..survives.json"),
            source: std::io::Error::from(std::io::ErrorKind::PermissionDenied),
        });
    }
    insta::assert_snapshot!(json_lines(vec![
        Event::Minimized(&minimized(&survives)),
        Event::Minimized(&unsaved),
        Event::Minimized(&minimize_failed(&survives)),
    ]));
}

#[test]
fn the_json_lines_of_replay() {
    let (parses, crashes) = (property("parses"), property("crashes"));
    let mut events: Vec<Event<'_>> = replayed_seeds()
        .into_iter()
        .map(|seed| Event::SeedReplayed {
            property: &parses,
            seed,
        })
        .collect();
    let summary = replay_summary(&parses, &crashes);
    events.push(Event::ReplayFinished(&summary));
    let junit = PathBuf::from("covcheck.xml");
    events.push(Event::JunitWritten(&junit));
    insta::assert_snapshot!(json_lines(events));
}

/// Notes for people have no message: stdout stays JSON, and they go to
/// stderr as the human reporter prints them.
#[test]
fn notes_have_no_json_form() {
    let note = json::messages(Event::NothingMatched {
        filter: Some("nothing"),
    });
    assert!(matches!(
        note.as_ref().map_err(|e| &**e),
        Err(Event::NothingMatched { .. })
    ));
}
