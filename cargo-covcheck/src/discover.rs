//! Asks each built test binary which `#[covcheck]` properties it holds: every
//! property registers itself before `main`, and prints its description when
//! [`LIST_ENV`] is set. `--list` keeps libtest from running any test.
//!
//! Each listing names the directory its crate was compiled from, which must
//! be the package's: a build directory shared by two checkouts of one
//! package (`COVCHECK_BUILD_DIR`, a shared `CARGO_TARGET_DIR`) makes cargo
//! hand over the other checkout's test binary as fresh, and its results and
//! seeds would pass for this one's.

use std::path::{Path, PathBuf};

use covcheck_protocol::seeds::SeedStore;
use covcheck_protocol::worker::{LIST_ENV, ListedProperty, parse_listing};

use crate::compile::TestBinary;
use crate::error::{DiscoverError, ProcessFailure};

/// A property and the binary to run it from.
#[derive(Clone, Debug)]
pub struct Property {
    pub listing: ListedProperty,
    pub binary: TestBinary,
    /// `--manifest-path` as the user gave it, so that the rerun command
    /// works from where `cargo covcheck` was run.
    pub manifest_path: Option<PathBuf>,
}

impl Property {
    /// The command that reproduces a failure of this property, from the
    /// directory `cargo covcheck` was run in.
    pub fn rerun_command(&self) -> String {
        let listing = ListedProperty {
            package: self.binary.package_spec.clone(),
            ..self.listing.clone()
        };
        listing.rerun_command(self.manifest_path.as_deref())
    }

    /// The command that replays this property's seeds on the build that
    /// counts edges executed, where a cost bound (`max_cost`) is checked:
    /// plain `cargo test` counts none.
    pub fn replay_perf_command(&self) -> String {
        let manifest = self
            .manifest_path
            .as_ref()
            .map(|path| format!(" --manifest-path {}", path.display()))
            .unwrap_or_default();
        format!(
            "cargo covcheck replay --perf{manifest} --exact {}",
            self.listing.full_path
        )
    }

    /// The property's seed file names, as they are on disk now, sorted.
    pub fn seed_files(&self) -> Vec<String> {
        self.seed_store().file_names()
    }

    /// The property's seeds.
    pub fn seed_store(&self) -> SeedStore {
        SeedStore::in_dir(self.listing.seed_dir.clone())
    }
}

/// Which properties to keep: all, those whose path contains the text, or
/// (`exact`) the one whose full path or test name is the text.
#[derive(Clone, Copy, Debug, Default)]
pub struct Filter<'a> {
    pub text: Option<&'a str>,
    pub exact: bool,
}

impl Filter<'_> {
    fn keeps(&self, listing: &ListedProperty) -> bool {
        match self.text {
            None => true,
            Some(text) if self.exact => listing.full_path == text || listing.test_name == text,
            Some(text) => listing.full_path.contains(text),
        }
    }
}

pub fn discover(
    binaries: &[TestBinary],
    filter: Filter<'_>,
) -> Result<Vec<Property>, DiscoverError> {
    let mut properties = Vec::new();
    for binary in binaries {
        // Its stdin is empty; a failure names the command line, the exit
        // status and what the binary printed.
        let output = binary
            .process()
            // `--list` alone: harnesses of `harness = false` targets take
            // libtest's flags but not always its unstable ones (libtest2's
            // refuses `--format` without `-Zunstable-options`), and the
            // listing lines have a prefix of their own anyway.
            .arg("--list")
            .env(LIST_ENV, "1")
            .exec_with_output()
            .map_err(|e| DiscoverError::List(ProcessFailure(e)))?;
        for line in String::from_utf8_lossy(&output.stdout).lines() {
            match parse_listing(line) {
                Some(Ok(listing)) if !same_dir(&listing.crate_root, &binary.package_root) => {
                    return Err(DiscoverError::OtherCheckout {
                        binary: binary.path.clone(),
                        built_from: listing.crate_root,
                        package_root: binary.package_root.clone(),
                        package: listing.package,
                    });
                }
                Some(Ok(listing)) if filter.keeps(&listing) => {
                    properties.push(Property {
                        listing,
                        binary: binary.clone(),
                        manifest_path: None,
                    });
                }
                Some(Err(problem)) => {
                    return Err(DiscoverError::Unreadable {
                        binary: binary.path.clone(),
                        problem,
                    });
                }
                Some(Ok(_)) | None => {}
            }
        }
    }
    properties.sort_by(|a, b| a.listing.full_path.cmp(&b.listing.full_path));
    properties.dedup_by(|a, b| {
        a.listing.full_path == b.listing.full_path && a.binary.path == b.binary.path
    });
    Ok(properties)
}

/// Whether `a` and `b` are one directory (the same path, or the same once
/// symbolic links are resolved).
fn same_dir(a: &Path, b: &Path) -> bool {
    a == b
        || std::fs::canonicalize(a)
            .ok()
            .is_some_and(|a| std::fs::canonicalize(b).is_ok_and(|b| a == b))
}
