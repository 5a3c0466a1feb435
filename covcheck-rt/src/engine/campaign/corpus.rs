//! Where a campaign's corpus comes from and goes: the corpus cache of earlier
//! campaigns and the property's covering and performance seeds to start
//! from, and the cache that new entries are written to.

use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::thread::JoinHandle;

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

/// Writes the corpus entries a campaign adds to the corpus cache, on a
/// thread of its own.
///
/// Creating a file can cost more than an execution: in the benchmark's
/// `num_parse` campaign, writing the entries from the fuzz loop doubled
/// the time to the bug on a machine whose file system was slow to create
/// files (where a campaign run with `--no-resume` had just deleted the
/// last run's). The loop now only formats each new entry and hands it on;
/// the writer creates the files beside it. When the campaign ends,
/// [`CorpusWriter`] waits for every entry handed on. A worker that dies (a
/// crash in the property ends the process) loses the entries not written
/// yet, as it loses those it had not found yet: the cache is a cache.
pub(super) struct CorpusWriter {
    /// The corpus entries handed on so far.
    persisted: usize,
    to_write: Option<mpsc::Sender<(PathBuf, String)>>,
    writer: Option<JoinHandle<()>>,
    dir: PathBuf,
}

impl CorpusWriter {
    /// Starts the writer thread; without one (none to be had), entries are
    /// written where they come.
    pub(super) fn start(dir: &Path) -> CorpusWriter {
        let (to_write, written) = mpsc::channel::<(PathBuf, String)>();
        let cache = dir.to_path_buf();
        let writer = std::thread::Builder::new()
            .name("covcheck-corpus".to_string())
            .spawn(move || {
                block_signals();
                for (path, text) in written {
                    write_entry(&cache, &path, &text);
                }
            })
            .ok();
        CorpusWriter {
            persisted: 0,
            to_write: writer.is_some().then_some(to_write),
            writer,
            dir: dir.to_path_buf(),
        }
    }

    /// Hands on the corpus entries added since the last call.
    pub(super) fn persist_new_entries(&mut self, session: &Session) {
        let count = session.corpus_count();
        for n in self.persisted..count {
            let Some(choices) = session.corpus_entry(n) else {
                continue;
            };
            let entry = (
                self.dir.join(corpus_file_name(&choices)),
                SeedFile::format_indices(&choices),
            );
            let unsent = match &self.to_write {
                Some(to_write) => to_write.send(entry).err().map(|unsent| unsent.0),
                None => Some(entry),
            };
            if let Some((path, text)) = unsent {
                write_entry(&self.dir, &path, &text);
            }
        }
        self.persisted = count;
    }
}

impl Drop for CorpusWriter {
    /// Waits until every entry handed on is written, also when the
    /// campaign ends on an error.
    fn drop(&mut self) {
        drop(self.to_write.take());
        if let Some(writer) = self.writer.take() {
            let _ = writer.join();
        }
    }
}

/// Writes one entry into the cache `dir`, unless it is there already.
fn write_entry(dir: &Path, path: &Path, text: &str) {
    if !path.exists() {
        let _ = std::fs::create_dir_all(dir);
        write_atomically(path, text.as_bytes());
    }
}

/// Keeps signals off the writer thread: a signal meant for the process
/// (the engine's per-execution timer, Ctrl-C) is handled on a thread of
/// the property's, as before the writer existed.
fn block_signals() {
    // SAFETY: a set filled and installed for this thread only.
    unsafe {
        let mut all: libc::sigset_t = std::mem::zeroed();
        libc::sigfillset(&mut all);
        libc::pthread_sigmask(libc::SIG_BLOCK, &all, std::ptr::null_mut());
    }
}
