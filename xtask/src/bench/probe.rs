//! One run of one tool on one target, as the suite's probe sees it: running
//! a tool's command under the time budget, and reading the probe's lines
//! (see `bench/suite/src/probe.rs`) into an [`Outcome`].

use std::io::{BufRead, Read};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use covcheck_protocol::messages::{Message, parse_message};

/// How long a tool may go on after its first failure (shrinking), and how
/// long libFuzzer's crash minimiser may run.
pub const SHRINK_GRACE: Duration = Duration::from_secs(30);

/// How long a tool may take to reach its first execution: `cargo covcheck`
/// checks its build first (which may wait for cargo's lock on the target
/// directory) and discovers the properties.
const STARTUP: Duration = Duration::from_secs(300);

/// One run to make: a tool on one target and bug, with one RNG seed.
pub struct Job<'a> {
    pub target: &'a str,
    /// The bug, for targets with several (`BENCH_BUG`); empty otherwise.
    pub bug: &'a str,
    pub seed: u64,
    pub budget: Duration,
    /// The directory of the probe's file and libFuzzer's artifacts, remade
    /// for every run.
    pub work: &'a Path,
}

impl Job<'_> {
    /// The file the probe appends to.
    pub fn probe(&self) -> std::path::PathBuf {
        self.work.join("probe.txt")
    }
}

/// One run of one tool on one target, as the probe saw it.
#[derive(Clone, Debug, Default)]
pub struct Outcome {
    /// The property failed within the budget.
    pub found: bool,
    /// Executions up to and including the first failure.
    pub execs: Option<u64>,
    /// Microseconds from the first execution to the first failure.
    pub micros: Option<u64>,
    /// The size of the final counterexample.
    pub size: Option<u64>,
    /// For a run that found nothing: the executions it made within the
    /// budget, as far as the probe's periodic count shows (its last count at
    /// or before the budget).
    pub budget_execs: Option<u64>,
}

/// Runs `command` until it ends, or until `budget` has passed since its
/// first execution without a failure (then it is killed), or a grace period
/// for shrinking after one. The budget counts from the first execution, as
/// the probe does, so that starting up (for `cargo covcheck`, checking the
/// build and discovering the properties) does not eat into it. The probe
/// appends to `probe` (emptied first; see `bench/suite/src/probe.rs`).
/// Returns the command's stdout (where `cargo covcheck` prints its JSON
/// messages) and the probe's lines; a command that never ran the property
/// is an error, not a run that found nothing.
pub fn run_with_budget(
    mut command: Command,
    budget: Duration,
    probe: &Path,
) -> Result<(String, String), String> {
    match std::fs::remove_file(probe) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            return Err(format!("cannot remove {}: {e}", probe.display()));
        }
        _ => {}
    }
    let mut child = command
        .env("BENCH_PROBE_OUT", probe)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| e.to_string())?;
    let found = Arc::new(AtomicBool::new(false));
    let err_reader = read_lines(Box::new(child.stderr.take().expect("piped")), &found);
    let out_reader = read_lines(Box::new(child.stdout.take().expect("piped")), &found);
    wait_within_budget(&mut child, budget, probe, &found)?;
    let out = out_reader.join().unwrap_or_default();
    let err = err_reader.join().unwrap_or_default();
    let probed = std::fs::read_to_string(probe).unwrap_or_default();
    if probed.is_empty() {
        let output = format!("{out}\n{err}");
        let lines: Vec<&str> = output.lines().filter(|l| !l.trim().is_empty()).collect();
        return Err(format!(
            "{command:?} never ran the property (within {} s of starting); its output ends:\n{}",
            STARTUP.as_secs(),
            lines[lines.len().saturating_sub(20)..].join("\n")
        ));
    }
    Ok((out, probed))
}

/// Reads `stream` to its end on a thread of its own, and sets `found` at
/// the first sign of a failure: a probe line, or a finding message of
/// `cargo covcheck`.
fn read_lines(stream: Box<dyn Read + Send>, found: &Arc<AtomicBool>) -> JoinHandle<String> {
    let found = found.clone();
    std::thread::spawn(move || {
        let mut text = String::new();
        for line in std::io::BufReader::new(stream)
            .lines()
            .map_while(Result::ok)
        {
            if line.contains("BENCH-FOUND")
                || matches!(parse_message(&line), Some(Ok(Message::Finding { .. })))
            {
                found.store(true, Ordering::SeqCst);
            }
            text.push_str(&line);
            text.push('\n');
        }
        text
    })
}

/// Waits for `child` to end, killing it at its deadline: [`STARTUP`] until
/// its first execution, then the budget, or [`SHRINK_GRACE`] past it once
/// it found a failure.
fn wait_within_budget(
    child: &mut Child,
    budget: Duration,
    probe: &Path,
    found: &AtomicBool,
) -> Result<(), String> {
    // The probe's file tells when the first execution happened and, for the
    // campaign, whose worker writes the probe's stderr lines to its own log
    // rather than to this pipe, when the first failure did. Only its new
    // lines are read.
    let mut watched = 0;
    let mut first_exec: Option<Instant> = None;
    let started = Instant::now();
    loop {
        if child.try_wait().map_err(|e| e.to_string())?.is_some() {
            return Ok(());
        }
        if (first_exec.is_none() || !found.load(Ordering::SeqCst))
            && let Ok(text) = std::fs::read(probe)
            && let Some(end) = text.iter().rposition(|&b| b == b'\n')
            && end + 1 > watched
        {
            first_exec.get_or_insert_with(Instant::now);
            if String::from_utf8_lossy(&text[watched..=end]).contains("BENCH-FOUND") {
                found.store(true, Ordering::SeqCst);
            }
            watched = end + 1;
        }
        let deadline = match first_exec {
            None => started + STARTUP,
            Some(first) if found.load(Ordering::SeqCst) => first + budget + SHRINK_GRACE,
            Some(first) => first + budget + Duration::from_millis(500),
        };
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            return Ok(());
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Reads the probe's lines: the first failure counts if it came within
/// `budget` of the first execution.
pub fn parse_probe(text: &str, budget: Duration) -> Outcome {
    let budget = u64::try_from(budget.as_micros()).unwrap_or(u64::MAX);
    let numbers = |rest: &str| -> Vec<u64> {
        rest.split_whitespace()
            .map_while(|w| w.parse().ok())
            .collect()
    };
    let mut outcome = Outcome::default();
    for line in text.lines() {
        if let Some(at) = line.find("BENCH-FOUND ") {
            if let [execs, micros, ..] = numbers(&line[at + 12..])[..]
                && micros <= budget
                && !outcome.found
            {
                outcome.found = true;
                outcome.execs = Some(execs);
                outcome.micros = Some(micros);
            }
        } else if let Some(at) = line.find("BENCH-SIZE ") {
            outcome.size = line[at + 11..].trim().parse().ok();
        } else if let Some(at) = line.find("BENCH-EXECS ")
            && let [execs, micros, ..] = numbers(&line[at + 12..])[..]
            && micros <= budget
        {
            outcome.budget_execs = Some(outcome.budget_execs.unwrap_or(0).max(execs));
        }
    }
    if outcome.found {
        outcome.budget_execs = None; // only scored for runs that found nothing
    } else {
        outcome.size = None;
    }
    outcome
}
