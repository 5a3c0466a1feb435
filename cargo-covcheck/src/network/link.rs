//! What the campaigns of one machine share with the other machines: per
//! property, the local broker's port, the failures found anywhere and the
//! stopper of its campaign; and the control connections to announce on.

use std::net::TcpStream;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use covcheck_protocol::worker::FailureKind;

use super::control::{self, Control};
use crate::supervise::Stopper;
use crate::supervise::broker::Broker;

/// A campaign across machines, as this machine takes part in it. Dropping
/// it ends this machine's part: the hub tells the joiners it is done.
#[derive(Debug)]
pub struct Network {
    pub(super) shared: Arc<Shared>,
    /// The local brokers, one per property, alive as long as this is.
    pub(super) _brokers: Vec<Broker>,
    /// The address of the hub (on a joiner) or the one listened on (hub).
    pub address: String,
    pub(super) is_hub: bool,
}

/// What the control threads and the campaigns share.
#[derive(Debug)]
pub(super) struct Shared {
    pub links: Vec<PropertyLink>,
    /// The control connections to announce on: every joiner's (hub), the
    /// hub's (joiner).
    pub peers: Mutex<Vec<TcpStream>>,
    /// The hub went away without saying it was done (joiner).
    pub hub_lost: AtomicBool,
}

/// A failure found on another machine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FoundElsewhere {
    pub kind: FailureKind,
    pub location: String,
    pub machine: String,
}

/// One property's part in a campaign across machines.
#[derive(Debug)]
pub struct PropertyLink {
    pub index: usize,
    /// The port of this machine's broker of the property.
    pub broker_port: u16,
    /// Stops this machine's workers of the property.
    pub stopper: Stopper,
    keep_going: bool,
    /// Failures of the property found so far, anywhere: (kind, location),
    /// and the machine, for those found elsewhere.
    found: Mutex<Vec<(FailureKind, String, Option<String>)>>,
}

impl PropertyLink {
    pub(super) fn new(index: usize, broker_port: u16, keep_going: bool) -> PropertyLink {
        PropertyLink {
            index,
            broker_port,
            stopper: Stopper::default(),
            keep_going,
            found: Mutex::new(Vec::new()),
        }
    }

    /// Notes a failure found on another machine; unless `--keep-going`,
    /// the property's workers here stop (the failure is saved there).
    pub(super) fn found_elsewhere(&self, kind: FailureKind, location: String, machine: String) {
        {
            let mut found = self.found.lock().expect("no panics while held");
            if found.iter().any(|(k, l, _)| *k == kind && *l == location) {
                return;
            }
            found.push((kind, location, Some(machine)));
        }
        if !self.keep_going {
            self.stopper.stop();
        }
    }

    /// Takes a failure found here: false when another machine found it
    /// first (then it is not saved here).
    fn claim(&self, kind: FailureKind, location: &str) -> bool {
        let mut found = self.found.lock().expect("no panics while held");
        if found.iter().any(|(k, l, _)| *k == kind && l == location) {
            return false;
        }
        found.push((kind, location.to_string(), None));
        true
    }

    /// The failures other machines found.
    pub fn elsewhere(&self) -> Vec<FoundElsewhere> {
        self.found
            .lock()
            .expect("no panics while held")
            .iter()
            .filter_map(|(kind, location, machine)| {
                Some(FoundElsewhere {
                    kind: *kind,
                    location: location.clone(),
                    machine: machine.clone()?,
                })
            })
            .collect()
    }
}

/// Starts this machine's broker of each property, bound as `binds` says
/// (the address to listen on, and the remote broker to link to), and
/// their links; the brokers' logs go to `work`.
pub(super) fn start_brokers(
    binds: impl Iterator<Item = (String, Option<String>)>,
    program: &std::path::Path,
    work: &std::path::Path,
    keep_going: bool,
) -> Result<(Vec<Broker>, Vec<PropertyLink>), crate::error::NetworkError> {
    let (mut brokers, mut links) = (Vec::new(), Vec::new());
    for (index, (bind, join)) in binds.enumerate() {
        let log = work.join(format!("broker-{index}.log"));
        let broker = Broker::start(program, &bind, join.as_deref(), &log)
            .map_err(|problem| crate::error::NetworkError::Broker { problem })?;
        links.push(PropertyLink::new(index, broker.port, keep_going));
        brokers.push(broker);
    }
    Ok((brokers, links))
}

impl Network {
    /// The link of property `index`.
    pub fn link(&self, index: usize) -> &PropertyLink {
        &self.shared.links[index]
    }

    /// Takes a failure this machine found in property `index` and tells
    /// the other machines; false when another machine found it first.
    pub fn claim(&self, index: usize, kind: FailureKind, location: &str) -> bool {
        if !self.shared.links[index].claim(kind, location) {
            return false;
        }
        let message = Control::Found {
            property: index,
            kind,
            location: location.to_string(),
            machine: control::machine_name(),
        };
        self.shared.announce(&message, None);
        true
    }

    /// Whether this joiner lost its hub (it went away without a word).
    pub fn hub_lost(&self) -> bool {
        self.shared.hub_lost.load(Ordering::SeqCst)
    }

    /// Whether this machine is the hub.
    pub fn is_hub(&self) -> bool {
        self.is_hub
    }

    /// The ports of this machine's brokers, as `7071-7073`.
    pub fn broker_ports(&self) -> String {
        let ports: Vec<u16> = self.shared.links.iter().map(|l| l.broker_port).collect();
        match (ports.iter().min(), ports.iter().max()) {
            (Some(a), Some(b)) if a != b => format!("{a}-{b}"),
            (Some(a), _) => a.to_string(),
            _ => "none".to_string(),
        }
    }
}

impl Shared {
    /// Sends `message` on every control connection but `except`'s (the one
    /// it came from, when passed on).
    pub fn announce(&self, message: &Control, except: Option<&std::net::SocketAddr>) {
        let mut peers = self.peers.lock().expect("no panics while held");
        peers.retain_mut(|peer| {
            let from = peer.peer_addr().ok();
            if except.is_some() && from.as_ref() == except {
                return true;
            }
            control::send(peer, message).is_ok()
        });
    }

    /// Stops every property's workers (the hub is done, or lost).
    pub fn stop_all(&self) {
        for link in &self.links {
            link.stopper.stop();
        }
    }
}

impl Drop for Network {
    fn drop(&mut self) {
        if self.is_hub {
            self.shared.announce(&Control::Done, None);
        }
        for peer in self
            .shared
            .peers
            .lock()
            .expect("no panics while held")
            .iter()
        {
            let _ = peer.shutdown(std::net::Shutdown::Both);
        }
    }
}
