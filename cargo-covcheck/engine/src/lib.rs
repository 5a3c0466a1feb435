//! covcheck's campaign engine: LibAFL, built apart from the user's crate and
//! loaded by the instrumented test binary at run time.
//!
//! `cargo covcheck` builds this crate once per machine, from sources and a
//! lock file embedded in cargo-covcheck, into a shared library; covcheck-rt
//! loads it in a campaign worker and drives it through the C ABI of
//! [`abi`]. That keeps LibAFL's dependency tree (98 crates) out of the
//! user's dependency resolution: a crate that pins an older version of one
//! of them still runs campaigns, and no crate rebuilds LibAFL.
//!
//! The engine only drives: LibAFL runs the inputs in-process under its
//! crash and timeout handlers and keeps the corpus; every covcheck decision
//! (generation, mutation, novelty, scheduling, shrinking, reporting) stays
//! in covcheck-rt, called back through [`abi::Host`].

pub use covcheck_engine_abi as abi;
mod components;
mod host;
mod session;
mod shmem;

use std::cell::RefCell;
use std::ffi::c_void;

use abi::{ABI_VERSION, Choices, Engine, Host, Settings, Text};
use host::HostCalls;
use session::Session;

thread_local! {
    /// The last error, lent to the host by [`last_error`].
    static LAST_ERROR: RefCell<String> = const { RefCell::new(String::new()) };
    /// The corpus entry lent by [`corpus_entry`].
    static LENT: RefCell<Vec<u64>> = const { RefCell::new(Vec::new()) };
}

static ENGINE: Engine = Engine {
    abi_version: ABI_VERSION,
    start,
    evaluate,
    add_empty,
    fuzz_one,
    corpus_count,
    imported,
    corpus_entry,
    stop_timer,
    end,
    last_error,
};

/// The library's entry point ([`abi::ENTRY_SYMBOL`]).
#[unsafe(no_mangle)]
pub extern "C" fn covcheck_engine() -> &'static Engine {
    &ENGINE
}

/// The session behind a pointer [`start`] returned.
type Boxed = Box<dyn Session>;

/// # Safety
/// `ptr` must be what [`start`] returned, not yet ended: the promise of
/// every [`Engine`] entry that takes a session.
unsafe fn session<'a>(ptr: *mut c_void) -> &'a mut Boxed {
    // SAFETY: the caller's promise.
    unsafe { &mut *ptr.cast::<Boxed>() }
}

/// Records `result`'s error for [`last_error`]; true when it is `Ok`.
fn ok(result: Result<(), String>) -> bool {
    match result {
        Ok(()) => true,
        Err(message) => {
            LAST_ERROR.with(|e| *e.borrow_mut() = message);
            false
        }
    }
}

unsafe extern "C" fn start(settings: Settings, host: Host) -> *mut c_void {
    // SAFETY: the host's promise for `start` (`Engine::start`): `host` stays
    // valid until the session ends.
    let host = unsafe { HostCalls::new(host) };
    match session::start(settings, host) {
        Ok(session) => Box::into_raw(Box::new(session)).cast(),
        Err(message) => {
            ok(Err(message));
            std::ptr::null_mut()
        }
    }
}

unsafe extern "C" fn evaluate(ptr: *mut c_void, input: Choices, share: bool) -> bool {
    // SAFETY: the host lends `input` for the call.
    let choices = unsafe { input.as_slice() }.to_vec();
    // SAFETY (here and below): `ptr` is a live session, the promise of
    // every entry that takes one.
    ok(unsafe { session(ptr) }.evaluate(choices, share))
}

unsafe extern "C" fn add_empty(ptr: *mut c_void) -> bool {
    ok(unsafe { session(ptr) }.add_empty())
}

unsafe extern "C" fn fuzz_one(ptr: *mut c_void) -> bool {
    ok(unsafe { session(ptr) }.fuzz_one())
}

unsafe extern "C" fn corpus_count(ptr: *mut c_void) -> usize {
    unsafe { session(ptr) }.corpus_count()
}

unsafe extern "C" fn imported(ptr: *mut c_void) -> u64 {
    unsafe { session(ptr) }.imported()
}

unsafe extern "C" fn corpus_entry(ptr: *mut c_void, n: usize, out: *mut Choices) -> bool {
    let Some(choices) = unsafe { session(ptr) }.corpus_entry(n) else {
        return ok(Err(format!("no corpus entry {n}")));
    };
    LENT.with(|lent| {
        let mut lent = lent.borrow_mut();
        *lent = choices;
        // SAFETY: `out` is the host's, valid for the call.
        unsafe { *out = Choices::lend(&lent) };
    });
    true
}

unsafe extern "C" fn stop_timer(ptr: *mut c_void) {
    unsafe { session(ptr) }.stop_timer();
}

unsafe extern "C" fn end(ptr: *mut c_void) {
    // SAFETY: `ptr` came from `Box::into_raw` in `start`, and the host ends
    // a session once.
    drop(unsafe { Box::from_raw(ptr.cast::<Boxed>()) });
}

extern "C" fn last_error() -> Text {
    LAST_ERROR.with(|e| {
        let e = e.borrow();
        Text {
            ptr: e.as_ptr(),
            len: e.len(),
        }
    })
}
