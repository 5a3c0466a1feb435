//! Plain `cargo test`: a case that never returns, or that ends the process
//! with `std::process::exit`, leaves libtest with no result to print. A hang
//! would hang the test run forever, and an `exit(0)` would even pass it.
//! A [`Watch`] covers one property's test: it knows what the test is doing
//! (replaying which seed, or which RNG seed's random cases) and says so
//! before it ends the test binary, once a case makes no progress for
//! [`covcheck_protocol::limits::hang_limit`] or the process exits under it.
//!
//! Each execution costs one thread-local check; campaigns, which have their
//! own timeouts, never start a watch.
//!
//! The hang limit works on every platform (it needs only threads). Catching `std::process::exit`
//! needs `atexit` and pthread ids, so it is Unix-only: elsewhere (Windows) a
//! property that exits ends the test binary with the status it chose and
//! without covcheck's report, as it would in a plain `#[test]`.

use std::cell::RefCell;
use std::io::Write as _;
#[cfg(unix)]
use std::sync::Once;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Exit status of a test binary ended by a watch (libtest's for a failure).
const EXIT_FAILED: i32 = 101;

struct Shared {
    property: String,
    executions: AtomicU64,
    /// What the test is doing, in words ("replaying the seed ...").
    doing: Mutex<String>,
}

thread_local! {
    static CURRENT: RefCell<Option<Arc<Shared>>> = const { RefCell::new(None) };
}

/// The watches of all threads, by `pthread_self`, for [`on_exit`]: glibc's
/// `exit` destroys the exiting thread's thread-locals before it runs the
/// `atexit` handlers, so `CURRENT` is gone by then.
#[cfg(unix)]
static WATCHED: Mutex<Vec<(libc::pthread_t, Arc<Shared>)>> = Mutex::new(Vec::new());

/// Watches the property test running on this thread until dropped.
pub(crate) struct Watch {
    shared: Arc<Shared>,
    done: Option<Sender<()>>,
}

impl Watch {
    pub(crate) fn start(property: String, limit: Duration) -> Watch {
        let shared = Arc::new(Shared {
            property,
            executions: AtomicU64::new(0),
            doing: Mutex::new(String::new()),
        });
        CURRENT.with(|c| *c.borrow_mut() = Some(shared.clone()));
        #[cfg(unix)]
        {
            static AT_EXIT: Once = Once::new();
            // SAFETY: registers a plain function; see `on_exit`.
            AT_EXIT.call_once(|| unsafe {
                libc::atexit(on_exit);
            });
            // SAFETY: pthread_self has no preconditions.
            let thread = unsafe { libc::pthread_self() };
            lock(&WATCHED).push((thread, shared.clone()));
        }
        let (done, wait) = std::sync::mpsc::channel::<()>();
        let watched = shared.clone();
        std::thread::spawn(move || {
            let mut last = u64::MAX;
            while let Err(RecvTimeoutError::Timeout) = wait.recv_timeout(limit) {
                let now = watched.executions.load(Ordering::Relaxed);
                if now == last {
                    hung(&watched, limit);
                }
                last = now;
            }
        });
        Watch {
            shared,
            done: Some(done),
        }
    }

    /// Says what the test does from now on, for the report if it hangs or
    /// exits.
    pub(crate) fn doing(&self, what: String) {
        *lock(&self.shared.doing) = what;
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        CURRENT.with(|c| c.borrow_mut().take());
        #[cfg(unix)]
        lock(&WATCHED).retain(|(_, shared)| !Arc::ptr_eq(shared, &self.shared));
        if let Some(done) = self.done.take() {
            let _ = done.send(());
        }
    }
}

/// Called by every execution: progress for the watch of this thread.
#[inline]
pub(crate) fn executed() {
    CURRENT.with(|c| {
        if let Some(shared) = c.borrow().as_ref() {
            shared.executions.fetch_add(1, Ordering::Relaxed);
        }
    });
}

/// A lock that a panic elsewhere does not poison for us.
fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

fn doing(shared: &Shared) -> String {
    lock(&shared.doing).clone()
}

fn hung(shared: &Shared, limit: Duration) -> ! {
    let _ = writeln!(
        std::io::stderr(),
        "covcheck: property `{}` has run one case for more than {} s, {}: it hangs. \
         Ending the test binary. (COVCHECK_HANG_SECS sets the limit.)",
        shared.property,
        limit.as_secs(),
        doing(shared)
    );
    // The hung thread may hold locks; std's exit only try-locks stdout.
    std::process::exit(EXIT_FAILED)
}

/// Runs when the process exits: if a property was running a case on the
/// exiting thread, the case called `std::process::exit`, which must fail the
/// test.
#[cfg(unix)]
extern "C" fn on_exit() {
    // SAFETY: pthread_self has no preconditions.
    let thread = unsafe { libc::pthread_self() };
    let Ok(watched) = WATCHED.try_lock() else {
        return;
    };
    // SAFETY: pthread_equal compares two thread ids.
    let Some((_, shared)) = watched
        .iter()
        .find(|(t, _)| unsafe { libc::pthread_equal(*t, thread) } != 0)
    else {
        return;
    };
    let _ = writeln!(
        std::io::stderr(),
        "covcheck: property `{}` ended the process (std::process::exit) {}; \
         a property must return or panic. Failing the test.",
        shared.property,
        doing(shared)
    );
    // SAFETY: _exit(2) ends the process at once, as intended here.
    unsafe { libc::_exit(EXIT_FAILED) };
}
