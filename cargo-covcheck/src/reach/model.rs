//! What the campaigns reached, ready to draw: the one data model the
//! coverage report is rendered from (HTML pages, SVG plots and `lcov.info`,
//! in [`crate::report::site`]). Collecting it (replaying the corpus on
//! the instrumented build, symbolising the coverage counters, reading the
//! recorded time series) is [`crate::reach`]'s job; rendering never
//! runs anything.

use std::collections::{BTreeMap, BTreeSet};
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
    /// What an earlier report reached (`report --baseline`), to show what
    /// the campaigns since added.
    pub baseline: Option<Baseline>,
}

impl CoverageReport {
    /// Against the baseline, if there is one: (lines reached since, lines
    /// reached then and not now), over every file.
    pub fn against_baseline(&self) -> Option<(usize, usize)> {
        let baseline = self.baseline.as_ref()?;
        Some(self.files.iter().fold((0, 0), |(a, l), file| {
            let (added, lost) = file.against(baseline);
            (a + added, l + lost)
        }))
    }

    /// (functions no property calls, branches none takes in the others),
    /// over every file: the index's list of gaps.
    pub fn gaps(&self) -> (usize, usize) {
        self.files.iter().fold((0, 0), |(f, b), file| {
            (
                f + file.unreached_functions().count(),
                b + file.unreached_branches().len(),
            )
        })
    }
}

/// The lines an earlier report reached, per absolute file path (read from
/// its `lcov.info`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Baseline {
    /// Where it was read from, as the user gave it.
    pub source: PathBuf,
    pub reached: BTreeMap<PathBuf, BTreeSet<u32>>,
}

impl Baseline {
    /// Whether the earlier report had reached `line` of `file`.
    pub fn had(&self, file: &SourceFile, line: u32) -> bool {
        self.reached
            .get(&file.path)
            .is_some_and(|lines| lines.contains(&line))
    }
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
    /// The functions whose code starts in the file, by first line (a
    /// generic function's instances are one).
    pub functions: Vec<FunctionCoverage>,
}

/// One function of a source file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FunctionCoverage {
    /// Its path, e.g. `json::parse_value`.
    pub name: String,
    /// The first and the last line of the file with its code.
    pub first_line: u32,
    pub last_line: u32,
    /// The properties that reached it, as in [`LineCoverage::reached_by`].
    pub reached_by: Vec<usize>,
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
    /// Coverage counters (basic blocks) with code on the line, and how
    /// many of them were reached, not counting [`Self::panic_paths`]: a
    /// partly reached line has `0 < blocks_hit < blocks`.
    pub blocks: u32,
    pub blocks_hit: u32,
    /// Blocks with code on the line that only lead to a panic (a bounds
    /// check, an `unwrap` on `None`, a failed `assert!`), and how many of
    /// them were reached. They are shown apart: a line whose other blocks
    /// were all reached is reached, "only a panic path unreached".
    pub panic_paths: u32,
    pub panic_paths_hit: u32,
}

impl LineCoverage {
    pub fn reached(&self) -> bool {
        !self.reached_by.is_empty()
    }

    /// Reached, with some of its blocks not (panic paths aside). A line
    /// reached by one binary's code counts as reached even when the counts
    /// of another say none of its blocks was.
    pub fn partly_reached(&self) -> bool {
        self.reached() && 0 < self.blocks_hit && self.blocks_hit < self.blocks
    }

    /// Reached, every block but a panic path or more too.
    pub fn only_panic_paths_unreached(&self) -> bool {
        self.reached() && !self.partly_reached() && self.panic_paths_hit < self.panic_paths
    }
}

impl SourceFile {
    /// (lines reached, lines with code).
    pub fn totals(&self) -> (usize, usize) {
        let reached = self.lines.values().filter(|l| l.reached()).count();
        (reached, self.lines.len())
    }

    /// The functions no property reached.
    pub fn unreached_functions(&self) -> impl Iterator<Item = &FunctionCoverage> {
        self.functions.iter().filter(|f| f.reached_by.is_empty())
    }

    /// The code no property reached inside functions that some did: runs of
    /// unreached lines, and lines only partly reached (a branch of theirs
    /// never taken), in line order. Panic paths are not gaps.
    pub fn unreached_branches(&self) -> Vec<Gap<'_>> {
        let mut gaps: Vec<Gap<'_>> = Vec::new();
        for function in self.functions.iter().filter(|f| !f.reached_by.is_empty()) {
            let gap = |first, last, partly| Gap {
                first,
                last,
                partly,
                function: &function.name,
            };
            let mut run: Option<(u32, u32)> = None;
            for (&number, line) in self.lines.range(function.first_line..=function.last_line) {
                if !line.reached() {
                    // A line with only a panic path is not a gap.
                    if line.blocks > 0 {
                        run = Some(run.map_or((number, number), |(first, _)| (first, number)));
                    }
                    continue;
                }
                gaps.extend(run.take().map(|(first, last)| gap(first, last, false)));
                if line.partly_reached() {
                    gaps.push(gap(number, number, true));
                }
            }
            gaps.extend(run.map(|(first, last)| gap(first, last, false)));
        }
        gaps.sort_by_key(|g| (g.first, g.last));
        gaps.dedup_by_key(|g| (g.first, g.last));
        gaps
    }

    /// Against an earlier report: (lines reached now and not then, lines
    /// reached then and not now), among the lines with code now.
    pub fn against(&self, baseline: &Baseline) -> (usize, usize) {
        self.lines.iter().fold((0, 0), |(added, lost), (&n, line)| {
            match (line.reached(), baseline.had(self, n)) {
                (true, false) => (added + 1, lost),
                (false, true) => (added, lost + 1),
                _ => (added, lost),
            }
        })
    }
}

/// Code no property reached in a function that some did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Gap<'a> {
    pub first: u32,
    pub last: u32,
    /// A line reached, one of its branches not.
    pub partly: bool,
    /// The function it is in.
    pub function: &'a str,
}
