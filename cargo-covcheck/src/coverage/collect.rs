//! From what the reach workers measured to the report's model: counters
//! symbolised into source lines of the packages under test, per line the
//! properties that reached it (the one whose input was saved earliest
//! first), per property its totals and its recorded series.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use covcheck_protocol::worker::ReachReport;

use super::model::{CoverageReport, LineCoverage, PropertyCoverage, SourceFile};
use super::series::{read_series, series_path};
use super::symbols::Symbolizer;
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
}

/// One line's counters in one test binary, and who reached them.
#[derive(Default)]
struct LineTally {
    /// Per test binary: (counters on the line, counters reached).
    blocks: HashMap<PathBuf, (u32, u32)>,
    /// Per property: the earliest save time of an input reaching the line.
    first: BTreeMap<usize, u64>,
    hits: u64,
}

type Lines = BTreeMap<PathBuf, BTreeMap<u32, LineTally>>;

/// How far past a block's start its first line is looked for, in bytes.
const MAX_BLOCK: u64 = 256;

/// Builds the report's model; an error names a binary whose debug
/// information cannot be read.
pub fn collect(measured: Measured<'_>) -> Result<CoverageReport, String> {
    let mut lines: Lines = BTreeMap::new();
    for (binary, members) in by_binary(measured.properties) {
        let Some(pcs) = members
            .iter()
            .find_map(|&n| measured.reached[n].as_ref().filter(|r| !r.pcs.is_empty()))
            .map(|r| &r.pcs)
        else {
            continue;
        };
        let located = locate(&binary, pcs, &measured)?;
        tally_binary(&mut lines, &binary, &located, &members, &measured.reached);
    }
    Ok(model(measured, lines))
}

/// Properties by test binary, in order.
fn by_binary(properties: &[Property]) -> BTreeMap<PathBuf, Vec<usize>> {
    let mut binaries: BTreeMap<PathBuf, Vec<usize>> = BTreeMap::new();
    for (n, property) in properties.iter().enumerate() {
        binaries
            .entry(property.binary.path.clone())
            .or_default()
            .push(n);
    }
    binaries
}

/// Each counter's (file, line), if its code is in a file under test.
fn locate(
    binary: &Path,
    pcs: &[u64],
    measured: &Measured<'_>,
) -> Result<Vec<Option<(PathBuf, u32)>>, String> {
    let symbolizer = Symbolizer::open(binary)?;
    let mut cache: HashMap<PathBuf, bool> = HashMap::new();
    // A block ends where the next one starts (or after a few instructions).
    let mut starts: Vec<u64> = pcs.to_vec();
    starts.sort_unstable();
    let end_of = |pc: u64| {
        let next = starts.partition_point(|&s| s <= pc);
        starts
            .get(next)
            .copied()
            .unwrap_or(pc + MAX_BLOCK)
            .min(pc + MAX_BLOCK)
    };
    Ok(pcs
        .iter()
        .map(|&pc| {
            let (file, line) = symbolizer.line_of(pc, end_of(pc))?;
            let wanted = *cache
                .entry(file.clone())
                .or_insert_with(|| under_test(&file, measured));
            wanted.then_some((file, line))
        })
        .collect())
}

fn under_test(file: &Path, measured: &Measured<'_>) -> bool {
    measured.roots.iter().any(|root| file.starts_with(root))
        && !measured.excluded.iter().any(|dir| file.starts_with(dir))
        && file.is_file()
}

/// Adds one binary's counters and what its properties reached.
fn tally_binary(
    lines: &mut Lines,
    binary: &Path,
    located: &[Option<(PathBuf, u32)>],
    members: &[usize],
    reached: &[Option<ReachReport>],
) {
    let mut reached_counters: HashMap<u32, bool> = HashMap::new();
    for &n in members {
        let Some(report) = &reached[n] else { continue };
        for counter in &report.reached {
            let Some(Some((file, line))) = located.get(counter.counter as usize) else {
                continue;
            };
            let tally = lines
                .entry(file.clone())
                .or_default()
                .entry(*line)
                .or_default();
            tally.hits += counter.inputs;
            let first = tally.first.entry(n).or_insert(counter.first_saved_ms);
            *first = (*first).min(counter.first_saved_ms);
            reached_counters.insert(counter.counter, true);
        }
    }
    for (counter, place) in located.iter().enumerate() {
        let Some((file, line)) = place else { continue };
        let tally = lines
            .entry(file.clone())
            .or_default()
            .entry(*line)
            .or_default();
        let blocks = tally.blocks.entry(binary.to_path_buf()).or_default();
        blocks.0 += 1;
        if reached_counters.contains_key(&(counter as u32)) {
            blocks.1 += 1;
        }
    }
}

fn model(measured: Measured<'_>, lines: Lines) -> CoverageReport {
    let mut files: Vec<SourceFile> = lines
        .into_iter()
        .map(|(path, tallies)| source_file(path, tallies, &measured.workspace_root))
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
    }
}

fn source_file(path: PathBuf, tallies: BTreeMap<u32, LineTally>, root: &Path) -> SourceFile {
    let lines = tallies
        .into_iter()
        .map(|(line, tally)| {
            let mut first: Vec<(u64, usize)> = tally.first.iter().map(|(&n, &t)| (t, n)).collect();
            first.sort();
            // The binary where most of the line was reached speaks for it.
            let (blocks, blocks_hit) = tally
                .blocks
                .values()
                .copied()
                .max_by_key(|&(blocks, hit)| (hit, std::cmp::Reverse(blocks)))
                .unwrap_or((1, 0));
            let coverage = LineCoverage {
                reached_by: first.into_iter().map(|(_, n)| n).collect(),
                hits: tally.hits,
                blocks,
                blocks_hit,
            };
            (line, coverage)
        })
        .collect();
    SourceFile {
        display: path
            .strip_prefix(root)
            .unwrap_or(&path)
            .to_string_lossy()
            .replace('\\', "/"),
        text: std::fs::read_to_string(&path).unwrap_or_default(),
        path,
        lines,
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
