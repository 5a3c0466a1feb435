//! `cargo covcheck report`: what the campaigns reached, line by line.

use std::fs;
use std::path::PathBuf;

use covcheck_e2e::{Fixture, events};
use covcheck_protocol::messages::Message;

/// A crate with functions its property reaches (both branches of one) and
/// one no test ever calls. The odd branch loops, so that it is new coverage
/// in the campaigns' optimised build too (a branch-free `if` would not be,
/// and the corpus would never keep an odd input). Its first six lines are
/// those of issue 31: one-block functions, whose bodies are code too.
const LIB: &str = "\
pub fn reached(x: u32) -> u32 {
    x.wrapping_mul(3)
}
pub fn never_called(x: u32) -> u32 {
    x.wrapping_add(7)
}

pub fn branches(x: u64) -> u64 {
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

pub fn nth(v: &[u8], i: usize) -> u8 {
    v[i % 4]
}

#[cfg(test)]
mod tests {
    use covcheck_rt::covcheck;

    #[covcheck]
    fn steps(x: u64) {
        std::hint::black_box(super::reached(x as u32));
        std::hint::black_box(super::branches(x));
        std::hint::black_box(super::nth(&[1, 2, 3, 4, 5], x as usize));
    }
}
";

/// Line numbers in `LIB`: the body of a reached one-block function, that
/// of the function no test calls, the two branches, and an index whose
/// bounds check never fails (its panic path is never taken).
const REACHED_BODY: u32 = 2;
const NEVER_CALLED_BODY: u32 = 5;
const EVEN_BRANCH: u32 = 10;
const ODD_BRANCH: u32 = 14;
const BOUNDS_CHECKED: u32 = 21;

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
    assert!(hits(REACHED_BODY) > 0, "{record}");
    assert_eq!(hits(NEVER_CALLED_BODY), 0, "{record}");
    assert!(hits(EVEN_BRANCH) > 0, "{record}");
    assert!(hits(ODD_BRANCH) > 0, "{record}");
    assert!(hits(BOUNDS_CHECKED) > 0, "{record}");

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
    let class = |line: u32| -> &str {
        let row = row(line);
        let start = row.find("class=\"").expect("a class") + 7;
        &row[start..start + row[start..].find('"').unwrap()]
    };
    assert_eq!(class(REACHED_BODY), "hit");
    assert_eq!(class(EVEN_BRANCH), "hit");
    assert_eq!(class(ODD_BRANCH), "hit");
    assert_eq!(class(NEVER_CALLED_BODY), "miss");
    // The bounds check's failure path is shown apart, not as a line only
    // partly reached.
    assert_eq!(
        class(BOUNDS_CHECKED),
        "hit panic",
        "{}",
        row(BOUNDS_CHECKED)
    );
}
