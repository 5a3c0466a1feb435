//! From what the reach workers measured to the report's model: counters
//! symbolised into source lines of the packages under test, per line the
//! properties that reached it (the one whose input was saved earliest
//! first), per property its totals and its recorded series.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use covcheck_protocol::worker::ReachReport;

use super::functions::{self, Functions, ReachedBy};
use super::measure::{by_binary, pc_table};
use super::model::{
    Baseline, CoverageReport, FunctionCoverage, LineCoverage, PropertyCoverage, SourceFile,
};
use super::series::{read_series, series_path};
use super::source_lines::{self, Sources, Spans};
use super::symbols::{self, Block};
use crate::discover::Property;

/// What the report is collected from.
pub struct Measured<'a> {
    pub title: String,
    /// Where the packages under test live: only their files are shown.
    pub roots: Vec<PathBuf>,
    /// Left out even under a root (the build's own output).
    pub excluded: Vec<PathBuf>,
    /// Paths are shown relative to this.
    pub workspace_root: PathBuf,
    pub covcheck_dir: PathBuf,
    pub properties: &'a [Property],
    /// Each property's reach, in the order of `properties` (`None`: its
    /// worker failed, reported elsewhere).
    pub reached: Vec<Option<ReachReport>>,
    /// Count the blocks that only lead to a panic like any other, rather
    /// than apart (`report --count-panic-paths`).
    pub count_panic_paths: bool,
    /// What an earlier report reached (`report --baseline`).
    pub baseline: Option<Baseline>,
}

/// One line's counters in each test binary, and who reached them.
#[derive(Default)]
struct LineTally {
    blocks: HashMap<PathBuf, BlockCounts>,
    /// Per property: the earliest save time of an input reaching the line.
    first: BTreeMap<usize, u64>,
    /// Per property: the inputs that reached the line (those reaching its
    /// most reached block: an input may reach several).
    hits: BTreeMap<usize, u64>,
}

/// The blocks with code on one line in one test binary.
#[derive(Clone, Copy, Default)]
struct BlockCounts {
    /// Blocks, and blocks reached.
    blocks: u32,
    hit: u32,
    /// Of them, those that only lead to a panic, and those reached.
    panics: u32,
    panics_hit: u32,
}

impl BlockCounts {
    fn add(&mut self, panic_path: bool, hit: bool) {
        self.blocks += 1;
        self.hit += u32::from(hit);
        self.panics += u32::from(panic_path);
        self.panics_hit += u32::from(panic_path && hit);
    }
}

type Lines = BTreeMap<PathBuf, BTreeMap<u32, LineTally>>;

/// Builds the report's model; an error names a binary whose debug
/// information cannot be read.
pub fn collect(measured: Measured<'_>) -> Result<CoverageReport, String> {
    let mut lines: Lines = BTreeMap::new();
    let mut functions: Functions = BTreeMap::new();
    let mut sources = Sources::default();
    let reports: Vec<Option<&ReachReport>> = measured.reached.iter().map(Option::as_ref).collect();
    for (binary, members) in by_binary(measured.properties) {
        let Some(pcs) = pc_table(&members, &reports) else {
            continue;
        };
        let mut blocks = locate(&binary, pcs, &measured)?;
        source_lines::drop_generated(&mut blocks, &mut sources);
        let reached = reached_counters(&members, &measured.reached);
        tally_binary(&mut lines, &binary, &blocks, &reached);
        functions::tally(&mut functions, &blocks, &reached);
    }
    Ok(model(measured, lines, functions))
}

/// Each counter's block: its lines in files under test (none if it has
/// code in no such file) and whether it only leads to a panic.
fn locate(binary: &Path, pcs: &[u64], measured: &Measured<'_>) -> Result<Vec<Block>, String> {
    let mut blocks = symbols::locate(binary, pcs, |file| under_test(file, measured))?;
    for block in &mut blocks {
        block.panic_path &= !measured.count_panic_paths;
    }
    Ok(blocks)
}

fn under_test(file: &Path, measured: &Measured<'_>) -> bool {
    measured.roots.iter().any(|root| file.starts_with(root))
        && !measured.excluded.iter().any(|dir| file.starts_with(dir))
        && file.is_file()
}

/// Per counter reached in one binary, the properties that reached it.
fn reached_counters(members: &[usize], reached: &[Option<ReachReport>]) -> HashMap<u32, ReachedBy> {
    let mut by_counter: HashMap<u32, ReachedBy> = HashMap::new();
    for &n in members {
        let Some(report) = &reached[n] else { continue };
        for counter in &report.reached {
            let by = by_counter.entry(counter.counter).or_default();
            by.insert(n, (counter.first_saved_ms, counter.inputs));
        }
    }
    by_counter
}

