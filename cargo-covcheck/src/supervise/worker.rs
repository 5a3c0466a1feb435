//! One worker process: its request and log files, starting it, reading the
//! events it prints, and judging how it ended (done, refused, covcheck's
//! own bug, or a death whose input is read back from the in-flight file).

use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, ExitStatus, Stdio};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use covcheck_protocol::inflight::{MAX_CHOICES, inflight_len, read_inflight};
use covcheck_protocol::worker::{
    Event, Finding, MinimizeReport, Progress, ReachReport, SeedResult, WORKER_ENV, WorkerConfig,
    WorkerMode, parse_event,
};

use super::Settings;
use super::death::{Death, classify_death};
use super::paths::{mode_name, property_dirs};
use super::watchdog::{Watchdog, Watched};
use crate::discover::Property;
use crate::error::{ProcessFailure, WorkerError, WriteError};
use crate::interrupt;

/// libtest's exit status when a test failed.
const LIBTEST_FAILED: i32 = 101;

/// Everything one worker process said, and how it ended.
#[derive(Debug, Default)]
pub struct WorkerOutcome {
    pub last_progress: Progress,
    pub findings: Vec<Finding>,
    pub errors: Vec<WorkerError>,
    pub done: bool,
    pub death: Option<Death>,
    pub minimized: Option<Box<MinimizeReport>>,
    pub reached: Option<Box<ReachReport>>,
    pub replayed: Vec<SeedResult>,
    /// The seed (file name, kind) a replay worker started last and did not finish.
    pub seed_in_flight: Option<(String, String)>,
    /// The signal that interrupted the run while this worker ran.
    pub interrupted: Option<i32>,
    /// The worker was asked to stop (see [`Stopper`]) before it was done.
    pub stopped: bool,
}

/// Asks the running campaign workers of one property to stop early: with
/// `SIGTERM`, which a campaign worker takes as "write your corpus cache,
/// report your totals and end". Used when one of a property's workers found
/// a failure, so that it is shrunk, saved and reported once.
#[derive(Debug, Default)]
pub struct Stopper {
    requested: AtomicBool,
    pids: Mutex<Vec<u32>>,
}

impl Stopper {
    /// Stops the running workers, and any started from now on.
    pub fn stop(&self) {
        self.requested.store(true, Ordering::SeqCst);
        for &pid in self.pids.lock().expect("no panics while held").iter() {
            terminate(pid);
        }
    }

    pub fn requested(&self) -> bool {
        self.requested.load(Ordering::SeqCst)
    }

    fn register(&self, pid: u32) {
        self.pids.lock().expect("no panics while held").push(pid);
        if self.requested() {
            terminate(pid);
        }
    }

    /// Forgets `pid`: call it before the worker is reaped, as its pid may
    /// then be reused.
    fn unregister(&self, pid: u32) {
        self.pids
            .lock()
            .expect("no panics while held")
            .retain(|&p| p != pid);
    }
}

fn terminate(pid: u32) {
    // SAFETY: kill(2) on a worker of ours that has not been reaped yet
    // (it is unregistered first).
    unsafe { libc::kill(pid as i32, libc::SIGTERM) };
}

/// The request of a worker that runs no campaign (`minimize`, `replay`), and
/// its work directory.
pub fn tool_request(
    property: &Property,
    settings: &Settings,
    mode: WorkerMode,
) -> (PathBuf, WorkerConfig) {
    let (work, corpus_dir) = property_dirs(property, &settings.covcheck_dir);
    let inflight_path = work.join(format!("inflight-{}", mode_name(&mode)));
    let config = WorkerConfig {
        test_name: property.listing.test_name.clone(),
        mode,
        rng_seed: settings.seed,
        runs: None,
        time_ms: None,
        timeout_ms: settings.timeout.as_millis() as u64,
        rss_limit_mb: settings.rss_limit_mb,
        corpus_dir,
        inflight_path,
        cmp_mutations: settings.cmp_mutations,
        stop_on_failure: true,
        size_steps: settings.size_steps,
        size_start: 0.0,
        steer_targets: settings.steer_targets,
        value_profile: false,
        dictionary: None,
        property_dictionary: false,
        engine: None,
        broker_port: None,
        perf: false,
        focus: Vec::new(),
    };
    (work, config)
}

