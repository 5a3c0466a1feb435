//! Which functions the properties reached, for the report's list of gaps:
//! a function no property reaches is a property still to write.

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;

use super::model::FunctionCoverage;
use super::symbols::Block;

/// Per property that reached a counter: the earliest save time of an input
/// of its that did, and how many inputs did.
pub type ReachedBy = BTreeMap<usize, (u64, u64)>;

/// The functions of every binary, by (file, name): a generic function's
/// instances, and the same function in several test binaries, are one.
pub type Functions = BTreeMap<(PathBuf, String), FunctionTally>;

/// One function, over the binaries that hold it.
pub struct FunctionTally {
    first_line: u32,
    last_line: u32,
    /// Per property: the earliest save time of an input reaching it.
    reached_by: BTreeMap<usize, u64>,
}

/// Adds the functions of one binary: its blocks by counter, and per
/// counter reached, the properties that reached it.
pub fn tally(functions: &mut Functions, blocks: &[Block], reached: &HashMap<u32, ReachedBy>) {
    // Per function: the lines of its first block, all its lines, who reached it.
    type Seen<'a> = (
        Option<&'a (PathBuf, u32)>,
        Vec<&'a (PathBuf, u32)>,
        Vec<u32>,
    );
    let mut seen: HashMap<&str, Seen<'_>> = HashMap::new();
    for (counter, block) in blocks.iter().enumerate() {
        let (Some(name), Some(first)) = (&block.function, block.lines.first()) else {
            continue;
        };
        let entry = seen.entry(name).or_default();
        if block.starts_function {
            entry.0 = Some(first);
        }
        entry.1.extend(&block.lines);
        entry.2.push(counter as u32);
    }
    for (name, (start, lines, counters)) in seen {
        // The function's file: that of its first block, or of its first line.
        let Some((file, _)) = start.or_else(|| lines.iter().copied().min()) else {
            continue;
        };
        let in_file = lines.iter().filter(|(f, _)| f == file).map(|(_, l)| *l);
        let (first, last) = in_file.fold((u32::MAX, 0), |(a, b), l| (a.min(l), b.max(l)));
        let tally = functions
            .entry((file.clone(), name.to_string()))
            .or_insert(FunctionTally {
                first_line: first,
                last_line: last,
                reached_by: BTreeMap::new(),
            });
        tally.first_line = tally.first_line.min(first);
        tally.last_line = tally.last_line.max(last);
        for by in counters.iter().filter_map(|c| reached.get(c)) {
            for (&n, &(saved, _)) in by {
                let earliest = tally.reached_by.entry(n).or_insert(saved);
                *earliest = (*earliest).min(saved);
            }
        }
    }
}

/// The functions of `file`, by first line.
pub fn of_file(functions: &mut Functions, file: &PathBuf) -> Vec<FunctionCoverage> {
    let keys: Vec<_> = functions
        .range((file.clone(), String::new())..)
        .take_while(|((f, _), _)| f == file)
        .map(|(key, _)| key.clone())
        .collect();
    let mut of_file: Vec<FunctionCoverage> = keys
        .into_iter()
        .filter_map(|key| {
            let tally = functions.remove(&key)?;
            let mut by: Vec<(u64, usize)> =
                tally.reached_by.iter().map(|(&n, &t)| (t, n)).collect();
            by.sort_unstable();
            Some(FunctionCoverage {
                name: key.1,
                first_line: tally.first_line,
                last_line: tally.last_line,
                reached_by: by.into_iter().map(|(_, n)| n).collect(),
            })
        })
        .collect();
    of_file.sort_by(|a, b| (a.first_line, &a.name).cmp(&(b.first_line, &b.name)));
    of_file
}
