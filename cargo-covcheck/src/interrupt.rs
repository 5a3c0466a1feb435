//! Ctrl-C and `kill`: a campaign that is interrupted stops its workers,
//! keeps what they found (the corpus cache is written as it grows) and still
//! prints its summary.
//!
//! The signal handler only does what is safe in one: it records the signal
//! and kills the registered worker processes. Workers also die with the
//! supervisor when it is killed outright (`SIGKILL`), through
//! `PR_SET_PDEATHSIG` set in [`Command`] before they start.

use std::os::unix::process::CommandExt;
use std::process::Command;
use std::sync::atomic::{AtomicI32, Ordering};

/// The signal that interrupted this run (0: none).
static INTERRUPTED: AtomicI32 = AtomicI32::new(0);

/// Process ids of running workers (0: a free slot). A fixed table, so that
/// the signal handler can read it without locking or allocating.
static WORKERS: [AtomicI32; 1024] = [const { AtomicI32::new(0) }; 1024];

/// Installs the handler for SIGINT and SIGTERM.
pub fn install() {
    let handler = on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t;
    // SAFETY: the handler only touches atomics and calls kill(2), both
    // async-signal-safe.
    unsafe {
        libc::signal(libc::SIGINT, handler);
        libc::signal(libc::SIGTERM, handler);
    }
}

extern "C" fn on_signal(signal: libc::c_int) {
    INTERRUPTED.store(signal, Ordering::SeqCst);
    for slot in &WORKERS {
        let pid = slot.load(Ordering::SeqCst);
        if pid > 0 {
            // SAFETY: kill(2) is async-signal-safe; the pid is a worker of
            // ours, unregistered as soon as it is reaped.
            unsafe { libc::kill(pid, libc::SIGKILL) };
        }
    }
}

/// The signal that interrupted this run, if one did.
pub fn interrupted() -> Option<i32> {
    match INTERRUPTED.load(Ordering::SeqCst) {
        0 => None,
        signal => Some(signal),
    }
}

/// A name for a signal, as a user would type it.
pub fn signal_name(signal: i32) -> &'static str {
    match signal {
        libc::SIGINT => "SIGINT",
        libc::SIGTERM => "SIGTERM",
        _ => "a signal",
    }
}

/// Makes the process started by `command` die when the thread that starts
/// (and waits for) it ends, which is when the supervisor dies.
pub fn die_with_parent(command: &mut Command) -> &mut Command {
    // SAFETY: prctl(2) is async-signal-safe, as pre_exec requires.
    unsafe {
        command.pre_exec(|| {
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
            Ok(())
        })
    }
}

/// A running worker, registered so that an interrupt kills it. Drop it as
/// soon as the worker is reaped: until then its pid cannot be reused.
pub struct Registered(Option<usize>);

impl Registered {
    pub fn new(pid: u32) -> Registered {
        let pid = pid as i32;
        let slot = WORKERS.iter().position(|slot| {
            slot.compare_exchange(0, pid, Ordering::SeqCst, Ordering::SeqCst)
                .is_ok()
        });
        if slot.is_some() && interrupted().is_some() {
            // The interrupt came between the spawn and the registration.
            // SAFETY: kill(2) on our own child, not yet reaped.
            unsafe { libc::kill(pid, libc::SIGKILL) };
        }
        Registered(slot)
    }
}

impl Drop for Registered {
    fn drop(&mut self) {
        if let Some(slot) = self.0 {
            WORKERS[slot].store(0, Ordering::SeqCst);
        }
    }
}