/// Runs one worker process on `config` and collects what it reports.
pub fn run_worker(
    property: &Property,
    work: &Path,
    config: &WorkerConfig,
    settings: &Settings,
    on_event: impl FnMut(&Event),
) -> Result<WorkerOutcome, WorkerError> {
    run_stoppable_worker(property, work, config, settings, None, on_event)
}

/// [`run_worker`], for a worker that `stopper` may stop early.
pub fn run_stoppable_worker(
    property: &Property,
    work: &Path,
    config: &WorkerConfig,
    settings: &Settings,
    stopper: Option<&Stopper>,
    on_event: impl FnMut(&Event),
) -> Result<WorkerOutcome, WorkerError> {
    let (files, log) = WorkerFiles::prepare(work, config)?;
    let mut child = spawn(property, &files.config, log)?;
    let registered = interrupt::Registered::new(child.id());
    if let Some(stopper) = stopper {
        stopper.register(child.id());
    }
    let stdout = child.stdout.take().expect("piped");
    let watchdog = Watchdog::start(&child, settings.rss_limit_mb);
    let mut outcome = WorkerOutcome::default();
    read_events(stdout, &watchdog, &mut outcome, on_event);
    if let Some(stopper) = stopper {
        stopper.unregister(child.id());
    }
    let status = child.wait().ok();
    drop(registered);
    let watched = watchdog.stop();
    let stopped = stopper.is_some_and(Stopper::requested);
    judge_ending(
        &mut outcome,
        status,
        watched,
        config,
        settings,
        &files,
        stopped,
    )?;
    Ok(outcome)
}

/// The files of one worker in its work directory.
struct WorkerFiles {
    /// The JSON request, named to the worker by [`WORKER_ENV`].
    config: PathBuf,
    /// The worker's stderr.
    log: PathBuf,
}

impl WorkerFiles {
    /// Writes the request, zeroes the in-flight slot (a stale input must
    /// never be blamed) and creates the log, returned open for the worker.
    fn prepare(work: &Path, config: &WorkerConfig) -> Result<(WorkerFiles, File), WorkerError> {
        std::fs::create_dir_all(work).map_err(|source| WorkerError::Create {
            path: work.to_path_buf(),
            source,
        })?;
        let config_path = work.join(format!("{}.json", mode_name(&config.mode)));
        let json = serde_json::to_string_pretty(config).expect("configs serialize");
        std::fs::write(&config_path, json).map_err(|source| WriteError {
            path: config_path.clone(),
            source,
        })?;
        let inflight = &config.inflight_path;
        let zeros = vec![0u8; inflight_len(MAX_CHOICES)];
        std::fs::write(inflight, zeros).map_err(|source| WriteError {
            path: inflight.clone(),
            source,
        })?;
        let log = work.join(format!("{}.log", mode_name(&config.mode)));
        let log_file = File::create(&log).map_err(|source| WorkerError::Create {
            path: log.clone(),
            source,
        })?;
        let files = WorkerFiles {
            config: config_path,
            log,
        };
        Ok((files, log_file))
    }
}

