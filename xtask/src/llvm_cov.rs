//! `cargo xtask report-vs-llvm-cov`: how far the lines of `cargo covcheck
//! report` (SanitizerCoverage blocks, each on the line of its first
//! instruction) agree with LLVM's source-based coverage
//! (`-Cinstrument-coverage`, `llvm-profdata`, `llvm-cov`, what
//! cargo-llvm-cov shows) on the same inputs: issue 31 asks for 95%.
//!
//! One property of an example gets a campaign (a fresh corpus cache), then
//! `cargo covcheck report` gives covcheck's `lcov.info`. The same report
//! runs again in a second target directory, built with
//! `RUSTFLAGS=-Cinstrument-coverage` on top of covcheck's own
//! instrumentation, on a copy of that corpus cache: its reach worker
//! replays the same inputs (and the same seeds, which live beside the
//! source) and, as it ends with `exit`, LLVM's profile runtime writes its
//! counts. `llvm-cov export` of the worker's test binary (the one whose
//! build ID the profiles carry) gives the other `lcov.info`. The `DA:`
//! records of the example's own source files are compared line by line.
//! covcheck's side is the report of the build without
//! `-Cinstrument-coverage`, the one users get: LLVM's counters change the
//! blocks SanitizerCoverage sees (the second build's own report is printed
//! beside it).
//!
//! Exits non-zero only when a tool fails, never for a low agreement.

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use covcheck_protocol::messages::{Message, parse_message};

use crate::measure;

const USAGE: &str = "options: --example DIR (examples/json), --property FILTER (the first \
                     property), --time SECS (60) or --runs N, --seed S (1)";

/// Disagreements of each class printed as examples; the listing has all.
const EXAMPLES_PER_CLASS: usize = 5;

pub fn main(args: &[String], root: &Path) -> Result<(), String> {
    let options = Options::parse(args, root)?;
    let tools = LlvmTools::find()?;
    let covcheck = measure::build_cargo_covcheck(root)?;
    let scratch = measure::target_dir_of(&covcheck).join("report-vs-llvm-cov");
    let manifest = options.example.join("Cargo.toml");
    if !manifest.is_file() {
        return Err(format!("{}: no such manifest", manifest.display()));
    }
    let name = options
        .example
        .file_name()
        .map_or("example".into(), |n| n.to_string_lossy().into_owned());
    let work = scratch.join(&name);
    let runner = Runner {
        covcheck,
        manifest,
        engine: scratch.join("engine"),
    };

    // covcheck's side: a campaign on a fresh corpus cache, then its report.
    let plain = work.join("covcheck");
    let property = choose_property(&runner, &plain, options.property.as_deref())?;
    for stale in ["corpus", "series"] {
        remove_dir(&plain.join("covcheck").join(stale))?;
    }
    let campaign = run_campaign(&runner, &plain, &property, &options)?;
    let covcheck_report = run_report(&runner, &plain, &property, &[], "covcheck's report")?;

    let (replayed, llvm_lcov) =
        llvm_cov_side(&runner, &tools, &work, &property, covcheck_report.inputs)?;

    // The comparison.
    let example_dir = std::fs::canonicalize(&options.example).map_err(|e| e.to_string())?;
    let ours = read_lcov(&covcheck_report.lcov, &example_dir)?;
    let theirs = read_lcov(&llvm_lcov, &example_dir)?;
    let comparison = Comparison::of(&ours, &theirs);
    let listing = work.join("lines.txt");
    comparison.write_listing(&listing, &example_dir)?;

    println!(
        "\n{} ({}), campaign of {} with --seed {}: {} executions, {} inputs replayed by both",
        options
            .example
            .strip_prefix(root)
            .unwrap_or(&options.example)
            .display(),
        property,
        options.budget.describe(),
        options.seed,
        campaign.execs,
        covcheck_report.inputs
    );
    if campaign.found.is_some() {
        println!("(the campaign found a failure; it was not saved)");
    }
    println!(
        "covcheck report: {} of {} lines reached; the same report in the \
         -Cinstrument-coverage build: {} of {}",
        covcheck_report.reached, covcheck_report.total, replayed.reached, replayed.total
    );
    println!("llvm-cov: {}", tools.describe());
    comparison.print(&example_dir);
    println!("\nevery line: {}", listing.display());
    println!(
        "lcov: {} (covcheck), {} (llvm-cov)",
        covcheck_report.lcov.display(),
        llvm_lcov.display()
    );
    Ok(())
}