/// Adds one binary's counters and what its properties reached.
fn tally_binary(
    lines: &mut Lines,
    binary: &Path,
    blocks: &[Block],
    reached: &HashMap<u32, ReachedBy>,
) {
    for (counter, block) in blocks.iter().enumerate() {
        let by = reached.get(&(counter as u32));
        for (file, line) in &block.lines {
            let tally = lines
                .entry(file.clone())
                .or_default()
                .entry(*line)
                .or_default();
            let counts = tally.blocks.entry(binary.to_path_buf()).or_default();
            counts.add(block.panic_path, by.is_some());
            for (&n, &(saved_ms, inputs)) in by.into_iter().flatten() {
                let first = tally.first.entry(n).or_insert(saved_ms);
                *first = (*first).min(saved_ms);
                // Inputs reaching any block of the line, at least.
                let hits = tally.hits.entry(n).or_default();
                *hits = (*hits).max(inputs);
            }
        }
    }
}

fn model(measured: Measured<'_>, lines: Lines, mut functions: Functions) -> CoverageReport {
    let mut files: Vec<SourceFile> = lines
        .into_iter()
        .map(|(path, tallies)| {
            let functions = functions::of_file(&mut functions, &path);
            let mut file = source_file(path, tallies, functions, &measured.workspace_root);
            // A property's own code (its body, the macro's glue) runs the
            // code under test: it is no gap to fill.
            file.functions
                .retain(|f| !of_a_property(&f.name, measured.properties));
            file
        })
        .collect();
    files.sort_by(|a, b| a.display.cmp(&b.display));
    let properties = measured
        .properties
        .iter()
        .enumerate()
        .map(|(n, property)| property_coverage(n, property, &files, &measured))
        .collect();
    CoverageReport {
        title: measured.title,
        properties,
        files,
        baseline: measured.baseline,
    }
}

/// Whether the function `name` is a property or code inside one.
fn of_a_property(name: &str, properties: &[Property]) -> bool {
    properties.iter().any(|p| {
        let path = &p.listing.full_path;
        name.strip_prefix(path.as_str())
            .is_some_and(|rest| rest.is_empty() || rest.starts_with("::"))
    })
}

fn source_file(
    path: PathBuf,
    tallies: BTreeMap<u32, LineTally>,
    functions: Vec<FunctionCoverage>,
    root: &Path,
) -> SourceFile {
    let mut lines = tallies
        .into_iter()
        .map(|(line, tally)| {
            let mut first: Vec<(u64, usize)> = tally.first.iter().map(|(&n, &t)| (t, n)).collect();
            first.sort();
            // The binary where most of the line was reached speaks for it.
            let counts = tally
                .blocks
                .values()
                .copied()
                .max_by_key(|c| (c.hit, std::cmp::Reverse(c.blocks)))
                .unwrap_or_default();
            let coverage = LineCoverage {
                reached_by: first.into_iter().map(|(_, n)| n).collect(),
                hits: tally.hits.values().sum(),
                blocks: counts.blocks - counts.panics,
                blocks_hit: counts.hit - counts.panics_hit,
                panic_paths: counts.panics,
                panic_paths_hit: counts.panics_hit,
            };
            (line, coverage)
        })
        .collect();
    let text = std::fs::read_to_string(&path).unwrap_or_default();
    let spans = Spans::of(&text);
    source_lines::fill(&mut lines, &functions, &text, &spans);
    // Tests are no code a property should reach: no gap either.
    let functions = functions
        .into_iter()
        .filter(|f| !spans.in_test(f.first_line))
        .collect();
    SourceFile {
        display: path
            .strip_prefix(root)
            .unwrap_or(&path)
            .to_string_lossy()
            .replace('\\', "/"),
        text,
        path,
        lines,
        functions,
    }
}

fn property_coverage(
    n: usize,
    property: &Property,
    files: &[SourceFile],
    measured: &Measured<'_>,
) -> PropertyCoverage {
    let lines_total = files.iter().map(|f| f.lines.len()).sum();
    let lines_reached = files
        .iter()
        .flat_map(|f| f.lines.values())
        .filter(|line| line.reached_by.contains(&n))
        .count();
    let key = crate::supervise::property_key(property);
    let series = read_series(&series_path(&measured.covcheck_dir, &key));
    PropertyCoverage {
        name: property.listing.full_path.clone(),
        lines_reached,
        lines_total,
        inputs: measured.reached[n].as_ref().map_or(0, |r| r.inputs),
        series: series.points,
        resumes: series.resumes,
        findings: series.findings,
    }
}
