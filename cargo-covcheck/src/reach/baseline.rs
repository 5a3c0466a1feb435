//! `report --baseline <dir>`: what an earlier report reached, read back
//! from its `lcov.info`, so that the new one can show what the campaigns
//! since added. The tracefile is the report's own machine-readable output,
//! so any earlier report (or any lcov tracefile) serves.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use super::model::Baseline;

/// Reads the baseline at `given`: a report's directory (its `lcov.info`)
/// or a tracefile. The error says what was wrong and what to give.
pub fn read(given: &Path) -> Result<Baseline, String> {
    let path = if given.is_dir() {
        given.join("lcov.info")
    } else {
        given.to_path_buf()
    };
    let text = std::fs::read_to_string(&path).map_err(|e| {
        format!(
            "cannot read the baseline {}: {e} (--baseline takes the directory of an \
             earlier report, e.g. a copy of target/covcheck/report, or its lcov.info)",
            path.display()
        )
    })?;
    let reached = parse(&text)
        .map_err(|problem| format!("{} is not an lcov tracefile: {problem}", path.display()))?;
    Ok(Baseline {
        source: given.to_path_buf(),
        reached,
    })
}

/// The lines with a positive `DA:` count, per `SF:` file.
fn parse(text: &str) -> Result<BTreeMap<PathBuf, BTreeSet<u32>>, String> {
    let mut reached: BTreeMap<PathBuf, BTreeSet<u32>> = BTreeMap::new();
    let mut file: Option<PathBuf> = None;
    for (n, line) in text.lines().enumerate() {
        if let Some(path) = line.strip_prefix("SF:") {
            file = Some(PathBuf::from(path));
            reached.entry(PathBuf::from(path)).or_default();
        } else if let Some(record) = line.strip_prefix("DA:") {
            let bad = || format!("line {}: `{line}` is not `DA:<line>,<hits>`", n + 1);
            let file = file
                .as_ref()
                .ok_or_else(|| format!("line {}: DA before SF", n + 1))?;
            let mut fields = record.split(',');
            let number: u32 = fields.next().and_then(|f| f.parse().ok()).ok_or_else(bad)?;
            let hits: u64 = fields.next().and_then(|f| f.parse().ok()).ok_or_else(bad)?;
            if hits > 0 {
                reached.entry(file.clone()).or_default().insert(number);
            }
        } else if line == "end_of_record" {
            file = None;
        }
    }
    if reached.is_empty() {
        return Err("it has no `SF:` record".to_string());
    }
    Ok(reached)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reached_lines_are_those_counted_more_than_zero() {
        let text = "TN:\nSF:/a/src/lib.rs\nDA:1,3\nDA:2,0\nDA:4,1\nLH:2\nLF:3\nend_of_record\n\
                    TN:\nSF:/a/src/other.rs\nDA:7,0\nend_of_record\n";
        let reached = parse(text).unwrap();
        assert_eq!(reached[Path::new("/a/src/lib.rs")], BTreeSet::from([1, 4]));
        assert!(reached[Path::new("/a/src/other.rs")].is_empty());
    }

    #[test]
    fn a_file_that_is_not_a_tracefile_is_refused_with_the_line_at_fault() {
        assert!(parse("<html></html>").unwrap_err().contains("no `SF:`"));
        let error = parse("SF:/a.rs\nDA:x,1\n").unwrap_err();
        assert!(error.contains("line 2"), "{error}");
    }
}
