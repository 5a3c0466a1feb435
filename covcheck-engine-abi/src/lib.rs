//! The C ABI between the campaign engine (covcheck-engine: LibAFL, loaded at
//! run time) and covcheck-rt inside the user's test binary (the host).
//!
//! Both sides depend on this crate. The engine is built apart from the
//! user's crate, with its own lock file and possibly another standard
//! library copy, so nothing but `#[repr(C)]` data and `extern "C"` functions
//! crosses: no Rust types, no ownership, no unwinding.
//!
//! Roles: the engine drives LibAFL (executor, crash and timeout handlers,
//! state, corpus, mutational stage); the host decides everything covcheck
//! decides (what to run and how, novelty, which entry to mutate next, how
//! to mutate it) and is called back for each of those.
//!
//! Every function that takes a raw pointer it dereferences (a session, the
//! host's context, an output slot) is an `unsafe extern "C" fn`: its
//! caller promises what the pointer is, as each entry's `# Safety` says.
//!
//! The engine is built from this crate's own files, which it carries
//! ([`SOURCES`]): cargo-covcheck writes them beside the engine's sources, so
//! the engine and the host it is loaded into are compiled from one text, and
//! [`ABI_VERSION`], a hash of that text, tells them apart from any other.

#![no_std]

use core::ffi::c_void;

/// This crate's files, as `(path in the crate, contents)`: what
/// cargo-covcheck writes out to build the engine against this very ABI.
pub const SOURCES: [(&str, &str); 2] = [
    ("Cargo.toml", include_str!("../Cargo.toml")),
    ("src/lib.rs", include_str!("lib.rs")),
];

/// The version the host checks an engine against on load: a hash (64-bit
/// FNV-1a) of this file, so that any change to the ABI changes it without
/// anyone remembering to bump a number. Both sides compile the same text
/// (see [`SOURCES`]), so they agree exactly when their ABI is the same.
pub const ABI_VERSION: u64 = fnv1a(include_str!("lib.rs").as_bytes());

/// 64-bit FNV-1a, in a `const fn` so that [`ABI_VERSION`] is a constant.
const fn fnv1a(bytes: &[u8]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let mut i = 0;
    while i < bytes.len() {
        hash = (hash ^ bytes[i] as u64).wrapping_mul(0x0100_0000_01b3);
        i += 1;
    }
    hash
}

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
            unsafe { core::slice::from_raw_parts(self.ptr, self.len) }
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
    /// The local TCP port of the LLMP broker (`covcheck-broker`) through
    /// which this worker shares its corpus with the property's other
    /// workers; 0 for a worker alone.
    pub broker_port: u16,
}

/// The host's side: `ctx` is passed back to every callback. Callbacks may be
/// called from the engine's crash and timeout handlers while `execute` is
/// running, so they must only take shared access to `ctx`.
///
/// # Safety
/// Every callback may be called only with the `ctx` of the table it came
/// in, while the session this table was given to ([`Engine::start`]) lives;
/// `Choices` arguments must be readable for the call, and `out` writable.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct Host {
    pub ctx: *const c_void,
    /// Runs the property on an input; true when it failed (a crash, for
    /// LibAFL's objectives).
    pub execute: unsafe extern "C" fn(ctx: *const c_void, input: Choices) -> bool,
    /// Whether the execution that just ran reached new coverage.
    pub is_new: unsafe extern "C" fn(ctx: *const c_void) -> bool,
    /// The input that just ran enters the corpus: keep its coverage.
    pub commit: unsafe extern "C" fn(ctx: *const c_void),
    /// Mutates `input`, a copy of corpus entry `entry` (`usize::MAX` when
    /// none is current). Returns false to skip it; else writes the mutant to
    /// `out`, lent until the next callback.
    pub mutate: unsafe extern "C" fn(
        ctx: *const c_void,
        entry: usize,
        input: Choices,
        out: *mut Choices,
    ) -> bool,
    /// After a mutant ran: whether it entered the corpus.
    pub mutant_ran: unsafe extern "C" fn(ctx: *const c_void, added: bool),
    /// Corpus entry `entry` (`len` choices) was added, right after it ran:
    /// the coverage counters still hold its coverage.
    pub entry_added: unsafe extern "C" fn(ctx: *const c_void, entry: usize, len: usize),
    /// The corpus entry to mutate next.
    pub next_entry: unsafe extern "C" fn(ctx: *const c_void) -> usize,
}

/// The engine's side. A function returning `bool` returns false on an
/// error, which `last_error` then describes.
///
/// # Safety
/// `session` is always a pointer `start` returned and `end` has not ended;
/// `Choices` arguments must be readable for the call, and `out` writable.
#[repr(C)]
pub struct Engine {
    /// [`ABI_VERSION`] of the sources the engine was built from: the host
    /// reads it before anything else and refuses an engine of another.
    pub abi_version: u64,
    /// Sets a campaign session up; null on an error.
    ///
    /// # Safety
    /// `settings.counters` must be writable for `settings.counters_len`
    /// bytes, and `host` valid as [`Host`] says, until the session ends.
    pub start: unsafe extern "C" fn(settings: Settings, host: Host) -> *mut c_void,
    /// Runs an input; it enters the corpus if its coverage is new, and is
    /// then sent to the other workers when `share` is true.
    pub evaluate: unsafe extern "C" fn(session: *mut c_void, input: Choices, share: bool) -> bool,
    /// Adds the empty input to the corpus, whatever its coverage.
    pub add_empty: unsafe extern "C" fn(session: *mut c_void) -> bool,
    /// One round of the mutational stage on the next scheduled entry, then
    /// the inputs other workers sent (each run, and kept if new here).
    pub fuzz_one: unsafe extern "C" fn(session: *mut c_void) -> bool,
    pub corpus_count: unsafe extern "C" fn(session: *mut c_void) -> usize,
    /// Inputs received from other workers that entered the corpus.
    pub imported: unsafe extern "C" fn(session: *mut c_void) -> u64,
    /// Corpus entry `n` (in the order added), lent until the next call.
    pub corpus_entry:
        unsafe extern "C" fn(session: *mut c_void, n: usize, out: *mut Choices) -> bool,
    /// Stops the timeout timer (before shrinking, which runs unbounded).
    pub stop_timer: unsafe extern "C" fn(session: *mut c_void),
    /// Ends a session and frees it.
    pub end: unsafe extern "C" fn(session: *mut c_void),
    /// The last error of this thread: no pointer in, so safe to call.
    pub last_error: extern "C" fn() -> Text,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_version_is_the_hash_of_this_source() {
        assert_eq!(ABI_VERSION, fnv1a(SOURCES[1].1.as_bytes()));
        // 64-bit FNV-1a's published test vectors.
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
    }
}
