//! Running inputs one at a time for `cargo covcheck minimize` and reading
//! the coverage features each reached, guarded so that a crash names its
//! input and a hang ends the worker in a second.

use std::cell::{Cell, RefCell};
use std::collections::HashSet;
use std::time::{Duration, Instant};

use crate::engine::cover::features_of;
use crate::engine::inflight::Inflight;
use crate::property::{Case, PropertyFn, execute};
use crate::source::{Limits, Source};
use crate::watchdog::Watchdog;
use covcheck_protocol::worker::{Event, Progress, emit};

/// Runs the property for this worker. Each input is noted in the in-flight
/// slot before it runs, so that a crash names it, and runs under a timeout,
/// so that a hang ends the worker in a second rather than at the
/// supervisor's silence limit. Inputs that ended an earlier worker of this
/// minimization (`skip`) are not run again: they count as failing, so the
/// restarted worker gets past them.
pub(crate) struct Guard {
    inflight: RefCell<Inflight>,
    execs: Cell<u64>,
    skip: HashSet<Vec<u64>>,
    watchdog: Watchdog,
}

impl Guard {
    /// Each run is noted in `inflight` and may take up to `timeout`.
    pub(crate) fn new(inflight: Inflight, skip: HashSet<Vec<u64>>, timeout: Duration) -> Self {
        Guard {
            inflight: RefCell::new(inflight),
            execs: Cell::new(0),
            skip,
            watchdog: Watchdog::start(timeout),
        }
    }

    /// The inputs that ended earlier workers.
    pub(super) fn skipped(&self) -> &HashSet<Vec<u64>> {
        &self.skip
    }

    pub(crate) fn run(&self, property: &PropertyFn<'_>, src: &mut Source) -> Result<(), String> {
        let choices = src.replayed_indices().unwrap_or_default();
        if self.skip.contains(choices) {
            return Err("this input ended an earlier minimize worker".to_string());
        }
        self.execs.set(self.execs.get() + 1);
        self.inflight.borrow_mut().store(self.execs.get(), choices);
        let _armed = self.watchdog.arm();
        property(src)
    }
}

/// Runs inputs one at a time and reads the features each reached.
pub(crate) struct Meter<'a, 'p> {
    /// The property behind a [`Guard`].
    property: &'a PropertyFn<'p>,
    skip: &'a HashSet<Vec<u64>>,
    limits: Limits,
    counters: *mut u8,
    len: usize,
    runs: u64,
    started: Instant,
    last_status: Instant,
}

impl<'a, 'p> Meter<'a, 'p> {
    /// Runs `property` (behind `guard`) under `limits`, reading the coverage
    /// `counters` (start, length in bytes).
    pub(crate) fn new(
        property: &'a PropertyFn<'p>,
        guard: &'a Guard,
        limits: Limits,
        (counters, len): (*mut u8, usize),
    ) -> Self {
        Meter {
            property,
            skip: guard.skipped(),
            limits,
            counters,
            len,
            runs: 0,
            started: Instant::now(),
            last_status: Instant::now(),
        }
    }

    fn clear(&mut self) {
        // SAFETY: the counters section is `len` bytes and lives as long as the process.
        unsafe { std::ptr::write_bytes(self.counters, 0, self.len) };
    }

    /// The features of what ran since the last [`Meter::clear`]; clears.
    pub(super) fn take_features(&mut self) -> Vec<u32> {
        // SAFETY: as in `clear`; nothing runs while the slice is alive.
        let features = features_of(unsafe { std::slice::from_raw_parts(self.counters, self.len) });
        self.clear();
        features
    }

    /// Counts a run, and now and then says so in a status line, so that the
    /// supervisor knows this worker is alive.
    pub(super) fn tick(&mut self) {
        self.runs += 1;
        if self.last_status.elapsed() >= Duration::from_millis(500) {
            emit(&Event::Status(Progress {
                execs: self.runs,
                elapsed_ms: self.started.elapsed().as_millis() as u64,
                ..Progress::default()
            }));
            self.last_status = Instant::now();
        }
    }

    /// Runs `choices` and returns the case and its features; `None` for an
    /// input that ended an earlier worker (left out, and reported by the
    /// supervisor).
    pub(crate) fn measure(&mut self, choices: &[u64]) -> Option<(Case, Vec<u32>)> {
        if self.skip.contains(choices) {
            return None;
        }
        self.clear();
        self.tick();
        let case = execute(
            self.property,
            Source::replay(choices.to_vec(), self.limits),
            false,
        );
        let features = self.take_features();
        Some((case, features))
    }
}
