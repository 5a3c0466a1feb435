//! Where a campaign's corpus comes from and goes: the corpus cache of earlier
//! campaigns and the property's covering and performance seeds to start
//! from, and the cache that new entries are written to.

use std::path::Path;

use crate::engine::input::{corpus_file_name, load_corpus_dir};
use crate::engine::library::Session;
use crate::info::PropertyInfo;
use covcheck_protocol::seeds::{SeedFile, SeedKind};
use covcheck_protocol::worker::WorkerConfig;

/// The inputs a campaign resumes from: the corpus cache, then the
/// property's covering and performance seeds (failure seeds are `cargo
/// test`'s business: they are regressions). Seed files that cannot be read
/// are left out; the supervisor names them, and fails the run on them, as
/// `cargo test` does.
pub(super) fn saved_inputs(info: &PropertyInfo, request: &WorkerConfig) -> Vec<Vec<u64>> {
    let mut initial: Vec<Vec<u64>> = load_corpus_dir(&request.corpus_dir);
    let (seeds, _unreadable) = info.seed_store().load_valid();
    initial.extend(
        seeds
            .into_iter()
            .filter(|s| s.file.kind != SeedKind::Failure)
            .map(|s| s.indices),
    );
    initial
}

/// Writes `bytes` to `path` through a temporary file renamed into place:
/// the property's other workers read the cache as it grows, and must never
/// see half an entry. Best effort, as the cache is.
fn write_atomically(path: &Path, bytes: &[u8]) {
    // A hidden name, which readers of the cache skip.
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    let temp = path.with_file_name(format!(".{name}.{}", std::process::id()));
    if std::fs::write(&temp, bytes).is_ok() && std::fs::rename(&temp, path).is_err() {
        let _ = std::fs::remove_file(&temp);
    }
}

/// Writes corpus entries added since the last call to the corpus cache.
pub(super) fn persist_new_entries(session: &Session, from: usize, dir: &Path) -> usize {
    let count = session.corpus_count();
    if count == from {
        return count;
    }
    let _ = std::fs::create_dir_all(dir);
    for n in from..count {
        let Some(choices) = session.corpus_entry(n) else {
            continue;
        };
        let name = dir.join(corpus_file_name(&choices));
        if !name.exists() {
            write_atomically(&name, SeedFile::format_indices(&choices).as_bytes());
        }
    }
    count
}
