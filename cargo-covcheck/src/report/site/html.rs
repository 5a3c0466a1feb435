//! The pages of the coverage report: the index (properties with their
//! plots, files, findings) and one page per source file with its lines
//! marked. Self-contained HTML5: the style is inline and there is no
//! script and no external resource (a Content-Security-Policy says so to
//! the browser), because the report is opened from a CI artifact or a
//! local directory, where nothing else can be relied on.

use std::fmt::Write as _;

use super::{gaps, plots};
use crate::reach::model::{
    CoverageReport, FindingMark, LineCoverage, PropertyCoverage, SourceFile,
};
use crate::report::escape::escape;
use crate::report::text::{human_count, properties};

/// The style of every page: readable tables, a light code view, and the
/// three line colours (reached, partly reached, not reached).
const STYLE: &str = "\
body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;margin:1.5rem;color:#1f2328;background:#fff;line-height:1.4}
h1{font-size:1.5rem}h2{font-size:1.2rem;margin-top:2rem;border-bottom:1px solid #d8dee4}h3{font-size:1rem}
a{color:#0969da}
table{border-collapse:collapse}
th,td{padding:.25rem .6rem;text-align:left;vertical-align:top}
thead th{border-bottom:2px solid #d8dee4}
tfoot td{border-top:2px solid #d8dee4;font-weight:600}
.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
tr.plots td{border-bottom:1px solid #d8dee4;padding-bottom:1rem}
svg.plot{max-width:100%;height:auto;margin-right:1rem}
.bar{display:inline-block;width:6rem;height:.7rem;background:#ffcecb;vertical-align:middle}
.bar span{display:block;height:100%;background:#4ac26b}
pre{background:#f6f8fa;padding:.5rem .75rem;overflow-x:auto;margin:.25rem 0}
.finding{border-left:4px solid #cf222e;padding-left:1rem;margin:1rem 0}
.finding dt{font-weight:600;margin-top:.5rem}.finding dd{margin-left:0}
table.source{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.85rem;width:100%}
table.source th{white-space:nowrap}table.source td{padding:0 .5rem;white-space:pre}
table.source td.code{tab-size:4;width:100%}
table.source td.by{max-width:14rem;overflow:hidden;text-overflow:ellipsis}
table.source td.num a{color:#6e7781;text-decoration:none}
.key{padding:0 .4rem;margin-right:.4rem}
.hit{background:#dafbe1}.part{background:#fff8c5}.miss{background:#ffebe9}
.panic td.code,.key.panic{box-shadow:inset 3px 0 #d4a72c}
.added td.num:first-child,.key.added{box-shadow:inset 4px 0 #1a7f37}
ul.gaps{margin:.25rem 0}
";

/// A whole page: doctype, language, charset, the policy that forbids
/// scripts and network access, the style, and `body`.
fn page(title: &str, body: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{}</title>\n<style>\n{STYLE}</style>\n</head>\n<body>\n{body}</body>\n</html>\n",
        escape(title)
    )
}

/// The index page; `pages` are the paths of the files' pages, relative to
/// it, in the order of [`CoverageReport::files`].
pub fn index(report: &CoverageReport, pages: &[String]) -> String {
    let body = [
        header(report),
        properties_table(report),
        files_table(report, pages),
        gaps::section(report, pages),
        findings(report),
    ]
    .concat();
    page(&format!("Coverage: {}", report.title), &body)
}

/// The title and the line totals over every file, and against the
/// baseline if there is one.
fn header(report: &CoverageReport) -> String {
    let (reached, total) = line_totals(report);
    let mut html = format!(
        "<h1>Coverage: {}</h1>\n<p>{}, {}: {reached} of {total} lines reached ({}).</p>\n",
        escape(&report.title),
        properties(report.properties.len()),
        match report.files.len() {
            1 => "1 file".to_string(),
            n => format!("{n} files"),
        },
        percent(reached, total),
    );
    if let (Some(baseline), Some((added, lost))) = (&report.baseline, report.against_baseline()) {
        let _ = writeln!(
            html,
            "<p>Against the baseline <code>{}</code>: {added} lines reached since, {lost} \
             reached then and not now.</p>",
            escape(&baseline.source.display().to_string())
        );
    }
    html
}

/// (lines reached, lines with code) over every file.
fn line_totals(report: &CoverageReport) -> (usize, usize) {
    report.files.iter().fold((0, 0), |(reached, total), file| {
        let (r, t) = file.totals();
        (reached + r, total + t)
    })
}

/// A row per property with its totals, then a row with its plots.
fn properties_table(report: &CoverageReport) -> String {
    let mut html = String::from(
        "<h2 id=\"properties\">Properties</h2>\n<table class=\"properties\">\n<thead><tr>\
         <th>Property</th><th class=\"num\">Lines reached</th><th class=\"num\">%</th>\
         <th class=\"num\">Inputs</th><th class=\"num\">Executions</th><th class=\"num\">Time</th>\
         <th class=\"num\">Findings</th></tr></thead>\n<tbody>\n",
    );
    if report.properties.is_empty() {
        html.push_str("<tr><td colspan=\"7\">No properties.</td></tr>\n");
    }
    for (i, property) in report.properties.iter().enumerate() {
        html.push_str(&property_rows(i, property));
    }
    html.push_str("</tbody>\n</table>\n");
    html
}

/// The row of property `i` (the `i` links its findings), then the row of
/// its plots.
fn property_rows(i: usize, p: &PropertyCoverage) -> String {
    let last = p.series.last();
    let execs = last.map_or(String::from("–"), |s| {
        format!(
            "<span title=\"{}\">{}</span>",
            s.execs,
            human_count(s.execs)
        )
    });
    let time = last.map_or(String::from("–"), |s| duration(s.elapsed_ms));
    let findings = match p.findings.len() {
        0 => "0".to_string(),
        n => format!("<a href=\"#findings-{i}\">{n}</a>"),
    };
    format!(
        "<tr id=\"property-{i}\"><td><code>{}</code></td><td class=\"num\">{} / {}</td>\
         <td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{execs}</td>\
         <td class=\"num\">{time}</td><td class=\"num\">{findings}</td></tr>\n\
         <tr class=\"plots\"><td colspan=\"7\">{}</td></tr>\n",
        escape(&p.name),
        p.lines_reached,
        p.lines_total,
        percent(p.lines_reached, p.lines_total),
        p.inputs,
        plots::both(p),
    )
}

/// A row per source file, linked to its page, with a bar of its share of
/// lines reached, and the totals below.
fn files_table(report: &CoverageReport, pages: &[String]) -> String {
    let since = match report.baseline {
        Some(_) => "<th class=\"num\" title=\"lines reached since the baseline\">Since</th>",
        None => "",
    };
    let mut html = format!(
        "<h2 id=\"files\">Files</h2>\n<table class=\"files\">\n<thead><tr><th>File</th>\
         <th class=\"num\">Lines reached</th><th class=\"num\">%</th><th></th>{since}</tr>\
         </thead>\n<tbody>\n",
    );
    for (file, page) in report.files.iter().zip(pages) {
        let (r, t) = file.totals();
        let since = report.baseline.as_ref().map_or(String::new(), |baseline| {
            let (added, lost) = file.against(baseline);
            let lost = match lost {
                0 => String::new(),
                n => format!(" −{n}"),
            };
            format!("<td class=\"num\">+{added}{lost}</td>")
        });
        let _ = writeln!(
            html,
            "<tr><td><a href=\"{}\">{}</a></td><td class=\"num\">{r} / {t}</td>\
             <td class=\"num\">{}</td><td>{}</td>{since}</tr>",
            escape(page),
            escape(&file.display),
            percent(r, t),
            bar(r, t),
        );
    }
    let (reached, total) = line_totals(report);
    let _ = write!(
        html,
        "</tbody>\n<tfoot><tr><td>Total</td><td class=\"num\">{reached} / {total}</td>\
         <td class=\"num\">{}</td><td>{}</td></tr></tfoot>\n</table>\n",
        percent(reached, total),
        bar(reached, total),
    );
    html
}

/// The findings of every property that has some, each with what a
/// developer needs to reproduce it.
fn findings(report: &CoverageReport) -> String {
    let mut html = String::from("<h2 id=\"findings\">Findings</h2>\n");
    let with_findings = report
        .properties
        .iter()
        .enumerate()
        .filter(|(_, p)| !p.findings.is_empty());
    let mut any = false;
    for (i, p) in with_findings {
        any = true;
        let _ = writeln!(
            html,
            "<h3 id=\"findings-{i}\"><code>{}</code></h3>",
            escape(&p.name)
        );
        for f in &p.findings {
            html.push_str(&finding(f));
        }
    }
    if !any {
        html.push_str("<p>No findings.</p>\n");
    }
    html
}

/// One finding: kind and when, message, minimal value, rerun command, seed.
fn finding(f: &FindingMark) -> String {
    let value = if f.value.is_empty() {
        "<p>Not recorded.</p>".to_string()
    } else {
        let lines: Vec<String> = f
            .value
            .iter()
            .map(|(name, value)| format!("{name} = {value}"))
            .collect();
        format!("<pre>{}</pre>", escape(&lines.join("\n")))
    };
    let seed = f.seed.as_ref().map_or("not saved".to_string(), |s| {
        format!("<code>{}</code>", escape(s))
    });
    format!(
        "<div class=\"finding\">\n<p><strong>{}</strong> after {}, {} executions</p>\n<dl>\n\
         <dt>Message</dt><dd><pre>{}</pre></dd>\n<dt>Minimal value</dt><dd>{value}</dd>\n\
         <dt>Rerun</dt><dd><pre><code>{}</code></pre></dd>\n<dt>Seed</dt><dd>{seed}</dd>\n</dl>\n</div>\n",
        escape(&f.kind),
        duration(f.elapsed_ms),
        human_count(f.execs),
        escape(&f.message),
        escape(&f.rerun),
    )
}

/// The page of one source file: its text with line numbers, each line with
/// code marked reached, partly reached or not reached, and who reached it.
pub fn source_page(report: &CoverageReport, file: &SourceFile) -> String {
    let (reached, total) = file.totals();
    let added_key = match report.baseline {
        Some(_) => "<span class=\"key added\">reached since the baseline</span>",
        None => "",
    };
    let mut body = format!(
        "<nav><a href=\"../index.html\">← Coverage: {}</a></nav>\n<h1><code>{}</code></h1>\n\
         <p>{reached} of {total} lines reached ({}). \
         <span class=\"key hit\">reached</span><span class=\"key hit panic\">reached, only a \
         panic path unreached</span><span class=\"key part\">partly reached</span>\
         <span class=\"key miss\">not reached</span>{added_key}</p>\n\
         <table class=\"source\">\n<thead><tr><th class=\"num\">Line</th>\
         <th class=\"num\" title=\"inputs that reached the line\">Hits</th>\
         <th title=\"the properties that reached the line, the first to reach it first\">\
         Reached by</th><th>Source</th></tr></thead>\n<tbody>\n",
        escape(&report.title),
        escape(&file.display),
        percent(reached, total),
    );
    let text: Vec<&str> = file.text.lines().collect();
    // Lines with code past the end of the text (the file changed since it
    // was measured) are still shown, empty, rather than their coverage lost.
    let end = u32::try_from(text.len()).unwrap_or(u32::MAX);
    let past_end = file.lines.range(end.saturating_add(1)..).map(|(&n, _)| n);
    for number in (1..=end).chain(past_end) {
        let source = text.get(number as usize - 1).copied().unwrap_or("");
        body.push_str(&source_line(report, file, number, source));
    }
    body.push_str("</tbody>\n</table>\n");
    page(
        &format!("{} – Coverage: {}", file.display, report.title),
        &body,
    )
}

/// One line of a file's page; a line without code has only its number.
fn source_line(report: &CoverageReport, file: &SourceFile, number: u32, source: &str) -> String {
    let coverage = file.lines.get(&number);
    let cells = match coverage {
        None => String::from("<td></td><td></td>"),
        Some(line) if !line.reached() => String::from("<td class=\"num\">0</td><td></td>"),
        Some(line) => format!(
            "<td class=\"num\">{}</td>{}",
            line.hits.max(1),
            reached_by(report, &line.reached_by)
        ),
    };
    let class = coverage.map_or(String::new(), |line| {
        let (class, mut title) = reach(line);
        let added = line.reached()
            && report
                .baseline
                .as_ref()
                .is_some_and(|b| !b.had(file, number));
        if added {
            title.push_str(", since the baseline");
        }
        let added = if added { " added" } else { "" };
        format!(" class=\"{class}{added}\" title=\"{title}\"")
    });
    format!(
        "<tr id=\"L{number}\"{class}><td class=\"num\"><a href=\"#L{number}\">{number}</a></td>\
         {cells}<td class=\"code\">{}</td></tr>\n",
        escape(source)
    )
}

/// How many names the properties column shows before "+N".
const NAMES_SHOWN: usize = 3;

/// The properties that reached a line, the first to reach it first: their
/// short names (the first few), every full name in the tooltip.
fn reached_by(report: &CoverageReport, by: &[usize]) -> String {
    let name = |n: &usize| {
        report
            .properties
            .get(*n)
            .map_or("(unknown property)", |p| p.name.as_str())
    };
    let full: Vec<&str> = by.iter().map(name).collect();
    let mut shown: Vec<String> = full
        .iter()
        .take(NAMES_SHOWN)
        .map(|n| escape(short_name(n)))
        .collect();
    if full.len() > NAMES_SHOWN {
        shown.push(format!("+{}", full.len() - NAMES_SHOWN));
    }
    format!(
        "<td class=\"by\" title=\"{}\">{}</td>",
        escape(&full.join("\n")),
        shown.join(", ")
    )
}

/// The class and tooltip of a line with code. A line counts as partly
/// reached only when it was reached at all, whatever its block counts say.
fn reach(line: &LineCoverage) -> (&'static str, String) {
    if !line.reached() {
        ("miss", "not reached".to_string())
    } else if line.partly_reached() {
        (
            "part",
            format!(
                "partly reached: {} of {} blocks",
                line.blocks_hit, line.blocks
            ),
        )
    } else if line.only_panic_paths_unreached() {
        (
            "hit panic",
            format!(
                "reached, only a panic path unreached ({} of {} panic paths reached)",
                line.panic_paths_hit, line.panic_paths
            ),
        )
    } else {
        ("hit", "reached".to_string())
    }
}

/// `json::tests::parses` → `tests::parses`: the last two segments of a
/// property's path, enough to tell properties apart in a narrow column.
fn short_name(name: &str) -> &str {
    match name.rmatch_indices("::").nth(1) {
        Some((at, _)) => &name[at + 2..],
        None => name,
    }
}

/// `77.7%`, rounded down so that 100% means every line; `–` for no lines.
fn percent(reached: usize, total: usize) -> String {
    if total == 0 {
        return "–".to_string();
    }
    let tenths = reached * 1000 / total;
    format!("{}.{}%", tenths / 10, tenths % 10)
}

/// A small horizontal bar, filled to the share of lines reached.
fn bar(reached: usize, total: usize) -> String {
    let tenths = (reached * 1000).checked_div(total).unwrap_or(0);
    format!(
        "<span class=\"bar\"><span style=\"width:{}.{}%\"></span></span>",
        tenths / 10,
        tenths % 10
    )
}

/// `12.3 s`, `4 min 05 s`, `2 h 03 min`: campaign times read at a glance.
fn duration(ms: u64) -> String {
    let secs = ms / 1000;
    match secs {
        0..60 => format!("{:.1} s", ms as f64 / 1000.0),
        60..3600 => format!("{} min {:02} s", secs / 60, secs % 60),
        _ => format!("{} h {:02} min", secs / 3600, secs % 3600 / 60),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_names_keep_the_last_two_segments() {
        assert_eq!(short_name("json::tests::parses"), "tests::parses");
        assert_eq!(short_name("tests::parses"), "tests::parses");
        assert_eq!(short_name("parses"), "parses");
    }

    #[test]
    fn a_percentage_reaches_100_only_when_every_line_is_reached() {
        assert_eq!(percent(9999, 10000), "99.9%");
        assert_eq!(percent(7, 9), "77.7%");
        assert_eq!(percent(3, 3), "100.0%");
        assert_eq!(percent(0, 0), "–");
    }

    #[test]
    fn durations_read_at_a_glance() {
        assert_eq!(duration(12_345), "12.3 s");
        assert_eq!(duration(245_000), "4 min 05 s");
        assert_eq!(duration(7_380_000), "2 h 03 min");
    }

    #[test]
    fn lines_with_code_past_the_end_of_the_text_are_still_shown() {
        let file = SourceFile {
            display: "src/lib.rs".to_string(),
            text: "fn f() {}\n\n".to_string(),
            lines: [(1, LineCoverage::default()), (9, LineCoverage::default())].into(),
            ..SourceFile::default()
        };
        let page = source_page(&CoverageReport::default(), &file);
        let rows: Vec<&str> = page.matches("<tr id=\"L").collect();
        assert_eq!(rows.len(), 3, "{page}");
        assert!(page.contains("<tr id=\"L9\" class=\"miss\""), "{page}");
    }

    #[test]
    fn a_line_is_partly_reached_only_when_reached() {
        let line = |reached_by: Vec<usize>, blocks, blocks_hit| LineCoverage {
            reached_by,
            hits: 1,
            blocks,
            blocks_hit,
            ..LineCoverage::default()
        };
        assert_eq!(reach(&line(vec![0], 3, 1)).0, "part");
        assert_eq!(reach(&line(vec![0], 3, 3)).0, "hit");
        assert_eq!(reach(&line(vec![0], 3, 0)).0, "hit");
        assert_eq!(reach(&line(vec![], 3, 1)).0, "miss");
    }

    #[test]
    fn an_unreached_panic_path_is_shown_apart_from_unreached_code() {
        let line = |blocks_hit, panic_paths_hit| LineCoverage {
            reached_by: vec![0],
            hits: 1,
            blocks: 2,
            blocks_hit,
            panic_paths: 1,
            panic_paths_hit,
        };
        assert_eq!(reach(&line(2, 0)).0, "hit panic");
        assert_eq!(reach(&line(2, 1)).0, "hit");
        assert_eq!(reach(&line(1, 0)).0, "part");
        let unreached = LineCoverage {
            reached_by: vec![],
            ..line(0, 0)
        };
        assert_eq!(reach(&unreached).0, "miss");
    }
}
