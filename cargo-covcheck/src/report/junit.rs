//! JUnit XML for CI systems to show (the writer cargo-nextest uses), one
//! `<testsuite>` per property and one `<testcase>` per distinct bug:
//!
//! - `cargo covcheck replay --junit`: each seed that passes is a test case
//!   of its own; the failing seeds of one bug (same location and call
//!   path) are one test case that names them all, so two seeds of one bug
//!   are not counted as two failures.
//! - `cargo covcheck --junit` (a campaign): each distinct failure the
//!   campaign found or knew, with how often it was hit; a property with
//!   none is one passing test case.

use std::time::Duration;

use quick_junit::{NonSuccessKind, Report, SerializeError, TestCase, TestCaseStatus, TestSuite};

use covcheck_protocol::worker::SeedResult;

use crate::events::{BugCount, ReplaySummary, RunSummary, Summary};

/// The report of a replay, as XML text.
pub fn xml(summary: &ReplaySummary<'_>) -> Result<String, SerializeError> {
    let mut report = Report::new("covcheck replay");
    report.set_time(summary.elapsed);
    for (property, result) in &summary.results {
        let name = property.listing.full_path.as_str();
        let mut suite = TestSuite::new(name);
        match result {
            Ok(seeds) => {
                for seed in seeds.iter().filter(|s| s.passed) {
                    let mut case = TestCase::new(seed.file.as_str(), TestCaseStatus::success());
                    case.set_classname(name)
                        .set_time(Duration::from_micros(seed.micros));
                    suite.add_test_case(case);
                }
                for bug in failing_by_bug(seeds) {
                    suite.add_test_case(replayed_bug(name, &bug));
                }
            }
            Err(problem) => {
                let mut status = TestCaseStatus::non_success(NonSuccessKind::Error);
                status.set_message(problem.to_string());
                let mut case = TestCase::new("(replay)", status);
                case.set_classname(name);
                suite.add_test_case(case);
            }
        }
        report.add_test_suite(suite);
    }
    report.to_string()
}

/// The failing seeds of a property, grouped by the bug they show (a seed
/// that killed the test binary has no location: each is its own).
fn failing_by_bug(seeds: &[SeedResult]) -> Vec<Vec<&SeedResult>> {
    let mut bugs: Vec<Vec<&SeedResult>> = Vec::new();
    for seed in seeds.iter().filter(|s| !s.passed) {
        let same = |b: &&mut Vec<&SeedResult>| {
            !seed.location.is_empty() && b[0].location == seed.location && b[0].path == seed.path
        };
        match bugs.iter_mut().find(same) {
            Some(bug) => bug.push(seed),
            None => bugs.push(vec![seed]),
        }
    }
    bugs
}

/// The test case of one bug's failing seeds: named after its first seed,
/// the others listed.
fn replayed_bug(property: &str, seeds: &[&SeedResult]) -> TestCase {
    let first = seeds[0];
    let mut status = TestCaseStatus::non_success(NonSuccessKind::Failure);
    let files: Vec<&str> = seeds.iter().map(|s| s.file.as_str()).collect();
    status
        .set_message(first.message.lines().next().unwrap_or_default())
        .set_type(format!("{} seed", first.kind))
        .set_description(format!(
            "{}\nat {}\nseeds: {}",
            first.message,
            first.location,
            files.join(", ")
        ));
    let mut case = TestCase::new(first.file.as_str(), status);
    let micros = seeds.iter().map(|s| s.micros).sum();
    case.set_classname(property)
        .set_time(Duration::from_micros(micros));
    case
}

/// The report of a campaign, as XML text.
pub fn campaign_xml(summary: &RunSummary<'_>, elapsed: Duration) -> Result<String, SerializeError> {
    let mut report = Report::new("covcheck campaign");
    report.set_time(elapsed);
    for (property, row) in &summary.rows {
        let name = property.listing.full_path.as_str();
        let mut suite = TestSuite::new(name);
        for case in campaign_cases(name, row) {
            suite.add_test_case(case);
        }
        report.add_test_suite(suite);
    }
    report.to_string()
}

/// One test case per distinct failure; one passing case when there is
/// none (or an error case when the campaign could not run).
fn campaign_cases(property: &str, row: &Summary) -> Vec<TestCase> {
    if row.bugs.is_empty() {
        let status = if row.errors > 0 {
            let mut status = TestCaseStatus::non_success(NonSuccessKind::Error);
            status.set_message("the campaign could not run; its errors are in the log");
            status
        } else {
            TestCaseStatus::success()
        };
        let mut case = TestCase::new("campaign", status);
        case.set_classname(property).set_time(row.elapsed);
        return vec![case];
    }
    (row.bugs.iter())
        .map(|bug| {
            let shared =
                (row.bugs.iter()).any(|b| b.location == bug.location && b.path != bug.path);
            bug_case(property, bug, shared)
        })
        .collect()
}

/// The test case of one distinct failure; `shared`: another failure of the
/// property is at the same location (its name then says the call path).
fn bug_case(property: &str, bug: &BugCount, shared: bool) -> TestCase {
    // A known failure does not fail the run (its seed fails `cargo test`):
    // skipped, so that the campaign's report is as red as its exit status.
    let mut status = if bug.known {
        TestCaseStatus::skipped()
    } else {
        TestCaseStatus::non_success(NonSuccessKind::Failure)
    };
    let seed = (bug.seed.as_ref()).map_or("not saved".to_string(), |s| s.display().to_string());
    let first_line = bug.message.lines().next().unwrap_or_default();
    status
        .set_message(if bug.known {
            format!("known failure, still failing (seed {seed})")
        } else {
            first_line.to_string()
        })
        .set_type(if bug.known {
            format!("known {}", bug.kind.describe())
        } else {
            bug.kind.describe().to_string()
        })
        .set_description(format!(
            "{}\nat {}\nhit {} times\nseed: {seed}",
            bug.message, bug.location, bug.hits
        ));
    let name = match (bug.location.is_empty(), shared) {
        (true, _) => bug.kind.describe().to_string(),
        (false, false) => format!("{} at {}", bug.kind.describe(), bug.location),
        (false, true) => format!(
            "{} at {} (call path {:04x})",
            bug.kind.describe(),
            bug.location,
            bug.path & 0xffff
        ),
    };
    let mut case = TestCase::new(name, status);
    case.set_classname(property);
    case
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seed(file: &str, location: &str, path: u64) -> SeedResult {
        SeedResult {
            file: file.to_string(),
            kind: "failure".to_string(),
            passed: location == "-",
            message: "boom".to_string(),
            location: location.trim_matches('-').to_string(),
            path,
            micros: 10,
        }
    }

    #[test]
    fn the_failing_seeds_of_one_bug_share_a_test_case() {
        let seeds = [
            seed("a.toml", "src/lib.rs:4:9", 7),
            seed("b.toml", "src/lib.rs:4:9", 7),
            seed("c.toml", "src/lib.rs:4:9", 8),
            seed("d.toml", "-", 0),
            // Killed the test binary: no location, a case of its own each.
            seed("e.toml", "", 0),
            seed("f.toml", "", 0),
        ];
        let bugs: Vec<Vec<&str>> = failing_by_bug(&seeds)
            .iter()
            .map(|bug| bug.iter().map(|s| s.file.as_str()).collect())
            .collect();
        assert_eq!(
            bugs,
            [
                vec!["a.toml", "b.toml"],
                vec!["c.toml"],
                vec!["e.toml"],
                vec!["f.toml"]
            ]
        );
    }
}
