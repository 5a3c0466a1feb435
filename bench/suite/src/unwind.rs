//! Panics as failures. The targets built on real crates look for a panic in
//! the crate's code; [`caught`] turns one into the check's `Err`, so that the
//! probe sees it as it sees every other target's failure, whatever the tool.
//!
//! The panic hook stays quiet for a panic that [`caught`] catches: libFuzzer's
//! harness installs a hook that aborts the process on any panic, even one
//! that is caught, and covcheck's records the panic as the case's failure.
//! [`caught`] wraps whatever hook is installed when it first runs (the tools
//! install theirs before the first execution) and skips it while a caught
//! closure runs on the thread; every other panic goes to that hook as before.

use std::any::Any;
use std::cell::Cell;
use std::panic::{self, AssertUnwindSafe};
use std::sync::Once;

thread_local! {
    static QUIET: Cell<bool> = const { Cell::new(false) };
}

static WRAP_HOOK: Once = Once::new();

/// Runs `f`; a panic in it becomes `Err("panicked: <message>")`.
pub fn caught<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    WRAP_HOOK.call_once(|| {
        let previous = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            if !QUIET.with(Cell::get) {
                previous(info);
            }
        }));
    });
    let was_quiet = QUIET.with(|quiet| quiet.replace(true));
    let result = panic::catch_unwind(AssertUnwindSafe(f));
    QUIET.with(|quiet| quiet.set(was_quiet));
    result.map_err(|payload| format!("panicked: {}", message(payload.as_ref())))
}

fn message(payload: &(dyn Any + Send)) -> &str {
    if let Some(text) = payload.downcast_ref::<&str>() {
        text
    } else if let Some(text) = payload.downcast_ref::<String>() {
        text
    } else {
        "a panic with a non-string payload"
    }
}
