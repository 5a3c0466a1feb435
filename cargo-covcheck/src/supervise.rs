//! Runs each property's campaign in worker processes and never loses what
//! they find.
//!
//! A worker is the property's own test binary, started on that one test with
//! a [`WorkerConfig`]. It reports progress and caught panics as events. When
//! it dies instead (abort, stack overflow, segfault, per-execution timeout,
//! the memory limit), the input it was running is still in its in-flight
//! file; the supervisor reads it, has a second worker reproduce and shrink it
//! in forked children, and saves the result. With `--keep-going` the campaign
//! then restarts from its corpus cache.

use std::collections::HashSet;
use std::fs::File;
use std::io::{BufRead, BufReader};
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::Sender;
use std::time::{Duration, Instant};

use covcheck_protocol::hash::fnv1a;
use covcheck_protocol::inflight::{MAX_CHOICES, inflight_len, read_inflight};
use covcheck_protocol::limits::resident_mb;
use covcheck_protocol::seeds::{FailureRecord, SeedFile};
use covcheck_protocol::worker::{
    CAMPAIGN_MAX_LEN, EXIT_TIMEOUT, Event, FailureKind, Finding, MinimizeReport, Progress,
    SeedResult, WORKER_ENV, WorkerConfig, WorkerMode, parse_event,
};

use crate::discover::Property;
use crate::interrupt;

/// How every campaign of this invocation runs.
#[derive(Clone, Debug)]
pub struct Settings {
    pub runs: Option<u64>,
    pub time: Option<Duration>,
    pub timeout: Duration,
    pub rss_limit_mb: u64,
    pub keep_going: bool,
    pub resume: bool,
    pub save: bool,
    pub cmp_mutations: bool,
    pub size_steps: bool,
    /// Give campaigns the dictionary of the crates' literals.
    pub dictionary: bool,
    pub seed: u64,
    pub covcheck_dir: PathBuf,
}

impl Settings {
    /// Settings for workers that run no campaign (minimize, replay): only
    /// the limits and the state directory matter.
    pub fn for_tools(covcheck_dir: PathBuf) -> Settings {
        Settings {
            runs: None,
            time: None,
            timeout: Duration::from_secs(1),
            rss_limit_mb: 2048,
            keep_going: false,
            resume: true,
            save: false,
            cmp_mutations: true,
            size_steps: true,
            dictionary: true,
            seed: 0,
            covcheck_dir,
        }
    }
}

/// Where a property's campaign state lives under `<target>/covcheck`: its
/// work directory (worker requests, logs, in-flight slots), one per
/// `cargo covcheck` process so that two runs on one crate never share an
/// in-flight slot, and its corpus cache, shared by all runs.
pub fn property_dirs(property: &Property, covcheck_dir: &Path) -> (PathBuf, PathBuf) {
    let key = property_key(property);
    (
        run_work_dir(covcheck_dir, std::process::id()).join(&key),
        covcheck_dir.join("corpus").join(&key),
    )
}

fn run_work_dir(covcheck_dir: &Path, pid: u32) -> PathBuf {
    covcheck_dir.join("work").join(format!("run-{pid}"))
}

/// Removes the work directories of earlier runs whose process is gone. A
/// run's own directory (its logs) stays until then, for a look after it.
pub fn remove_finished_work_dirs(covcheck_dir: &Path) {
    let Ok(entries) = std::fs::read_dir(covcheck_dir.join("work")) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let pid = name
            .to_str()
            .and_then(|n| n.strip_prefix("run-")?.parse::<i32>().ok());
        // SAFETY: kill(2) with signal 0 only checks that the process exists.
        let gone = pid.is_some_and(|pid| {
            let alive = unsafe { libc::kill(pid, 0) } == 0;
            !alive && std::io::Error::last_os_error().raw_os_error() == Some(libc::ESRCH)
        });
        if gone {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
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
        dictionary: None,
    };
    (work, config)
}

/// A file-name-safe name of a property, unique across packages.
pub fn property_key(property: &Property) -> String {
    sanitize(&format!(
        "{}.{}",
        property.listing.package, property.listing.full_path
    ))
}

