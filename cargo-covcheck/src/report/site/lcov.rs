//! `lcov.info`: the report's line coverage as an lcov tracefile, the format
//! CI coverage services (Codecov, Coveralls), editors' coverage gutters and
//! `genhtml` read. Lines only: the model has no functions or branches.

use std::fmt::Write as _;

use crate::reach::model::{CoverageReport, LineCoverage, SourceFile};

/// The tracefile of every source file of the report, in its order.
pub fn tracefile(report: &CoverageReport) -> String {
    report.files.iter().map(record).collect()
}

/// One file's record: `TN:` (no test name), `SF:` its absolute path, a
/// `DA:` per line with code, then `LH:` (lines hit) and `LF:` (lines found).
fn record(file: &SourceFile) -> String {
    let mut out = format!("TN:\nSF:{}\n", file.path.display());
    for (number, line) in &file.lines {
        let _ = writeln!(out, "DA:{number},{}", hits(line));
    }
    let (reached, total) = file.totals();
    let _ = write!(out, "LH:{reached}\nLF:{total}\nend_of_record\n");
    out
}

/// lcov's hit count: readers take a line with 0 hits as not reached, so a
/// reached line counts at least once (and `LH` agrees with the `DA` lines)
/// even if its inputs were not counted; a line nobody reached counts 0.
fn hits(line: &LineCoverage) -> u64 {
    if line.reached() { line.hits.max(1) } else { 0 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reached_line_never_counts_zero_hits_and_an_unreached_one_always_does() {
        let line = |reached_by: Vec<usize>, hits| LineCoverage {
            reached_by,
            hits,
            ..LineCoverage::default()
        };
        assert_eq!(super::hits(&line(vec![0], 0)), 1);
        assert_eq!(super::hits(&line(vec![0, 1], 7)), 7);
        assert_eq!(super::hits(&line(vec![], 3)), 0);
    }
}
