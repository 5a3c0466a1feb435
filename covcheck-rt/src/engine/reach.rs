//! The worker side of `cargo covcheck report`: runs the corpus cache and the
//! saved seeds once each on the instrumented build and reports which
//! coverage counters they reach, how many inputs reach each, and when the
//! earliest of them was saved (so the report can say which property reached
//! a line first). With the PC table, the supervisor turns counters into
//! source lines.
//!
//! Failure seeds of crash kinds are not run (they would end the worker);
//! inputs run under the same guard as `minimize`'s: noted in the in-flight
//! slot and under a timeout.

use std::collections::{BTreeMap, HashSet};
use std::path::Path;
use std::time::{Duration, UNIX_EPOCH};

use super::minimize::meter::{Guard, Meter};
use crate::config::Config;
use crate::engine::{campaign_limits, instrumented_counters, open_inflight, sancov};
use crate::info::PropertyInfo;
use crate::property::{PropertyFn, take_over_panic_hook};
use crate::source::Source;
use covcheck_protocol::seeds::SeedKind;
use covcheck_protocol::worker::{
    Event, FailureKind, ReachReport, ReachedCounter, WorkerConfig, WorkerMode, emit,
};

/// Runs the saved inputs and sends a [`ReachReport`].
pub fn run(
    info: &PropertyInfo,
    property: &PropertyFn<'_>,
    request: &WorkerConfig,
) -> Result<(), String> {
    let limits = campaign_limits(Config::resolve(&info.attributes)?.limits);
    let counters = instrumented_counters(info)?;
    let timeout = Duration::from_millis(request.timeout_ms.max(1));
    let guard = Guard::new(open_inflight(request)?, HashSet::new(), timeout);
    let guarded = |src: &mut Source| guard.run(property, src);
    let property: &PropertyFn<'_> = &guarded;
    take_over_panic_hook();
    let mut meter = Meter::new(property, &guard, limits, counters);
    let mut reach = Reach::default();
    for (choices, saved_ms) in saved_inputs(info, &request.corpus_dir) {
        if let Some((_, features)) = meter.measure(&choices) {
            reach.add(&features, saved_ms);
        }
    }
    let pcs = matches!(request.mode, WorkerMode::Reach { pcs: true });
    emit(&Event::Reached(Box::new(reach.report(pcs))));
    Ok(())
}

/// The counters reached so far.
#[derive(Default)]
struct Reach {
    inputs: usize,
    /// Counter index → (inputs reaching it, earliest save time).
    counters: BTreeMap<u32, (u64, u64)>,
}

impl Reach {
    /// Adds an input that reached `features` (counter × 8 + hit-count
    /// bucket, one per counter) and was saved at `saved_ms`.
    fn add(&mut self, features: &[u32], saved_ms: u64) {
        self.inputs += 1;
        for feature in features {
            let entry = self.counters.entry(feature / 8).or_insert((0, saved_ms));
            entry.0 += 1;
            entry.1 = entry.1.min(saved_ms);
        }
    }

    fn report(self, pcs: bool) -> ReachReport {
        ReachReport {
            inputs: self.inputs,
            reached: self
                .counters
                .into_iter()
                .map(|(counter, (inputs, first_saved_ms))| ReachedCounter {
                    counter,
                    inputs,
                    first_saved_ms,
                })
                .collect(),
            pcs: if pcs {
                file_offsets(&sancov::pcs())
            } else {
                Vec::new()
            },
        }
    }
}

/// The seeds (but failure seeds of crash kinds) and the corpus cache's
/// entries, each with the time its file was saved.
fn saved_inputs(info: &PropertyInfo, corpus_dir: &Path) -> Vec<(Vec<u64>, u64)> {
    let (seeds, _unreadable) = info.seed_store().load_valid();
    let mut inputs: Vec<(Vec<u64>, u64)> = seeds
        .into_iter()
        .filter(|seed| {
            seed.file.kind == SeedKind::Covering
                || seed.file.failure_kind() == Some(FailureKind::Panic)
        })
        .map(|seed| {
            let saved = saved_ms(&seed.path);
            (seed.indices, saved)
        })
        .collect();
    let Ok(entries) = std::fs::read_dir(corpus_dir) else {
        return inputs;
    };
    let mut paths: Vec<_> = entries
        .flatten()
        .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
        .map(|e| e.path())
        .collect();
    paths.sort();
    for path in paths {
        let parsed = std::fs::read_to_string(&path)
            .ok()
            .and_then(|text| super::input::parse_choices(&text).ok());
        if let Some(choices) = parsed {
            inputs.push((choices, saved_ms(&path)));
        }
    }
    inputs
}

fn saved_ms(path: &Path) -> u64 {
    std::fs::metadata(path)
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_millis() as u64)
}

/// Each address as an offset from the start of the mapped test binary,
/// which the supervisor turns back into the address its debug information
/// uses.
fn file_offsets(pcs: &[usize]) -> Vec<u64> {
    let Some(&first) = pcs.first() else {
        return Vec::new();
    };
    // SAFETY: `dladdr` only reads the dynamic linker's tables; `info` is a
    // plain struct it fills in.
    let base = unsafe {
        let mut info: libc::Dl_info = std::mem::zeroed();
        if libc::dladdr(first as *const libc::c_void, &mut info) == 0 {
            0
        } else {
            info.dli_fbase as usize
        }
    };
    pcs.iter().map(|&pc| pc.wrapping_sub(base) as u64).collect()
}
