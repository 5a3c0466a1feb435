//! Running `cargo covcheck` for a measurement, and reading what it reports:
//! shared by `campaigns` (the example bugs) and `bench` (the suite).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use covcheck_protocol::messages::TargetBest;
use covcheck_protocol::messages::{Message, PerfResult, parse_message};
use serde_json::Value;

/// Builds cargo-covcheck and returns its path, as cargo reports it (the
/// target directory may be configured anywhere). The dev profile is enough:
/// it only builds, supervises and reports; the workers run the
/// instrumented, optimised code.
pub fn build_cargo_covcheck(root: &Path) -> Result<PathBuf, String> {
    let output = Command::new(env!("CARGO"))
        .args([
            "build",
            "--quiet",
            "--message-format=json",
            "-p",
            "cargo-covcheck",
        ])
        .current_dir(root)
        .stderr(Stdio::inherit())
        .output()
        .map_err(|e| e.to_string())?;
    if !output.status.success() {
        return Err("building cargo-covcheck failed".to_string());
    }
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|m| m["reason"] == "compiler-artifact" && m["target"]["name"] == "cargo-covcheck")
        .find_map(|m| m["executable"].as_str().map(PathBuf::from))
        .ok_or_else(|| "cargo reported no cargo-covcheck executable".to_string())
}

/// The workspace's target directory (`target/`, or wherever
/// `CARGO_TARGET_DIR` or `--target-dir` put it), from the path of an
/// executable built in it.
pub fn target_dir_of(executable: &Path) -> PathBuf {
    executable
        .parent()
        .and_then(Path::parent)
        .expect("executables lie in <target>/<profile>/")
        .to_path_buf()
}

/// What one measuring campaign reported.
pub struct Run {
    /// Executions and microseconds to the bug.
    pub found: Option<(u64, u64)>,
    /// Executions per second over the whole campaign.
    pub rate: f64,
    /// The best value of each `target()` label, as the run finished.
    pub targets: Vec<TargetBest>,
    /// Executions in all, over every worker.
    pub execs: u64,
    /// Performance mode's result (`--perf`).
    pub perf: Option<PerfResult>,
}

/// `cargo covcheck` set up for a measurement: a fixed RNG seed, no seeds
/// saved, no corpus cache, one job, JSON events on stdout.
pub fn measuring_command(
    covcheck: &Path,
    manifest: &Path,
    target_dir: &Path,
    seed: u64,
) -> Command {
    measuring_command_on(covcheck, manifest, target_dir, seed, 1)
}

/// [`measuring_command`] with `jobs` workers.
pub fn measuring_command_on(
    covcheck: &Path,
    manifest: &Path,
    target_dir: &Path,
    seed: u64,
    jobs: usize,
) -> Command {
    let mut command = Command::new(covcheck);
    command
        .arg("covcheck")
        .arg("--manifest-path")
        .arg(manifest)
        .arg("--target-dir")
        .arg(target_dir)
        .args([
            "--seed",
            &seed.to_string(),
            "--no-save",
            "--no-resume",
            "-j",
            &jobs.to_string(),
        ])
        .args(["--message-format", "json"]);
    command
}

/// The first finding (executions and µs to it), the execution rate and the
/// best `target()` values, from `cargo covcheck`'s JSON messages on its
/// stdout; an error message is an error, and so is a line that looks like
/// a message but is not one (the protocol and this reader would have
/// drifted apart).
pub fn read_events(stdout: &str) -> Result<Run, String> {
    let mut run = Run {
        found: None,
        rate: 0.0,
        targets: Vec::new(),
        execs: 0,
        perf: None,
    };
    for line in stdout.lines() {
        let Some(message) = parse_message(line) else {
            continue;
        };
        match message.map_err(|e| format!("not a covcheck message ({e}): {line}"))? {
            Message::Finding { finding, .. } if run.found.is_none() => {
                run.found = Some((finding.execs_to_find, finding.found_after_us));
            }
            Message::Finished {
                execs,
                elapsed_ms,
                targets,
                perf,
                ..
            } => {
                run.targets = targets;
                run.perf = perf;
                run.execs = execs;
                run.rate = if elapsed_ms > 0 {
                    execs as f64 * 1000.0 / elapsed_ms as f64
                } else {
                    0.0
                };
            }
            Message::Error { property, message } => return Err(format!("{property}: {message}")),
            _ => {}
        }
    }
    Ok(run)
}

/// Cases per second from timing `small` and `large` cases, so that the
/// costs every run pays once (building, starting up) cancel out.
pub fn rate_between(
    small: u64,
    large: u64,
    mut time: impl FnMut(u64) -> Result<f64, String>,
) -> Result<f64, String> {
    let t_small = time(small)?;
    let t_large = time(large)?;
    Ok((large - small) as f64 / (t_large - t_small).max(1e-9))
}