/// Starts the property's test binary on that one test, as a worker.
///
/// The worker is a `std::process::Command` (the one its `ProcessBuilder`
/// builds), as cargo-util runs a process only to its end: a worker is
/// supervised while it runs, its events read as they come, stopped with
/// signals and tied to the supervisor's life (`PR_SET_PDEATHSIG`).
fn spawn(property: &Property, config: &Path, log: File) -> Result<Child, WorkerError> {
    let mut process = property.binary.process();
    process
        .args(&[
            property.listing.test_name.as_str(),
            "--exact",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(WORKER_ENV, config);
    let mut command = process.build_command();
    interrupt::die_with_parent(&mut command);
    command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::from(log))
        .spawn()
        .map_err(|source| WorkerError::Start(ProcessFailure::not_started(&process, source)))
}

/// Reads the worker's events until it closes its stdout.
fn read_events(
    stdout: impl Read,
    watchdog: &Watchdog,
    outcome: &mut WorkerOutcome,
    mut on_event: impl FnMut(&Event),
) {
    // Lines are read as bytes: whatever the property prints (invalid UTF-8
    // included) shares the pipe with the events and must not end the stream.
    let mut reader = BufReader::new(stdout);
    let mut bytes = Vec::new();
    loop {
        bytes.clear();
        match reader.read_until(b'\n', &mut bytes) {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        let line = String::from_utf8_lossy(&bytes);
        let Some(event) = parse_event(line.trim_end()) else {
            continue;
        };
        watchdog.heard();
        match event {
            Ok(event) => {
                on_event(&event);
                outcome.record(event);
            }
            Err(problem) => outcome.errors.push(WorkerError::UnreadableEvent(problem)),
        }
    }
}

impl WorkerOutcome {
    /// Keeps what `event` says.
    fn record(&mut self, event: Event) {
        match event {
            Event::Status(p) => self.last_progress = p,
            Event::Done(p) => {
                self.last_progress = p;
                self.done = true;
            }
            Event::Finding(f) => self.findings.push(f),
            Event::Error { message } => self.errors.push(WorkerError::Refused(message)),
            // A campaign's failures are taken as they come (see
            // `super::findings`); other workers report findings only.
            Event::Warning { .. }
            | Event::Started { .. }
            | Event::Caught(_)
            | Event::KnownFailure { .. } => {}
            Event::Minimized(report) => {
                self.minimized = Some(report);
                self.done = true;
            }
            Event::Reached(report) => {
                self.reached = Some(report);
                self.done = true;
            }
            Event::SeedStarted { file, kind } => {
                self.seed_in_flight = Some((file, kind));
            }
            Event::SeedReplayed(result) => {
                self.seed_in_flight = None;
                self.replayed.push(result);
            }
        }
    }
}

/// Judges how the worker ended: interrupted, refused, covcheck's own bug,
/// or a death, whose input it reads back from the in-flight file.
fn judge_ending(
    outcome: &mut WorkerOutcome,
    status: Option<ExitStatus>,
    watched: Watched,
    config: &WorkerConfig,
    settings: &Settings,
    files: &WorkerFiles,
    stopped: bool,
) -> Result<(), WorkerError> {
    let failed_test = status.is_some_and(|s| s.code() == Some(LIBTEST_FAILED));
    let refused = status.is_some_and(|s| s.code() == Some(2)) && !outcome.errors.is_empty();
    // A worker that ended itself before it was done was running an input
    // that called `std::process::exit`: a finding, not a protocol error.
    let ended_early = !outcome.done && outcome.errors.is_empty() && !config.mode.is_shrink();
    let killed = watched.out_of_memory || watched.silent;
    if let Some(signal) = interrupt::interrupted() {
        // Killed because the user interrupted the run: not a finding.
        outcome.interrupted = Some(signal);
    } else if stopped && !outcome.done {
        // Asked to stop (a sibling found a failure) and ended before it
        // could say so: not a finding.
        outcome.stopped = true;
    } else if refused {
        // The worker explained why it cannot run (an error event): not a crash.
    } else if failed_test && !killed && outcome.seed_in_flight.is_none() {
        // A panic outside the property's own code: covcheck's fault, not a finding.
        outcome.errors.push(WorkerError::Bug {
            log_tail: tail(&files.log, 30),
        });
    } else if ((!outcome.done && status.is_some_and(|s| !s.success())) || ended_early || killed)
        && let Some(death) = classify_death(status, watched, settings, &files.log)
    {
        let inflight = &config.inflight_path;
        let (execs, choices) =
            read_inflight(inflight).map_err(|source| WorkerError::ReadInflight {
                path: inflight.clone(),
                source,
            })?;
        if execs == 0 && matches!(config.mode, WorkerMode::Campaign) {
            // No input was ever run: none is to blame (a broker that never
            // answered, a memory limit below the worker's own needs).
            outcome.errors.push(WorkerError::DiedBeforeRunning {
                detail: death.detail,
                log_tail: tail(&files.log, 20),
            });
            return Ok(());
        }
        outcome.last_progress.execs = outcome.last_progress.execs.max(execs);
        outcome.death = Some(Death { choices, ..death });
    }
    Ok(())
}

/// The last `lines` lines of a log file.
pub fn tail(path: &Path, lines: usize) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let all: Vec<&str> = text.lines().collect();
    all[all.len().saturating_sub(lines)..].join("\n")
}
