//! `cargo xtask campaigns`: how fast `cargo covcheck` finds the example bugs,
//! over several RNG seeds, and what it costs per execution.
//!
//! For each example it runs `cargo covcheck --seed N --no-save --no-resume`
//! with an execution cap and reads the JSON events: executions and
//! milliseconds until the failure was first hit (the build, worker start and
//! shrinking are excluded), and exec/s. It also measures the trivial
//! property's exec/s under `cargo covcheck` next to the plain `cargo test`
//! burst's cases/s, and optionally the ablation without comparison-driven
//! mutations.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use covcheck_protocol::messages::{Message, parse_message};
use serde_json::Value;

struct Options {
    seeds: u64,
    runs: u64,
    ablation_secs: Option<u64>,
}

pub fn main(args: &[String]) -> Result<(), String> {
    let mut options = Options {
        seeds: 10,
        runs: 5_000_000,
        ablation_secs: None,
    };
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        let mut value = |name: &str| -> Result<u64, String> {
            args.next()
                .and_then(|v| v.parse().ok())
                .ok_or(format!("{name} needs a number"))
        };
        match arg.as_str() {
            "--seeds" => options.seeds = value("--seeds")?,
            "--runs" => options.runs = value("--runs")?,
            "--ablation" => options.ablation_secs = Some(value("--ablation")?),
            other => {
                return Err(format!(
                    "unknown option `{other}`; options: --seeds N, --runs N, --ablation SECS"
                ));
            }
        }
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("workspace root")
        .to_path_buf();
    let covcheck = build_cargo_covcheck(&root)?;
    let target_dir = target_dir_of(&covcheck).join("examples");

    println!("| example | found | median execs to bug | median ms to bug | median exec/s |");
    println!("|---|---|---|---|---|");
    for example in ["dut", "dut_magic", "dut_magic64", "keyword"] {
        let mut execs = Vec::new();
        let mut millis = Vec::new();
        let mut rates = Vec::new();
        for seed in 1..=options.seeds {
            let run = campaign(
                &covcheck,
                &root,
                &target_dir,
                example,
                seed,
                &["--runs", &options.runs.to_string()],
            )?;
            rates.push(run.rate);
            if let Some((e, us)) = run.found {
                execs.push(e as f64);
                millis.push(us as f64 / 1000.0);
            }
            eprintln!(
                "  {example} seed {seed}: {:?} ({:.0} exec/s)",
                run.found, run.rate
            );
        }
        println!(
            "| `{example}` | {}/{} | {} | {} | {:.0} |",
            execs.len(),
            options.seeds,
            median(&execs).map_or("-".to_string(), |m| format!("{m:.0}")),
            median(&millis).map_or("-".to_string(), |m| format!("{m:.1}")),
            median(&rates).unwrap_or(0.0)
        );
    }

    let trivial = campaign(
        &covcheck,
        &root,
        &target_dir,
        "throughput",
        1,
        &["--runs", "5000000"],
    )?;
    let plain = plain_cases_per_second(&root, &target_dir)?;
    println!(
        "\nTrivial property `fn p(x: u64)`, one job, release: cargo covcheck {:.0} exec/s; \
         plain cargo test burst {:.0} cases/s (ratio {:.2})",
        trivial.rate,
        plain,
        trivial.rate / plain
    );

    if let Some(secs) = options.ablation_secs {
        let mut found = 0;
        for seed in 1..=options.seeds {
            let run = campaign(
                &covcheck,
                &root,
                &target_dir,
                "dut_magic",
                seed,
                &["--no-cmp", "--time", &format!("{secs}s")],
            )?;
            eprintln!("  dut_magic --no-cmp seed {seed}: {:?}", run.found);
            found += usize::from(run.found.is_some());
        }
        println!(
            "\nAblation: dut_magic without comparison-driven mutations, {secs} s per seed: found in {found}/{} seeds",
            options.seeds
        );
    }
    Ok(())
}

/// Builds cargo-covcheck and returns its path, as cargo reports it (the
/// target directory may be configured anywhere). The dev profile is enough:
/// it only builds, supervises and reports; the workers run the
/// instrumented, optimised code.
pub(crate) fn build_cargo_covcheck(root: &Path) -> Result<PathBuf, String> {
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
pub(crate) fn target_dir_of(executable: &Path) -> PathBuf {
    executable
        .parent()
        .and_then(Path::parent)
        .expect("executables lie in <target>/<profile>/")
        .to_path_buf()
}

pub(crate) struct Run {
    /// Executions and microseconds to the bug.
    pub found: Option<(u64, u64)>,
    pub rate: f64,
}

pub(crate) fn campaign(
    covcheck: &Path,
    root: &Path,
    target_dir: &Path,
    example: &str,
    seed: u64,
    budget: &[&str],
) -> Result<Run, String> {
    let manifest = root.join("examples").join(example).join("Cargo.toml");
    let output = measuring_command(covcheck, &manifest, target_dir, seed)
        .args(budget)
        .stderr(Stdio::inherit())
        .output()
        .map_err(|e| format!("cannot run cargo covcheck: {e}"))?;
    if output.status.code() == Some(2) {
        return Err(format!("cargo covcheck failed on {example} (see above)"));
    }
    read_events(&String::from_utf8_lossy(&output.stdout)).map_err(|e| format!("{example}: {e}"))
}

/// `cargo covcheck` set up for a measurement: a fixed RNG seed, no seeds
/// saved, no corpus cache, one job, JSON events on stdout.
pub(crate) fn measuring_command(
    covcheck: &Path,
    manifest: &Path,
    target_dir: &Path,
    seed: u64,
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
            "1",
        ])
        .args(["--message-format", "json"]);
    command
}

/// The first finding (executions and µs to it) and the execution rate, from
/// `cargo covcheck`'s JSON messages on its stdout; an error message is an
/// error, and so is a line that looks like a message but is not one (the
/// protocol and this reader would have drifted apart).
pub(crate) fn read_events(stdout: &str) -> Result<Run, String> {
    let mut run = Run {
        found: None,
        rate: 0.0,
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
                execs, elapsed_ms, ..
            } => {
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

/// The plain `cargo test` burst's cases per second on the trivial property:
/// two runs of different sizes, so that build and start-up costs cancel.
fn plain_cases_per_second(root: &Path, target_dir: &Path) -> Result<f64, String> {
    let manifest = root.join("examples/throughput/Cargo.toml");
    let time = |cases: u64| -> Result<f64, String> {
        let started = Instant::now();
        let status = Command::new(env!("CARGO"))
            .args(["test", "--release", "--quiet", "--manifest-path"])
            .arg(&manifest)
            .arg("--target-dir")
            .arg(target_dir.join("plain"))
            .env("COVCHECK_CASES", cases.to_string())
            .stdout(Stdio::null())
            .status()
            .map_err(|e| e.to_string())?;
        if !status.success() {
            return Err("the plain throughput test failed".to_string());
        }
        Ok(started.elapsed().as_secs_f64())
    };
    time(1)?; // build
    rate_between(1_000_000, 11_000_000, time)
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

fn median(values: &[f64]) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    let mut sorted = values.to_vec();
    sorted.sort_by(|a, b| a.partial_cmp(b).expect("no NaN"));
    let mid = sorted.len() / 2;
    Some(if sorted.len().is_multiple_of(2) {
        (sorted[mid - 1] + sorted[mid]) / 2.0
    } else {
        sorted[mid]
    })
}