/// The same report as covcheck's, in a second target directory built with
/// `-Cinstrument-coverage` too, on a copy of the corpus cache: what it said,
/// and the lcov tracefile `llvm-cov export` makes of its profiles.
fn llvm_cov_side(
    runner: &Runner,
    tools: &LlvmTools,
    work: &Path,
    property: &Listed,
    inputs: usize,
) -> Result<(Reported, PathBuf), String> {
    let instrumented = work.join("llvm-cov");
    let corpus = instrumented.join("covcheck").join("corpus");
    remove_dir(&corpus)?;
    copy_dir(&work.join("covcheck/covcheck/corpus"), &corpus)?;
    let rustflags = match std::env::var("RUSTFLAGS") {
        Ok(flags) if !flags.trim().is_empty() => format!("{flags} -Cinstrument-coverage"),
        _ => "-Cinstrument-coverage".to_string(),
    };
    let profile_env = |dir: &Path| {
        vec![
            ("RUSTFLAGS".to_string(), rustflags.clone()),
            (
                "LLVM_PROFILE_FILE".to_string(),
                dir.join("%p-%m.profraw").display().to_string(),
            ),
        ]
    };
    // The first run builds: the proc-macros and build scripts it runs are
    // instrumented too and write profiles of their own, which go here and
    // are left out.
    let build_profiles = work.join("profiles-build");
    remove_dir(&build_profiles)?;
    run_report(
        runner,
        &instrumented,
        property,
        &profile_env(&build_profiles),
        "the -Cinstrument-coverage build",
    )?;
    // The second only replays: its profiles are the test binary's listing
    // (which runs no property) and its reach worker's.
    let profiles = work.join("profiles");
    remove_dir(&profiles)?;
    let replayed = run_report(
        runner,
        &instrumented,
        property,
        &profile_env(&profiles),
        "the -Cinstrument-coverage replay",
    )?;
    if replayed.inputs != inputs {
        return Err(format!(
            "the -Cinstrument-coverage replay ran {} inputs, covcheck's report {inputs}",
            replayed.inputs
        ));
    }
    let lcov = tools.export(&profiles, &instrumented, property, work)?;
    Ok((replayed, lcov))
}

struct Options {
    example: PathBuf,
    property: Option<String>,
    budget: Budget,
    seed: u64,
}

enum Budget {
    Time(u64),
    Runs(u64),
}

impl Budget {
    fn args(&self) -> [String; 2] {
        match self {
            Budget::Time(secs) => ["--time".into(), format!("{secs}s")],
            Budget::Runs(runs) => ["--runs".into(), runs.to_string()],
        }
    }

    fn describe(&self) -> String {
        match self {
            Budget::Time(secs) => format!("{secs} s"),
            Budget::Runs(runs) => format!("{runs} runs"),
        }
    }
}

