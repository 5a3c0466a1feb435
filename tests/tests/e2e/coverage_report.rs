//! `cargo covcheck report`: what the campaigns reached, line by line.

use std::fs;
use std::path::PathBuf;

use covcheck_e2e::{Fixture, events};
use covcheck_protocol::messages::Message;

/// A crate with a function its property reaches (both branches of it) and
/// one no test ever calls. The odd branch loops, so that it is new coverage
/// in the campaigns' optimised build too (a branch-free `if` would not be,
/// and the corpus would never keep an odd input).
const LIB: &str = "\
pub fn reached(x: u64) -> u64 {
    if x % 2 == 0 {
        x / 2
    } else {
        let mut y = x;
        while y > 9 {
            y /= 10;
        }
        y
    }
}

pub fn never_called(x: u64) -> u64 {
    x.wrapping_mul(7).rotate_left(3)
}

#[cfg(test)]
mod tests {
    use covcheck_rt::covcheck;

    #[covcheck]
    fn steps(x: u64) {
        std::hint::black_box(super::reached(x));
    }
}
";

/// Line numbers in `LIB`: the even branch, the end of the odd one (its
/// first lines share a block with the loop's condition), and the signature
/// of the function no test calls (its one block starts there).
const EVEN_BRANCH: u32 = 3;
const ODD_BRANCH: u32 = 9;
const NEVER_CALLED: u32 = 13;

#[test]
fn the_report_marks_what_the_campaigns_reached_and_what_they_never_did() {
    // Fixture::new forgets what earlier runs left (corpus cache, series),
    // so that the report shows this run's campaigns only.
    let fixture = Fixture::new("reach_report", "");
    fs::write(fixture.path().join("src/lib.rs"), LIB).unwrap();
    // Two campaigns, the second resuming the first, then the report.
    for seed in ["1", "2"] {
        let output = fixture.covcheck(&["--runs", "2000", "--seed", seed]);
        let text = covcheck_e2e::text_of(&output);
        assert!(output.status.success(), "{text}");
        // The second says what it resumed from, and why its corpus is smaller.
        let resumed = text.contains("resumed from ") && text.contains("the corpus starts with");
        assert_eq!(resumed, seed == "2", "{text}");
    }
    let output = fixture.covcheck(&["report", "--message-format", "json"]);
    assert!(
        output.status.success(),
        "{}",
        covcheck_e2e::text_of(&output)
    );
    let messages = events(&output.stdout);
    let (lines_reached, lines_total) = messages
        .iter()
        .find_map(|m| match m {
            Message::Coverage {
                property,
                lines_reached,
                lines_total,
                ..
            } if property == "reach_report::tests::steps" => Some((*lines_reached, *lines_total)),
            _ => None,
        })
        .expect("a coverage message for the property");
    assert!(
        0 < lines_reached && lines_reached < lines_total,
        "{lines_reached}/{lines_total}"
    );
    let (index, lcov): (PathBuf, PathBuf) = messages
        .iter()
        .find_map(|m| match m {
            Message::Report { index, lcov } => Some((index.clone(), lcov.clone())),
            _ => None,
        })
        .expect("a report message");
    assert!(index.is_file(), "{}", index.display());

    let lcov = fs::read_to_string(lcov).unwrap();
    let lib = fixture.path().join("src/lib.rs");
    let record = lcov
        .split("end_of_record")
        .find(|r| r.contains(&format!("SF:{}", lib.display())))
        .unwrap_or_else(|| panic!("a record for src/lib.rs:\n{lcov}"));
    let hits = |line: u32| -> u64 {
        record
            .lines()
            .find_map(|l| l.strip_prefix(&format!("DA:{line},")))
            .unwrap_or_else(|| panic!("line {line} has code:\n{record}"))
            .parse()
            .unwrap()
    };
    assert!(hits(EVEN_BRANCH) > 0, "{record}");
    assert!(hits(ODD_BRANCH) > 0, "{record}");
    assert_eq!(hits(NEVER_CALLED), 0, "{record}");

    let index_html = fs::read_to_string(&index).unwrap();
    assert!(index_html.contains("reach_report::tests::steps"));
    assert!(!index_html.contains("<script"), "no JavaScript");
    // The source page marks the same lines.
    let page = fs::read_to_string(index.parent().unwrap().join("files/src_lib_rs.html")).unwrap();
    let row = |line: u32| -> &str {
        let start = page
            .find(&format!("<tr id=\"L{line}\""))
            .unwrap_or_else(|| panic!("row {line}"));
        &page[start..start + page[start..].find("</tr>").unwrap()]
    };
    assert!(
        row(EVEN_BRANCH).contains("class=\"hit\""),
        "{}",
        row(EVEN_BRANCH)
    );
    assert!(
        row(ODD_BRANCH).contains("class=\"hit\""),
        "{}",
        row(ODD_BRANCH)
    );
    assert!(
        row(NEVER_CALLED).contains("class=\"miss\""),
        "{}",
        row(NEVER_CALLED)
    );
}
