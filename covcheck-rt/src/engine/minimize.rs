//! The worker side of `cargo covcheck minimize`: from a campaign's corpus
//! cache and the saved seeds to the smallest suite of small inputs that
//! reaches every coverage feature they reach.
//!
//! 1. Run every input once on the instrumented build and note its features
//!    ([`super::cover::features_of`]). Failure seeds are always kept, so their
//!    features count as covered from the start; failure seeds of crash kinds
//!    (abort, timeout, ...) are not run, since they would end this process.
//! 2. Select with greedy set cover, covering seeds saved earlier first (so a
//!    second run keeps the suite as it is); also count what the forward-pass
//!    rule would keep, for the report.
//! 3. Shrink each newly selected input with the core shrinker while it keeps
//!    the features no other selected input (or failure seed) reaches, so the
//!    suite still covers everything; then select again among the results.
//!
//! The supervisor saves the result as covering seeds; this worker writes
//! nothing but the in-flight slot.

use std::cell::{Cell, RefCell};
use std::collections::HashSet;
use std::time::{Duration, Instant};

use crate::choice::trim_trailing_zeros;
use crate::config::Config;
use crate::engine::campaign_limits;
use crate::engine::cover::{Candidate, FeatureSet, features_of, forward_pass, greedy_set_cover};
use crate::engine::inflight::Inflight;
use crate::engine::input::load_corpus_dir;
use crate::engine::sancov;
use crate::info::PropertyInfo;
use crate::property::{Case, PropertyFn, execute, take_over_panic_hook};
use crate::shrink::{ShrinkBudget, shrink_while};
use crate::source::{Limits, Source};
use crate::watchdog::Watchdog;
use covcheck_protocol::seeds::{SeedFile, SeedKind};
use covcheck_protocol::worker::{
    CoveringInput, Event, MinimizeReport, Progress, SuiteStats, WorkerConfig, WorkerMode, emit,
};

/// Shrinking one covering input stops here: it only has to keep its
/// features, and a suite has many inputs.
const SHRINK_BUDGET: ShrinkBudget = ShrinkBudget {
    max_runs: 4_000,
    max_time: Duration::from_secs(10),
};

/// Runs the property for this worker. Each input is noted in the in-flight
/// slot before it runs, so that a crash names it, and runs under a timeout,
/// so that a hang ends the worker in a second rather than at the
/// supervisor's silence limit. Inputs that ended an earlier worker of this
/// minimization (`skip`) are not run again: they count as failing, so the
/// restarted worker gets past them.
struct Guard {
    inflight: RefCell<Inflight>,
    execs: Cell<u64>,
    skip: HashSet<Vec<u64>>,
    watchdog: Watchdog,
}