impl Options {
    fn parse(args: &[String], root: &Path) -> Result<Options, String> {
        let mut options = Options {
            example: root.join("examples/json"),
            property: None,
            budget: Budget::Time(60),
            seed: 1,
        };
        let mut args = args.iter();
        while let Some(arg) = args.next() {
            let mut value = |name: &str| {
                args.next()
                    .cloned()
                    .ok_or(format!("{name} needs a value; {USAGE}"))
            };
            let number = |name: &str, text: String| {
                text.parse::<u64>()
                    .ok()
                    .filter(|&n| n > 0)
                    .ok_or(format!("{name} needs a positive number"))
            };
            match arg.as_str() {
                "--example" => options.example = root.join(value("--example")?),
                "--property" => options.property = Some(value("--property")?),
                "--time" => options.budget = Budget::Time(number("--time", value("--time")?)?),
                "--runs" => options.budget = Budget::Runs(number("--runs", value("--runs")?)?),
                "--seed" => {
                    let text = value("--seed")?;
                    options.seed = text
                        .parse()
                        .map_err(|_| format!("--seed needs a number, not `{text}`"))?;
                }
                other => return Err(format!("unknown option `{other}`; {USAGE}")),
            }
        }
        Ok(options)
    }
}

/// `llvm-cov` and `llvm-profdata` of rustc's own LLVM: their profile format
/// must be the one the compiler writes.
struct LlvmTools {
    cov: PathBuf,
    profdata: PathBuf,
    /// llvm-cov's `LLVM version X.Y.Z`.
    version: String,
}

impl LlvmTools {
    /// `LLVM_COV` and `LLVM_PROFDATA` (as cargo-llvm-cov reads them), else
    /// the `llvm-tools` component of the toolchain; both must run. A tool
    /// of another LLVM than rustc's is named in a warning: an older one
    /// cannot read the compiler's profiles.
    fn find() -> Result<LlvmTools, String> {
        let rustc = RustcFacts::get()?;
        let how = "run `rustup component add llvm-tools`, or set LLVM_COV and LLVM_PROFDATA \
                   to the tools of rustc's LLVM (`rustc -vV`)";
        let tool = |variable: &str, name: &str| -> Result<(PathBuf, String), String> {
            let path = match std::env::var_os(variable).filter(|v| !v.is_empty()) {
                Some(set) => PathBuf::from(set),
                None => rustc.tools_dir.join(name),
            };
            let mut command = Command::new(&path);
            command.arg("--version");
            let text = output_of(command, &format!("{} --version", path.display()))
                .map_err(|e| format!("{e}; {how}"))?;
            let version = text
                .lines()
                .map(str::trim)
                .find(|l| l.contains("LLVM version"))
                .unwrap_or("LLVM version unknown")
                .to_string();
            let major = |v: &str| {
                v.split_whitespace()
                    .find_map(|w| w.split('.').next()?.parse::<u32>().ok())
            };
            if major(&version) != major(&rustc.llvm_version) {
                eprintln!(
                    "xtask: warning: {} is {version}, rustc's LLVM is {}: {how}",
                    path.display(),
                    rustc.llvm_version
                );
            }
            Ok((path, version))
        };
        let (cov, version) = tool("LLVM_COV", "llvm-cov")?;
        let (profdata, _) = tool("LLVM_PROFDATA", "llvm-profdata")?;
        Ok(LlvmTools {
            cov,
            profdata,
            version,
        })
    }

    /// The tools' paths and llvm-cov's version.
    fn describe(&self) -> String {
        format!(
            "{} and {} ({})",
            self.cov.display(),
            self.profdata.display(),
            self.version
        )
    }

    /// Merges the profiles in `profiles` and exports the line coverage of
    /// the test binaries that wrote them as `<work>/llvm-cov.lcov`.
    fn export(
        &self,
        profiles: &Path,
        target_dir: &Path,
        property: &Listed,
        work: &Path,
    ) -> Result<PathBuf, String> {
        let raw: Vec<PathBuf> = files_in(profiles)?
            .into_iter()
            .filter(|p| p.extension().is_some_and(|e| e == "profraw"))
            .collect();
        if raw.is_empty() {
            return Err(format!(
                "the replay wrote no profile in {}: did the reach worker end without `exit`?",
                profiles.display()
            ));
        }
        let deps = target_dir.join("covcheck/build/covcheck-report/deps");
        let objects = self.objects(&raw, &deps, &property.test_name)?;
        let merged = work.join("llvm-cov.profdata");
        let mut merge = Command::new(&self.profdata);
        merge
            .args(["merge", "-sparse"])
            .args(&raw)
            .arg("-o")
            .arg(&merged);
        output_of(merge, "llvm-profdata merge")?;
        let mut export = Command::new(&self.cov);
        export
            .args(["export", "-format=lcov", "-instr-profile"])
            .arg(&merged)
            .arg(&objects[0]);
        for object in &objects[1..] {
            export.arg("-object").arg(object);
        }
        let lcov = output_of(export, "llvm-cov export")?;
        let path = work.join("llvm-cov.lcov");
        std::fs::write(&path, lcov).map_err(|e| format!("{}: {e}", path.display()))?;
        Ok(path)
    }

