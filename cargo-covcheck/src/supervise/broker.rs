//! The LLMP broker of one property's campaign (`covcheck-broker`, built with
//! the campaign engine): the process through which the property's workers,
//! and the brokers of other machines, share corpus entries.
//!
//! It runs as long as its [`Broker`] is alive: dropping it closes the
//! broker's stdin, which ends it, and a supervisor that dies takes it along
//! (`PR_SET_PDEATHSIG`).

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};

use crate::interrupt;

/// A running broker.
#[derive(Debug)]
pub struct Broker {
    child: Child,
    stdin: Option<ChildStdin>,
    /// The port it listens on.
    pub port: u16,
}

impl Broker {
    /// Starts the broker at `program`, listening on `bind` (`127.0.0.1:0`:
    /// a free local port) and, with `join`, linked to the broker at that
    /// address. Returns once it listens (and is linked); its stderr is
    /// `log`.
    pub fn start(
        program: &Path,
        bind: &str,
        join: Option<&str>,
        log: &Path,
    ) -> Result<Broker, String> {
        let log_file = std::fs::File::create(log)
            .map_err(|e| format!("cannot create {}: {e}", log.display()))?;
        let mut command = Command::new(program);
        interrupt::die_with_parent(&mut command);
        let mut child = command
            .arg(bind)
            .args(join)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(log_file)
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", program.display()))?;
        let stdin = child.stdin.take();
        let mut lines = BufReader::new(child.stdout.take().expect("piped")).lines();
        let port = lines
            .next()
            .and_then(Result::ok)
            .and_then(|line| line.strip_prefix("port ")?.parse().ok());
        let joined =
            join.is_none() || lines.next().and_then(Result::ok).as_deref() == Some("joined");
        let mut broker = Broker {
            child,
            stdin,
            port: port.unwrap_or(0),
        };
        if port.is_none() || !joined {
            let _ = broker.child.wait();
            let said = std::fs::read_to_string(log).unwrap_or_default();
            return Err(format!(
                "the corpus broker did not start: {}",
                said.trim().trim_start_matches("covcheck-broker: ")
            ));
        }
        Ok(broker)
    }
}

impl Drop for Broker {
    fn drop(&mut self) {
        drop(self.stdin.take());
        let _ = self.child.wait();
    }
}
