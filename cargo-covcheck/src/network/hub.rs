//! The hub: listens for joining machines, starts a broker per property on
//! the ports after its own, and keeps a control connection to each joiner.

use std::io::BufReader;
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::Path;
use std::sync::Arc;

use super::control::{self, Control};
use super::link::{Network, Shared, start_brokers};
use crate::discover::Property;
use crate::error::NetworkError;

/// Makes this invocation the hub of a campaign across machines, listening
/// on `address` (`0.0.0.0:7070`, or `127.0.0.1:7070` for one machine).
pub fn listen(
    address: &str,
    properties: &[Property],
    broker_program: &Path,
    work: &Path,
    keep_going: bool,
) -> Result<Network, NetworkError> {
    let listener = TcpListener::bind(address).map_err(|source| NetworkError::Listen {
        address: address.to_string(),
        source,
    })?;
    let local = listener
        .local_addr()
        .map_err(|source| NetworkError::Listen {
            address: address.to_string(),
            source,
        })?;
    let binds = (0..properties.len())
        .map(|index| {
            Ok((
                SocketAddr::new(local.ip(), broker_port(local, index)?).to_string(),
                None,
            ))
        })
        .collect::<Result<Vec<_>, NetworkError>>()?;
    let (brokers, links) = start_brokers(binds.into_iter(), broker_program, work, keep_going)?;
    let shared = Arc::new(Shared {
        links,
        peers: Default::default(),
        hub_lost: Default::default(),
    });
    let (version, names) = super::identity(properties);
    let accepting = shared.clone();
    let ports: Vec<u16> = brokers.iter().map(|b| b.port).collect();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let (shared, version, names, ports) = (
                accepting.clone(),
                version.clone(),
                names.clone(),
                ports.clone(),
            );
            std::thread::spawn(move || serve(stream, &shared, &version, &names, ports));
        }
    });
    Ok(Network {
        shared,
        _brokers: brokers,
        address: local.to_string(),
        is_hub: true,
    })
}

/// The port of property `index`'s broker: the ones after the hub's.
fn broker_port(hub: SocketAddr, index: usize) -> Result<u16, NetworkError> {
    u16::try_from(hub.port() as usize + 1 + index)
        .map_err(|_| NetworkError::NoPorts { port: hub.port() })
}

/// One joiner's control connection: the handshake, then the findings it
/// announces, passed on to the other joiners.
fn serve(stream: TcpStream, shared: &Shared, version: &str, names: &[String], ports: Vec<u16>) {
    let Ok(writer) = stream.try_clone() else {
        return;
    };
    let from = stream.peer_addr().ok();
    let mut reader = BufReader::new(stream);
    let Some(Control::Hello {
        covcheck,
        properties,
    }) = control::receive(&mut reader)
    else {
        return;
    };
    let mut writer = writer;
    if let Some(reason) = refusal(version, names, &covcheck, &properties) {
        let _ = control::send(&mut writer, &Control::Refused { reason });
        return;
    }
    if control::send(&mut writer, &Control::Welcome { brokers: ports }).is_err() {
        return;
    }
    shared
        .peers
        .lock()
        .expect("no panics while held")
        .push(writer);
    while let Some(message) = control::receive(&mut reader) {
        if let Control::Found {
            property,
            kind,
            location,
            machine,
        } = &message
            && let Some(link) = shared.links.get(*property)
        {
            link.found_elsewhere(*kind, location.clone(), machine.clone());
            shared.announce(&message, from.as_ref());
        }
    }
    // The joiner went away: the hub goes on.
}

/// Why a joiner with `covcheck` and `properties` cannot join a hub with
/// `version` and `names`, if it cannot.
pub fn refusal(
    version: &str,
    names: &[String],
    covcheck: &str,
    properties: &[String],
) -> Option<String> {
    if covcheck != version {
        return Some(format!(
            "the hub runs covcheck {version} and this machine covcheck {covcheck}: install \
             the same cargo-covcheck on both"
        ));
    }
    if properties == names {
        return None;
    }
    let only = |a: &[String], b: &[String]| -> Vec<String> {
        a.iter().filter(|p| !b.contains(p)).cloned().collect()
    };
    let (hub_only, joiner_only) = (only(names, properties), only(properties, names));
    let list = |v: &[String]| {
        if v.is_empty() {
            "none".to_string()
        } else {
            v.join(", ")
        }
    };
    Some(format!(
        "the hub's properties differ from this machine's (only on the hub: {}; only here: \
         {}{}): build the same commit and select the same properties on both",
        list(&hub_only),
        list(&joiner_only),
        if hub_only.is_empty() && joiner_only.is_empty() {
            "; the same ones in another order"
        } else {
            ""
        }
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_joiner_is_refused_with_what_differs() {
        let names = vec!["p a".to_string(), "p b".to_string()];
        assert_eq!(refusal("1", &names, "1", &names), None);
        let version = refusal("1", &names, "2", &names).unwrap();
        assert!(
            version.contains("covcheck 1") && version.contains("covcheck 2"),
            "{version}"
        );
        let other = refusal("1", &names, "1", &["p a".into(), "p c".into()]).unwrap();
        assert!(
            other.contains("only on the hub: p b; only here: p c"),
            "{other}"
        );
    }
}