    /// The test binaries in `deps` that wrote the profiles `raw`: those
    /// whose GNU build ID the profiles name. Without build IDs, those that
    /// hold the property's test name.
    fn objects(
        &self,
        raw: &[PathBuf],
        deps: &Path,
        test_name: &str,
    ) -> Result<Vec<PathBuf>, String> {
        let mut ids = Vec::new();
        for profile in raw {
            let mut show = Command::new(&self.profdata);
            show.args(["show", "--binary-ids"]).arg(profile);
            let text = output_of(show, "llvm-profdata show --binary-ids")?;
            let listed = text
                .lines()
                .skip_while(|l| !l.starts_with("Binary IDs"))
                .skip(1)
                .filter_map(|l| hex_bytes(l.trim()));
            for id in listed {
                if !ids.contains(&id) {
                    ids.push(id);
                }
            }
        }
        let candidates: Vec<PathBuf> = files_in(deps)?
            .into_iter()
            .filter(|p| p.extension().is_none() && is_executable(p))
            .collect();
        let mut objects = Vec::new();
        for candidate in candidates {
            let bytes =
                std::fs::read(&candidate).map_err(|e| format!("{}: {e}", candidate.display()))?;
            let wanted = if ids.is_empty() {
                contains(&bytes, test_name.as_bytes())
            } else {
                ids.iter()
                    .any(|id| contains(&bytes, &[b"GNU\0", &id[..]].concat()))
            };
            if wanted {
                objects.push(candidate);
            }
        }
        if objects.is_empty() {
            return Err(format!(
                "no test binary in {} matches the profiles ({} build IDs)",
                deps.display(),
                ids.len()
            ));
        }
        if ids.is_empty() {
            eprintln!(
                "xtask: the profiles carry no build ID; llvm-cov reads every test binary that \
                 holds `{test_name}`"
            );
        }
        Ok(objects)
    }
}

/// What rustc says of itself that finding the LLVM tools needs.
struct RustcFacts {
    /// `<sysroot>/lib/rustlib/<host>/bin`, where `llvm-tools` puts its tools.
    tools_dir: PathBuf,
    /// Its LLVM's version (`rustc -vV`'s `LLVM version: 22.1.2`).
    llvm_version: String,
}

impl RustcFacts {
    fn get() -> Result<RustcFacts, String> {
        let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
        let mut sysroot = Command::new(&rustc);
        sysroot.args(["--print", "sysroot"]);
        let sysroot = output_of(sysroot, "rustc --print sysroot")?;
        let mut verbose = Command::new(&rustc);
        verbose.arg("-vV");
        let verbose = output_of(verbose, "rustc -vV")?;
        let field = |name: &str| {
            verbose
                .lines()
                .find_map(|l| l.strip_prefix(name))
                .map(str::trim)
                .ok_or(format!("rustc -vV names no `{name}`"))
        };
        Ok(RustcFacts {
            tools_dir: Path::new(sysroot.trim())
                .join("lib/rustlib")
                .join(field("host:")?)
                .join("bin"),
            llvm_version: field("LLVM version:")?.to_string(),
        })
    }
}

/// Runs `cargo covcheck` with these arguments, target directory and
/// environment.
struct Runner {
    covcheck: PathBuf,
    manifest: PathBuf,
    /// Where the campaign engine is built, once for both target
    /// directories (`COVCHECK_ENGINE_DIR`, unless set already).
    engine: PathBuf,
}

