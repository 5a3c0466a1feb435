//! A fake campaign engine for the host side's unit tests: the C ABI of
//! covcheck-engine, without LibAFL. It keeps a corpus of the inputs the host
//! calls new and, for a round of `fuzz_one`, asks the host which entry to
//! mutate and how, as the real engine's components do.

use std::cell::{Cell, RefCell};
use std::ffi::c_void;

use crate::engine::abi::{ABI_VERSION, Choices, Engine, Host, Settings, Text};

/// The fake engine, speaking this covcheck-rt's ABI.
pub(super) static FAKE: Engine = Engine {
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

/// An RNG seed the fake refuses to start with, as an engine whose broker
/// is gone would.
pub(super) const REFUSE: u64 = 7;

pub(super) fn settings(rng_seed: u64) -> Settings {
    Settings {
        rng_seed,
        timeout_ms: 1000,
        broker_port: 0,
    }
}

/// How many sessions this thread's tests have ended.
pub(super) fn ended() -> usize {
    ENDED.with(Cell::get)
}

thread_local! {
    static ERROR: RefCell<String> = const { RefCell::new(String::new()) };
    static LENT: RefCell<Vec<u64>> = const { RefCell::new(Vec::new()) };
    static ENDED: Cell<usize> = const { Cell::new(0) };
}

struct FakeSession {
    host: Host,
    corpus: Vec<Vec<u64>>,
}

fn fail(message: &str) -> bool {
    ERROR.with(|e| *e.borrow_mut() = message.to_string());
    false
}

/// # Safety
/// `ptr` is a session `start` returned, not ended.
unsafe fn session<'a>(ptr: *mut c_void) -> &'a mut FakeSession {
    // SAFETY: the caller's promise.
    unsafe { &mut *ptr.cast::<FakeSession>() }
}

unsafe extern "C" fn start(settings: Settings, host: Host) -> *mut c_void {
    if settings.rng_seed == REFUSE {
        fail("no broker listens on port 7");
        return std::ptr::null_mut();
    }
    let session = FakeSession {
        host,
        corpus: Vec::new(),
    };
    Box::into_raw(Box::new(session)).cast()
}

/// Runs `choices` through the host, and keeps them if the host calls them
/// new; false, without a reason, when the property failed.
fn run(session: &mut FakeSession, choices: Vec<u64>) -> bool {
    let host = session.host;
    // SAFETY: the host's promise to `start`: its table is valid until `end`.
    unsafe {
        if (host.execute)(host.ctx, Choices::lend(&choices)) {
            return fail("");
        }
        if (host.is_new)(host.ctx) {
            (host.commit)(host.ctx);
            (host.entry_added)(host.ctx, session.corpus.len(), choices.len());
            session.corpus.push(choices);
        }
    }
    true
}

unsafe extern "C" fn evaluate(ptr: *mut c_void, input: Choices, _share: bool) -> bool {
    // SAFETY: the promises of `Engine::evaluate`.
    let (session, choices) = unsafe { (session(ptr), input.as_slice().to_vec()) };
    run(session, choices)
}

unsafe extern "C" fn add_empty(ptr: *mut c_void) -> bool {
    // SAFETY: the promise of `Engine::add_empty`.
    let session = unsafe { session(ptr) };
    let host = session.host;
    // SAFETY: the host's promise to `start`.
    unsafe { (host.entry_added)(host.ctx, session.corpus.len(), 0) };
    session.corpus.push(Vec::new());
    true
}

unsafe extern "C" fn fuzz_one(ptr: *mut c_void) -> bool {
    // SAFETY: the promise of `Engine::fuzz_one`.
    let session = unsafe { session(ptr) };
    if session.corpus.is_empty() {
        return fail("the corpus is empty");
    }
    let host = session.host;
    let mut out = Choices::lend(&[]);
    // SAFETY: the host's promise to `start`; it lends `out` until its next
    // callback, and it is copied before any.
    let mutant = unsafe {
        let entry = (host.next_entry)(host.ctx);
        let input = Choices::lend(&session.corpus[entry]);
        if !(host.mutate)(host.ctx, entry, input, &mut out) {
            return true;
        }
        out.as_slice().to_vec()
    };
    let before = session.corpus.len();
    let ran = run(session, mutant);
    // SAFETY: the host's promise to `start`.
    unsafe { (host.mutant_ran)(host.ctx, session.corpus.len() > before) };
    ran
}

unsafe extern "C" fn corpus_count(ptr: *mut c_void) -> usize {
    // SAFETY: the promise of `Engine::corpus_count`.
    unsafe { session(ptr) }.corpus.len()
}

unsafe extern "C" fn imported(_ptr: *mut c_void) -> u64 {
    0
}

unsafe extern "C" fn corpus_entry(ptr: *mut c_void, n: usize, out: *mut Choices) -> bool {
    // SAFETY: the promise of `Engine::corpus_entry`.
    let Some(entry) = unsafe { session(ptr) }.corpus.get(n).cloned() else {
        return false;
    };
    LENT.with(|lent| {
        let mut lent = lent.borrow_mut();
        *lent = entry;
        // SAFETY: `out` is writable for the call; `LENT` keeps the choices
        // until the next call.
        unsafe { *out = Choices::lend(&lent) };
    });
    true
}

unsafe extern "C" fn stop_timer(_ptr: *mut c_void) {}

unsafe extern "C" fn end(ptr: *mut c_void) {
    // SAFETY: `ptr` came from `Box::into_raw` in `start`, ended once.
    drop(unsafe { Box::from_raw(ptr.cast::<FakeSession>()) });
    ENDED.with(|ended| ended.set(ended.get() + 1));
}

extern "C" fn last_error() -> Text {
    ERROR.with(|e| {
        let e = e.borrow();
        Text {
            ptr: e.as_ptr(),
            len: e.len(),
        }
    })
}

/// A host that records the callbacks the engine makes, calls every input
/// new, and mutates by appending a 9; the property fails on every input
/// when `fails`.
#[derive(Default)]
pub(super) struct Recorder {
    fails: bool,
    calls: RefCell<Vec<String>>,
    mutant: RefCell<Vec<u64>>,
}

impl Recorder {
    pub(super) fn failing() -> Recorder {
        Recorder {
            fails: true,
            ..Recorder::default()
        }
    }

    pub(super) fn table(&self) -> Host {
        Host {
            ctx: (self as *const Recorder).cast(),
            execute: record_execute,
            is_new: record_is_new,
            commit: record_commit,
            mutate: record_mutate,
            mutant_ran: record_mutant_ran,
            entry_added: record_entry_added,
            next_entry: record_next_entry,
        }
    }

    pub(super) fn calls(&self) -> Vec<String> {
        self.calls.borrow().clone()
    }
}

/// # Safety
/// `ctx` is a live `Recorder`'s.
unsafe fn recorder<'a>(ctx: *const c_void) -> &'a Recorder {
    // SAFETY: the caller's promise.
    unsafe { &*ctx.cast::<Recorder>() }
}

/// Records a call; the recorder behind `ctx`.
///
/// # Safety
/// `ctx` is a live `Recorder`'s.
unsafe fn record<'a>(ctx: *const c_void, call: String) -> &'a Recorder {
    // SAFETY: the caller's promise.
    let recorder = unsafe { recorder(ctx) };
    recorder.calls.borrow_mut().push(call);
    recorder
}

unsafe extern "C" fn record_execute(ctx: *const c_void, input: Choices) -> bool {
    // SAFETY: the engine's promise for every callback.
    unsafe { record(ctx, format!("execute {:?}", input.as_slice())) }.fails
}

unsafe extern "C" fn record_is_new(ctx: *const c_void) -> bool {
    // SAFETY: the engine's promise for every callback.
    unsafe { record(ctx, "is_new".into()) };
    true
}

unsafe extern "C" fn record_commit(ctx: *const c_void) {
    // SAFETY: the engine's promise for every callback.
    unsafe { record(ctx, "commit".into()) };
}

unsafe extern "C" fn record_mutate(
    ctx: *const c_void,
    entry: usize,
    input: Choices,
    out: *mut Choices,
) -> bool {
    // SAFETY: the engine's promise for every callback.
    let recorder = unsafe {
        let input = input.as_slice();
        record(ctx, format!("mutate {entry} {input:?}"))
    };
    let mut mutant = recorder.mutant.borrow_mut();
    // SAFETY: as above.
    *mutant = unsafe { input.as_slice() }.to_vec();
    mutant.push(9);
    // SAFETY: `out` is writable for the call; the mutant stays in the
    // recorder until the next mutation.
    unsafe { *out = Choices::lend(&mutant) };
    true
}

unsafe extern "C" fn record_mutant_ran(ctx: *const c_void, added: bool) {
    // SAFETY: the engine's promise for every callback.
    unsafe { record(ctx, format!("mutant_ran {added}")) };
}

unsafe extern "C" fn record_entry_added(ctx: *const c_void, entry: usize, len: usize) {
    // SAFETY: the engine's promise for every callback.
    unsafe { record(ctx, format!("entry_added {entry} {len}")) };
}

unsafe extern "C" fn record_next_entry(ctx: *const c_void) -> usize {
    // SAFETY: the engine's promise for every callback.
    unsafe { record(ctx, "next_entry".into()) };
    0
}
