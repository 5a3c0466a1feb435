//! A joining machine: the handshake with the hub, a broker per property
//! linked to the hub's, and the control connection's reader.

use std::io::BufReader;
use std::net::{TcpStream, ToSocketAddrs};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::Ordering;

use super::control::{self, Control};
use super::link::{Network, Shared, start_brokers};
use crate::discover::Property;
use crate::error::NetworkError;

/// Joins the hub at `address` (`host:port`, the hub's `--listen` port).
pub fn join(
    address: &str,
    properties: &[Property],
    broker_program: &Path,
    work: &Path,
    keep_going: bool,
) -> Result<Network, NetworkError> {
    let unreachable = |source| NetworkError::Unreachable {
        address: address.to_string(),
        source,
    };
    let hub = address
        .to_socket_addrs()
        .map_err(unreachable)?
        .next()
        .ok_or_else(|| unreachable(std::io::ErrorKind::NotFound.into()))?;
    let stream = TcpStream::connect(hub).map_err(unreachable)?;
    let mut writer = stream.try_clone().map_err(unreachable)?;
    let mut reader = BufReader::new(stream);
    let (covcheck, names) = super::identity(properties);
    let hello = Control::Hello {
        covcheck,
        properties: names,
    };
    control::send(&mut writer, &hello).map_err(unreachable)?;
    let ports = match control::receive(&mut reader) {
        Some(Control::Welcome { brokers }) if brokers.len() == properties.len() => brokers,
        Some(Control::Refused { reason }) => {
            return Err(NetworkError::Refused {
                address: address.to_string(),
                reason,
            });
        }
        _ => {
            return Err(NetworkError::NotAHub {
                address: address.to_string(),
            });
        }
    };
    // Each linked to the hub's broker of the same property.
    let binds = ports.into_iter().map(|port| {
        let remote = std::net::SocketAddr::new(hub.ip(), port).to_string();
        ("127.0.0.1:0".to_string(), Some(remote))
    });
    let (brokers, links) = start_brokers(binds, broker_program, work, keep_going)?;
    let shared = Arc::new(Shared {
        links,
        peers: std::sync::Mutex::new(vec![writer]),
        hub_lost: Default::default(),
    });
    let listening = shared.clone();
    std::thread::spawn(move || follow_hub(reader, &listening));
    Ok(Network {
        shared,
        _brokers: brokers,
        address: address.to_string(),
        is_hub: false,
    })
}

/// Reads the hub's messages until it is done or gone; either way this
/// machine's campaigns stop (keeping their corpus caches).
fn follow_hub(mut reader: BufReader<TcpStream>, shared: &Shared) {
    loop {
        match control::receive(&mut reader) {
            Some(Control::Found {
                property,
                kind,
                location,
                machine,
            }) => {
                if let Some(link) = shared.links.get(property) {
                    link.found_elsewhere(kind, location, machine);
                }
            }
            Some(Control::Done) => break,
            Some(_) => {}
            None => {
                shared.hub_lost.store(true, Ordering::SeqCst);
                break;
            }
        }
    }
    shared.stop_all();
}