impl Runner {
    fn command(&self, target_dir: &Path, args: &[&str]) -> Command {
        let mut command = Command::new(&self.covcheck);
        command
            .arg("covcheck")
            .args(args)
            .arg("--manifest-path")
            .arg(&self.manifest)
            .arg("--target-dir")
            .arg(target_dir)
            .args(["--message-format", "json"])
            // The builds go where this chore looks for them.
            .env_remove("COVCHECK_BUILD_DIR")
            .stderr(Stdio::inherit());
        if std::env::var_os("COVCHECK_ENGINE_DIR").is_none() {
            command.env("COVCHECK_ENGINE_DIR", &self.engine);
        }
        command
    }
}

/// A property, as `cargo covcheck list` names it.
struct Listed {
    property: String,
    test_name: String,
}

impl std::fmt::Display for Listed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.property)
    }
}

/// The property whose path contains `filter` (one only, or the one it
/// names exactly), or the first one listed.
fn choose_property(
    runner: &Runner,
    target_dir: &Path,
    filter: Option<&str>,
) -> Result<Listed, String> {
    let output = runner
        .command(target_dir, &["list"])
        .output()
        .map_err(|e| format!("cannot run cargo covcheck list: {e}"))?;
    if !output.status.success() {
        return Err(format!("cargo covcheck list failed: {}", output.status));
    }
    let mut listed = Vec::new();
    for line in String::from_utf8_lossy(&output.stdout).lines() {
        if let Some(Ok(Message::Listed {
            property,
            test_name,
            perf: false,
            ..
        })) = parse_message(line)
        {
            listed.push(Listed {
                property,
                test_name,
            });
        }
    }
    let Some(filter) = filter else {
        return listed
            .into_iter()
            .next()
            .ok_or_else(|| "the example has no property (but performance-mode ones)".to_string());
    };
    if let Some(n) = listed.iter().position(|l| l.property == filter) {
        return Ok(listed.swap_remove(n));
    }
    let mut matching: Vec<Listed> = listed
        .into_iter()
        .filter(|l| l.property.contains(filter))
        .collect();
    match matching.len() {
        1 => Ok(matching.remove(0)),
        0 => Err(format!("no property matches `{filter}`")),
        _ => Err(format!(
            "`{filter}` matches several properties, name one: {}",
            matching
                .iter()
                .map(|l| l.property.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        )),
    }
}

fn run_campaign(
    runner: &Runner,
    target_dir: &Path,
    property: &Listed,
    options: &Options,
) -> Result<measure::Run, String> {
    let budget = options.budget.args();
    let seed = options.seed.to_string();
    // One worker, so that `--runs N --seed S` makes the same corpus again.
    let args = [
        "--exact",
        &property.property,
        &budget[0],
        &budget[1],
        "--seed",
        &seed,
        "-j",
        "1",
        "--no-save",
    ];
    eprintln!(
        "xtask: campaign of {property}, {}",
        options.budget.describe()
    );
    let output = runner
        .command(target_dir, &args)
        .output()
        .map_err(|e| format!("cannot run cargo covcheck: {e}"))?;
    // 1: a failure found, which does not spoil the corpus.
    if !matches!(output.status.code(), Some(0 | 1)) {
        return Err(format!("the campaign failed: {}", output.status));
    }
    measure::read_events(&String::from_utf8_lossy(&output.stdout))
}

/// What one `cargo covcheck report` said.
struct Reported {
    lcov: PathBuf,
    inputs: usize,
    reached: usize,
    total: usize,
}

fn run_report(
    runner: &Runner,
    target_dir: &Path,
    property: &Listed,
    env: &[(String, String)],
    what: &str,
) -> Result<Reported, String> {
    eprintln!("xtask: {what}");
    let mut command = runner.command(target_dir, &["report", "--exact", &property.property]);
    if !env.is_empty() {
        // Cargo would take it over RUSTFLAGS.
        command.env_remove("CARGO_ENCODED_RUSTFLAGS");
    }
    let output = command
        .envs(env.iter().map(|(k, v)| (k, v)))
        .output()
        .map_err(|e| format!("cannot run cargo covcheck report: {e}"))?;
    if !output.status.success() {
        return Err(format!(
            "{what}: cargo covcheck report failed: {}",
            output.status
        ));
    }
    let (mut lcov, mut coverage) = (None, None);
    for line in String::from_utf8_lossy(&output.stdout).lines() {
        match parse_message(line) {
            Some(Ok(Message::Report { lcov: path, .. })) => lcov = Some(path),
            Some(Ok(Message::Coverage {
                lines_reached,
                lines_total,
                inputs,
                ..
            })) => coverage = Some((lines_reached, lines_total, inputs)),
            Some(Ok(Message::Error { property, message })) => {
                return Err(format!("{what}: {property}: {message}"));
            }
            _ => {}
        }
    }
    match (lcov, coverage) {
        (Some(lcov), Some((reached, total, inputs))) => Ok(Reported {
            lcov,
            inputs,
            reached,
            total,
        }),
        _ => Err(format!(
            "{what}: cargo covcheck report said nothing of its coverage"
        )),
    }
}

/// Hit or not, by line, of each source file under `dir` (canonical paths).
type Lines = BTreeMap<PathBuf, BTreeMap<u32, bool>>;

/// The `DA:` records of an lcov tracefile for the files under `dir`.
fn read_lcov(path: &Path, dir: &Path) -> Result<Lines, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut lines = Lines::new();
    let mut file: Option<PathBuf> = None;
    for record in text.lines() {
        if let Some(name) = record.strip_prefix("SF:") {
            file = std::fs::canonicalize(name)
                .ok()
                .filter(|p| p.starts_with(dir));
        } else if let (Some(file), Some(data)) = (&file, record.strip_prefix("DA:")) {
            let mut fields = data.split(',');
            let line = fields.next().and_then(|l| l.parse::<u32>().ok());
            let hits = fields.next().and_then(|h| h.parse::<u64>().ok());
            let (Some(line), Some(hits)) = (line, hits) else {
                return Err(format!(
                    "{}: not an lcov line record: {record}",
                    path.display()
                ));
            };
            let hit = lines
                .entry(file.clone())
                .or_default()
                .entry(line)
                .or_default();
            *hit |= hits > 0;
        }
    }
    Ok(lines)
}