impl Guard {
    fn run(&self, property: &PropertyFn<'_>, src: &mut Source) -> Result<(), String> {
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
struct Meter<'a, 'p> {
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

impl Meter<'_, '_> {
    fn clear(&mut self) {
        // SAFETY: the counters section is `len` bytes and lives as long as the process.
        unsafe { std::ptr::write_bytes(self.counters, 0, self.len) };
    }

    /// The features of what ran since the last [`Meter::clear`]; clears.
    fn take_features(&mut self) -> Vec<u32> {
        // SAFETY: as in `clear`; nothing runs while the slice is alive.
        let features = features_of(unsafe { std::slice::from_raw_parts(self.counters, self.len) });
        self.clear();
        features
    }

    /// Counts a run, and now and then says so in a status line, so that the
    /// supervisor knows this worker is alive.
    fn tick(&mut self) {
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
    fn measure(&mut self, choices: &[u64]) -> Option<(Case, Vec<u32>)> {
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

/// An input under consideration.
#[derive(Clone, Default)]
struct Measured {
    choices: Vec<u64>,
    features: Vec<u32>,
    /// A covering seed saved earlier (kept as it is when still needed).
    seed: bool,
}

impl Measured {
    fn size(&self) -> usize {
        size_of_choices(&self.choices)
    }
}

/// An input's size as a seed file stores it.
fn size_of_choices(choices: &[u64]) -> usize {
    SeedFile::format_indices(choices).len()
}

pub fn run(
    info: &PropertyInfo,
    property: &PropertyFn<'_>,
    request: &WorkerConfig,
) -> Result<(), String> {
    // Corpus entries were found under the campaign's limits.
    let limits = campaign_limits(Config::resolve(&info.attributes)?.limits);
    let (counters, len) = sancov::counters();
    if len == 0 {
        return Err(format!(
            "`{}` is not instrumented (no coverage counters): build it with `cargo covcheck`",
            info.full_path()
        ));
    }
    let inflight = Inflight::open(&request.inflight_path)
        .map_err(|e| format!("cannot map {}: {e}", request.inflight_path.display()))?;
    let skip = match &request.mode {
        WorkerMode::Minimize { skip } => skip.iter().cloned().collect(),
        _ => HashSet::new(),
    };
    let guard = Guard {
        inflight: RefCell::new(inflight),
        execs: Cell::new(0),
        skip,
        watchdog: Watchdog::start(Duration::from_millis(request.timeout_ms.max(1))),
    };
    let guarded = |src: &mut Source| guard.run(property, src);
    let property: &PropertyFn<'_> = &guarded;
    take_over_panic_hook();
    let mut meter = Meter {
        property,
        skip: &guard.skip,
        limits,
        counters,
        len,
        runs: 0,
        started: Instant::now(),
        last_status: Instant::now(),
    };
    let seeds = info.seed_store().load().map_err(|e| e.to_string())?;
    let mut report = MinimizeReport::default();

    // 1. Measure. Failure seeds first: their features are covered already.
    let mut covered = FeatureSet::default();
    let mut on_disk = FeatureSet::default();
    let mut on_disk_stats = SuiteStats::default();
    let mut seen: HashSet<Vec<u64>> = HashSet::new();
    let mut candidates: Vec<Measured> = Vec::new();
    for seed in &seeds {
        on_disk_stats.inputs += 1;
        on_disk_stats.bytes += size_of_choices(&seed.indices);
        let crash_kind = seed
            .file
            .failure_kind()
            .is_some_and(|kind| kind != covcheck_protocol::worker::FailureKind::Panic);
        if seed.file.kind == SeedKind::Failure && crash_kind {
            report.unmeasured_failure_seeds += 1;
            continue;
        }
        let name = seed.file_name();
        let Some((case, features)) = meter.measure(&seed.indices) else {
            // It ended an earlier worker (the supervisor names it): failing,
            // and measured as reaching nothing.
            if seed.file.kind == SeedKind::Covering {
                report.failing_seeds.push(name.clone());
            }
            report.seed_features.push((name, Vec::new()));
            continue;
        };
        on_disk.extend(&features);
        report.seed_features.push((name.clone(), features.clone()));
        if seed.file.kind == SeedKind::Failure {
            report.failure_seeds += 1;
            covered.extend(&features);
        } else if case.failure().is_some() {
            report.failing_inputs += 1;
            report.failing_seeds.push(name);
        } else if seen.insert(seed.indices.clone()) {
            // As stored: an equal selection keeps this very file.
            candidates.push(Measured {
                choices: seed.indices.clone(),
                features,
                seed: true,
            });
        }
    }
    on_disk_stats.features = on_disk.len();
    report.seeds_before = on_disk_stats;
    for choices in load_corpus_dir(&request.corpus_dir) {
        let Some((case, mut features)) = meter.measure(&choices) else {
            continue;
        };
        if case.failure().is_some() {
            report.failing_inputs += 1;
            continue;
        }
        // Kept without the choices it did not use and its trailing zeros,
        // and measured that way: the generators' own code (compiled into the
        // instrumented crate) takes another branch for an implied zero than
        // for a recorded one, so the features must be those of what is saved.
        let trimmed = trim_trailing_zeros(&case.indices()).to_vec();
        if trimmed != choices {
            let Some((_, again)) = meter.measure(&trimmed) else {
                continue;
            };
            features = again;
        }
        let choices = trimmed;
        if seen.insert(choices.clone()) {
            report.corpus_inputs += 1;
            candidates.push(Measured {
                choices,
                features,
                seed: false,
            });
        }
    }
    let mut universe = covered.clone();
    for c in &candidates {
        universe.extend(&c.features);
    }
    report.measured = SuiteStats {
        inputs: candidates.len(),
        bytes: candidates.iter().map(Measured::size).sum(),
        features: universe.len(),
    };

    // 2. Select.
    let stats = |taken: &[usize], inputs: &[Measured]| {
        let mut reached = covered.clone();
        for &n in taken {
            reached.extend(&inputs[n].features);
        }
        SuiteStats {
            inputs: taken.len(),
            bytes: taken.iter().map(|&n| inputs[n].size()).sum(),
            features: reached.len(),
        }
    };
    let select = |inputs: &[Measured],
                  only: &dyn Fn(&Measured) -> bool,
                  covered: &FeatureSet,
                  rule: fn(&[Candidate<'_>], &FeatureSet) -> Vec<usize>| {
        let indices: Vec<usize> = (0..inputs.len()).filter(|&n| only(&inputs[n])).collect();
        let sizes: Vec<usize> = indices.iter().map(|&n| inputs[n].size()).collect();
        let view: Vec<Candidate<'_>> = indices
            .iter()
            .zip(&sizes)
            .map(|(&n, &size)| Candidate {
                size,
                features: &inputs[n].features,
            })
            .collect();
        rule(&view, covered)
            .into_iter()
            .map(|k| indices[k])
            .collect::<Vec<usize>>()
    };
    // Covering seeds saved earlier are chosen first, then corpus inputs for
    // what they miss: a suite that still covers everything stays as it is,
    // instead of churning in version control on every run.
    let seeds_first = |inputs: &[Measured]| {
        let mut taken = select(inputs, &|m| m.seed, &covered, greedy_set_cover);
        let mut more = covered.clone();
        for &n in &taken {
            more.extend(&inputs[n].features);
        }
        taken.extend(select(inputs, &|m| !m.seed, &more, greedy_set_cover));
        taken
    };
    report.forward_pass = stats(
        &select(&candidates, &|_| true, &covered, forward_pass),
        &candidates,
    );
    let taken = seeds_first(&candidates);
    report.set_cover = stats(&taken, &candidates);
    let originals: Vec<Measured> = taken
        .into_iter()
        .map(|n| std::mem::take(&mut candidates[n]))
        .collect();

    // 3. Shrink each while it keeps what only it covers, then select again.
    let mut suite: Vec<Measured> = originals.clone();
    for n in 0..suite.len() {
        if suite[n].seed {
            continue; // shrunk when it was saved
        }
        let mut others = covered.clone();
        for (m, other) in suite.iter().enumerate() {
            if m != n {
                others.extend(&other.features);
            }
        }
        let unique: Vec<u32> = suite[n]
            .features
            .iter()
            .copied()
            .filter(|f| !others.contains(*f))
            .collect();
        let Some((start, _)) = meter.measure(&suite[n].choices) else {
            continue; // cannot happen: it ran when measured
        };
        let mut keep = |case: &Case| {
            meter.tick();
            let features = meter.take_features();
            case.failure().is_none() && unique.iter().all(|f| features.binary_search(f).is_ok())
        };
        let shrunk = shrink_while(property, limits, start, SHRINK_BUDGET, &mut keep);
        let choices = trim_trailing_zeros(&shrunk.case.indices()).to_vec();
        let Some((_, features)) = meter.measure(&choices) else {
            continue; // keeps the original
        };
        suite[n] = Measured {
            choices,
            features,
            seed: false,
        };
    }
    // Two inputs can shrink to the same one; a seed file holds it once.
    let mut taken_choices: HashSet<Vec<u64>> = HashSet::new();
    let mut final_taken: Vec<usize> = seeds_first(&suite)
        .into_iter()
        .filter(|&n| taken_choices.insert(suite[n].choices.clone()))
        .collect();
    // Shrinking keeps every feature by construction; should a flaky feature
    // (one that depends on more than the input) go missing, the original
    // input that reached it comes back rather than losing coverage (unless
    // the suite already holds that very input: then the feature is flaky in
    // it too, and a second copy would not help).
    let mut reached = covered.clone();
    for &n in &final_taken {
        reached.extend(&suite[n].features);
    }
    for original in originals {
        if reached.missing(&original.features) > 0 && taken_choices.insert(original.choices.clone())
        {
            reached.extend(&original.features);
            suite.push(original);
            final_taken.push(suite.len() - 1);
        }
    }
    report.after = stats(&final_taken, &suite);
    report.kept_features = universe.common(&reached);
    for n in final_taken {
        let rendered = execute(
            property,
            Source::replay(suite[n].choices.clone(), limits),
            true,
        );
        report.selected.push(CoveringInput {
            choices: suite[n].choices.clone(),
            args: rendered
                .args
                .iter()
                .flatten()
                .map(|(name, value)| (name.to_string(), value.clone()))
                .collect(),
            features: std::mem::take(&mut suite[n].features),
        });
    }
    emit(&Event::Minimized(Box::new(report)));
    Ok(())
}
