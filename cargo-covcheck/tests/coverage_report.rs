//! The coverage report of `cargo covcheck report`, rendered from a small
//! hand-made model: two properties (one run in two sittings with a
//! finding, one never run) and one file whose lines are reached, partly
//! reached, reached but for a panic path, not reached and without code,
//! with a function no property calls, against a baseline. Snapshots of the tracefile and
//! the pages, and checks of what must hold of any report: escaped text,
//! no script, consistent lcov records.

// The reports are built on Linux only, where campaigns run.
#![cfg(target_os = "linux")]

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use cargo_covcheck::reach::model::{
    Baseline, CoverageReport, FindingMark, FunctionCoverage, LineCoverage, PropertyCoverage,
    SeriesPoint, SourceFile,
};
use cargo_covcheck::report::site::{self, html, lcov, plots};

const SOURCE: &str = r#"//! A demo crate. <script>alert("hi")</script> & 'friends'

pub fn parse(input: &[u8]) -> Option<u32> {
    if input.is_empty() {
        return None;
    }
    let n = input.len() as u32;
    if n > 3 && input[0] == b'<' { panic!("<script>") }
    Some(n)
}

pub fn unused() -> u32 {
    7
}
"#;

fn point(elapsed_ms: u64, execs: u64, edges: u64, corpus: u64) -> SeriesPoint {
    SeriesPoint {
        elapsed_ms,
        execs,
        edges,
        corpus,
    }
}

fn line(reached_by: &[usize], hits: u64, blocks: u32, blocks_hit: u32) -> LineCoverage {
    LineCoverage {
        reached_by: reached_by.to_vec(),
        hits,
        blocks,
        blocks_hit,
        ..LineCoverage::default()
    }
}

fn function(name: &str, first_line: u32, last_line: u32, reached_by: &[usize]) -> FunctionCoverage {
    FunctionCoverage {
        name: name.to_string(),
        first_line,
        last_line,
        reached_by: reached_by.to_vec(),
    }
}

fn finding() -> FindingMark {
    FindingMark {
        elapsed_ms: 2500,
        execs: 6000,
        kind: "panic".to_string(),
        message: "<script>alert(\"found\")</script>".to_string(),
        value: vec![(
            "input".to_string(),
            "[\n    60,\n    115,\n    99,\n    114,\n]".to_string(),
        )],
        rerun: "cargo test --manifest-path demo/Cargo.toml -p demo --lib -- tests::parses --exact"
            .to_string(),
        seed: Some("/src/demo/covcheck-seeds/demo/tests/parses/0c8ca863b3f69fa5.toml".to_string()),
    }
}

fn report() -> CoverageReport {
    let parses = PropertyCoverage {
        name: "demo::tests::parses".to_string(),
        lines_reached: 6,
        lines_total: 8,
        inputs: 12,
        series: vec![
            point(500, 1_000, 10, 2),
            point(2_000, 5_000, 18, 5),
            point(4_000, 9_000, 20, 6),
            point(4_500, 9_800, 22, 7),
            point(8_000, 16_000, 25, 8),
        ],
        resumes: vec![4_000],
        findings: vec![finding()],
    };
    let prints = PropertyCoverage {
        name: "demo::tests::prints".to_string(),
        lines_reached: 3,
        lines_total: 8,
        inputs: 2,
        ..PropertyCoverage::default()
    };
    let lines = BTreeMap::from([
        (3, line(&[0, 1], 14, 1, 1)),
        (4, line(&[0, 1], 14, 2, 2)),
        (5, line(&[1, 0], 3, 1, 1)),
        // Reached, but for the bounds check's panic path.
        (
            7,
            LineCoverage {
                panic_paths: 1,
                ..line(&[0], 11, 1, 1)
            },
        ),
        // A branch never taken, and the bounds check's panic path.
        (
            8,
            LineCoverage {
                panic_paths: 1,
                ..line(&[0], 11, 3, 2)
            },
        ),
        // Reached, but its inputs were not counted: lcov must still say hit.
        (9, line(&[0], 0, 1, 1)),
        (12, line(&[], 0, 1, 0)),
        (13, line(&[], 0, 1, 0)),
    ]);
    CoverageReport {
        title: "demo".to_string(),
        properties: vec![parses, prints],
        files: vec![SourceFile {
            path: PathBuf::from("/src/demo/src/lib.rs"),
            display: "src/lib.rs".to_string(),
            text: SOURCE.to_string(),
            lines,
            functions: vec![
                function("demo::parse", 3, 10, &[0, 1]),
                function("demo::unused", 12, 14, &[]),
            ],
        }],
        baseline: Some(Baseline {
            source: PathBuf::from("before"),
            reached: BTreeMap::from([(
                PathBuf::from("/src/demo/src/lib.rs"),
                BTreeSet::from([3, 4, 5]),
            )]),
        }),
    }
}

