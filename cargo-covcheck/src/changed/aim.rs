//! From what the properties' corpora reach to where a campaign on a change
//! should aim: per test binary, its counters on changed lines; per
//! property, those of them its corpus already reaches.
//!
//! A source line is often compiled into several test binaries (the library
//! into its unit tests and into each integration test), each with its own
//! counters. A changed line counts as reached when some property reached
//! one of its counters in some binary: the change's code has then run under
//! a property, wherever; it is unreached only when no binary's counter on
//! it was.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};

use covcheck_protocol::worker::ReachReport;

use super::counters::{ChangedCode, LineState, changed_counters};
use super::diff::ChangedLines;
use crate::discover::Property;
use crate::reach::measure::{by_binary, pc_table};

/// Where a campaign on a change aims.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Aim {
    /// Per test binary: its counters with code on changed lines. A binary
    /// none of whose properties' reach workers sent its PC table is left
    /// out: nothing is known of its counters.
    pub binaries: BTreeMap<PathBuf, ChangedCode>,
    /// Per property, in the order of the properties: the counters of its
    /// binary on changed lines that its corpus cache and seeds already
    /// reach (none if its reach worker failed).
    pub reached: Vec<BTreeSet<u32>>,
}

impl Aim {
    /// Whether no binary has code on a changed line: the change touched
    /// nothing the properties can reach.
    pub fn is_empty(&self) -> bool {
        self.binaries.values().all(ChangedCode::is_empty)
    }

    /// The changed code of `binary`.
    pub fn of_binary(&self, binary: &Path) -> Option<&ChangedCode> {
        self.binaries.get(binary)
    }

    /// What the corpora reach, per binary: the union of its properties'
    /// [`Aim::reached`], to start [`Aim::unreached_lines`] from.
    pub fn reached_per_binary(&self, properties: &[Property]) -> HashMap<PathBuf, HashSet<u32>> {
        let mut per_binary: HashMap<PathBuf, HashSet<u32>> = HashMap::new();
        for (property, reached) in properties.iter().zip(&self.reached) {
            let binary = per_binary.entry(property.binary.path.clone()).or_default();
            binary.extend(reached);
        }
        per_binary
    }

    /// The changed lines with code that no binary's reached counter is on
    /// (see the module's documentation), sorted; `reached_per_binary`
    /// holds the counters reached in each binary (a binary it has not:
    /// none).
    pub fn unreached_lines(
        &self,
        reached_per_binary: &HashMap<PathBuf, HashSet<u32>>,
    ) -> Vec<(PathBuf, u32)> {
        let none = HashSet::new();
        let mut lines: BTreeMap<&(PathBuf, u32), LineState> = BTreeMap::new();
        for (binary, code) in &self.binaries {
            let reached = reached_per_binary.get(binary).unwrap_or(&none);
            for (line, state) in code.line_states(reached) {
                let all = lines.entry(line).or_default();
                all.code |= state.code;
                all.reached |= state.reached;
            }
        }
        lines
            .into_iter()
            .filter(|(_, state)| state.code && !state.reached)
            .map(|(line, _)| line.clone())
            .collect()
    }
}

/// Where a campaign on the `changed` lines aims, from the reports of the
/// properties' reach workers ([`crate::reach::measure::corpus_reach`], in
/// the order of `properties`). An error names a binary whose debug
/// information cannot be read.
pub fn aim(
    properties: &[Property],
    reports: &[Result<ReachReport, String>],
    changed: &ChangedLines,
) -> Result<Aim, String> {
    let reports: Vec<Option<&ReachReport>> = reports.iter().map(|r| r.as_ref().ok()).collect();
    let mut binaries = BTreeMap::new();
    for (binary, members) in by_binary(properties) {
        let Some(pcs) = pc_table(&members, &reports) else {
            continue;
        };
        let code = changed_counters(&binary, pcs, changed)?;
        binaries.insert(binary, code);
    }
    let reached = properties
        .iter()
        .zip(&reports)
        .map(
            |(property, report)| match (binaries.get(&property.binary.path), report) {
                (Some(code), Some(report)) => reached_of(code, report),
                _ => BTreeSet::new(),
            },
        )
        .collect();
    Ok(Aim { binaries, reached })
}

