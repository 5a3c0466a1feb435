//! The injected bug that is switched on, from the `BENCH_BUG` environment
//! variable (read once). Targets with one bug switch it with their own name.

use std::sync::OnceLock;

fn active() -> &'static str {
    static ACTIVE: OnceLock<String> = OnceLock::new();
    ACTIVE.get_or_init(|| std::env::var("BENCH_BUG").unwrap_or_default())
}

thread_local! {
    static FORCED: std::cell::Cell<Option<&'static str>> = const { std::cell::Cell::new(None) };
}

/// True when the bug `name` is switched on.
pub fn on(name: &str) -> bool {
    FORCED.with(|f| f.get()).unwrap_or_else(active) == name
}

/// Runs `f` with the bug `name` on in this thread (for the suite's own tests).
pub fn with<T>(name: &'static str, f: impl FnOnce() -> T) -> T {
    FORCED.with(|forced| forced.set(Some(name)));
    let out = f();
    FORCED.with(|forced| forced.set(None));
    out
}
