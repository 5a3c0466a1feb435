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
//!
//! [`meter`] runs the inputs and reads their features; [`select`] chooses
//! the suite.

pub(crate) mod meter;
mod select;

use std::collections::HashSet;
use std::path::Path;
use std::time::Duration;

use crate::choice::trim_trailing_zeros;
use crate::config::Config;
use crate::engine::cover::FeatureSet;
use crate::engine::input::load_corpus_dir;
use crate::engine::{campaign_limits, instrumented_counters, open_inflight, rendered_pairs};
use crate::info::PropertyInfo;
use crate::property::{Case, PropertyFn, execute, take_over_panic_hook};
use crate::shrink::{ShrinkBudget, shrink_while};
use crate::source::{Limits, Source};
use covcheck_protocol::seeds::{Seed, SeedKind};
use covcheck_protocol::worker::{
    CoveringInput, Event, FailureKind, MinimizeReport, SuiteStats, WorkerConfig, WorkerMode, emit,
};
use meter::{Guard, Meter};
use select::{Measured, Selection, size_of_choices};

/// Shrinking one covering input stops here: it only has to keep its
/// features, and a suite has many inputs.
const SHRINK_BUDGET: ShrinkBudget = ShrinkBudget {
    max_runs: 4_000,
    max_time: Duration::from_secs(10),
};

/// Minimizes the property's corpus and seeds into a covering suite and
/// sends it as a [`MinimizeReport`].
pub fn run(
    info: &PropertyInfo,
    property: &PropertyFn<'_>,
    request: &WorkerConfig,
) -> Result<(), String> {
    // Corpus entries were found under the campaign's limits.
    let limits = campaign_limits(Config::resolve(&info.attributes)?.limits);
    let counters = instrumented_counters(info)?;
    let inflight = open_inflight(request)?;
    let skip = match &request.mode {
        WorkerMode::Minimize { skip } => skip.iter().cloned().collect(),
        _ => HashSet::new(),
    };
    let timeout = Duration::from_millis(request.timeout_ms.max(1));
    let guard = Guard::new(inflight, skip, timeout);
    let guarded = |src: &mut Source| guard.run(property, src);
    let property: &PropertyFn<'_> = &guarded;
    take_over_panic_hook();
    let mut meter = Meter::new(property, &guard, limits, counters);
    let seeds = info.seed_store().load().map_err(|e| e.to_string())?;
    let mut report = MinimizeReport::default();

    // 1. Measure. Failure seeds first: their features are covered already.
    let mut pool = Pool::default();
    pool.measure_seeds(&mut meter, &seeds, &mut report);
    pool.measure_corpus(&mut meter, &request.corpus_dir, &mut report);
    let universe = pool.universe();
    report.measured = SuiteStats {
        inputs: pool.candidates.len(),
        bytes: pool
            .candidates
            .iter()
            .map(|c| size_of_choices(&c.choices))
            .sum(),
        features: universe.len(),
    };

    // 2. Select.
    let selection = Selection::new(&pool.covered);
    let candidates = &mut pool.candidates;
    report.forward_pass = selection.stats(&selection.forward_pass(candidates), candidates);
    let taken = selection.seeds_first(candidates);
    report.set_cover = selection.stats(&taken, candidates);
    let originals: Vec<Measured> = taken
        .into_iter()
        .map(|n| std::mem::take(&mut candidates[n]))
        .collect();

    // 3. Shrink each while it keeps what only it covers, then select again.
    let mut suite = originals.clone();
    shrink_suite(&mut meter, property, limits, &pool.covered, &mut suite);
    let (taken, reached) = selection.final_suite(&mut suite, originals);
    report.after = selection.stats(&taken, &suite);
    report.kept_features = universe.common(&reached);
    for n in taken {
        let rendered = execute(
            property,
            Source::replay(suite[n].choices.clone(), limits),
            true,
        );
        report.selected.push(CoveringInput {
            choices: suite[n].choices.clone(),
            args: rendered_pairs(&rendered),
            features: std::mem::take(&mut suite[n].features),
        });
    }
    emit(&Event::Minimized(Box::new(report)));
    Ok(())
}