/// The changed counters `report` reached.
fn reached_of(code: &ChangedCode, report: &ReachReport) -> BTreeSet<u32> {
    report
        .reached
        .iter()
        .map(|c| c.counter)
        .filter(|c| code.counters.contains(c))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code(lines: &[(u32, &[u32])], panic_paths: &[u32]) -> ChangedCode {
        let lines: BTreeMap<(PathBuf, u32), Vec<u32>> = lines
            .iter()
            .map(|&(n, counters)| ((PathBuf::from("/w/src/lib.rs"), n), counters.to_vec()))
            .collect();
        ChangedCode {
            counters: lines.values().flatten().copied().collect(),
            panic_paths: panic_paths.iter().copied().collect(),
            lines,
        }
    }

    #[test]
    fn a_line_is_reached_when_any_binary_reached_it() {
        // Line 3 is in both binaries (counters 10 and 20), line 4 only in
        // the first, line 5 is a panic path.
        let aim = Aim {
            binaries: BTreeMap::from([
                (
                    PathBuf::from("unit"),
                    code(&[(3, &[10]), (4, &[11]), (5, &[12])], &[12]),
                ),
                (PathBuf::from("it"), code(&[(3, &[20, 21])], &[])),
            ]),
            reached: Vec::new(),
        };
        let line = |n| (PathBuf::from("/w/src/lib.rs"), n);
        assert_eq!(aim.unreached_lines(&HashMap::new()), [line(3), line(4)]);
        let reached = HashMap::from([(PathBuf::from("it"), HashSet::from([21]))]);
        assert_eq!(aim.unreached_lines(&reached), [line(4)]);
        assert!(!aim.is_empty());
    }

    fn property(binary: &Path, name: &str) -> Property {
        Property {
            listing: covcheck_protocol::worker::ListedProperty {
                test_name: name.to_string(),
                full_path: format!("c::{name}"),
                package: "c".to_string(),
                seed_dir: PathBuf::new(),
                crate_root: PathBuf::new(),
                target_args: Vec::new(),
                perf: false,
            },
            binary: crate::compile::TestBinary {
                path: binary.to_path_buf(),
                package_root: PathBuf::new(),
                library_dirs: Vec::new(),
                env: Vec::new(),
                package_spec: "c".to_string(),
            },
            manifest_path: None,
        }
    }

    fn report(pcs: &[u64], reached: &[u32]) -> ReachReport {
        ReachReport {
            inputs: 1,
            reached: reached
                .iter()
                .map(|&counter| covcheck_protocol::worker::ReachedCounter {
                    counter,
                    ..Default::default()
                })
                .collect(),
            pcs: pcs.to_vec(),
        }
    }

    #[test]
    fn the_aim_of_real_reports_on_this_binary() {
        use super::super::counters::tests::{offset_in_this_binary, triple_changed};
        let (binary, pc, changed, body) = triple_changed();
        let other = offset_in_this_binary(report as fn(&[u64], &[u32]) -> ReachReport as usize);
        // Three properties of this binary (the first sends the PC table, in
        // which `triple` is counter 1 and this file's `report` counter 0;
        // the third's worker failed) and one of a binary whose only
        // property's worker failed.
        let properties = [
            property(&binary, "a"),
            property(&binary, "b"),
            property(&binary, "c"),
            property(Path::new("/gone"), "d"),
        ];
        let reports = [
            Ok(report(&[other, pc], &[0])),
            Ok(report(&[], &[0, 1, 7])),
            Err("died".to_string()),
            Err("died".to_string()),
        ];
        let aim = aim(&properties, &reports, &changed).unwrap();
        assert_eq!(aim.binaries.len(), 1, "{aim:?}");
        assert_eq!(aim.of_binary(&binary).unwrap().lines[&body], [1]);
        assert_eq!(
            aim.reached,
            [
                BTreeSet::new(),
                BTreeSet::from([1]),
                BTreeSet::new(),
                BTreeSet::new()
            ]
        );
        let by_corpus = aim.reached_per_binary(&properties);
        assert!(aim.unreached_lines(&by_corpus).is_empty());
        assert_eq!(aim.unreached_lines(&HashMap::new()), [body]);
    }

    #[test]
    fn a_property_reaches_only_the_changed_counters_of_its_binary() {
        let code = code(&[(3, &[10, 11])], &[]);
        let report = ReachReport {
            reached: [2, 11, 40]
                .map(|counter| covcheck_protocol::worker::ReachedCounter {
                    counter,
                    ..Default::default()
                })
                .to_vec(),
            ..ReachReport::default()
        };
        assert_eq!(reached_of(&code, &report), BTreeSet::from([11]));
    }
}
