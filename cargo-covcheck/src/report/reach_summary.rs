//! What `cargo covcheck report` prints: each property's share of the lines
//! of the packages under test, the properties left out, and where the
//! report is.

use crate::events::CoverageWritten;

/// The summary of a written coverage report.
pub fn summary(written: &CoverageWritten<'_>) -> String {
    let report = written.report;
    let width = report
        .properties
        .iter()
        .map(|p| p.name.len())
        .max()
        .unwrap_or(0)
        .max("property".len());
    let mut out = format!(
        "{:width$}  {:>15}  {:>8}\n",
        "property", "lines reached", "inputs"
    );
    for property in &report.properties {
        out.push_str(&format!(
            "{:width$}  {:>15}  {:>8}\n",
            property.name,
            format!(
                "{}/{} {}",
                property.lines_reached,
                property.lines_total,
                percent(property.lines_reached, property.lines_total)
            ),
            property.inputs
        ));
    }
    let (reached, total) = report.files.iter().fold((0, 0), |(r, t), file| {
        let (fr, ft) = file.totals();
        (r + fr, t + ft)
    });
    out.push_str(&format!(
        "\n{} source file(s): {reached} of {total} lines with code reached {}\n",
        report.files.len(),
        percent(reached, total)
    ));
    let (functions, branches) = report.gaps();
    if functions + branches > 0 {
        out.push_str(&format!(
            "Not reached: {functions} function(s) no property calls, {branches} branch(es) \
             none takes (listed in the report)\n"
        ));
    }
    if let Some((added, lost)) = report.against_baseline() {
        out.push_str(&format!(
            "Since the baseline: {added} line(s) reached, {lost} reached then and not now\n"
        ));
    }
    for (property, problem) in &written.failed {
        out.push_str(&format!(
            "error: {} is not in the report: {problem}\n",
            property.listing.full_path
        ));
    }
    out.push_str(&format!(
        "Report: {}\nlcov:   {}\n",
        written.index.display(),
        written.lcov.display()
    ));
    out
}

fn percent(part: usize, whole: usize) -> String {
    if whole == 0 {
        "(-)".to_string()
    } else {
        format!("({:.1}%)", 100.0 * part as f64 / whole as f64)
    }
}
