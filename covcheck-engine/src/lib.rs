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

pub mod abi;
mod components;
mod session;
mod shmem;

use std::cell::RefCell;
use std::ffi::c_void;

use abi::{ABI_VERSION, Choices, Engine, Host, Settings, Text};
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

fn session<'a>(ptr: *mut c_void) -> &'a mut Boxed {
    // SAFETY: the host passes back only what `start` returned, until `end`.
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

extern "C" fn start(settings: Settings, host: Host) -> *mut c_void {
    match session::start(settings, host) {
        Ok(session) => Box::into_raw(Box::new(session)).cast(),
        Err(message) => {
            ok(Err(message));
            std::ptr::null_mut()
        }
    }
}

extern "C" fn evaluate(ptr: *mut c_void, input: Choices, share: bool) -> bool {
    // SAFETY: the host lends `input` for the call.
    let choices = unsafe { input.as_slice() }.to_vec();
    ok(session(ptr).evaluate(choices, share))
}

extern "C" fn add_empty(ptr: *mut c_void) -> bool {
    ok(session(ptr).add_empty())
}

extern "C" fn fuzz_one(ptr: *mut c_void) -> bool {
    ok(session(ptr).fuzz_one())
}

extern "C" fn corpus_count(ptr: *mut c_void) -> usize {
    session(ptr).corpus_count()
}

extern "C" fn imported(ptr: *mut c_void) -> u64 {
    session(ptr).imported()
}

extern "C" fn corpus_entry(ptr: *mut c_void, n: usize, out: *mut Choices) -> bool {
    let Some(choices) = session(ptr).corpus_entry(n) else {
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

extern "C" fn stop_timer(ptr: *mut c_void) {
    session(ptr).stop_timer();
}

extern "C" fn end(ptr: *mut c_void) {
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
