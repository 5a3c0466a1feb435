//! Performance mode's conclusions from a campaign's cost profile (the
//! costliest input of each size, [`CostProfile`]): the growth that fits it
//! ([`growth`]) and the costliest input saved as a `kind = "performance"`
//! seed, to replay as a regression case. Its plot is drawn for display by
//! [`crate::report::cost_plot`].
//!
//! A new performance seed is saved only when its input costs more than
//! every performance seed the property already has: a campaign that found
//! nothing costlier leaves the seed directory as it was, and seeds are
//! never deleted.

pub mod growth;

use std::path::PathBuf;

use crate::discover::Property;
use covcheck_protocol::messages::PerfResult;
use covcheck_protocol::seeds::{PerformanceRecord, SeedFile, SeedKind};
use covcheck_protocol::worker::CostProfile;
use growth::Fit;

/// What performance mode concluded about one property.
#[derive(Clone, Debug, Default)]
pub struct PerfReport {
    pub profile: CostProfile,
    /// The growth of the costliest inputs with their size, when enough
    /// sizes were seen to fit one.
    pub fit: Option<Fit>,
    /// The cost-against-size plot, once it is written
    /// ([`crate::report::cost_plot::write`]).
    pub plot: Option<PathBuf>,
    pub seed: PerfSeed,
}

impl PerfReport {
    /// The report as tools read it (`--message-format json`).
    pub fn into_result(self) -> PerfResult {
        PerfResult {
            growth: self.fit.map(|f| f.growth.name().to_string()),
            exponent: self.fit.map(|f| f.exponent),
            points: self.profile.points.into_iter().map(Into::into).collect(),
            costliest: self.profile.costliest.map(Into::into),
            seed: match self.seed {
                PerfSeed::Saved(path) => Some(path),
                _ => None,
            },
            plot: self.plot,
        }
    }
}

/// What became of the costliest input.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum PerfSeed {
    /// No input ran (or `--no-save`).
    #[default]
    None,
    /// Saved as a new performance seed.
    Saved(PathBuf),
    /// An existing performance seed of the property costs at least as much.
    NotCostlier { existing: PathBuf, cost: u64 },
    /// Saving failed.
    Failed(String),
}

/// Of two workers' profiles, the one with the costlier input (workers of a
/// property measure the same cost, so the other adds nothing to report).
pub fn costlier(before: Option<CostProfile>, later: Option<CostProfile>) -> Option<CostProfile> {
    let cost = |p: &Option<CostProfile>| {
        p.as_ref()
            .and_then(|p| p.costliest.as_ref())
            .map(|c| c.cost)
    };
    if cost(&later) > cost(&before) {
        later
    } else {
        before.or(later)
    }
}

/// Fits and, when `save`, saves the costliest input of `property`'s
/// `profile`.
pub fn conclude(property: &Property, profile: CostProfile, save: bool) -> PerfReport {
    let fit = growth::fit(&profile.points);
    let seed = if save {
        save_costliest(property, &profile)
    } else {
        PerfSeed::None
    };
    PerfReport {
        profile,
        fit,
        plot: None,
        seed,
    }
}

fn save_costliest(property: &Property, profile: &CostProfile) -> PerfSeed {
    let Some(costliest) = &profile.costliest else {
        return PerfSeed::None;
    };
    let store = property.seed_store();
    let (seeds, _) = store.load_valid();
    let existing = seeds
        .iter()
        .filter(|s| s.file.kind == SeedKind::Performance)
        .filter_map(|s| Some((s.path.clone(), s.file.performance?.cost)))
        .max_by_key(|(_, cost)| *cost);
    if let Some((existing, cost)) = existing
        && cost >= costliest.cost
    {
        return PerfSeed::NotCostlier { existing, cost };
    }
    let file = SeedFile::performance(
        &property.listing.full_path,
        &costliest.choices,
        costliest.size_limit,
        PerformanceRecord {
            cost: costliest.cost,
            size: costliest.size,
            median: costliest.median,
        },
        &costliest.args,
    );
    match store.save(&file) {
        Ok(path) => PerfSeed::Saved(path),
        Err(e) => PerfSeed::Failed(format!(
            "could not save the seed in {}: {e}",
            store.dir().display()
        )),
    }
}