/// What the supervisor tells the reporter, tagged with the property's index.
#[derive(Debug)]
pub enum Update {
    Started(usize),
    Progress(usize, Progress),
    /// A worker died; its input is being reproduced and shrunk.
    Crashed(usize, FailureKind),
    Finding(usize, Box<Reported>),
    Error(usize, String),
    /// Something to fix that did not stop the campaign.
    Warning(usize, String),
    Finished(usize, Summary),
}

/// A finding and where it was saved.
#[derive(Debug)]
pub struct Reported {
    pub finding: Finding,
    pub seed: Result<PathBuf, String>,
}

/// The end result of one property's campaign.
#[derive(Clone, Debug, Default)]
pub struct Summary {
    pub execs: u64,
    pub edges: usize,
    pub corpus: usize,
    pub elapsed: Duration,
    pub findings: usize,
    pub errors: usize,
}

/// Runs the campaign of `property` to the end of its budget.
pub fn run_property(
    index: usize,
    property: &Property,
    settings: &Settings,
    updates: &Sender<Update>,
) {
    let started = Instant::now();
    let _ = updates.send(Update::Started(index));
    let (work, corpus_cache) = property_dirs(property, &settings.covcheck_dir);
    let corpus_dir = if settings.resume {
        corpus_cache
    } else {
        let dir = work.join("corpus");
        let _ = std::fs::remove_dir_all(&dir);
        dir
    };
    let dictionary =
        crate::literals::dictionary_path(&settings.covcheck_dir, &property.listing.package);
    let mut summary = Summary::default();
    let mut seen: HashSet<(FailureKind, String)> = HashSet::new();
    let mut attempt = 0u64;
    loop {
        let runs = settings.runs.map(|r| r.saturating_sub(summary.execs));
        let time = settings.time.map(|t| t.saturating_sub(started.elapsed()));
        if runs == Some(0)
            || time.is_some_and(|t| t.is_zero())
            || interrupt::interrupted().is_some()
        {
            break;
        }
        let config = WorkerConfig {
            test_name: property.listing.test_name.clone(),
            mode: WorkerMode::Campaign,
            rng_seed: settings.seed
                ^ fnv1a(property.listing.full_path.bytes())
                ^ attempt.wrapping_mul(0x9e37_79b9_7f4a_7c15),
            runs,
            time_ms: time.map(|t| t.as_millis() as u64),
            timeout_ms: settings.timeout.as_millis() as u64,
            rss_limit_mb: settings.rss_limit_mb,
            corpus_dir: corpus_dir.clone(),
            inflight_path: work.join("inflight"),
            cmp_mutations: settings.cmp_mutations,
            stop_on_failure: !settings.keep_going,
            size_steps: settings.size_steps,
            dictionary: Some(dictionary.clone()).filter(|d| settings.dictionary && d.exists()),
        };
        attempt += 1;
        let outcome = match run_worker(property, &work, &config, settings, |event| match event {
            Event::Status(p) => {
                let _ = updates.send(Update::Progress(index, offset(*p, &summary)));
            }
            // Said by every restarted worker: once is enough.
            Event::Warning { message } if attempt == 1 => {
                let _ = updates.send(Update::Warning(index, message.clone()));
            }
            _ => {}
        }) {
            Ok(outcome) => outcome,
            Err(message) => {
                summary.errors += 1;
                let _ = updates.send(Update::Error(index, message));
                break;
            }
        };
        let progress = outcome.last_progress;
        summary.execs += progress.execs;
        summary.edges = summary.edges.max(progress.edges);
        summary.corpus = summary.corpus.max(progress.corpus);
        if outcome.interrupted.is_some() {
            break;
        }
        for message in outcome.errors {
            summary.errors += 1;
            let _ = updates.send(Update::Error(index, message));
        }
        let mut findings = outcome.findings;
        let died = outcome.death.is_some();
        if let Some(death) = outcome.death {
            let _ = updates.send(Update::Crashed(index, death.kind));
            let finding = shrink_crash(property, &work, &config, settings, &death);
            let mut finding = finding.unwrap_or_else(|problem| Finding {
                kind: death.kind,
                choices: death.choices.clone(),
                message: format!("{} ({problem})", death.detail),
                location: String::new(),
                args: Vec::new(),
                execs_to_find: 0,
                found_after_us: 0,
                shrink_runs: 0,
                shrink_note: Some("not shrunk".to_string()),
                flaky: false,
                size: Some(CAMPAIGN_MAX_LEN),
            });
            finding.execs_to_find = summary.execs; // the dead worker's are counted
            finding.found_after_us = started.elapsed().as_micros() as u64;
            findings.push(finding);
        }
        let found = !findings.is_empty();
        for finding in findings {
            report_finding(
                index,
                property,
                settings,
                finding,
                &mut seen,
                &mut summary,
                updates,
            );
        }
        if !died && !found && outcome.done {
            break; // the budget is spent
        }
        if found && !settings.keep_going {
            break;
        }
        if outcome.done && !settings.keep_going {
            break;
        }
        if !outcome.done && !found {
            break; // the worker ended without telling why; errors were reported
        }
    }
    summary.elapsed = started.elapsed();
    let _ = updates.send(Update::Finished(index, summary));
}