/// How covcheck and llvm-cov see one line.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Class {
    BothHit,
    BothMiss,
    OnlyCovcheck,
    OnlyLlvmCov,
    CovcheckHitLlvmCovMiss,
    CovcheckMissLlvmCovHit,
}

impl Class {
    const DISAGREEMENTS: [Class; 4] = [
        Class::OnlyCovcheck,
        Class::OnlyLlvmCov,
        Class::CovcheckHitLlvmCovMiss,
        Class::CovcheckMissLlvmCovHit,
    ];

    fn of(ours: Option<bool>, theirs: Option<bool>) -> Option<Class> {
        Some(match (ours, theirs) {
            (Some(true), Some(true)) => Class::BothHit,
            (Some(false), Some(false)) => Class::BothMiss,
            (Some(_), None) => Class::OnlyCovcheck,
            (None, Some(_)) => Class::OnlyLlvmCov,
            (Some(true), Some(false)) => Class::CovcheckHitLlvmCovMiss,
            (Some(false), Some(true)) => Class::CovcheckMissLlvmCovHit,
            (None, None) => return None,
        })
    }

    fn name(self) -> &'static str {
        match self {
            Class::BothHit => "both hit",
            Class::BothMiss => "both miss",
            Class::OnlyCovcheck => "only covcheck counts it",
            Class::OnlyLlvmCov => "only llvm-cov counts it",
            Class::CovcheckHitLlvmCovMiss => "covcheck hit, llvm-cov miss",
            Class::CovcheckMissLlvmCovHit => "covcheck miss, llvm-cov hit",
        }
    }
}

