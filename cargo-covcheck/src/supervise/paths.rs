//! Where a property's campaign state lives under `<target>/covcheck`, and
//! the file-name-safe key that names it there.
//!
//! Its work directory (worker requests, logs, in-flight slots) is one per
//! `cargo covcheck` process, so that two runs on one crate never share an
//! in-flight slot; its corpus cache is shared by all runs of its mode.
//! Performance mode keeps a cache of its own (`corpus-perf`): its entries
//! are the costliest inputs it found, which would slow the start of every
//! coverage campaign resumed from them, and a coverage campaign's entries
//! are no better a start for a search for cost than fresh inputs.

use std::path::{Path, PathBuf};

use covcheck_protocol::worker::WorkerMode;

use crate::discover::Property;

/// The work directory and the corpus cache of `property`.
pub fn property_dirs(property: &Property, covcheck_dir: &Path) -> (PathBuf, PathBuf) {
    let key = property_key(property);
    let cache = if property.listing.perf {
        "corpus-perf"
    } else {
        "corpus"
    };
    (
        run_work_dir(covcheck_dir, std::process::id()).join(&key),
        covcheck_dir.join(cache).join(&key),
    )
}

/// This run's work directory: per-property ones in it, and the logs of
/// what serves all of them (the brokers of a campaign across machines).
pub fn this_run_dir(covcheck_dir: &Path) -> PathBuf {
    run_work_dir(covcheck_dir, std::process::id())
}

fn run_work_dir(covcheck_dir: &Path, pid: u32) -> PathBuf {
    covcheck_dir.join("work").join(format!("run-{pid}"))
}

/// Removes the work directories of earlier runs whose process is gone. A
/// run's own directory (its logs) stays until then, for a look after it.
pub fn remove_finished_work_dirs(covcheck_dir: &Path) {
    let Ok(entries) = std::fs::read_dir(covcheck_dir.join("work")) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let pid = name
            .to_str()
            .and_then(|n| n.strip_prefix("run-")?.parse::<i32>().ok());
        // SAFETY: kill(2) with signal 0 only checks that the process exists.
        let gone = pid.is_some_and(|pid| {
            let alive = unsafe { libc::kill(pid, 0) } == 0;
            !alive && std::io::Error::last_os_error().raw_os_error() == Some(libc::ESRCH)
        });
        if gone {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// A file-name-safe name of a property, unique across packages.
pub fn property_key(property: &Property) -> String {
    sanitize(&format!(
        "{}.{}",
        property.listing.package, property.listing.full_path
    ))
}

/// The name of a worker's request and log files.
pub fn mode_name(mode: &WorkerMode) -> &'static str {
    match mode {
        WorkerMode::Campaign => "campaign",
        WorkerMode::ShrinkCrash { .. } => "shrink",
        WorkerMode::Minimize { .. } => "minimize",
        WorkerMode::Replay { .. } => "replay",
        WorkerMode::Reach { .. } => "reach",
    }
}

/// A file-name-safe version of a property path.
fn sanitize(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.' {
                c
            } else {
                '.'
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn property_paths_become_safe_directory_names() {
        assert_eq!(sanitize("pkg.crate::tests::p"), "pkg.crate..tests..p");
        assert_eq!(sanitize("a/b c"), "a.b.c");
    }
}