/// Status from a restarted worker, counted on top of earlier workers.
fn offset(p: Progress, before: &Summary) -> Progress {
    Progress {
        execs: p.execs + before.execs,
        ..p
    }
}

fn report_finding(
    index: usize,
    property: &Property,
    settings: &Settings,
    finding: Finding,
    seen: &mut HashSet<(FailureKind, String)>,
    summary: &mut Summary,
    updates: &Sender<Update>,
) {
    if !seen.insert((finding.kind, finding.location.clone())) {
        return; // the same failure again (with --keep-going)
    }
    summary.findings += 1;
    let seed = if settings.save {
        save_seed(property, &finding)
    } else {
        Err("not saved (--no-save)".to_string())
    };
    let _ = updates.send(Update::Finding(index, Box::new(Reported { finding, seed })));
}

fn save_seed(property: &Property, finding: &Finding) -> Result<PathBuf, String> {
    let store = property.seed_store();
    let file = SeedFile::failure(
        &property.listing.full_path,
        &finding.choices,
        finding.size,
        FailureRecord {
            message: finding.message.clone(),
            location: finding.location.clone(),
            kind: (finding.kind != FailureKind::Panic).then_some(finding.kind),
        },
        &finding.args,
    );
    store
        .save(&file)
        .map_err(|e| format!("could not save the seed in {}: {e}", store.dir().display()))
}

/// A worker that died, and the input it was running.
#[derive(Debug)]
pub struct Death {
    pub kind: FailureKind,
    pub detail: String,
    pub choices: Vec<u64>,
}

/// Everything one worker process said, and how it ended.
#[derive(Debug, Default)]
pub struct WorkerOutcome {
    pub last_progress: Progress,
    pub findings: Vec<Finding>,
    pub errors: Vec<String>,
    pub done: bool,
    pub death: Option<Death>,
    pub minimized: Option<Box<MinimizeReport>>,
    pub replayed: Vec<SeedResult>,
    /// The seed (file name, kind) a replay worker started last and did not finish.
    pub seed_in_flight: Option<(String, String)>,
    /// The signal that interrupted the run while this worker ran.
    pub interrupted: Option<i32>,
}

/// How long a worker may go without a word before it is considered hung
/// (LibAFL's own timeout handles hangs in the property; this catches the rest).
const SILENCE_LIMIT: Duration = Duration::from_secs(120);

