//! The campaign engine library (covcheck-engine: LibAFL behind the C ABI of
//! [`abi`]), which `cargo covcheck` builds apart from the user's crate and
//! names in the worker request. Loaded once per worker and never unloaded;
//! [`Session`] is the safe face of one campaign session.

use std::ffi::c_void;
use std::path::Path;

use super::abi::{ABI_VERSION, Choices, ENTRY_SYMBOL, Engine, EntryFn, Host, Settings};

/// Loads the engine at `path` and checks that it speaks this ABI.
pub(crate) fn load(path: &Path) -> Result<&'static Engine, String> {
    let cannot = |e: &dyn std::error::Error| {
        let dir = path.parent().unwrap_or(path);
        format!(
            "cannot load the campaign engine {}: {}. `cargo covcheck` builds it, checks it \
             before each run and rebuilds it when it finds it damaged: run campaigns through \
             it; if the engine still does not load, delete {} and run `cargo covcheck` again",
            path.display(),
            with_causes(e),
            dir.display()
        )
    };
    // SAFETY: the library is covcheck-engine, built by `cargo covcheck`;
    // loading it runs no code of the user's.
    let library = unsafe { libloading::Library::new(path) }.map_err(|e| cannot(&e))?;
    // SAFETY: the entry symbol has the type `abi::EntryFn`.
    let entry: EntryFn =
        *unsafe { library.get::<EntryFn>(ENTRY_SYMBOL) }.map_err(|e| cannot(&e))?;
    // Never unloaded: the `Engine` table and LibAFL's signal handlers live
    // in the library for the rest of the process.
    std::mem::forget(library);
    let engine = entry();
    check_version(engine, path)?;
    Ok(engine)
}

/// Whether `engine` (loaded from `path`) was built from the ABI this
/// covcheck-rt was: the first thing read, before any entry is called.
fn check_version(engine: &Engine, path: &Path) -> Result<(), String> {
    if engine.abi_version == ABI_VERSION {
        return Ok(());
    }
    Err(format!(
        "the campaign engine {} speaks ABI {:016x}, but this covcheck-rt speaks {:016x}: \
         cargo-covcheck and the covcheck-rt in your Cargo.toml must come from the same \
         covcheck version (`cargo install cargo-covcheck --version <the covcheck-rt \
         version in Cargo.lock>`, or update covcheck-rt to the version of `cargo covcheck \
         --version`)",
        path.display(),
        engine.abi_version,
        ABI_VERSION
    ))
}

/// `error` and the errors that caused it: libloading says only "dlopen
/// failed", the loader's own reason ("file too short", "invalid ELF
/// header") is its source.
fn with_causes(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut cause = error.source();
    while let Some(error) = cause {
        text.push_str(&format!(": {error}"));
        cause = error.source();
    }
    text
}

/// One campaign session of the engine.
pub(crate) struct Session {
    engine: &'static Engine,
    ptr: *mut c_void,
}

impl Session {
    /// Starts a session that calls `host` back.
    ///
    /// # Safety
    /// `host.ctx` must stay valid, and the callbacks callable, until the
    /// session is dropped.
    pub(crate) unsafe fn start(
        engine: &'static Engine,
        settings: Settings,
        host: Host,
    ) -> Result<Session, String> {
        // SAFETY: the caller's promise covers `host`; `settings.counters` is
        // the process's coverage counters section, alive as long as it.
        let ptr = unsafe { (engine.start)(settings, host) };
        if ptr.is_null() {
            return Err(last_error(engine));
        }
        Ok(Session { engine, ptr })
    }

    fn check(&self, ok: bool) -> Result<(), String> {
        if ok {
            Ok(())
        } else {
            Err(last_error(self.engine))
        }
    }

    /// Runs an input; it enters the corpus if its coverage is new, and is
    /// sent to the property's other workers if `share`.
    pub(crate) fn evaluate(&mut self, choices: &[u64], share: bool) -> Result<(), String> {
        // SAFETY (here and in every method below): `self.ptr` is the
        // session `start` returned, not yet ended (`Drop` ends it); any
        // choices are lent for the call.
        let ok = unsafe { (self.engine.evaluate)(self.ptr, Choices::lend(choices), share) };
        self.check(ok)
    }

    /// Adds the empty input to the corpus, whatever its coverage.
    pub(crate) fn add_empty(&mut self) -> Result<(), String> {
        let ok = unsafe { (self.engine.add_empty)(self.ptr) };
        self.check(ok)
    }

    /// One round of the mutational stage on the next scheduled entry, then
    /// the inputs the property's other workers sent.
    pub(crate) fn fuzz_one(&mut self) -> Result<(), String> {
        let ok = unsafe { (self.engine.fuzz_one)(self.ptr) };
        self.check(ok)
    }

    pub(crate) fn corpus_count(&self) -> usize {
        unsafe { (self.engine.corpus_count)(self.ptr) }
    }

    /// Inputs received from the property's other workers that entered the
    /// corpus.
    pub(crate) fn imported(&self) -> u64 {
        unsafe { (self.engine.imported)(self.ptr) }
    }

    /// Corpus entry `n`, in the order entries were added.
    pub(crate) fn corpus_entry(&self, n: usize) -> Option<Vec<u64>> {
        let mut out = Choices::lend(&[]);
        if !unsafe { (self.engine.corpus_entry)(self.ptr, n, &mut out) } {
            return None;
        }
        // SAFETY: the engine lends `out` until the next call into it.
        Some(unsafe { out.as_slice() }.to_vec())
    }

