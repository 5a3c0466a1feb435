//! `cargo covcheck replay --junit`: the replay as JUnit XML, one
//! `<testsuite>` per property and one `<testcase>` per seed, for CI systems
//! to show (the writer cargo-nextest uses).

use std::time::Duration;

use quick_junit::{NonSuccessKind, Report, SerializeError, TestCase, TestCaseStatus, TestSuite};

use crate::events::ReplaySummary;

/// The report of a replay, as XML text.
pub fn xml(summary: &ReplaySummary<'_>) -> Result<String, SerializeError> {
    let mut report = Report::new("covcheck replay");
    report.set_time(summary.elapsed);
    for (property, result) in &summary.results {
        let name = property.listing.full_path.as_str();
        let mut suite = TestSuite::new(name);
        match result {
            Ok(seeds) => {
                for seed in seeds {
                    let status = if seed.passed {
                        TestCaseStatus::success()
                    } else {
                        let mut status = TestCaseStatus::non_success(NonSuccessKind::Failure);
                        status
                            .set_message(seed.message.lines().next().unwrap_or_default())
                            .set_type(format!("{} seed", seed.kind))
                            .set_description(format!("{}\nat {}", seed.message, seed.location));
                        status
                    };
                    let mut case = TestCase::new(seed.file.as_str(), status);
                    case.set_classname(name)
                        .set_time(Duration::from_micros(seed.micros));
                    suite.add_test_case(case);
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
