//! The C ABI between the campaign engine (this library, loaded at run time)
//! and covcheck-rt inside the user's test binary (the host).
//!
//! This one file is compiled into both sides: covcheck-engine builds it as
//! its own module, and covcheck-rt includes it by path. The engine is built
//! apart from the user's crate, with its own lock file and possibly another
//! standard library copy, so nothing but `#[repr(C)]` data and `extern "C"`
//! functions crosses: no Rust types, no ownership, no unwinding.
//!
//! Roles: the engine drives LibAFL (executor, crash and timeout handlers,
//! state, corpus, mutational stage); the host decides everything covcheck
//! decides (what to run and how, novelty, which entry to mutate next, how
//! to mutate it) and is called back for each of those.

use std::ffi::c_void;

/// Bumped on any change to this file: the host refuses an engine built
/// from another version of it.
pub const ABI_VERSION: u32 = 2;

/// The one symbol the engine library exports: a function returning
/// `&'static Engine`.
pub const ENTRY_SYMBOL: &[u8] = b"covcheck_engine\0";

/// The type of [`ENTRY_SYMBOL`].
pub type EntryFn = extern "C" fn() -> &'static Engine;

/// A choice sequence lent for the length of a call (or, where a function
/// says so, until the next call).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct Choices {
    pub ptr: *const u64,
    pub len: usize,
}

impl Choices {
    /// Lends `choices`.
    pub fn lend(choices: &[u64]) -> Choices {
        Choices {
            ptr: choices.as_ptr(),
            len: choices.len(),
        }
    }

    /// The choices lent.
    ///
    /// # Safety
    /// `ptr` must point to `len` readable values for the returned lifetime
    /// (any pointer is fine when `len` is 0).
    pub unsafe fn as_slice<'a>(self) -> &'a [u64] {
        if self.len == 0 {
            &[]
        } else {
            // SAFETY: the caller's promise.
            unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
        }
    }
}

/// UTF-8 text lent until the next call into the engine.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct Text {
    pub ptr: *const u8,
    pub len: usize,
}

/// What a campaign session starts with.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct Settings {
    /// Seeds LibAFL's random source.
    pub rng_seed: u64,
    /// The per-execution time limit; LibAFL's timer ends the process past it.
    pub timeout_ms: u64,
    /// The test binary's 8-bit coverage counters, which LibAFL's map
    /// observer clears before each execution.
    pub counters: *mut u8,
    pub counters_len: usize,
    /// The local TCP port of the LLMP broker (`covcheck-broker`) through
    /// which this worker shares its corpus with the property's other
    /// workers; 0 for a worker alone.
    pub broker_port: u16,
}

/// The host's side: `ctx` is passed back to every callback. Callbacks may be
/// called from the engine's crash and timeout handlers while `execute` is
/// running, so they must only take shared access to `ctx`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct Host {
    pub ctx: *const c_void,
    /// Runs the property on an input; true when it failed (a crash, for
    /// LibAFL's objectives).
    pub execute: extern "C" fn(ctx: *const c_void, input: Choices) -> bool,
    /// Whether the execution that just ran reached new coverage.
    pub is_new: extern "C" fn(ctx: *const c_void) -> bool,
    /// The input that just ran enters the corpus: keep its coverage.
    pub commit: extern "C" fn(ctx: *const c_void),
    /// Mutates `input`, a copy of corpus entry `entry` (`usize::MAX` when
    /// none is current). Returns false to skip it; else writes the mutant to
    /// `out`, lent until the next callback.
    pub mutate:
        extern "C" fn(ctx: *const c_void, entry: usize, input: Choices, out: *mut Choices) -> bool,
    /// After a mutant ran: whether it entered the corpus.
    pub mutant_ran: extern "C" fn(ctx: *const c_void, added: bool),
    /// Corpus entry `entry` (`len` choices) was added, right after it ran:
    /// the coverage counters still hold its coverage.
    pub entry_added: extern "C" fn(ctx: *const c_void, entry: usize, len: usize),
    /// The corpus entry to mutate next.
    pub next_entry: extern "C" fn(ctx: *const c_void) -> usize,
}

/// The engine's side. A function returning `bool` returns false on an
/// error, which `last_error` then describes.
#[repr(C)]
pub struct Engine {
    pub abi_version: u32,
    /// Sets a campaign session up; null on an error.
    pub start: extern "C" fn(settings: Settings, host: Host) -> *mut c_void,
    /// Runs an input; it enters the corpus if its coverage is new, and is
    /// then sent to the other workers when `share` is true.
    pub evaluate: extern "C" fn(session: *mut c_void, input: Choices, share: bool) -> bool,
    /// Adds the empty input to the corpus, whatever its coverage.
    pub add_empty: extern "C" fn(session: *mut c_void) -> bool,
    /// One round of the mutational stage on the next scheduled entry, then
    /// the inputs other workers sent (each run, and kept if new here).
    pub fuzz_one: extern "C" fn(session: *mut c_void) -> bool,
    pub corpus_count: extern "C" fn(session: *mut c_void) -> usize,
    /// Inputs received from other workers that entered the corpus.
    pub imported: extern "C" fn(session: *mut c_void) -> u64,
    /// Corpus entry `n` (in the order added), lent until the next call.
    pub corpus_entry: extern "C" fn(session: *mut c_void, n: usize, out: *mut Choices) -> bool,
    /// Stops the timeout timer (before shrinking, which runs unbounded).
    pub stop_timer: extern "C" fn(session: *mut c_void),
    /// Ends a session and frees it.
    pub end: extern "C" fn(session: *mut c_void),
    /// The last error of this thread.
    pub last_error: extern "C" fn() -> Text,
}
