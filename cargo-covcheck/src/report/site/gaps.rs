//! The index's list of what no property reaches, per file: the functions
//! no property calls, then the branches no property takes inside the
//! functions they do call. It is the list of properties still to write.

use std::fmt::Write as _;

use crate::reach::model::{CoverageReport, Gap, SourceFile};
use crate::report::escape::escape;

/// The section, with a link to each gap's line; `pages` as for the index.
pub fn section(report: &CoverageReport, pages: &[String]) -> String {
    let mut html = String::from(
        "<h2 id=\"gaps\">Not reached</h2>\n<p>What no property reaches: the functions none \
         calls, and the branches none takes in the functions they do call. Panic paths \
         (bounds checks, failed <code>unwrap</code>s) are left out.</p>\n",
    );
    let mut none = true;
    for (file, page) in report.files.iter().zip(pages) {
        let items = items(file, page);
        if items.is_empty() {
            continue;
        }
        none = false;
        let _ = write!(
            html,
            "<h3><a href=\"{}\">{}</a></h3>\n<ul class=\"gaps\">\n{}</ul>\n",
            escape(page),
            escape(&file.display),
            items.concat()
        );
    }
    if none {
        html.push_str("<p>Every function and branch with code was reached.</p>\n");
    }
    html
}

/// A list item per unreached function, then per gap in reached ones.
fn items(file: &SourceFile, page: &str) -> Vec<String> {
    let link = |first: u32, last: u32| {
        let text = match first == last {
            true => format!("line {first}"),
            false => format!("lines {first}–{last}"),
        };
        format!("<a href=\"{}#L{first}\">{text}</a>", escape(page))
    };
    let functions = file.unreached_functions().map(|f| {
        format!(
            "<li>function <code>{}</code>, {}: never called</li>\n",
            escape(&f.name),
            link(f.first_line, f.last_line)
        )
    });
    let branches = file.unreached_branches().into_iter().map(|gap| {
        let Gap {
            first,
            last,
            partly,
            function,
        } = gap;
        let what = if partly {
            "a branch never taken"
        } else {
            "never run"
        };
        format!(
            "<li>{} in <code>{}</code>: {what}</li>\n",
            link(first, last),
            escape(function)
        )
    });
    functions.chain(branches).collect()
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::reach::model::{FunctionCoverage, LineCoverage};

    fn line(reached: bool, blocks: u32, blocks_hit: u32) -> LineCoverage {
        LineCoverage {
            reached_by: if reached { vec![0] } else { vec![] },
            hits: u64::from(reached),
            blocks,
            blocks_hit,
            ..LineCoverage::default()
        }
    }

    fn function(name: &str, lines: (u32, u32), reached: bool) -> FunctionCoverage {
        FunctionCoverage {
            name: name.to_string(),
            first_line: lines.0,
            last_line: lines.1,
            reached_by: if reached { vec![0] } else { vec![] },
        }
    }

    #[test]
    fn unreached_functions_and_branches_are_listed_with_links_to_their_lines() {
        let file = SourceFile {
            display: "src/lib.rs".to_string(),
            lines: BTreeMap::from([
                (1, line(true, 2, 1)),
                (2, line(true, 1, 1)),
                (3, line(false, 1, 0)),
                (4, line(false, 1, 0)),
                (5, line(true, 1, 1)),
                (6, line(false, 0, 0)),
                (8, line(false, 1, 0)),
            ]),
            functions: vec![
                function("c::f", (1, 6), true),
                function("c::g", (8, 8), false),
            ],
            ..SourceFile::default()
        };
        let report = CoverageReport {
            files: vec![file],
            ..CoverageReport::default()
        };
        let html = section(&report, &["files/src_lib_rs.html".to_string()]);
        assert!(
            html.contains(
                "function <code>c::g</code>, <a href=\"files/src_lib_rs.html#L8\">line 8</a>"
            ),
            "{html}"
        );
        assert!(
            html.contains("#L1\">line 1</a> in <code>c::f</code>: a branch never taken"),
            "{html}"
        );
        assert!(
            html.contains("#L3\">lines 3–4</a> in <code>c::f</code>: never run"),
            "{html}"
        );
        // Line 6 has only a panic path: no gap.
        assert!(!html.contains("#L6"), "{html}");
    }

    #[test]
    fn a_report_without_gaps_says_so() {
        let report = CoverageReport {
            files: vec![SourceFile {
                lines: BTreeMap::from([(1, line(true, 1, 1))]),
                functions: vec![function("c::f", (1, 1), true)],
                ..SourceFile::default()
            }],
            ..CoverageReport::default()
        };
        let html = section(&report, &["files/a.html".to_string()]);
        assert!(html.contains("Every function and branch"), "{html}");
    }
}
