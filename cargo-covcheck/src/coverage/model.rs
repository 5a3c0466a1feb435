//! What the campaigns reached, ready to draw: the one data model the
//! coverage report is rendered from (HTML pages, SVG plots and `lcov.info`,
//! in [`crate::report::coverage`]). Collecting it (replaying the corpus on
//! the instrumented build, symbolising the coverage counters, reading the
//! recorded time series) is [`crate::coverage`]'s job; rendering never
//! runs anything.

use std::collections::BTreeMap;
use std::path::PathBuf;

/// Everything one `cargo covcheck report` shows.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CoverageReport {
    /// What the report is about, e.g. the packages under test: `json`.
    pub title: String,
    /// The properties, in the order they are listed.
    pub properties: Vec<PropertyCoverage>,
    /// The source files of the packages under test that hold instrumented
    /// code, ordered by [`SourceFile::display`].
    pub files: Vec<SourceFile>,
}

/// One property: its totals, its campaigns over time and its findings.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PropertyCoverage {
    /// The full path, e.g. `json::tests::parses`.
    pub name: String,
    /// Lines of [`CoverageReport::files`] this property reached.
    pub lines_reached: usize,
    /// Lines of [`CoverageReport::files`] that hold instrumented code.
    pub lines_total: usize,
    /// Inputs replayed to measure it (corpus cache and seeds).
    pub inputs: usize,
    /// Its campaigns over time, resumed runs stitched into one series:
    /// each run's times and executions continue from where the previous
    /// run ended. Ordered by time; may be empty (never run, or run before
    /// series were recorded).
    pub series: Vec<SeriesPoint>,
    /// Where a run resumed an earlier one, as `elapsed_ms` on the stitched
    /// axis (drawn as vertical markers).
    pub resumes: Vec<u64>,
    /// Failures the campaigns found, on the same axis as `series`.
    pub findings: Vec<FindingMark>,
}

/// One point of a campaign's progress.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SeriesPoint {
    /// Milliseconds of campaign time, counted across resumed runs.
    pub elapsed_ms: u64,
    /// Executions, counted across resumed runs.
    pub execs: u64,
    /// Distinct coverage counters the corpus reaches ("edges").
    pub edges: u64,
    /// Corpus entries.
    pub corpus: u64,
}

/// A failure a campaign found.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FindingMark {
    /// When, on the stitched axis of [`PropertyCoverage::series`].
    pub elapsed_ms: u64,
    pub execs: u64,
    /// What failed: `panic`, `abort`, `timeout`, ...
    pub kind: String,
    /// The panic message, or what killed the worker.
    pub message: String,
    /// The minimal failing value, as `(argument name, Debug rendering)`.
    pub value: Vec<(String, String)>,
    /// The command that reruns the property on it.
    pub rerun: String,
    /// The seed file it was saved to, if it was.
    pub seed: Option<String>,
}

/// A source file of the packages under test.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SourceFile {
    /// Absolute, as lcov's `SF:` records want it.
    pub path: PathBuf,
    /// Relative to the workspace root, as the report shows it (`/`
    /// separated), e.g. `src/lib.rs`.
    pub display: String,
    /// The file's text; line `n` of [`SourceFile::lines`] is its `n`-th line,
    /// counting from 1.
    pub text: String,
    /// The lines that hold instrumented code, by line number. A line not in
    /// the map holds none (a comment, a declaration, a line the compiler
    /// folded into another) and is shown neither reached nor not.
    pub lines: BTreeMap<u32, LineCoverage>,
}

/// One line with instrumented code.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LineCoverage {
    /// Indices into [`CoverageReport::properties`] of the properties that
    /// reached the line, the one that reached it first (by the time its
    /// corpus entry was found) first. Empty: never reached.
    pub reached_by: Vec<usize>,
    /// Inputs, over all properties, that reached the line: lcov's hit count.
    pub hits: u64,
    /// Coverage counters (basic blocks) on the line, and how many of them
    /// were reached: a partly reached line has `0 < blocks_hit < blocks`.
    pub blocks: u32,
    pub blocks_hit: u32,
}

impl LineCoverage {
    pub fn reached(&self) -> bool {
        !self.reached_by.is_empty()
    }
}

impl SourceFile {
    /// (lines reached, lines with code).
    pub fn totals(&self) -> (usize, usize) {
        let reached = self.lines.values().filter(|l| l.reached()).count();
        (reached, self.lines.len())
    }
}
