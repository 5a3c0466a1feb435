//! `cargo xtask suite`: what one budget for a whole suite is worth.
//!
//! 1. **Shared against split.** `examples/suite` (many properties, six
//!    planted bugs of varied depth) under one total time budget: the
//!    adaptive schedule (`--time-total T`) against an even split of the same
//!    budget (`--time T*J/N` per property, J at a time), on each seed.
//! 2. **Aimed at a change.** A generated repository of twenty properties
//!    whose second commit puts a bug in code one of them reaches: after a
//!    campaign on the first commit, the same total budget with and without
//!    `--since HEAD~1`, from the same corpus.
//!
//! Every run is probed the same way: the wall-clock arrival of each
//! `finding` message on stdout, from the first `started` one (after the
//! build). A bug a run does not find is scored at the budget, not dropped.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use covcheck_protocol::messages::{Message, parse_message};

use crate::campaigns::Examples;
use crate::stats::{Measured, median};

struct Options {
    seeds: u64,
    /// The total budget of each run.
    secs: u64,
    jobs: usize,
    /// Which parts to run.
    shared: bool,
    since: bool,
}

impl Options {
    fn parse(args: &[String]) -> Result<Options, String> {
        let mut options = Options {
            seeds: 5,
            secs: 60,
            jobs: 2,
            shared: true,
            since: true,
        };
        let mut args = args.iter();
        while let Some(arg) = args.next() {
            let mut value = || -> Result<u64, String> {
                let text = args.next().ok_or(format!("{arg} needs a value"))?;
                text.parse()
                    .map_err(|_| format!("{arg} {text}: not a number"))
            };
            match arg.as_str() {
                "--seeds" => options.seeds = value()?,
                "--time" => options.secs = value()?,
                "--jobs" => options.jobs = value()? as usize,
                "--only-shared" => options.since = false,
                "--only-since" => options.shared = false,
                other => return Err(format!("unknown option {other}")),
            }
        }
        Ok(options)
    }
}

/// What one run found: each bug's property and its arrival from the
/// first `started` message.
#[derive(Debug, Default)]
struct Timed {
    found: Vec<(String, Duration)>,
}

pub fn main(args: &[String]) -> Result<(), String> {
    let options = Options::parse(args)?;
    let examples = Examples::build()?;
    if options.shared {
        shared_against_split(&examples, &options)?;
    }
    if options.since {
        aimed_at_a_change(&examples, &options)?;
    }
    Ok(())
}

/// Part 1: the adaptive schedule against an even split, seed by seed.
fn shared_against_split(examples: &Examples, options: &Options) -> Result<(), String> {
    let manifest = examples.root().join("examples/suite/Cargo.toml");
    let properties = count_properties(&examples.root().join("examples/suite/src"))?;
    let total = options.secs;
    let per_property = (total as f64 * options.jobs as f64 / properties as f64).max(1.0);
    println!(
        "\n## One budget for examples/suite ({properties} properties, {} s total, -j {})\n",
        total, options.jobs
    );
    println!(
        "Even split: `--time {per_property:.2}s` per property, {} at a time.\n",
        options.jobs
    );
    println!(
        "| seed | shared: bugs | shared: time to last bug (s) | split: bugs | split: time to last bug (s) |"
    );
    println!("|---|---|---|---|---|");
    let (mut shared_last, mut split_last) = (Vec::new(), Vec::new());
    let (mut shared_bugs, mut split_bugs) = (0, 0);
    for seed in 1..=options.seeds {
        let shared = timed_run(
            examples,
            &manifest,
            seed,
            options.jobs,
            &["--time-total", &format!("{total}s")],
        )?;
        let split = timed_run(
            examples,
            &manifest,
            seed,
            options.jobs,
            &["--time", &format!("{per_property:.2}s")],
        )?;
        let (a, b) = (last_bug(&shared, total), last_bug(&split, total));
        println!(
            "| {seed} | {} | {} | {} | {} |",
            shared.found.len(),
            show(a),
            split.found.len(),
            show(b)
        );
        shared_bugs += shared.found.len();
        split_bugs += split.found.len();
        shared_last.push(a);
        split_last.push(b);
    }
    println!(
        "\nBugs found in all: shared {shared_bugs}, split {split_bugs}. Median time to the \
         last bug found: shared {}, split {}.",
        show_median(&shared_last),
        show_median(&split_last)
    );
    Ok(())
}

