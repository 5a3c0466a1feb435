//! How much of what the campaigns reached the committed seeds reach.
//!
//! Only the instrumented build can measure coverage, but `cargo covcheck
//! replay` runs the normal build. So `minimize` leaves a record under
//! `<target>/covcheck/coverage/`: the number of features the campaign and
//! seeds reached, and the features of each seed it kept, by seed file name.
//! `replay` then reports the union over the seed files present now, and says
//! so when some seeds were not measured.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::WriteError;

/// What `cargo covcheck minimize` measured for one property.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct CoverageRecord {
    /// Features reached by the corpus cache and the seeds together.
    pub features: usize,
    /// Each measured seed's features, by seed file name.
    pub seeds: BTreeMap<String, Vec<u32>>,
}

/// How much of the record the seeds present now cover.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SuiteCoverage {
    pub covered: usize,
    pub features: usize,
    /// Seed files the record has no measurement for.
    pub unmeasured: usize,
}

impl SuiteCoverage {
    pub fn describe(&self) -> String {
        let percent = if self.features == 0 {
            100.0
        } else {
            100.0 * self.covered as f64 / self.features as f64
        };
        let mut text = format!(
            "seeds cover {} of the {} features the campaign reached ({percent:.0}%)",
            self.covered, self.features
        );
        if self.unmeasured > 0 {
            text.push_str(&format!(
                "; {} seed(s) not measured since: run `cargo covcheck minimize`",
                self.unmeasured
            ));
        }
        text
    }
}

impl CoverageRecord {
    /// The record of the property whose key is `key`.
    pub fn path(covcheck_dir: &Path, key: &str) -> PathBuf {
        covcheck_dir.join("coverage").join(format!("{key}.json"))
    }

    pub fn load(path: &Path) -> Option<CoverageRecord> {
        serde_json::from_str(&std::fs::read_to_string(path).ok()?).ok()
    }

    /// Writes the record atomically (it is only a cache, but a torn file
    /// would make `replay` report nonsense).
    pub fn save(&self, path: &Path) -> Result<(), WriteError> {
        let json = serde_json::to_vec(self).expect("records serialize");
        crate::atomic::write_atomically(path, &json)
    }

    /// The coverage of the seed files named `files`.
    pub fn coverage_of<'a>(&self, files: impl IntoIterator<Item = &'a str>) -> SuiteCoverage {
        let mut covered = std::collections::HashSet::new();
        let mut unmeasured = 0;
        for file in files {
            match self.seeds.get(file) {
                Some(features) => covered.extend(features.iter().copied()),
                None => unmeasured += 1,
            }
        }
        SuiteCoverage {
            covered: covered.len(),
            features: self.features,
            unmeasured,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coverage_is_the_union_over_the_seeds_present() {
        let record = CoverageRecord {
            features: 10,
            seeds: BTreeMap::from([
                ("a.toml".to_string(), vec![1, 2, 3]),
                ("b.toml".to_string(), vec![3, 4]),
            ]),
        };
        let both = record.coverage_of(["a.toml", "b.toml"]);
        assert_eq!((both.covered, both.unmeasured), (4, 0));
        assert!(
            both.describe()
                .contains("4 of the 10 features the campaign reached (40%)"),
            "{}",
            both.describe()
        );
        let new = record.coverage_of(["b.toml", "c.toml"]);
        assert_eq!((new.covered, new.unmeasured), (2, 1));
        assert!(new.describe().contains("not measured"));
    }

    #[test]
    fn records_round_trip_through_their_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = CoverageRecord::path(dir.path(), "pkg.p");
        let record = CoverageRecord {
            features: 3,
            seeds: BTreeMap::from([("a.toml".to_string(), vec![7])]),
        };
        record.save(&path).unwrap();
        assert_eq!(CoverageRecord::load(&path), Some(record));
    }
}
