//! libFuzzer, as `cargo fuzz` runs it: the harness in `bench/libfuzzer`,
//! built on nightly with cargo-fuzz's flags, stopped at its first crash,
//! which its own crash minimiser then shrinks.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::probe::{Job, Outcome, SHRINK_GRACE, parse_probe, run_with_budget};

/// Builds the libFuzzer harness (`bench/libfuzzer`) with cargo-fuzz's flags
/// (SanitizerCoverage, no AddressSanitizer), on nightly as `cargo fuzz` does.
pub fn build_libfuzzer(root: &Path, target_dir: &Path) -> Result<PathBuf, String> {
    let nightly = Command::new("rustup")
        .args(["run", "nightly", "rustc", "-vV"])
        .stderr(Stdio::null())
        .output()
        .ok()
        .filter(|o| o.status.success())
        .ok_or("no nightly toolchain is installed (libFuzzer via cargo-fuzz needs one)")?;
    let host = String::from_utf8_lossy(&nightly.stdout)
        .lines()
        .find_map(|l| l.strip_prefix("host: ").map(str::to_string))
        .ok_or("cannot tell the host triple from rustc -vV")?;
    let flags = [
        "-Cpasses=sancov-module",
        "-Cllvm-args=-sanitizer-coverage-level=4",
        "-Cllvm-args=-sanitizer-coverage-inline-8bit-counters",
        "-Cllvm-args=-sanitizer-coverage-pc-table",
        "-Cllvm-args=-sanitizer-coverage-trace-compares",
        "--cfg",
        "fuzzing",
        "-Cdebug-assertions",
        "-Coverflow-checks",
    ];
    let dir = target_dir.join("libfuzzer");
    let status = Command::new("rustup")
        .args([
            "run",
            "nightly",
            "cargo",
            "build",
            "--release",
            "--quiet",
            "--target",
            &host,
        ])
        .arg("--manifest-path")
        .arg(root.join("bench/libfuzzer/Cargo.toml"))
        .arg("--target-dir")
        .arg(&dir)
        .env("RUSTFLAGS", flags.join(" "))
        .status()
        .map_err(|e| format!("cannot run nightly cargo: {e}"))?;
    if !status.success() {
        return Err("building the libFuzzer harness failed".to_string());
    }
    Ok(dir.join(host).join("release/covcheck-bench-libfuzzer"))
}

/// A run of the libFuzzer harness (one process; libFuzzer stops at the
/// first crash, which [`minimized_size`] then minimises and measures).
pub fn fuzz(binary: &Path, job: &Job) -> Result<Outcome, String> {
    let artifacts = job.work.join("libfuzzer-artifacts");
    let _ = std::fs::remove_dir_all(&artifacts);
    std::fs::create_dir_all(&artifacts).map_err(|e| e.to_string())?;
    let mut command = Command::new(binary);
    command
        .arg(format!("-seed={}", job.seed))
        .arg(format!("-max_total_time={}", job.budget.as_secs().max(1)))
        .arg(format!("-artifact_prefix={}/", artifacts.display()))
        .env("BENCH_TARGET", job.target)
        .env("BENCH_BUG", job.bug);
    let (_, probed) = run_with_budget(command, job.budget, &job.probe())?;
    let mut outcome = parse_probe(&probed, job.budget);
    if outcome.found {
        outcome.size = minimized_size(binary, job, &artifacts);
    }
    Ok(outcome)
}

/// The size of libFuzzer's crash after libFuzzer's own minimiser, as the
/// probe measures it when the minimised input is replayed.
///
/// libFuzzer stops at its first crash and does not shrink it, so scoring
/// that crash's size would compare other tools' shrinkers with no shrinking
/// at all. A libFuzzer user minimises a crash with `cargo fuzz tmin`, which
/// runs `-minimize_crash=1 -runs=255`; so does this. It is reliable within a
/// small budget: each round runs 255 mutations looking for a strictly
/// shorter crashing input and stops at the first round that finds none, so
/// there are at most as many rounds as the crash has bytes, and the whole
/// minimisation is capped at [`SHRINK_GRACE`], as the other tools' shrinking
/// is. Every shorter crash is written to `-exact_artifact_path` as soon as
/// it is found, so a minimisation cut short still leaves its best input; if
/// that does not fail when replayed (cut mid-write), the crash itself is
/// measured. libFuzzer minimises length in bytes, not the probe's size:
/// shorter inputs decode (through `arbitrary`) to fewer and smaller values,
/// but the result need not be minimal in the probe's terms.
fn minimized_size(binary: &Path, job: &Job, artifacts: &Path) -> Option<u64> {
    let crash = std::fs::read_dir(artifacts)
        .ok()?
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .find(|path| {
            path.file_name()
                .and_then(|name| name.to_str())
                .is_some_and(|name| name.starts_with("crash-"))
        })?;
    let minimized = artifacts.join("minimized");
    let mut command = Command::new(binary);
    command
        .args(["-minimize_crash=1", "-runs=255"])
        .arg(format!("-seed={}", job.seed))
        .arg(format!("-exact_artifact_path={}", minimized.display()))
        .arg(&crash)
        .env("BENCH_TARGET", job.target)
        .env("BENCH_BUG", job.bug)
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    if let Err(message) = run_group_for(command, SHRINK_GRACE) {
        eprintln!("bench: libfuzzer's crash minimiser: {message}");
    }
    let replay = |input: &Path| {
        let output = Command::new(binary)
            .arg(input)
            .env("BENCH_TARGET", job.target)
            .env("BENCH_BUG", job.bug)
            .stdout(Stdio::null())
            .output()
            .ok()?;
        parse_probe(&String::from_utf8_lossy(&output.stderr), Duration::MAX).size
    };
    replay(&minimized).or_else(|| replay(&crash))
}

/// Runs `command` in a process group of its own, and kills the group if it
/// is still running after `limit` (libFuzzer's minimiser runs each round in
/// child processes).
fn run_group_for(mut command: Command, limit: Duration) -> Result<(), String> {
    use std::os::unix::process::CommandExt;

    let mut child = command
        .process_group(0)
        .spawn()
        .map_err(|e| e.to_string())?;
    let started = Instant::now();
    while child.try_wait().map_err(|e| e.to_string())?.is_none() {
        if started.elapsed() > limit {
            let _ = Command::new("kill")
                .args(["-KILL", "--", &format!("-{}", child.id())])
                .status();
            let _ = child.wait();
            return Err(format!("stopped after {} s", limit.as_secs()));
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    Ok(())
}