fn file(name: &str) -> String {
    site::render(&report())
        .into_iter()
        .find(|(path, _)| path == name)
        .unwrap_or_else(|| panic!("no {name} in the report"))
        .1
}

#[test]
fn the_report_is_an_index_a_page_per_file_and_a_tracefile() {
    let paths: Vec<String> = site::render(&report())
        .into_iter()
        .map(|(path, _)| path)
        .collect();
    assert_eq!(paths, ["index.html", "files/src_lib_rs.html", "lcov.info"]);
}

#[test]
fn the_tracefile() {
    insta::assert_snapshot!(file("lcov.info"));
}

#[test]
fn the_page_of_a_source_file() {
    insta::assert_snapshot!(file("files/src_lib_rs.html"));
}

#[test]
fn the_index_page() {
    insta::assert_snapshot!(file("index.html"));
}

#[test]
fn text_from_the_code_under_test_is_escaped() {
    let index = file("index.html");
    assert!(index.contains("&lt;script&gt;alert(&quot;found&quot;)&lt;/script&gt;"));
    let page = file("files/src_lib_rs.html");
    assert!(page.contains(
        "//! A demo crate. &lt;script&gt;alert(&quot;hi&quot;)&lt;/script&gt; &amp; &#39;friends&#39;"
    ));
}

#[test]
fn no_output_holds_a_script() {
    for (path, contents) in site::render(&report()) {
        assert!(
            !contents.to_ascii_lowercase().contains("<script"),
            "{path} holds a script"
        );
    }
}

#[test]
fn a_property_never_run_gets_empty_plots() {
    let never_run = &report().properties[1];
    for plot in [plots::over_time(never_run), plots::over_execs(never_run)] {
        assert!(plot.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
        assert!(plot.ends_with("</svg>"));
        assert!(plot.contains("no campaign recorded"), "{plot}");
        assert!(
            !plot.contains("<polyline") && !plot.contains("<circle"),
            "{plot}"
        );
    }
}

#[test]
fn every_line_of_a_record_is_found_and_the_hit_ones_counted() {
    let tracefile = lcov::tracefile(&report());
    for record in tracefile.split_terminator("end_of_record\n") {
        let field = |name: &str| -> Vec<&str> {
            record
                .lines()
                .filter_map(|l| l.strip_prefix(name))
                .collect()
        };
        let lines = field("DA:");
        let hit = lines.iter().filter(|l| !l.ends_with(",0")).count();
        assert_eq!(field("LF:"), [lines.len().to_string()], "{record}");
        assert_eq!(field("LH:"), [hit.to_string()], "{record}");
    }
}

#[test]
fn the_report_is_written_whole_into_its_directory() {
    let dir = tempfile::tempdir().unwrap();
    let index = site::write(&dir.path().join("report"), &report()).unwrap();
    assert_eq!(index, dir.path().join("report/index.html"));
    for (path, contents) in site::render(&report()) {
        let written = std::fs::read_to_string(dir.path().join("report").join(&path)).unwrap();
        assert_eq!(written, contents, "{path}");
    }
}

#[test]
fn an_empty_report_still_renders() {
    let report = CoverageReport::default();
    let index = html::index(&report, &[]);
    assert!(index.contains("No properties.") && index.contains("No findings."));
    assert_eq!(lcov::tracefile(&report), "");
}
