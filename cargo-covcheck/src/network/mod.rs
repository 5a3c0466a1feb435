//! Campaigns across machines: one `cargo covcheck --listen ADDR` is the hub,
//! others `cargo covcheck --join ADDR` it.
//!
//! The corpus travels through LibAFL's LLMP: each machine runs one broker
//! per property (`covcheck-broker`), and each joining machine's broker links
//! to the hub's over TCP (LLMP's broker-to-broker link), so that every
//! worker of a property, on any machine, receives the others' new corpus
//! entries. Beside it, a small control connection from each joiner to the
//! hub ([`control`]) carries what LLMP does not: the handshake (same
//! covcheck, same properties, and the hub's broker ports), the findings
//! (so that a failure is saved once, where it was found, and the property
//! stops everywhere), and the hub's end.
//!
//! Ports: the hub listens on ADDR's port for joiners, and property `n` (in
//! the order `cargo covcheck list` prints them) has its broker on that port
//! plus `1 + n`; a firewall must let the joiners reach all of them.

pub mod control;
mod hub;
mod joiner;
mod link;

pub use hub::listen;
pub use joiner::join;
pub use link::{FoundElsewhere, Network, PropertyLink};

use crate::discover::Property;

/// What two machines must agree on: the covcheck that runs the campaigns
/// (its version and its engine's) and the properties, in order.
pub fn identity(properties: &[Property]) -> (String, Vec<String>) {
    let version = format!(
        "{} (engine {:016x})",
        env!("CARGO_PKG_VERSION"),
        crate::engine::version_hash()
    );
    let names = properties
        .iter()
        .map(|p| format!("{} {}", p.listing.package, p.listing.full_path))
        .collect();
    (version, names)
}
