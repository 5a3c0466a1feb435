//! `cargo covcheck --since REV`: a campaign aimed at what a change touched.
//!
//! The change is read before anything is built, so that a directory that is
//! no git checkout, or a revision it does not have, is an error at once
//! (exit 2), not after minutes of compiling. Once the properties are built,
//! each one's corpus runs in a reach worker ([`changed::corpus_reach`]), and
//! [`changed::aim()`] maps the changed lines to each test binary's counters:
//! the properties whose corpus reaches them go first, and their workers
//! favour the entries that run them. After the campaigns, the corpora are
//! measured again on the coverage report's build ([`Build::Coverage`]),
//! whose every block has a counter: the campaign build leaves some out (a
//! block implied by others), and a changed line in such a block would pass
//! for reached. The changed lines no property reached are named: the gap
//! a reviewer should see.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use crate::changed::{self, Aim, ChangedLines};
use crate::cli::BuildArgs;
use crate::compile::Build;
use crate::discover::{Filter, Property};
use crate::error::Error;
use crate::events::ChangeReach;
use crate::report::Reporter;
use crate::supervise::Settings;

/// The lines changed since `rev` in the checkout holding the manifest
/// (or the current directory).
pub fn read_change(rev: &str, manifest_path: Option<&Path>) -> Result<ChangedLines, Error> {
    let dir = manifest_path
        .and_then(Path::parent)
        .filter(|d| !d.as_os_str().is_empty())
        .map_or_else(|| PathBuf::from("."), Path::to_path_buf);
    Ok(changed::changed_lines(&dir, rev)?)
}

/// Where the campaigns of `properties` aim: what each corpus reaches of
/// the change. The properties whose corpus reaches changed code are moved
/// to the front (they run first when properties take turns).
pub fn aim_at(
    change: &ChangedLines,
    properties: &mut [Property],
    settings: &Settings,
    jobs: usize,
) -> Result<Aim, Error> {
    let reports = changed::corpus_reach(properties, settings, jobs);
    let aim = changed::aim(properties, &reports, change).map_err(Error::Report)?;
    let mut order: Vec<usize> = (0..properties.len()).collect();
    order.sort_by_key(|&n| aim.reached[n].is_empty());
    if order.windows(2).all(|w| w[0] < w[1]) {
        return Ok(aim);
    }
    let sorted: Vec<Property> = order.iter().map(|&n| properties[n].clone()).collect();
    properties.clone_from_slice(&sorted);
    // The reach reports follow the properties' new order.
    let reports: Vec<_> = order.into_iter().map(|n| reports[n].clone()).collect();
    changed::aim(properties, &reports, change).map_err(Error::Report)
}

/// The counters of changed code in each property's test binary (none
/// without an aim).
pub fn focus(aim: Option<&Aim>, properties: &[Property]) -> Vec<Vec<u32>> {
    (properties.iter())
        .map(|property| {
            aim.and_then(|aim| aim.of_binary(&property.binary.path))
                .map_or_else(Vec::new, |code| code.counters.iter().copied().collect())
        })
        .collect()
}

/// What the aim says before the campaigns: the change's lines with code
/// and the properties whose corpus reaches them.
pub fn aimed(change: &ChangedLines, aim: &Aim, properties: &[Property]) -> ChangeReach {
    ChangeReach {
        base: change.base.clone(),
        top: change.top.clone(),
        changed: change.len(),
        with_code: lines_with_code(aim),
        unreached: Vec::new(),
        reaching: (properties.iter().zip(&aim.reached))
            .filter(|(_, reached)| !reached.is_empty())
            .map(|(p, _)| p.listing.full_path.clone())
            .collect(),
    }
}

/// What the change comes to after the campaigns: the properties whose
/// corpus reached it before the run (`aim`), and, measured on the coverage
/// build, its lines with code and those no property's corpus reaches now.
pub fn reach_of_change(
    change: &ChangedLines,
    aim: &Aim,
    properties: &[Property],
    (build, filter, settings, jobs): (&BuildArgs, Filter<'_>, &Settings, usize),
    reporter: &mut dyn Reporter,
) -> Result<ChangeReach, Error> {
    let (_, measured) = super::build_and_discover(build, filter, Build::Coverage, reporter)?;
    let reports = changed::corpus_reach(&measured, settings, jobs);
    let after = changed::aim(&measured, &reports, change).map_err(Error::Report)?;
    let reached = after.reached_per_binary(&measured);
    Ok(ChangeReach {
        unreached: after.unreached_lines(&reached),
        with_code: lines_with_code(&after),
        ..aimed(change, aim, properties)
    })
}

/// The changed lines with code in some test binary.
fn lines_with_code(aim: &Aim) -> usize {
    let lines: HashSet<&(PathBuf, u32)> = aim
        .binaries
        .values()
        .flat_map(|code| code.lines.keys())
        .collect();
    lines.len()
}
