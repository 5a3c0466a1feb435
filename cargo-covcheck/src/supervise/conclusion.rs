//! What a property's campaign comes to once its lanes have ended: its
//! summary, performance mode's conclusions (growth, seed), and what
//! the other machines of a campaign across machines found.

use covcheck_protocol::worker::{CostProfile, Progress};

use super::Settings;
use super::findings::Findings;
use super::outlet::Outlet;
use super::schedule::Standing;
use crate::events::{Summary, Update};
use crate::network::Network;
use crate::perf::{self, PerfReport, PerfSeed};

/// The summary of a campaign that ran `all` on `workers` workers and hit
/// `errors` of covcheck's own; sent, and noted in its series.
pub fn summarise(
    out: &Outlet<'_, '_>,
    (settings, findings, network): (&Settings, &Findings<'_>, Option<&Network>),
    all: Progress,
    (workers, elapsed, standing): (usize, std::time::Duration, Option<Standing>),
    errors: usize,
) -> Summary {
    let mut summary = Summary {
        execs: all.execs,
        imported: all.imported,
        edges: all.edges,
        corpus: all.corpus,
        tokens: all.tokens,
        targets: all.targets,
        workers,
        perf: all
            .costs
            .map(|profile| Box::new(conclude_perf(out, settings, profile))),
        failures: findings.reported(),
        bugs: findings.bugs(&all.hits),
        errors,
        elapsed,
        slices: standing.as_ref().map_or(0, |s| s.slices),
        last_new: standing.and_then(|s| s.last_new),
    };
    if let Some(network) = network {
        network_outcome(out, findings, network, &mut summary);
    }
    out.record(&Progress {
        execs: summary.execs,
        edges: summary.edges,
        corpus: summary.corpus,
        ..Progress::default()
    });
    out.send(Update::Finished(summary.clone()));
    summary
}

/// Performance mode's conclusions (growth, seed) from the costliest
/// inputs of the campaign's workers.
fn conclude_perf(out: &Outlet<'_, '_>, settings: &Settings, profile: CostProfile) -> PerfReport {
    let property = out.property;
    let report = perf::conclude(property, profile, settings.save);
    if let PerfSeed::Failed(problem) = &report.seed {
        out.send(Update::Warning(format!(
            "the costliest input of {} was not saved: {problem}",
            property.listing.full_path
        )));
    }
    report
}

/// What the other machines did to this campaign: failures they found
/// (counted here too, as the run's verdict; saved there), or the hub lost.
fn network_outcome(
    out: &Outlet<'_, '_>,
    findings: &Findings<'_>,
    network: &Network,
    summary: &mut Summary,
) {
    for found in network.link(findings.index()).elsewhere() {
        if !findings.seen(found.kind, &found.location) {
            summary.failures.push(found.kind);
            out.send(Update::FoundElsewhere(found));
        }
    }
    if network.hub_lost() {
        summary.errors += 1;
        out.send(Update::HubLost(network.address.clone()));
    }
}
