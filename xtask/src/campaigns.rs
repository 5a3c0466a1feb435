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

use crate::measure::{self, Run};
use crate::stats::exact_median;

/// The examples whose bugs are measured, in the table's order.
const EXAMPLES: [&str; 4] = ["dut", "dut_magic", "dut_magic64", "keyword"];

struct Options {
    seeds: u64,
    runs: u64,
    ablation_secs: Option<u64>,
}

impl Options {
    fn parse(args: &[String]) -> Result<Options, String> {
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
        Ok(options)
    }
}

/// `cargo covcheck`, built, and where it runs the examples.
pub struct Examples {
    covcheck: PathBuf,
    root: PathBuf,
    target_dir: PathBuf,
}

pub fn main(args: &[String]) -> Result<(), String> {
    let options = Options::parse(args)?;
    let examples = Examples::build()?;

    println!("| example | found | median execs to bug | median ms to bug | median exec/s |");
    println!("|---|---|---|---|---|");
    for example in EXAMPLES {
        println!("{}", examples.row(example, &options)?);
    }
    println!("{}", examples.throughput()?);
    if let Some(secs) = options.ablation_secs {
        println!("{}", examples.ablation(secs, options.seeds)?);
    }
    Ok(())
}

impl Examples {
    /// The workspace root.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Where the examples are built.
    pub fn target_dir(&self) -> &Path {
        &self.target_dir
    }

    /// The built `cargo-covcheck`.
    pub fn covcheck(&self) -> &Path {
        &self.covcheck
    }

    /// A measuring `cargo covcheck` on the crate at `manifest`
    /// ([`measure::measuring_command_on`]).
    pub fn measuring_command(&self, manifest: &Path, seed: u64, jobs: usize) -> Command {
        measure::measuring_command_on(&self.covcheck, manifest, &self.target_dir, seed, jobs)
    }

    /// Builds `cargo covcheck`; the examples' builds go to `examples/` in
    /// the workspace's target directory.
    pub fn build() -> Result<Examples, String> {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"))
            .parent()
            .expect("workspace root")
            .to_path_buf();
        let covcheck = measure::build_cargo_covcheck(&root)?;
        let target_dir = measure::target_dir_of(&covcheck).join("examples");
        Ok(Examples {
            covcheck,
            root,
            target_dir,
        })
    }

    /// The table row of one example: its campaigns over every seed.
    fn row(&self, example: &str, options: &Options) -> Result<String, String> {
        let mut execs = Vec::new();
        let mut millis = Vec::new();
        let mut rates = Vec::new();
        for seed in 1..=options.seeds {
            let run = self.campaign(example, seed, &["--runs", &options.runs.to_string()])?;
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
        Ok(format!(
            "| `{example}` | {}/{} | {} | {} | {:.0} |",
            execs.len(),
            options.seeds,
            exact_median(&execs).map_or("-".to_string(), |m| format!("{m:.0}")),
            exact_median(&millis).map_or("-".to_string(), |m| format!("{m:.1}")),
            exact_median(&rates).unwrap_or(0.0)
        ))
    }

    /// The trivial property's exec/s under `cargo covcheck` next to the
    /// plain `cargo test` burst's cases/s.
    fn throughput(&self) -> Result<String, String> {
        let trivial = self.campaign("throughput", 1, &["--runs", "5000000"])?;
        let plain = plain_cases_per_second(&self.root, &self.target_dir)?;
        Ok(format!(
            "\nTrivial property `fn p(x: u64)`, one job, release: cargo covcheck {:.0} exec/s; \
             plain cargo test burst {:.0} cases/s (ratio {:.2})",
            trivial.rate,
            plain,
            trivial.rate / plain
        ))
    }

    /// How often `dut_magic` is found without comparison-driven mutations,
    /// `secs` seconds per seed.
    fn ablation(&self, secs: u64, seeds: u64) -> Result<String, String> {
        let mut found = 0;
        for seed in 1..=seeds {
            let run = self.campaign(
                "dut_magic",
                seed,
                &["--no-cmp", "--time", &format!("{secs}s")],
            )?;
            eprintln!("  dut_magic --no-cmp seed {seed}: {:?}", run.found);
            found += usize::from(run.found.is_some());
        }
        Ok(format!(
            "\nAblation: dut_magic without comparison-driven mutations, {secs} s per seed: found in {found}/{seeds} seeds"
        ))
    }

    /// One measuring campaign on `example` with RNG seed `seed`, under
    /// `budget` (`--runs N` or `--time D`) and any other flags.
    pub fn campaign(&self, example: &str, seed: u64, budget: &[&str]) -> Result<Run, String> {
        let manifest = self.root.join("examples").join(example).join("Cargo.toml");
        self.campaign_on(&manifest, 1, seed, budget)
    }

    /// The campaign of the crate at `manifest` with `seed` and `jobs`
    /// workers, `args` added.
    pub fn campaign_on(
        &self,
        manifest: &Path,
        jobs: usize,
        seed: u64,
        args: &[&str],
    ) -> Result<Run, String> {
        self.campaign_with_env(manifest, jobs, seed, args, &[])
    }

    /// [`Examples::campaign_on`] with the environment variables `env`.
    pub fn campaign_with_env(
        &self,
        manifest: &Path,
        jobs: usize,
        seed: u64,
        args: &[&str],
        env: &[(&str, &str)],
    ) -> Result<Run, String> {
        let example = manifest.parent().map_or(manifest, |p| p).display();
        let output =
            measure::measuring_command_on(&self.covcheck, manifest, &self.target_dir, seed, jobs)
                .args(args)
                .envs(env.iter().copied())
                .stderr(Stdio::inherit())
                .output()
                .map_err(|e| format!("cannot run cargo covcheck: {e}"))?;
        // 2: usage or build error; 3: covcheck's own (see `cargo covcheck --help`).
        if matches!(output.status.code(), Some(2 | 3)) {
            return Err(format!("cargo covcheck failed on {example} (see above)"));
        }
        measure::read_events(&String::from_utf8_lossy(&output.stdout))
            .map_err(|e| format!("{example}: {e}"))
    }
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
    measure::rate_between(1_000_000, 11_000_000, time)
}