/// Runs one worker process on `config` and collects what it reports.
pub fn run_worker(
    property: &Property,
    work: &Path,
    config: &WorkerConfig,
    settings: &Settings,
    mut on_event: impl FnMut(&Event),
) -> Result<WorkerOutcome, String> {
    std::fs::create_dir_all(work).map_err(|e| format!("cannot create {}: {e}", work.display()))?;
    let config_path = work.join(format!("{}.json", mode_name(&config.mode)));
    let json = serde_json::to_string_pretty(config).expect("configs serialize");
    std::fs::write(&config_path, json)
        .map_err(|e| format!("cannot write {}: {e}", config_path.display()))?;
    let inflight = &config.inflight_path;
    let zeros = vec![0u8; inflight_len(MAX_CHOICES)];
    std::fs::write(inflight, zeros)
        .map_err(|e| format!("cannot write {}: {e}", inflight.display()))?;
    let log_path = work.join(format!("{}.log", mode_name(&config.mode)));
    let log = File::create(&log_path)
        .map_err(|e| format!("cannot create {}: {e}", log_path.display()))?;

    let mut command = Command::new(&property.binary.path);
    interrupt::die_with_parent(&mut command);
    let mut child = command
        .args([
            property.listing.test_name.as_str(),
            "--exact",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(WORKER_ENV, &config_path)
        .current_dir(&property.binary.package_root)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::from(log))
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", property.binary.path.display()))?;
    let registered = interrupt::Registered::new(child.id());
    let stdout = child.stdout.take().expect("piped");
    let watchdog = Watchdog::start(&child, settings.rss_limit_mb);

    let mut outcome = WorkerOutcome::default();
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
                match event {
                    Event::Status(p) => outcome.last_progress = p,
                    Event::Done(p) => {
                        outcome.last_progress = p;
                        outcome.done = true;
                    }
                    Event::Finding(f) => outcome.findings.push(f),
                    Event::Error { message } => outcome.errors.push(message),
                    Event::Warning { .. } => {}
                    Event::Started { .. } => {}
                    Event::Minimized(report) => {
                        outcome.minimized = Some(report);
                        outcome.done = true;
                    }
                    Event::SeedStarted { file, kind } => {
                        outcome.seed_in_flight = Some((file, kind));
                    }
                    Event::SeedReplayed(result) => {
                        outcome.seed_in_flight = None;
                        outcome.replayed.push(result);
                    }
                }
            }
            Err(problem) => outcome
                .errors
                .push(format!("unreadable worker event: {problem}")),
        }
    }
    let status = wait(&mut child);
    drop(registered);
    let (out_of_memory, silent) = watchdog.stop();
    let failed_test = status.is_some_and(|s| s.code() == Some(LIBTEST_FAILED));
    let refused = status.is_some_and(|s| s.code() == Some(2)) && !outcome.errors.is_empty();
    // A worker that ended itself before it was done was running an input
    // that called `std::process::exit`: a finding, not a protocol error.
    let ended_early = !outcome.done && outcome.errors.is_empty() && !config.mode.is_shrink();
    if let Some(signal) = interrupt::interrupted() {
        // Killed because the user interrupted the run: not a finding.
        outcome.interrupted = Some(signal);
    } else if refused {
        // The worker explained why it cannot run (an error event): not a crash.
    } else if failed_test && !out_of_memory && !silent && outcome.seed_in_flight.is_none() {
        // A panic outside the property's own code: covcheck's fault, not a finding.
        outcome.errors.push(format!(
            "the worker failed; this is a bug in covcheck, please report it with this output:\n{}",
            tail(&log_path, 30)
        ));
    } else if ((!outcome.done && status.is_some_and(|s| !s.success()))
        || ended_early
        || out_of_memory
        || silent)
        && let Some(death) = classify_death(status, out_of_memory, silent, settings, &log_path)
    {
        let (execs, choices) = read_inflight(inflight)
            .map_err(|e| format!("cannot read {}: {e}", inflight.display()))?;
        outcome.last_progress.execs = outcome.last_progress.execs.max(execs);
        outcome.death = Some(Death { choices, ..death });
    }
    Ok(outcome)
}

/// The number of workers to run at once when `-j` is not given.
pub fn default_jobs() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Runs `work` on every item, `jobs` at a time (default: the number of
/// cores), and returns the results in the items' order.
pub fn in_parallel<T: Sync, R: Send>(
    jobs: Option<usize>,
    items: &[T],
    work: impl Fn(&T) -> R + Sync,
) -> Vec<R> {
    let jobs = jobs
        .unwrap_or_else(default_jobs)
        .clamp(1, items.len().max(1));
    let next = std::sync::atomic::AtomicUsize::new(0);
    let results: std::sync::Mutex<Vec<Option<R>>> =
        std::sync::Mutex::new(items.iter().map(|_| None).collect());
    std::thread::scope(|scope| {
        for _ in 0..jobs {
            scope.spawn(|| {
                loop {
                    let index = next.fetch_add(1, Ordering::SeqCst);
                    let Some(item) = items.get(index) else {
                        break;
                    };
                    let result = work(item);
                    results.lock().expect("no worker thread panics")[index] = Some(result);
                }
            });
        }
    });
    results
        .into_inner()
        .expect("no worker thread panics")
        .into_iter()
        .map(|r| r.expect("every item ran"))
        .collect()
}

/// The name of a worker's request and log files.
fn mode_name(mode: &WorkerMode) -> &'static str {
    match mode {
        WorkerMode::Campaign => "campaign",
        WorkerMode::ShrinkCrash { .. } => "shrink",
        WorkerMode::Minimize { .. } => "minimize",
        WorkerMode::Replay { .. } => "replay",
    }
}

