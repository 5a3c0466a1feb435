//! A campaign worker stops early, keeping what it found, when its
//! supervisor sends it `SIGTERM`: when another worker of the same property
//! found a failure, or the hub of a campaign across machines went away.
//!
//! The handler only sets a flag, which the fuzz loop reads between rounds;
//! the worker then writes its corpus cache and reports its totals, as at
//! the end of its budget.

use std::sync::atomic::{AtomicBool, Ordering};

static REQUESTED: AtomicBool = AtomicBool::new(false);

extern "C" fn on_term(_signal: libc::c_int) {
    REQUESTED.store(true, Ordering::Relaxed);
}

/// Installs the handler.
pub(super) fn listen() {
    // SAFETY: the handler only stores to an atomic, which is
    // async-signal-safe; SA_RESTART keeps system calls of the property from
    // failing with EINTR.
    unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = on_term as extern "C" fn(libc::c_int) as libc::sighandler_t;
        action.sa_flags = libc::SA_RESTART;
        libc::sigemptyset(&mut action.sa_mask);
        libc::sigaction(libc::SIGTERM, &action, std::ptr::null_mut());
    }
}

/// Whether the supervisor asked this worker to stop.
pub(super) fn requested() -> bool {
    REQUESTED.load(Ordering::Relaxed)
}