/// The measured inputs a suite is selected from.
#[derive(Default)]
struct Pool {
    /// The features failure seeds reach: always kept, so covered from the
    /// start.
    covered: FeatureSet,
    /// The choices of every candidate, so that each is considered once.
    seen: HashSet<Vec<u64>>,
    candidates: Vec<Measured>,
}

impl Pool {
    /// Measures the saved seeds, counting them as the suite before, and
    /// takes the passing covering seeds as candidates. Failure seeds of
    /// crash kinds are not run: they would end this process.
    fn measure_seeds(
        &mut self,
        meter: &mut Meter<'_, '_>,
        seeds: &[Seed],
        report: &mut MinimizeReport,
    ) {
        let mut on_disk = FeatureSet::default();
        let mut on_disk_stats = SuiteStats::default();
        for seed in seeds {
            on_disk_stats.inputs += 1;
            on_disk_stats.bytes += size_of_choices(&seed.indices);
            let crash_kind = seed
                .file
                .failure_kind()
                .is_some_and(|kind| kind != FailureKind::Panic);
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
                self.covered.extend(&features);
            } else if case.failure().is_some() {
                report.failing_inputs += 1;
                report.failing_seeds.push(name);
            } else if self.seen.insert(seed.indices.clone()) {
                // As stored: an equal selection keeps this very file.
                self.candidates.push(Measured {
                    choices: seed.indices.clone(),
                    features,
                    seed: true,
                });
            }
        }
        on_disk_stats.features = on_disk.len();
        report.seeds_before = on_disk_stats;
    }

    /// Measures the campaigns' corpus cache and takes its passing inputs as
    /// candidates.
    fn measure_corpus(
        &mut self,
        meter: &mut Meter<'_, '_>,
        dir: &Path,
        report: &mut MinimizeReport,
    ) {
        for choices in load_corpus_dir(dir) {
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
            if self.seen.insert(choices.clone()) {
                report.corpus_inputs += 1;
                self.candidates.push(Measured {
                    choices,
                    features,
                    seed: false,
                });
            }
        }
    }

    /// Every feature the failure seeds and the candidates reach.
    fn universe(&self) -> FeatureSet {
        let mut universe = self.covered.clone();
        for c in &self.candidates {
            universe.extend(&c.features);
        }
        universe
    }
}

/// Shrinks each input of `suite` that is not a saved seed (those were
/// shrunk when they were saved) while it keeps the features that no other
/// input of the suite, nor a failure seed (`covered`), reaches.
fn shrink_suite(
    meter: &mut Meter<'_, '_>,
    property: &PropertyFn<'_>,
    limits: Limits,
    covered: &FeatureSet,
    suite: &mut [Measured],
) {
    for n in 0..suite.len() {
        if suite[n].seed {
            continue;
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
        if let Some(shrunk) = shrink_keeping(meter, property, limits, &suite[n].choices, &unique) {
            suite[n] = shrunk;
        }
    }
}

/// `choices` shrunk while it passes and reaches every feature of `unique`,
/// measured again; `None` (keep the original) when a run ended an earlier
/// worker.
fn shrink_keeping(
    meter: &mut Meter<'_, '_>,
    property: &PropertyFn<'_>,
    limits: Limits,
    choices: &[u64],
    unique: &[u32],
) -> Option<Measured> {
    // It ran when it was measured, so it runs again.
    let (start, _) = meter.measure(choices)?;
    let mut keep = |case: &Case| {
        meter.tick();
        let features = meter.take_features();
        case.failure().is_none() && unique.iter().all(|f| features.binary_search(f).is_ok())
    };
    let shrunk = shrink_while(property, limits, start, SHRINK_BUDGET, &mut keep);
    let choices = trim_trailing_zeros(&shrunk.case.indices()).to_vec();
    let (_, features) = meter.measure(&choices)?;
    Some(Measured {
        choices,
        features,
        seed: false,
    })
}