/// libtest's exit status when a test failed.
const LIBTEST_FAILED: i32 = 101;

/// The last `lines` lines of a log file.
pub fn tail(path: &Path, lines: usize) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let all: Vec<&str> = text.lines().collect();
    all[all.len().saturating_sub(lines)..].join("\n")
}

fn wait(child: &mut Child) -> Option<ExitStatus> {
    child.wait().ok()
}

/// Names what killed a worker from its exit status. LibAFL's handlers exit
/// with 128 + the signal after a crash and with [`EXIT_TIMEOUT`] after a hang.
fn classify_death(
    status: Option<ExitStatus>,
    out_of_memory: bool,
    silent: bool,
    settings: &Settings,
    log: &Path,
) -> Option<Death> {
    let (kind, detail) = if out_of_memory {
        (
            FailureKind::OutOfMemory,
            format!("used more than {} MiB of memory", settings.rss_limit_mb),
        )
    } else if silent {
        (
            FailureKind::Timeout,
            format!("the worker hung for {} s", SILENCE_LIMIT.as_secs()),
        )
    } else {
        let status = status?;
        let log_text = std::fs::read_to_string(log).unwrap_or_default();
        let signal = status
            .signal()
            .or_else(|| status.code().filter(|c| *c > 128).map(|c| c - 128));
        match (status.code(), signal) {
            (Some(EXIT_TIMEOUT), _) => (
                FailureKind::Timeout,
                format!("ran longer than {} ms", settings.timeout.as_millis()),
            ),
            _ if log_text.contains("memory allocation of") => {
                (FailureKind::OutOfMemory, "allocation failed".to_string())
            }
            // Rust's runtime says so before it aborts.
            _ if log_text.contains("has overflowed its stack") => (
                FailureKind::StackOverflow,
                "overflowed its stack".to_string(),
            ),
            (_, Some(libc::SIGABRT)) => (FailureKind::Abort, "aborted (SIGABRT)".to_string()),
            (_, Some(libc::SIGSEGV | libc::SIGBUS)) => (
                FailureKind::Segfault,
                format!("killed by signal {}", signal?),
            ),
            (_, Some(sig)) => (FailureKind::Crash, format!("killed by signal {sig}")),
            (Some(code), None) => (
                FailureKind::Exit,
                format!(
                    "the process exited with status {code} in the middle of an execution \
                     (std::process::exit in the property or code it calls)"
                ),
            ),
            (None, None) => return None,
        }
    };
    Some(Death {
        kind,
        detail,
        choices: Vec::new(),
    })
}

/// Reproduces and shrinks a crash in a second worker.
fn shrink_crash(
    property: &Property,
    work: &Path,
    campaign: &WorkerConfig,
    settings: &Settings,
    death: &Death,
) -> Result<Finding, String> {
    let config = WorkerConfig {
        mode: WorkerMode::ShrinkCrash {
            choices: death.choices.clone(),
        },
        inflight_path: work.join("inflight-shrink"),
        ..campaign.clone()
    };
    let outcome = run_worker(property, work, &config, settings, |_| {})?;
    if let Some(finding) = outcome.findings.into_iter().next() {
        return Ok(finding);
    }
    if let Some(error) = outcome.errors.into_iter().next() {
        return Err(error);
    }
    Err(match outcome.death {
        Some(death) => format!(
            "the shrinking worker died too ({}: {}); its output:\n{}",
            death.kind.describe(),
            death.detail,
            tail(&work.join("shrink.log"), 20)
        ),
        None => "the shrinking worker reported nothing".to_string(),
    })
}

/// Watches a worker's memory and liveness from a thread of its own.
struct Watchdog {
    last_heard: Arc<AtomicU64>,
    stop: Arc<AtomicBool>,
    out_of_memory: Arc<AtomicBool>,
    silent: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
    epoch: Instant,
}

