//! What each property's saved inputs reach, measured: its corpus cache and
//! seeds run once in a reach worker ([`WorkerMode::Reach`]), which reports
//! the coverage counters they reached. The report measures so on its own
//! build ([`crate::compile::Build::Coverage`]), and `--since` on the
//! campaigns' (whose counters are the ones a campaign steers by).
//!
//! Every property of a test binary has the same PC table (each counter's
//! code address), so only the first of each binary sends it, and
//! [`pc_table`] finds it among its binary's reports.

use std::collections::{BTreeMap, HashSet};
use std::path::PathBuf;
use std::sync::mpsc::Sender;

use covcheck_protocol::worker::{ReachReport, WorkerMode};

use crate::discover::Property;
use crate::supervise::{Settings, pool, run_worker, tool_request};

/// Runs the reach worker of each of `properties`, `jobs` at a time, and
/// returns their reports in the order of `properties`; an error says why a
/// property has none (its worker failed, or an input ended it).
pub fn corpus_reach(
    properties: &[Property],
    settings: &Settings,
    jobs: usize,
) -> Vec<Result<ReachReport, String>> {
    let with_pcs = first_of_each_binary(properties);
    let measure = |n, property, _: &Sender<()>| reach(property, settings, with_pcs.contains(&n));
    pool::in_parallel(jobs, properties, measure, |()| {})
}

/// Properties by test binary (their indices, in order).
pub fn by_binary(properties: &[Property]) -> BTreeMap<PathBuf, Vec<usize>> {
    let mut binaries: BTreeMap<PathBuf, Vec<usize>> = BTreeMap::new();
    for (n, property) in properties.iter().enumerate() {
        binaries
            .entry(property.binary.path.clone())
            .or_default()
            .push(n);
    }
    binaries
}

/// The PC table of the binary whose properties are `members` (indices
/// into `reached`, each property's report if it has one): `None` if the
/// property that was to send it has no report.
pub fn pc_table<'r>(members: &[usize], reached: &[Option<&'r ReachReport>]) -> Option<&'r [u64]> {
    members
        .iter()
        .find_map(|&n| reached[n].filter(|r| !r.pcs.is_empty()))
        .map(|r| r.pcs.as_slice())
}

/// The index of the first property of each test binary: it sends the PC
/// table, the same for every property of the binary.
fn first_of_each_binary(properties: &[Property]) -> HashSet<usize> {
    let mut seen: HashSet<&PathBuf> = HashSet::new();
    properties
        .iter()
        .enumerate()
        .filter(|(_, p)| seen.insert(&p.binary.path))
        .map(|(n, _)| n)
        .collect()
}

/// Runs the reach worker of one property.
fn reach(property: &Property, settings: &Settings, pcs: bool) -> Result<ReachReport, String> {
    let (work, config) = tool_request(property, settings, WorkerMode::Reach { pcs });
    let outcome =
        run_worker(property, &work, &config, settings, |_| {}).map_err(|e| e.to_string())?;
    if let Some(report) = outcome.reached {
        return Ok(*report);
    }
    if let Some(error) = outcome.errors.into_iter().next() {
        return Err(error.to_string());
    }
    Err(match outcome.death {
        Some(death) => format!(
            "an input of its corpus or seeds ended the worker ({}: {}); run \
             `cargo covcheck minimize` to find it",
            death.kind.describe(),
            death.detail
        ),
        None => "its worker ended without a report".to_string(),
    })
}
