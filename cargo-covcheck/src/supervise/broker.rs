//! The LLMP broker of one property's campaign (`covcheck-broker`, built with
//! the campaign engine): the process through which the property's workers,
//! and the brokers of other machines, share corpus entries.
//!
//! It runs as long as its [`Broker`] is alive: [`Broker::stop`] (or
//! dropping it) closes the broker's stdin, which ends it, and a supervisor
//! that dies takes it along (`PR_SET_PDEATHSIG`). A broker that ends before
//! it is asked to (it crashed, or its program is not a broker at all) is
//! seen by [`Broker::watch`]: its workers would otherwise wait for it until
//! the watchdog took their silence for a hang.
//!
//! It is started as a `std::process::Command`, not through cargo-util's
//! `ProcessBuilder` as cargo and the test builds are: that runs a process
//! to its end, where a broker runs beside its campaign, is handed its
//! listening socket between fork and exec, and is ended by closing its
//! stdin or by the supervisor's death.

use std::io::{BufRead, BufReader};
use std::net::TcpListener;
use std::os::fd::AsRawFd;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::interrupt;

/// A running broker.
#[derive(Debug)]
pub struct Broker {
    child: Mutex<Child>,
    stdin: Mutex<Option<ChildStdin>>,
    /// Its stdout, which it never writes to after start-up: the end of it
    /// says that the broker ended.
    stdout: Mutex<Option<ChildStdout>>,
    /// [`Broker::stop`] was called: its end is expected.
    stopping: AtomicBool,
    program: PathBuf,
    log: PathBuf,
    /// The port it listens on.
    pub port: u16,
}

/// The file descriptor a local broker's listening socket is passed as.
const LISTENER_FD: i32 = 3;

impl Broker {
    /// Starts a broker for workers on this machine, without waiting for it:
    /// the socket is bound here and passed to it, so that workers started
    /// at once can connect (the kernel queues them until the broker
    /// accepts), and its start-up costs the campaign no time.
    pub fn start_local(program: &Path, log: &Path) -> Result<Broker, String> {
        let listener = TcpListener::bind("127.0.0.1:0")
            .map_err(|e| format!("cannot listen on a local port: {e}"))?;
        let port = listener.local_addr().map_err(|e| e.to_string())?.port();
        let log_file = std::fs::File::create(log)
            .map_err(|e| format!("cannot create {}: {e}", log.display()))?;
        let fd = listener.as_raw_fd();
        let mut command = Command::new(program);
        interrupt::die_with_parent(&mut command);
        // SAFETY: dup2(2) and fcntl(2) are async-signal-safe; the copy dup2
        // makes has no close-on-exec flag, so the broker inherits it.
        unsafe {
            command.pre_exec(move || {
                let passed = if fd == LISTENER_FD {
                    // Already there: dup2 would keep close-on-exec.
                    libc::fcntl(fd, libc::F_SETFD, 0)
                } else {
                    libc::dup2(fd, LISTENER_FD)
                };
                if passed < 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let child = command
            .arg(format!("fd:{LISTENER_FD}"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(log_file)
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", program.display()))?;
        // Ours closed, the broker holds the only copy: if it dies, workers
        // are refused instead of waiting for it.
        drop(listener);
        Ok(Broker::new(child, program, log, port))
    }

    fn new(mut child: Child, program: &Path, log: &Path, port: u16) -> Broker {
        Broker {
            stdin: Mutex::new(child.stdin.take()),
            stdout: Mutex::new(child.stdout.take()),
            child: Mutex::new(child),
            stopping: AtomicBool::new(false),
            program: program.to_path_buf(),
            log: log.to_path_buf(),
            port,
        }
    }

    /// Waits until the broker ends. When it ends before [`Broker::stop`]
    /// was called, runs `on_death` at once and returns what ended it.
    pub fn watch(&self, on_death: impl FnOnce()) -> Option<String> {
        let stdout = self.stdout.lock().expect("no panics while held").take();
        let mut stdout = stdout?;
        // Returns at the end of the pipe: when the broker ended.
        let _ = std::io::copy(&mut stdout, &mut std::io::sink());
        if self.stopping.load(Ordering::SeqCst) {
            return None;
        }
        on_death();
        let status = self.child.lock().expect("no panics while held").wait();
        let status = status.map_or_else(|e| e.to_string(), |s| s.to_string());
        let said = std::fs::read_to_string(&self.log).unwrap_or_default();
        let said = said.trim();
        Some(format!(
            "the corpus broker {} ended before its campaign did ({status}){}; its workers \
             were stopped. Run without -j, or delete the engine cache directory that holds \
             it so that the next run rebuilds it",
            self.program.display(),
            if said.is_empty() {
                String::new()
            } else {
                format!(", saying: {said}")
            }
        ))
    }

    /// Ends the broker: its campaign is over.
    pub fn stop(&self) {
        self.stopping.store(true, Ordering::SeqCst);
        drop(self.stdin.lock().expect("no panics while held").take());
    }

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
        let mut lines = BufReader::new(child.stdout.take().expect("piped")).lines();
        let port = lines
            .next()
            .and_then(Result::ok)
            .and_then(|line| line.strip_prefix("port ")?.parse().ok());
        let joined =
            join.is_none() || lines.next().and_then(Result::ok).as_deref() == Some("joined");
        let broker = Broker::new(child, program, log, port.unwrap_or(0));
        if port.is_none() || !joined {
            broker.stop();
            let _ = broker.child.lock().expect("no panics while held").wait();
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
        self.stop();
        let _ = self.child.get_mut().map(Child::wait);
    }
}