impl Watchdog {
    fn start(child: &Child, rss_limit_mb: u64) -> Watchdog {
        let pid = child.id() as i32;
        let epoch = Instant::now();
        let last_heard = Arc::new(AtomicU64::new(0));
        let stop = Arc::new(AtomicBool::new(false));
        let out_of_memory = Arc::new(AtomicBool::new(false));
        let silent = Arc::new(AtomicBool::new(false));
        let thread = {
            let (last_heard, stop, oom, silent) = (
                last_heard.clone(),
                stop.clone(),
                out_of_memory.clone(),
                silent.clone(),
            );
            std::thread::spawn(move || {
                while !stop.load(Ordering::SeqCst) {
                    std::thread::sleep(Duration::from_millis(20));
                    let quiet =
                        epoch.elapsed().as_millis() as u64 - last_heard.load(Ordering::SeqCst);
                    let over = resident_mb(pid) > rss_limit_mb;
                    if over || quiet > SILENCE_LIMIT.as_millis() as u64 {
                        if over {
                            oom.store(true, Ordering::SeqCst);
                        } else {
                            silent.store(true, Ordering::SeqCst);
                        }
                        // SAFETY: kill(2) on our own child, not yet reaped.
                        unsafe { libc::kill(pid, libc::SIGKILL) };
                        break;
                    }
                }
            })
        };
        Watchdog {
            last_heard,
            stop,
            out_of_memory,
            silent,
            thread: Some(thread),
            epoch,
        }
    }

    fn heard(&self) {
        self.last_heard
            .store(self.epoch.elapsed().as_millis() as u64, Ordering::SeqCst);
    }

    fn stop(mut self) -> (bool, bool) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
        (
            self.out_of_memory.load(Ordering::SeqCst),
            self.silent.load(Ordering::SeqCst),
        )
    }
}

/// A file-name-safe version of a property path.
fn sanitize(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.' {
                c
            } else {
                '.'
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings() -> Settings {
        Settings {
            runs: None,
            time: None,
            timeout: Duration::from_millis(250),
            rss_limit_mb: 100,
            keep_going: false,
            resume: false,
            save: false,
            cmp_mutations: true,
            size_steps: true,
            dictionary: true,
            seed: 0,
            covcheck_dir: PathBuf::new(),
        }
    }

    fn kind(status: ExitStatus, log: &str) -> FailureKind {
        let dir = std::env::temp_dir().join(format!("covcheck-classify-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("campaign.log");
        std::fs::write(&path, log).unwrap();
        classify_death(Some(status), false, false, &settings(), &path)
            .expect("a death")
            .kind
    }

    #[test]
    fn deaths_are_named_from_libafl_exit_codes_signals_and_the_log() {
        assert_eq!(
            kind(ExitStatus::from_raw(EXIT_TIMEOUT << 8), ""),
            FailureKind::Timeout
        );
        assert_eq!(
            kind(ExitStatus::from_raw((128 + 6) << 8), ""),
            FailureKind::Abort
        );
        assert_eq!(
            kind(ExitStatus::from_raw((128 + 11) << 8), ""),
            FailureKind::Segfault
        );
        assert_eq!(
            kind(ExitStatus::from_raw(libc::SIGABRT), ""),
            FailureKind::Abort
        );
        // Rust's runtime aborts after a stack overflow, saying so first.
        assert_eq!(
            kind(
                ExitStatus::from_raw(libc::SIGABRT),
                "\nthread 'main' has overflowed its stack\nfatal runtime error: stack overflow"
            ),
            FailureKind::StackOverflow
        );
        assert_eq!(
            kind(ExitStatus::from_raw(0), ""),
            FailureKind::Exit,
            "a worker that exits 0 before it is done"
        );
        assert_eq!(
            kind(
                ExitStatus::from_raw((128 + 6) << 8),
                "memory allocation of 1099511627776 bytes failed"
            ),
            FailureKind::OutOfMemory
        );
        let log = Path::new("/nonexistent");
        let oom = classify_death(None, true, false, &settings(), log).unwrap();
        assert_eq!(oom.kind, FailureKind::OutOfMemory);
        let hang = classify_death(None, false, true, &settings(), log).unwrap();
        assert_eq!(hang.kind, FailureKind::Timeout);
    }

    #[test]
    fn property_paths_become_safe_directory_names() {
        assert_eq!(sanitize("pkg.crate::tests::p"), "pkg.crate..tests..p");
        assert_eq!(sanitize("a/b c"), "a.b.c");
    }
}