/// Part 2: the same total budget with and without `--since HEAD~1` on a
/// generated repository.
fn aimed_at_a_change(examples: &Examples, options: &Options) -> Result<(), String> {
    let dir = examples.target_dir().join("suite-since");
    let total = options.secs;
    println!(
        "\n## Aimed at a change: 20 properties, the bug in one, {total} s total, -j {}\n",
        options.jobs
    );
    println!("| seed | with --since: time to bug (s) | without: time to bug (s) |");
    println!("|---|---|---|");
    let (mut with, mut without) = (Vec::new(), Vec::new());
    for seed in 1..=options.seeds {
        let repository = ChangeRepository::make(&dir, examples)?;
        let budget = ["--time-total".to_string(), format!("{total}s")];
        let aimed = repository.measure(examples, seed, options.jobs, true, &budget)?;
        let unaimed = repository.measure(examples, seed, options.jobs, false, &budget)?;
        let (a, b) = (last_bug(&aimed, total), last_bug(&unaimed, total));
        println!("| {seed} | {} | {} |", show(a), show(b));
        with.push(a);
        without.push(b);
    }
    println!(
        "\nMedian time to the bug: with --since {}, without {}.",
        show_median(&with),
        show_median(&without)
    );
    Ok(())
}

/// `cargo covcheck` on `manifest` with `args`, each finding timed from the
/// first `started` message.
fn timed_run(
    examples: &Examples,
    manifest: &Path,
    seed: u64,
    jobs: usize,
    args: &[&str],
) -> Result<Timed, String> {
    let command = examples.measuring_command(manifest, seed, jobs);
    timed(command, args)
}

fn timed(mut command: Command, args: &[&str]) -> Result<Timed, String> {
    let mut child = command
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("cannot run cargo covcheck: {e}"))?;
    let stdout = child.stdout.take().expect("piped");
    let mut start = None;
    let mut timed = Timed::default();
    for line in BufReader::new(stdout).lines().map_while(Result::ok) {
        let now = Instant::now();
        match parse_message(&line) {
            Some(Ok(Message::Started { .. })) => {
                start.get_or_insert(now);
            }
            Some(Ok(Message::Finding { property, .. })) => {
                let at = now.duration_since(*start.get_or_insert(now));
                timed.found.push((property, at));
            }
            Some(Ok(Message::Error { property, message })) => {
                let _ = child.kill();
                return Err(format!("{property}: {message}"));
            }
            _ => {}
        }
    }
    let status = child.wait().map_err(|e| e.to_string())?;
    if matches!(status.code(), Some(2 | 3)) {
        return Err(format!(
            "cargo covcheck failed ({status}); run it by hand to see why"
        ));
    }
    Ok(timed)
}

/// When the run found its last bug, or [`Measured::AtLeast`] the budget
/// when it found none.
fn last_bug(run: &Timed, budget_secs: u64) -> Measured {
    match run.found.iter().map(|(_, at)| at).max() {
        Some(at) => Measured::Found(at.as_secs_f64()),
        None => Measured::AtLeast(budget_secs as f64),
    }
}

fn show(measured: Measured) -> String {
    match measured {
        Measured::Found(secs) => format!("{secs:.1}"),
        Measured::AtLeast(secs) => format!("not found (≥ {secs:.0})"),
    }
}

fn show_median(values: &[Measured]) -> String {
    match median(values) {
        Some(m) if m.lower_bound => format!("≥ {:.1} s", m.value),
        Some(m) => format!("{:.1} s", m.value),
        None => "-".to_string(),
    }
}