    /// Stops the timeout timer: shrinking must not fire LibAFL's timeout
    /// handler.
    pub(crate) fn stop_timer(&mut self) {
        unsafe { (self.engine.stop_timer)(self.ptr) };
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        // SAFETY: the session ends once, here.
        unsafe { (self.engine.end)(self.ptr) };
    }
}

fn last_error(engine: &Engine) -> String {
    let text = (engine.last_error)();
    if text.len == 0 {
        return "the campaign engine failed without saying why".to_string();
    }
    // SAFETY: the engine lends the text until the next call into it.
    let bytes = unsafe { std::slice::from_raw_parts(text.ptr, text.len) };
    String::from_utf8_lossy(bytes).into_owned()
}

#[cfg(test)]
mod fake;

#[cfg(test)]
mod tests {
    use super::*;
    use fake::FAKE;

    #[test]
    fn an_engine_of_another_abi_is_refused_before_any_call() {
        let path = Path::new("/cache/libcovcheck_engine.so");
        assert_eq!(check_version(&FAKE, path), Ok(()));
        let older = Engine {
            abi_version: ABI_VERSION ^ 1,
            ..FAKE
        };
        let error = check_version(&older, path).unwrap_err();
        assert!(error.contains("/cache/libcovcheck_engine.so"), "{error}");
        assert!(
            error.contains(&format!("{:016x}", ABI_VERSION ^ 1)),
            "{error}"
        );
        assert!(error.contains(&format!("{ABI_VERSION:016x}")), "{error}");
        assert!(error.contains("the same covcheck version"), "{error}");
    }

    #[test]
    fn a_session_that_cannot_start_is_an_error_with_the_engines_reason() {
        let host = fake::Recorder::default();
        // SAFETY: `host` outlives the attempt.
        let started = unsafe { Session::start(&FAKE, fake::settings(fake::REFUSE), host.table()) };
        let Err(error) = started else {
            panic!("a null session was taken for a session");
        };
        assert_eq!(error, "no broker listens on port 7");
    }

    #[test]
    fn a_session_runs_inputs_through_the_host_and_lends_its_corpus_back() {
        let host = fake::Recorder::default();
        // SAFETY: `host` outlives the session (dropped first, below).
        let mut session =
            unsafe { Session::start(&FAKE, fake::settings(0), host.table()) }.unwrap();
        session.evaluate(&[1, 2, 3], true).unwrap();
        session.add_empty().unwrap();
        assert_eq!(session.corpus_count(), 2);
        assert_eq!(session.corpus_entry(0), Some(vec![1, 2, 3]));
        assert_eq!(session.corpus_entry(1), Some(vec![]));
        assert_eq!(session.corpus_entry(2), None);
        // The engine asks the host which entry to mutate and how.
        session.fuzz_one().unwrap();
        assert_eq!(session.corpus_entry(2), Some(vec![1, 2, 3, 9]));
        session.stop_timer();
        drop(session);
        assert_eq!(
            host.calls(),
            [
                "execute [1, 2, 3]",
                "is_new",
                "commit",
                "entry_added 0 3",
                "entry_added 1 0",
                "next_entry",
                "mutate 0 [1, 2, 3]",
                "execute [1, 2, 3, 9]",
                "is_new",
                "commit",
                "entry_added 2 4",
                "mutant_ran true",
            ]
        );
        assert_eq!(fake::ended(), 1, "dropping a session ends it once");
    }

    #[test]
    fn an_entry_that_fails_is_an_error_with_the_engines_reason_or_a_default() {
        let host = fake::Recorder::failing();
        // SAFETY: `host` outlives the session.
        let mut session =
            unsafe { Session::start(&FAKE, fake::settings(0), host.table()) }.unwrap();
        // The fake fails a round on an empty corpus, saying why.
        assert_eq!(session.fuzz_one().unwrap_err(), "the corpus is empty");
        // And `evaluate` of an input the host fails on, without a word.
        assert_eq!(
            session.evaluate(&[7], false).unwrap_err(),
            "the campaign engine failed without saying why"
        );
    }

    #[test]
    fn an_engine_that_cannot_be_loaded_is_named_with_the_way_out() {
        let path = Path::new("/nonexistent/libcovcheck_engine.so");
        let Err(error) = load(path) else {
            panic!("loaded a library that does not exist");
        };
        assert!(
            error.contains("/nonexistent/libcovcheck_engine.so"),
            "{error}"
        );
        assert!(error.contains("`cargo covcheck` builds it"), "{error}");
        assert!(
            error.contains("delete /nonexistent and run `cargo covcheck` again"),
            "{error}"
        );
    }

    /// glibc's `dlerror` texts, which the message must quote: before, it
    /// said only "dlopen failed".
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    #[test]
    fn the_loaders_reason_is_quoted() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("libcovcheck_engine.so");
        std::fs::write(&path, b"").unwrap();
        let Err(error) = load(&path) else {
            panic!("loaded an empty file");
        };
        assert!(error.contains("dlopen failed: "), "{error}");
        assert!(error.contains("file too short"), "{error}");
        std::fs::write(&path, [b'x'; 4096]).unwrap();
        let Err(error) = load(&path) else {
            panic!("loaded garbage");
        };
        assert!(error.contains("invalid ELF header"), "{error}");
    }
}
