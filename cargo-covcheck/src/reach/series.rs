//! Every campaign's progress over time, recorded by the supervisor as it
//! hears the worker's status lines, one small file per property under
//! `<target>/covcheck/series/`, so that `cargo covcheck report` can draw it
//! after the fact. Runs append to the file; reading stitches them into one
//! series, each run's time and executions continuing from where the
//! previous run ended (a resumed campaign is one campaign).

use std::collections::HashMap;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use super::model::{FindingMark, SeriesPoint};

/// The series file of the property whose key (see
/// [`crate::supervise::property_key`]) is `key`.
pub fn series_path(covcheck_dir: &Path, key: &str) -> PathBuf {
    covcheck_dir.join("series").join(format!("{key}.jsonl"))
}

/// One line of a series file. `run` tells apart the runs whose lines may
/// interleave (two `cargo covcheck` at once on one crate).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
struct Line {
    run: String,
    #[serde(flatten)]
    record: Record,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "kebab-case", tag = "record")]
enum Record {
    Point {
        ms: u64,
        execs: u64,
        edges: u64,
        corpus: u64,
    },
    Finding {
        ms: u64,
        execs: u64,
        kind: String,
        message: String,
        value: Vec<(String, String)>,
        rerun: String,
        seed: Option<String>,
    },
}

/// Appends one run's progress to its series file. Writing is best effort:
/// the first failure is returned once (for a warning) and the run goes on.
pub struct SeriesWriter {
    path: PathBuf,
    run: String,
    failed: bool,
}

impl SeriesWriter {
    pub fn new(path: PathBuf) -> SeriesWriter {
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        SeriesWriter {
            path,
            run: format!("{now:x}-{}", std::process::id()),
            failed: false,
        }
    }

    /// Records the campaign's progress at `point` (times from this run's
    /// start). Returns a problem the first time writing fails.
    pub fn point(&mut self, point: SeriesPoint) -> Option<String> {
        self.append(Record::Point {
            ms: point.elapsed_ms,
            execs: point.execs,
            edges: point.edges,
            corpus: point.corpus,
        })
    }

    /// Records a finding (times from this run's start).
    pub fn finding(&mut self, finding: &FindingMark) -> Option<String> {
        self.append(Record::Finding {
            ms: finding.elapsed_ms,
            execs: finding.execs,
            kind: finding.kind.clone(),
            message: finding.message.clone(),
            value: finding.value.clone(),
            rerun: finding.rerun.clone(),
            seed: finding.seed.clone(),
        })
    }

    fn append(&mut self, record: Record) -> Option<String> {
        if self.failed {
            return None;
        }
        let line = Line {
            run: self.run.clone(),
            record,
        };
        let mut text = serde_json::to_string(&line).expect("series lines serialize");
        text.push('\n');
        let written = self
            .path
            .parent()
            .map_or(Ok(()), std::fs::create_dir_all)
            .and_then(|()| {
                std::fs::OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(&self.path)
            })
            // One write per line: appends of whole lines do not interleave.
            .and_then(|mut file| file.write_all(text.as_bytes()));
        match written {
            Ok(()) => None,
            Err(e) => {
                self.failed = true;
                Some(format!(
                    "cannot record the campaign's progress in {}: {e}; the coverage report \
                     will not plot this run",
                    self.path.display()
                ))
            }
        }
    }
}

/// A property's recorded campaigns, stitched into one series.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Stitched {
    pub points: Vec<SeriesPoint>,
    /// Where each run after the first began, on the stitched time axis.
    pub resumes: Vec<u64>,
    pub findings: Vec<FindingMark>,
}

/// Reads a series file (missing: an empty series). Lines that cannot be
/// read (a run cut off mid-line) are skipped.
pub fn read_series(path: &Path) -> Stitched {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let lines: Vec<Line> = text
        .lines()
        .filter_map(|line| serde_json::from_str(line).ok())
        .collect();
    stitch(&lines)
}

