//! What covcheck costs, beside finding bugs: its throughput on a trivial
//! property (campaign and plain burst), replaying a large seed suite, and
//! rebuilding after an edit, normal and instrumented.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use covcheck_protocol::seeds::{SeedFile, SeedStore};

use crate::measure;

/// Throughput, replay time of 1000 seeds and the instrumented rebuild time,
/// all on the suite's own `trivial` property, so that nothing else is built.
pub fn extras(
    suite: &Path,
    harness: &Path,
    covcheck: &Path,
    target_dir: &Path,
    quick: bool,
) -> Result<String, String> {
    let runs: u64 = if quick { 300_000 } else { 5_000_000 };
    let campaign_rate = trivial_campaign_rate(covcheck, suite, target_dir, runs)?;
    let (small, large) = if quick {
        (100_000, 2_100_000)
    } else {
        (1_000_000, 11_000_000)
    };
    let plain_rate =
        measure::rate_between(small, large, |cases| time_trivial(harness, suite, cases))?;
    let replay = replay_1000_seeds(suite, harness)?;
    let (normal, instrumented) = rebuild_times(suite, covcheck, target_dir)?;
    Ok(format!(
        "### Costs\n\n| measure | value |\n|---|---|\n\
         | trivial property, `cargo covcheck`, one job | {campaign_rate:.0} exec/s |\n\
         | trivial property, plain `cargo test` burst | {plain_rate:.0} cases/s |\n\
         | plain `cargo test` replaying 1000 seeds of one property | {:.0} ms |\n\
         | incremental rebuild after touching `src/lib.rs`: `cargo test --no-run` | {:.2} s |\n\
         | the same for the instrumented build (`cargo covcheck list`) | {:.2} s |\n",
        replay.as_secs_f64() * 1000.0,
        normal.as_secs_f64(),
        instrumented.as_secs_f64()
    ))
}

/// Executions per second of the trivial property under `cargo covcheck`.
fn trivial_campaign_rate(
    covcheck: &Path,
    suite: &Path,
    target_dir: &Path,
    runs: u64,
) -> Result<f64, String> {
    let output = measure::measuring_command(covcheck, &suite.join("Cargo.toml"), target_dir, 1)
        .args([
            "--exact",
            "covcheck_harness::trivial",
            "--runs",
            &runs.to_string(),
        ])
        .stderr(Stdio::null())
        .output()
        .map_err(|e| e.to_string())?;
    let run = measure::read_events(&String::from_utf8_lossy(&output.stdout))?;
    if run.rate > 0.0 {
        Ok(run.rate)
    } else {
        Err("the trivial campaign reported no result".to_string())
    }
}

/// Seconds the harness takes for `cases` cases of the trivial property
/// (two sizes are timed so that start-up cancels out).
fn time_trivial(harness: &Path, suite: &Path, cases: u64) -> Result<f64, String> {
    let started = Instant::now();
    let status = Command::new(harness)
        .args(["trivial", "--exact"])
        .current_dir(suite)
        .env("COVCHECK_CASES", cases.to_string())
        .env("COVCHECK_SEEDS", "off")
        .stdout(Stdio::null())
        .status()
        .map_err(|e| e.to_string())?;
    if !status.success() {
        return Err("the trivial property failed".to_string());
    }
    Ok(started.elapsed().as_secs_f64())
}

/// Times the harness replaying 1000 seeds of the trivial property (written,
/// as `cargo covcheck` writes them, to its seed directory, which is ignored
/// by git, and removed afterwards).
fn replay_1000_seeds(suite: &Path, harness: &Path) -> Result<Duration, String> {
    let store = SeedStore::new(suite, "covcheck_harness", "trivial");
    let seeds = store.dir().to_path_buf();
    for n in 0..1000u64 {
        let seed = SeedFile::covering(
            "covcheck_harness::trivial",
            &[n * 7919],
            None,
            &[] as &[(&str, String)],
        );
        store.save(&seed).map_err(|e| e.to_string())?;
    }
    let started = Instant::now();
    let status = Command::new(harness)
        .args(["trivial", "--exact"])
        .current_dir(suite)
        .env("COVCHECK_CASES", "0")
        .stdout(Stdio::null())
        .status()
        .map_err(|e| e.to_string());
    let elapsed = started.elapsed();
    let _ = std::fs::remove_dir_all(&seeds);
    if !status?.success() {
        return Err("replaying 1000 seeds failed".to_string());
    }
    Ok(elapsed)
}

/// Times an incremental rebuild of the suite after touching its source,
/// normal (`cargo test --no-run`) and instrumented (`cargo covcheck list`).
fn rebuild_times(
    suite: &Path,
    covcheck: &Path,
    target_dir: &Path,
) -> Result<(Duration, Duration), String> {
    let manifest = suite.join("Cargo.toml");
    let lib = suite.join("src/lib.rs");
    let normal = || {
        Command::new(env!("CARGO"))
            .args([
                "test",
                "--release",
                "--no-run",
                "--quiet",
                "--manifest-path",
            ])
            .arg(&manifest)
            .arg("--target-dir")
            .arg(target_dir)
            .stderr(Stdio::null())
            .status()
    };
    let instrumented = || {
        Command::new(covcheck)
            .args(["covcheck", "list", "--manifest-path"])
            .arg(&manifest)
            .arg("--target-dir")
            .arg(target_dir)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
    };
    let touch = || {
        let text = std::fs::read(&lib).map_err(|e| e.to_string())?;
        std::fs::write(&lib, text).map_err(|e| e.to_string())
    };
    let time =
        |f: &dyn Fn() -> std::io::Result<std::process::ExitStatus>| -> Result<Duration, String> {
            touch()?;
            let started = Instant::now();
            f().map_err(|e| e.to_string())?;
            Ok(started.elapsed())
        };
    Ok((time(&normal)?, time(&instrumented)?))
}
