//! The call path of a panic: a hash of the top frames of the stack it was
//! raised on, between the panic hook and the property's own call.
//!
//! A panic's location alone does not tell two bugs apart when they meet at
//! one place: an `unwrap()` in a helper that two parsers call, an index
//! check in a shared decoder, an `assert!` in the property reached by two
//! different mistakes. The frames that led there do. A campaign that goes
//! on after its first failure (`--keep-going`) uses the location *and* the
//! call path to decide whether a failure is new, and the shrinker keeps
//! both, so that it never trades one bug for another.
//!
//! It is taken in the panic hook, on the hot path of a campaign that keeps
//! hitting a known bug, so nothing is symbolised: the frames are return
//! addresses, made relative to the base of the module they are in (so that
//! every process of one test binary computes the same path, whatever
//! address-space layout it got), and hashed. Only frames below the
//! property's call are walked (the engine's frames above it differ between
//! the fuzz loop, calibration and replay), and each address counts once:
//! a recursive descent that fails at depth 3 and at depth 30 took the same
//! path.
//!
//! On platforms where campaigns do not run it is always 0: the location
//! alone identifies a failure there, as it did before.

use std::cell::Cell;

/// The most distinct frames hashed, from the panic hook down: the hook's
/// and the standard library's panic machinery take the first few, the
/// user's code the rest.
#[cfg(target_os = "linux")]
const MAX_FRAMES: usize = 16;

thread_local! {
    /// A stack address in the frame that calls the property: the walk
    /// stops at the first frame above it. 0 when no property runs.
    static BOUNDARY: Cell<usize> = const { Cell::new(0) };
}

/// Runs `call` (the property) with the frames above this one left out of
/// every call path taken on this thread meanwhile.
pub(crate) fn below_here<R>(call: impl FnOnce() -> R) -> R {
    let marker = 0u8;
    let here = std::hint::black_box(&marker) as *const u8 as usize;
    let outer = BOUNDARY.with(|b| b.replace(here));
    let result = call();
    BOUNDARY.with(|b| b.set(outer));
    result
}

/// The call path of the panic being raised on this thread, or 0 when no
/// property runs on it (or on platforms where it is not taken).
pub(crate) fn of_current_panic() -> u64 {
    let boundary = BOUNDARY.with(Cell::get);
    if boundary == 0 {
        return 0;
    }
    walk(boundary)
}

#[cfg(target_os = "linux")]
fn walk(boundary: usize) -> u64 {
    use std::ffi::{c_int, c_void};

    #[repr(C)]
    struct Walk {
        boundary: usize,
        frames: [usize; MAX_FRAMES],
        len: usize,
    }

    unsafe extern "C" {
        fn _Unwind_Backtrace(
            trace: extern "C" fn(*mut c_void, *mut c_void) -> c_int,
            arg: *mut c_void,
        ) -> c_int;
        fn _Unwind_GetIP(context: *mut c_void) -> usize;
        fn _Unwind_GetCFA(context: *mut c_void) -> usize;
    }
    /// `_URC_NO_REASON`: go on; `_URC_NORMAL_STOP`: stop the walk.
    const GO_ON: c_int = 0;
    const STOP: c_int = 4;

    extern "C" fn frame(context: *mut c_void, arg: *mut c_void) -> c_int {
        // SAFETY: `arg` is the `Walk` passed to `_Unwind_Backtrace` below,
        // and `context` the unwinder's own, valid during this call.
        let walk = unsafe { &mut *(arg as *mut Walk) };
        let (ip, cfa) = unsafe { (_Unwind_GetIP(context), _Unwind_GetCFA(context)) };
        if cfa > walk.boundary || walk.len == MAX_FRAMES {
            return STOP;
        }
        let offset = ip.wrapping_sub(module_base(ip));
        if !walk.frames[..walk.len].contains(&offset) {
            walk.frames[walk.len] = offset;
            walk.len += 1;
        }
        GO_ON
    }

    let mut walk = Walk {
        boundary,
        frames: [0; MAX_FRAMES],
        len: 0,
    };
    // SAFETY: `frame` only reads the context it is given and writes `walk`,
    // which outlives the call.
    unsafe { _Unwind_Backtrace(frame, &mut walk as *mut Walk as *mut c_void) };
    let bytes = walk.frames[..walk.len].iter().flat_map(|f| f.to_le_bytes());
    covcheck_protocol::hash::fnv1a(bytes)
}

/// The address the module holding `ip` is loaded at (0 when none is
/// found: the address then stands as it is).
#[cfg(target_os = "linux")]
fn module_base(ip: usize) -> usize {
    let mut info: libc::Dl_info = unsafe { std::mem::zeroed() };
    // SAFETY: `dladdr` only reads the loader's tables and writes `info`.
    let found = unsafe { libc::dladdr(ip as *const libc::c_void, &mut info) };
    if found == 0 {
        0
    } else {
        info.dli_fbase as usize
    }
}

#[cfg(not(target_os = "linux"))]
fn walk(_boundary: usize) -> u64 {
    0
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;
    use std::panic;

    #[inline(never)]
    fn fails(x: Option<u8>) -> u8 {
        x.unwrap()
    }

    #[inline(never)]
    fn first_caller() -> u64 {
        below_here(|| {
            let r = panic::catch_unwind(|| {
                std::hint::black_box(fails(std::hint::black_box(None)));
            });
            assert!(r.is_err());
            LAST.with(Cell::get)
        })
    }

    #[inline(never)]
    fn second_caller() -> u64 {
        below_here(|| {
            let r = panic::catch_unwind(|| {
                std::hint::black_box(fails(std::hint::black_box(None)));
            });
            assert!(r.is_err());
            LAST.with(Cell::get)
        })
    }

    thread_local! {
        static LAST: Cell<u64> = const { Cell::new(0) };
    }

    #[test]
    fn one_location_reached_from_two_callers_has_two_paths_each_stable() {
        let previous = panic::take_hook();
        panic::set_hook(Box::new(|_| LAST.with(|l| l.set(of_current_panic()))));
        let (a1, a2, b) = (first_caller(), first_caller(), second_caller());
        panic::set_hook(previous);
        assert_ne!(a1, 0, "a path is taken under below_here");
        assert_eq!(a1, a2, "the same path twice hashes the same");
        assert_ne!(a1, b, "another caller is another path");
    }

    #[test]
    fn no_path_outside_a_property() {
        assert_eq!(of_current_panic(), 0);
    }
}