/// Each run's records, in the order runs began, offset by the time and
/// executions of the runs before it.
fn stitch(lines: &[Line]) -> Stitched {
    let mut order: Vec<&str> = Vec::new();
    let mut by_run: HashMap<&str, Vec<&Record>> = HashMap::new();
    for line in lines {
        by_run
            .entry(&line.run)
            .or_insert_with(|| {
                order.push(&line.run);
                Vec::new()
            })
            .push(&line.record);
    }
    let mut stitched = Stitched::default();
    let (mut offset_ms, mut offset_execs) = (0, 0);
    for (n, run) in order.iter().enumerate() {
        if n > 0 {
            stitched.resumes.push(offset_ms);
        }
        let (mut end_ms, mut end_execs) = (offset_ms, offset_execs);
        for record in &by_run[run] {
            match record {
                Record::Point {
                    ms,
                    execs,
                    edges,
                    corpus,
                } => {
                    let point = SeriesPoint {
                        elapsed_ms: offset_ms + ms,
                        execs: offset_execs + execs,
                        edges: *edges,
                        corpus: *corpus,
                    };
                    end_ms = end_ms.max(point.elapsed_ms);
                    end_execs = end_execs.max(point.execs);
                    stitched.points.push(point);
                }
                Record::Finding {
                    ms,
                    execs,
                    kind,
                    message,
                    value,
                    rerun,
                    seed,
                } => stitched.findings.push(FindingMark {
                    elapsed_ms: offset_ms + ms,
                    execs: offset_execs + execs,
                    kind: kind.clone(),
                    message: message.clone(),
                    value: value.clone(),
                    rerun: rerun.clone(),
                    seed: seed.clone(),
                }),
            }
        }
        (offset_ms, offset_execs) = (end_ms, end_execs);
    }
    stitched
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point(ms: u64, execs: u64, edges: u64) -> SeriesPoint {
        SeriesPoint {
            elapsed_ms: ms,
            execs,
            edges,
            corpus: edges / 2,
        }
    }

    #[test]
    fn a_campaign_resumed_twice_is_one_series() {
        let dir = tempfile::tempdir().unwrap();
        let path = series_path(dir.path(), "demo.p");
        for run in 0..3u64 {
            let mut writer = SeriesWriter::new(path.clone());
            // Runs of the same process within a nanosecond must differ.
            writer.run.push_str(&format!("-{run}"));
            assert_eq!(writer.point(point(500, 1000, 10 + run)), None);
            assert_eq!(writer.point(point(1000, 2000, 20 + run)), None);
        }
        let stitched = read_series(&path);
        let times: Vec<u64> = stitched.points.iter().map(|p| p.elapsed_ms).collect();
        assert_eq!(times, [500, 1000, 1500, 2000, 2500, 3000]);
        let execs: Vec<u64> = stitched.points.iter().map(|p| p.execs).collect();
        assert_eq!(execs, [1000, 2000, 3000, 4000, 5000, 6000]);
        assert_eq!(stitched.resumes, [1000, 2000]);
    }

    #[test]
    fn interleaved_runs_are_told_apart_and_findings_are_offset() {
        let record = |run: &str, ms: u64| Line {
            run: run.to_string(),
            record: Record::Point {
                ms,
                execs: ms,
                edges: 1,
                corpus: 1,
            },
        };
        let mut lines = vec![record("a", 100), record("b", 50), record("a", 200)];
        lines.push(Line {
            run: "b".to_string(),
            record: Record::Finding {
                ms: 70,
                execs: 70,
                kind: "panic".to_string(),
                message: "boom".to_string(),
                value: vec![("x".to_string(), "1".to_string())],
                rerun: "cargo test".to_string(),
                seed: None,
            },
        });
        let stitched = stitch(&lines);
        let times: Vec<u64> = stitched.points.iter().map(|p| p.elapsed_ms).collect();
        assert_eq!(times, [100, 200, 250]);
        assert_eq!(stitched.findings[0].elapsed_ms, 270);
    }

    #[test]
    fn a_missing_or_cut_off_file_reads_as_what_it_holds() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(read_series(&dir.path().join("none")), Stitched::default());
        let path = dir.path().join("cut.jsonl");
        let mut writer = SeriesWriter::new(path.clone());
        writer.point(point(5, 5, 5));
        let mut text = std::fs::read_to_string(&path).unwrap();
        text.push_str("{\"run\":\"x\",\"rec");
        std::fs::write(&path, text).unwrap();
        assert_eq!(read_series(&path).points.len(), 1);
    }
}
