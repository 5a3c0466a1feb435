//! The control connection between a joining machine and the hub: one JSON
//! object per line, each way.

use std::io::{BufRead, Write};

use covcheck_protocol::worker::FailureKind;
use serde::{Deserialize, Serialize};

/// One line of the control connection.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "kebab-case")]
pub enum Control {
    /// Joiner → hub, first: who it is.
    Hello {
        covcheck: String,
        properties: Vec<String>,
    },
    /// Hub → joiner: accepted; the port of each property's broker.
    Welcome { brokers: Vec<u16> },
    /// Hub → joiner: not accepted, and why.
    Refused { reason: String },
    /// Either way (the hub passes it on to the other joiners): a machine
    /// found a failure of property `property` and saved it.
    Found {
        property: usize,
        kind: FailureKind,
        location: String,
        /// The machine that found it.
        machine: String,
    },
    /// Hub → joiner: the hub's campaigns are over.
    Done,
}

/// Writes `message` as one line.
pub fn send(to: &mut impl Write, message: &Control) -> std::io::Result<()> {
    let mut line = serde_json::to_string(message).expect("control messages serialize");
    line.push('\n');
    to.write_all(line.as_bytes())?;
    to.flush()
}

/// Reads the next message; `None` at the end of the connection (or a line
/// that is not one, which ends it too: both ends are the same covcheck).
pub fn receive(from: &mut impl BufRead) -> Option<Control> {
    let mut line = String::new();
    match from.read_line(&mut line) {
        Ok(0) | Err(_) => None,
        Ok(_) => serde_json::from_str(&line).ok(),
    }
}

/// This machine's name, for the other machines' reports.
pub fn machine_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|name| name.trim().to_string())
        .ok()
        .filter(|name| !name.is_empty())
        .unwrap_or_else(|| "a machine".to_string())
        + &format!(" (pid {})", std::process::id())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_go_through_a_line_each() {
        let messages = [
            Control::Hello {
                covcheck: "0.1.0".into(),
                properties: vec!["p a::b".into()],
            },
            Control::Found {
                property: 3,
                kind: FailureKind::Panic,
                location: "src/lib.rs:1:1".into(),
                machine: "m".into(),
            },
            Control::Done,
        ];
        let mut wire = Vec::new();
        for message in &messages {
            send(&mut wire, message).unwrap();
        }
        assert_eq!(wire.iter().filter(|&&b| b == b'\n').count(), 3);
        let mut reader = std::io::BufReader::new(&wire[..]);
        for message in &messages {
            assert_eq!(receive(&mut reader).as_ref(), Some(message));
        }
        assert_eq!(receive(&mut reader), None, "the end of the connection");
    }
}
