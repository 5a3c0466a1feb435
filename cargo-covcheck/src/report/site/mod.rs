//! The coverage report of `cargo covcheck report`, drawn from
//! [`crate::reach::model`]: an `index.html` (properties with their
//! plots, files, findings), a page per source file under `files/`, and an
//! `lcov.info` for the tools that read coverage. Rendering is pure
//! ([`render`] returns the files' contents) so that it can be tested on
//! hand-made models; [`write()`] puts them on disk.
//!
//! [`html`] makes the pages, [`gaps`] the index's list of what no property
//! reaches, [`plots`] the plots in the pages, [`lcov`] the tracefile;
//! [`crate::report::escape`] keeps the text of the code under test from
//! being read as markup.

pub mod gaps;
pub mod html;
pub mod lcov;
pub mod plots;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::error::WriteError;
use crate::reach::model::{CoverageReport, SourceFile};

/// Every file of the report as (path relative to the report's directory,
/// contents): `index.html`, then the files' pages, then `lcov.info`.
pub fn render(report: &CoverageReport) -> Vec<(String, String)> {
    let pages = page_paths(&report.files);
    let mut files = vec![("index.html".to_string(), html::index(report, &pages))];
    for (file, page) in report.files.iter().zip(pages) {
        files.push((page, html::source_page(report, file)));
    }
    files.push(("lcov.info".to_string(), lcov::tracefile(report)));
    files
}

/// Writes the report into `dir`, each file whole or not at all, and
/// returns the path of its `index.html`. Pages of files a previous report
/// had and this one has not stay behind, unlinked: `dir` may be one the
/// user chose, and nothing in it is removed.
pub fn write(dir: &Path, report: &CoverageReport) -> Result<PathBuf, WriteError> {
    for (path, contents) in render(report) {
        crate::atomic::write_atomically(&dir.join(path), contents.as_bytes())?;
    }
    Ok(dir.join("index.html"))
}

/// The longest stem of a page's name: well under the 255 bytes file
/// systems allow, with room for a numbering suffix.
const MAX_STEM: usize = 100;

/// The path of each file's page, `files/src_lib_rs.html` for `src/lib.rs`:
/// the display path with everything but ASCII letters and digits made
/// `_`, so that it is a safe name on any file system and needs no escaping
/// in a link. Names that would clash, ignoring case (for case-insensitive
/// file systems), are numbered in the files' order: `src_lib_rs_2.html`.
pub fn page_paths(files: &[SourceFile]) -> Vec<String> {
    let mut taken = BTreeSet::new();
    files
        .iter()
        .map(|file| {
            let stem = stem(&file.display);
            let unique = (1..)
                .map(|n| match n {
                    1 => stem.clone(),
                    n => format!("{stem}_{n}"),
                })
                .find(|name| !taken.contains(&name.to_ascii_lowercase()))
                .expect("some numbered name is free");
            taken.insert(unique.to_ascii_lowercase());
            format!("files/{unique}.html")
        })
        .collect()
}

fn stem(display: &str) -> String {
    let stem: String = display
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .take(MAX_STEM)
        .collect();
    if stem.is_empty() {
        "file".to_string()
    } else {
        stem
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(display: &str) -> SourceFile {
        SourceFile {
            display: display.to_string(),
            ..SourceFile::default()
        }
    }

    #[test]
    fn page_names_are_safe_and_unique_even_ignoring_case() {
        let files = [
            file("src/lib.rs"),
            file("src_lib.rs"),
            file("SRC/lib.rs"),
            file("src/lib_rs_2"),
            file("src/<é>.rs"),
            file(""),
        ];
        assert_eq!(
            page_paths(&files),
            [
                "files/src_lib_rs.html",
                "files/src_lib_rs_2.html",
                "files/SRC_lib_rs_3.html",
                "files/src_lib_rs_2_2.html",
                "files/src_____rs.html",
                "files/file.html",
            ]
        );
    }

    #[test]
    fn long_paths_make_bounded_names() {
        let long = "a/".repeat(200);
        let paths = page_paths(&[file(&long), file(&long)]);
        assert!(paths.iter().all(|p| p.len() < 130), "{paths:?}");
        assert_ne!(paths[0], paths[1]);
    }
}