/// The `#[covcheck]` properties under `src`.
fn count_properties(src: &Path) -> Result<usize, String> {
    let mut count = 0;
    for entry in std::fs::read_dir(src).map_err(|e| format!("{}: {e}", src.display()))? {
        let path = entry.map_err(|e| e.to_string())?.path();
        if path.extension().is_some_and(|e| e == "rs") {
            let text = std::fs::read_to_string(&path).map_err(|e| e.to_string())?;
            // Attribute lines only: the crate's docs mention the attribute.
            count += (text.lines())
                .filter(|line| line.trim_start().starts_with("#[covcheck"))
                .count();
        }
    }
    Ok(count)
}

/// The generated repository of part 2, at its first commit's campaign.
struct ChangeRepository {
    dir: PathBuf,
    /// The covcheck state after the campaign on the first commit, restored
    /// before each measured run so that both start from the same corpus.
    state: PathBuf,
    snapshot: PathBuf,
}

/// How many properties the generated repository has, and which one the
/// change reaches (in the middle of the discovery order, so that without
/// `--since` it waits its turn like any other).
const PROPERTIES: usize = 20;
const CHANGED: usize = 13;

impl ChangeRepository {
    /// Writes the first commit, runs a campaign on it to fill the corpus
    /// caches, snapshots them, and commits the change.
    fn make(dir: &Path, examples: &Examples) -> Result<ChangeRepository, String> {
        let _ = std::fs::remove_dir_all(dir.join(".git"));
        std::fs::create_dir_all(dir.join("src")).map_err(|e| e.to_string())?;
        let manifest = format!(
            "[package]\nname = \"since_suite\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\
             publish = false\n\n[dev-dependencies]\ncovcheck-rt = {{ path = {:?} }}\n\n\
             [workspace]\n",
            examples.root().join("covcheck-rt")
        );
        write(&dir.join("Cargo.toml"), &manifest)?;
        let lock = std::fs::read_to_string(examples.root().join("examples/keyword/Cargo.lock"))
            .map_err(|e| e.to_string())?;
        write(
            &dir.join("Cargo.lock"),
            &lock.replace("name = \"keyword\"", "name = \"since_suite\""),
        )?;
        write(&dir.join(".gitignore"), "/target\n")?;
        write(&dir.join("src/lib.rs"), &generated_crate(false))?;
        git(dir, &["init", "-q"])?;
        git(dir, &["add", "-A"])?;
        git(dir, &["commit", "-qm", "before"])?;
        let state = examples.target_dir().join("suite-since-target/covcheck");
        let _ = std::fs::remove_dir_all(state.join("corpus"));
        let repository = ChangeRepository {
            dir: dir.to_path_buf(),
            snapshot: state.with_file_name("corpus-snapshot"),
            state,
        };
        let warm = repository.command(examples, 1, 2, &["--runs-total", "200000"]);
        let warm = timed(warm, &[])?;
        if !warm.found.is_empty() {
            return Err(format!(
                "the first commit has no bug, but: {:?}",
                warm.found
            ));
        }
        let _ = std::fs::remove_dir_all(&repository.snapshot);
        copy_dir(&repository.state.join("corpus"), &repository.snapshot)?;
        write(&dir.join("src/lib.rs"), &generated_crate(true))?;
        git(dir, &["commit", "-qam", "the change"])?;
        Ok(repository)
    }

    /// A measured run from the snapshot, `--since HEAD~1` when `aimed`.
    fn measure(
        &self,
        examples: &Examples,
        seed: u64,
        jobs: usize,
        aimed: bool,
        budget: &[String],
    ) -> Result<Timed, String> {
        let corpus = self.state.join("corpus");
        let _ = std::fs::remove_dir_all(&corpus);
        copy_dir(&self.snapshot, &corpus)?;
        let mut args: Vec<&str> = budget.iter().map(String::as_str).collect();
        if aimed {
            args.extend(["--since", "HEAD~1"]);
        }
        timed(self.command(examples, seed, jobs, &args), &[])
    }