/// One line either tool counts.
struct Line {
    file: PathBuf,
    number: u32,
    ours: Option<bool>,
    theirs: Option<bool>,
    class: Class,
}

struct Comparison {
    lines: Vec<Line>,
}

impl Comparison {
    fn of(ours: &Lines, theirs: &Lines) -> Comparison {
        let mut keys: Vec<(&PathBuf, u32)> = ours
            .iter()
            .chain(theirs)
            .flat_map(|(file, lines)| lines.keys().map(move |&n| (file, n)))
            .collect();
        keys.sort();
        keys.dedup();
        let status = |lines: &Lines, file: &PathBuf, n: u32| lines.get(file)?.get(&n).copied();
        let lines = keys
            .into_iter()
            .filter_map(|(file, number)| {
                let (a, b) = (status(ours, file, number), status(theirs, file, number));
                Class::of(a, b).map(|class| Line {
                    file: file.clone(),
                    number,
                    ours: a,
                    theirs: b,
                    class,
                })
            })
            .collect();
        Comparison { lines }
    }

    fn count(&self, class: Class) -> usize {
        self.lines.iter().filter(|l| l.class == class).count()
    }

    fn print(&self, dir: &Path) {
        let either = self.lines.len();
        let agree = self.count(Class::BothHit) + self.count(Class::BothMiss);
        let both = agree
            + self.count(Class::CovcheckHitLlvmCovMiss)
            + self.count(Class::CovcheckMissLlvmCovHit);
        let files = self
            .lines
            .iter()
            .map(|l| &l.file)
            .collect::<std::collections::BTreeSet<_>>()
            .len();
        println!(
            "\nlines of {} source file(s) under {}:",
            files,
            dir.display()
        );
        println!("  counted by either:  {either}");
        println!("  counted by both:    {both}");
        println!(
            "  agreement:          {agree} of {either} ({}): both count the line and agree on \
             hit/miss, of the lines either counts",
            percent(agree, either)
        );
        println!(
            "  of the lines both count, agreeing: {agree} of {both} ({})",
            percent(agree, both)
        );
        println!("disagreements:");
        for class in Class::DISAGREEMENTS {
            println!("  {:<28} {}", class.name(), self.count(class));
        }
        let mut sources = Sources::default();
        for class in Class::DISAGREEMENTS {
            let lines: Vec<&Line> = self.lines.iter().filter(|l| l.class == class).collect();
            if lines.is_empty() {
                continue;
            }
            println!(
                "\n{} (first {} of {}):",
                class.name(),
                EXAMPLES_PER_CLASS.min(lines.len()),
                lines.len()
            );
            for line in lines.iter().take(EXAMPLES_PER_CLASS) {
                println!(
                    "  {}:{:<5} {}",
                    relative(&line.file, dir),
                    line.number,
                    sources.line(&line.file, line.number).trim_end()
                );
            }
        }
    }

    /// Every line either tool counts: place, class, each tool's status
    /// (`-` where it does not count the line) and the source text.
    fn write_listing(&self, path: &Path, dir: &Path) -> Result<(), String> {
        let mut sources = Sources::default();
        let status = |s: Option<bool>| match s {
            Some(true) => "hit",
            Some(false) => "miss",
            None => "-",
        };
        let mut out = String::from("# file:line\tclass\tcovcheck\tllvm-cov\tsource\n");
        for line in &self.lines {
            let _ = writeln!(
                out,
                "{}:{}\t{}\t{}\t{}\t{}",
                relative(&line.file, dir),
                line.number,
                line.class.name(),
                status(line.ours),
                status(line.theirs),
                sources.line(&line.file, line.number).trim_end()
            );
        }
        std::fs::write(path, out).map_err(|e| format!("{}: {e}", path.display()))
    }
}

