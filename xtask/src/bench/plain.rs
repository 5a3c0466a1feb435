//! The tools that run under plain `cargo test`: covcheck's random burst,
//! proptest and quickcheck, each from its own release-built harness.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::Value;

use super::probe::{Job, Outcome, parse_probe, run_with_budget};

/// The tools with a `cargo test` harness (`<tool>_harness`).
const HARNESSED: [&str; 3] = ["covcheck", "proptest", "quickcheck"];

/// Builds the harnesses (covcheck's in `bench/suite`, the peers' in
/// `bench/peers`); returns them by tool.
pub fn build_harnesses(
    suite: &Path,
    target_dir: &Path,
) -> Result<BTreeMap<&'static str, PathBuf>, String> {
    let mut harnesses = BTreeMap::new();
    let peers = suite.with_file_name("peers");
    for package in [suite, peers.as_path()] {
        let output = Command::new(env!("CARGO"))
            .args([
                "test",
                "--release",
                "--no-run",
                "--message-format=json",
                "--manifest-path",
            ])
            .arg(package.join("Cargo.toml"))
            .arg("--target-dir")
            .arg(target_dir)
            .stderr(Stdio::inherit())
            .output()
            .map_err(|e| e.to_string())?;
        if !output.status.success() {
            return Err(format!("building {} failed", package.display()));
        }
        // Cargo's own JSON messages: which test executable each target built.
        for line in String::from_utf8_lossy(&output.stdout).lines() {
            let Ok(message) = serde_json::from_str::<Value>(line) else {
                continue;
            };
            let (Some(name), Some(exe)) = (
                message["target"]["name"].as_str(),
                message["executable"].as_str(),
            ) else {
                continue;
            };
            for tool in HARNESSED {
                if name == format!("{tool}_harness") {
                    harnesses.insert(tool, PathBuf::from(exe));
                }
            }
        }
    }
    if harnesses.len() != HARNESSED.len() {
        return Err(format!(
            "expected three harnesses, found {:?}",
            harnesses.keys()
        ));
    }
    Ok(harnesses)
}

/// A run under plain `cargo test` (covcheck, proptest or quickcheck).
pub fn plain(harness: &Path, tool: &str, job: &Job) -> Result<Outcome, String> {
    let mut command = Command::new(harness);
    command
        .args([job.target, "--exact", "--nocapture", "--test-threads=1"])
        .env("BENCH_BUG", job.bug)
        .env("RUST_BACKTRACE", "0");
    let cases = "4000000000";
    let seed = job.seed.to_string();
    match tool {
        "covcheck" => command
            .env("COVCHECK_CASES", cases)
            .env("COVCHECK_SEED", seed)
            .env("COVCHECK_SEEDS", "off"),
        // Failure persistence is off in the harness's own config
        // (`failure_persistence: None`), whatever the environment says.
        // proptest counts rejections over the whole run, not per case, and
        // stops at 65,536 local ones by default: proptest-state-machine
        // rejects a transition whose precondition fails locally, which
        // would end a `kv_store` run after a few thousand cases.
        "proptest" => command
            .env("PROPTEST_CASES", cases)
            .env("PROPTEST_RNG_SEED", seed)
            .env("PROPTEST_MAX_GLOBAL_REJECTS", cases)
            .env("PROPTEST_MAX_LOCAL_REJECTS", cases),
        _ => command.env("BENCH_CASES", cases).env("BENCH_SEED", seed),
    };
    let (_, probed) = run_with_budget(command, job.budget, &job.probe())?;
    Ok(parse_probe(&probed, job.budget))
}