    /// `cargo covcheck` on the repository, resuming its corpus caches.
    fn command(&self, examples: &Examples, seed: u64, jobs: usize, args: &[&str]) -> Command {
        let mut command = Command::new(examples.covcheck());
        command
            .arg("covcheck")
            .arg("--manifest-path")
            .arg(self.dir.join("Cargo.toml"))
            .arg("--target-dir")
            .arg(self.state.parent().expect("a target dir"))
            .args([
                "--seed",
                &seed.to_string(),
                "--no-save",
                "-j",
                &jobs.to_string(),
            ])
            .args(["--message-format", "json"])
            .args(args);
        command
    }
}

/// The generated crate: [`PROPERTIES`] properties, each over a function of
/// its own; with `changed`, the function of property [`CHANGED`] has a bug
/// behind its record tag and a two-byte marker.
fn generated_crate(changed: bool) -> String {
    let mut code = String::from("//! Generated by `cargo xtask suite`.\n\n");
    for k in 0..PROPERTIES {
        if k == CHANGED {
            let bug = if changed {
                "        if body.len() >= 4 && body[0] == 0x7f && body[1] == 0x45 {\n            \
                 return Some(body.len() + 1);\n        }\n"
            } else {
                ""
            };
            code.push_str(&format!(
                "pub fn record_len(tag: u32, body: &[u8]) -> Option<usize> {{\n    \
                 if tag == 0x5245_4344 {{\n{bug}        return Some(body.len());\n    }}\n    \
                 None\n}}\n\n"
            ));
        } else {
            code.push_str(&format!(
                "pub fn mix_{k}(data: &[u8]) -> u32 {{\n    let mut acc = {k}u32;\n    \
                 for (i, b) in data.iter().enumerate() {{\n        \
                 if b % {m} == 0 {{\n            acc = acc.wrapping_mul(31).wrapping_add(u32::from(*b));\n        \
                 }} else if *b > {t} {{\n            acc ^= i as u32;\n        }} else {{\n            \
                 acc = acc.rotate_left(3);\n        }}\n    }}\n    acc\n}}\n\n",
                m = k + 2,
                t = 200 - k
            ));
        }
    }
    code.push_str("#[cfg(test)]\nmod tests {\n    use super::*;\n    use covcheck_rt::covcheck;\n");
    for k in 0..PROPERTIES {
        if k == CHANGED {
            code.push_str(&format!(
                "\n    #[covcheck]\n    fn p{k:02}_records_fit(tag: u32, body: Vec<u8>) {{\n        \
                 if let Some(n) = record_len(tag, &body) {{\n            \
                 assert!(n <= body.len(), \"a record longer than its body\");\n        }}\n    }}\n"
            ));
        } else {
            code.push_str(&format!(
                "\n    #[covcheck]\n    fn p{k:02}_mix_is_deterministic(data: Vec<u8>) {{\n        \
                 assert_eq!(mix_{k}(&data), mix_{k}(&data));\n    }}\n"
            ));
        }
    }
    code.push_str("}\n");
    code
}

fn write(path: &Path, text: &str) -> Result<(), String> {
    std::fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))
}

fn git(dir: &Path, args: &[&str]) -> Result<(), String> {
    let status = Command::new("git")
        .args([
            "-c",
            "user.name=xtask",
            "-c",
            "user.email=xtask@invalid",
            "-c",
            "commit.gpgsign=false",
        ])
        .args(args)
        .current_dir(dir)
        .status()
        .map_err(|e| format!("git: {e}"))?;
    status
        .success()
        .then_some(())
        .ok_or(format!("git {args:?} failed"))
}

fn copy_dir(from: &Path, to: &Path) -> Result<(), String> {
    std::fs::create_dir_all(to).map_err(|e| format!("{}: {e}", to.display()))?;
    let Ok(entries) = std::fs::read_dir(from) else {
        return Ok(());
    };
    for entry in entries {
        let entry = entry.map_err(|e| e.to_string())?;
        let target = to.join(entry.file_name());
        if entry.path().is_dir() {
            copy_dir(&entry.path(), &target)?;
        } else {
            std::fs::copy(entry.path(), &target)
                .map_err(|e| format!("{}: {e}", target.display()))?;
        }
    }
    Ok(())
}