/// Source files read once each, by line.
#[derive(Default)]
struct Sources {
    files: HashMap<PathBuf, Vec<String>>,
}

impl Sources {
    fn line(&mut self, file: &Path, number: u32) -> &str {
        let lines = self.files.entry(file.to_path_buf()).or_insert_with(|| {
            std::fs::read_to_string(file)
                .map(|text| text.lines().map(str::to_string).collect())
                .unwrap_or_default()
        });
        lines
            .get(number.saturating_sub(1) as usize)
            .map_or("", String::as_str)
    }
}

fn percent(part: usize, whole: usize) -> String {
    if whole == 0 {
        "-".to_string()
    } else {
        format!("{:.1}%", part as f64 * 100.0 / whole as f64)
    }
}

fn relative(file: &Path, dir: &Path) -> String {
    file.strip_prefix(dir).unwrap_or(file).display().to_string()
}

/// Runs `command` and returns its stdout, or says which tool failed and why.
fn output_of(mut command: Command, what: &str) -> Result<String, String> {
    let output = command
        .stderr(Stdio::piped())
        .output()
        .map_err(|e| format!("cannot run {what} ({:?}): {e}", command.get_program()))?;
    if !output.status.success() {
        return Err(format!(
            "{what} failed ({}): {}",
            output.status,
            String::from_utf8_lossy(&output.stderr).trim()
        ));
    }
    Ok(String::from_utf8_lossy(&output.stdout).into_owned())
}

/// The bytes of a hexadecimal string, if it is one.
fn hex_bytes(text: &str) -> Option<Vec<u8>> {
    if text.is_empty() || !text.len().is_multiple_of(2) {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(text.get(i..i + 2)?, 16).ok())
        .collect()
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    !needle.is_empty() && haystack.windows(needle.len()).any(|w| w == needle)
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

fn files_in(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .flatten()
        .map(|e| e.path())
        .collect();
    files.sort();
    Ok(files)
}

fn remove_dir(dir: &Path) -> Result<(), String> {
    match std::fs::remove_dir_all(dir) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            Err(format!("cannot remove {}: {e}", dir.display()))
        }
        _ => Ok(()),
    }
}

fn copy_dir(from: &Path, to: &Path) -> Result<(), String> {
    std::fs::create_dir_all(to).map_err(|e| format!("{}: {e}", to.display()))?;
    for entry in files_in(from)? {
        let target = to.join(entry.file_name().expect("a directory entry has a name"));
        if entry.is_dir() {
            copy_dir(&entry, &target)?;
        } else {
            std::fs::copy(&entry, &target)
                .map_err(|e| format!("copying {}: {e}", entry.display()))?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_classed_by_who_counts_them_and_how() {
        let lines = |records: &[(u32, bool)]| -> Lines {
            let mut lines = Lines::new();
            lines.insert(
                PathBuf::from("/x/src/lib.rs"),
                records.iter().copied().collect(),
            );
            lines
        };
        let ours = lines(&[(1, true), (2, false), (3, true), (4, true), (5, false)]);
        let theirs = lines(&[(1, true), (2, false), (4, false), (5, true), (6, false)]);
        let classes: Vec<Class> = Comparison::of(&ours, &theirs)
            .lines
            .iter()
            .map(|l| l.class)
            .collect();
        assert!(
            classes
                == [
                    Class::BothHit,
                    Class::BothMiss,
                    Class::OnlyCovcheck,
                    Class::CovcheckHitLlvmCovMiss,
                    Class::CovcheckMissLlvmCovHit,
                    Class::OnlyLlvmCov,
                ]
        );
    }

    #[test]
    fn build_ids_read_as_bytes() {
        assert_eq!(hex_bytes("034c"), Some(vec![0x03, 0x4c]));
        assert_eq!(hex_bytes("03z4"), None);
        assert_eq!(hex_bytes("abc"), None);
        assert!(contains(b"xxGNU\0\x03\x4cyy", b"GNU\0\x03\x4c"));
    }
}
