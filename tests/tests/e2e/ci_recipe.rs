//! End-to-end: the book's GitHub Actions recipe, `book/src/ci/covcheck.yml`
//! (chapter "covcheck in CI"), does what the chapter says.
//!
//! The pull-request job's `run:` steps are read from the file and run as
//! they are written, in order, with bash as GitHub runs them, in a fixture
//! crate made a git repository: a first commit that `origin/main` points
//! at, then a pull request's commit that changes the code under test.
//! What only GitHub can do (`uses:` steps: checkout, toolchain, caches,
//! artifacts) and the steps that install (`cargo install`, `rustup`) are
//! left out; `cargo covcheck` is the built one, first on `PATH`.
//!
//! - A pull request that plants a bug behind a 32-bit magic word: `cargo
//!   test` passes, the campaign finds the bug and fails the job (exit 1),
//!   its JUnit report has the failing test case, the seed is saved and
//!   collected for upload, with the JUnit file and the coverage report.
//! - A pull request that changes the code without a bug: every step
//!   passes, and nothing is collected but the reports.
//!
//! The environment overrides are what CI gets from `${{ }}` and the job's
//! `env:`: an execution budget and a fixed RNG seed instead of ten minutes
//! (`COVCHECK_BUDGET`), `main` as the base branch, one worker.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;
use std::time::Instant;

use covcheck_e2e::{Fixture, git, text_of, workspace_root};

/// The code under test on `main`, and two properties of it: the pull
/// requests change `decode` only.
const MAIN: &str = r#"
    /// The code under test: a word's bits turned three places.
    fn decode(word: u32) -> u32 {
        word.rotate_left(3)
    }

    #[covcheck]
    fn decode_round_trips(word: u32) {
        assert_eq!(decode(word).rotate_right(3), word);
    }

    #[covcheck]
    fn sorting_keeps_the_length(mut v: Vec<u8>) {
        let len = v.len();
        v.sort();
        assert_eq!(v.len(), len);
    }
"#;

/// A pull request's fast path, wrong for one word in 2^32: random inputs
/// miss it, a campaign's comparison tracing finds it.
const BUGGY_DECODE: &str = r#"
    /// The code under test: a word's bits turned three places.
    fn decode(word: u32) -> u32 {
        if word == 0x1234_5678 {
            return 0;
        }
        word.rotate_left(3)
    }
"#;

/// A pull request that rewrites `decode` without changing what it does.
const REWRITTEN_DECODE: &str = r#"
    /// The code under test: a word's bits turned three places.
    fn decode(word: u32) -> u32 {
        (word << 3) | (word >> 29)
    }
"#;

/// The environment CI would give the steps, made fast and repeatable.
const OVERRIDES: &[(&str, &str)] = &[
    ("COVCHECK_BUDGET", "--runs-total 20000 --seed 1"),
    ("BASE_REF", "main"),
];

/// The recipe's steps all use `<target>/covcheck/report`: one pull request
/// at a time, so that each test reads its own report.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

#[test]
fn a_pull_request_with_a_bug_fails_the_job_and_keeps_the_seed() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let fixture = Fixture::new("ci_recipe_bug", MAIN);
    let steps = run_pull_request(&fixture, BUGGY_DECODE);

    assert_eq!(steps.status_of("cargo test"), Some(0), "{steps}");
    assert_eq!(
        steps.status_of("cargo covcheck"),
        Some(1),
        "the campaign finds the new bug and fails the job: {steps}"
    );
    // Collecting and uploading come after a failed step too.
    assert_eq!(steps.status_of("covcheck-artifacts"), Some(0), "{steps}");
    let campaign = steps.output_of("cargo covcheck");
    assert!(
        campaign.contains("Where the time went"),
        "the properties shared one budget: {campaign}"
    );

    let failing = failing_cases(&fixture.path().join("covcheck-campaign.xml"));
    assert_eq!(failing.len(), 1, "{failing:?}\n{steps}");
    assert!(
        failing[0].0.ends_with("decode_round_trips") && failing[0].1.contains("src/lib.rs"),
        "{failing:?}"
    );

    let seeds = fixture.seed_files("decode_round_trips");
    assert_eq!(seeds.len(), 1, "{steps}");
    assert!(fixture.seed_files("sorting_keeps_the_length").is_empty());
    let artifacts = fixture.path().join("covcheck-artifacts");
    let relative = seeds[0].strip_prefix(fixture.path()).unwrap();
    let uploaded = artifacts.join("seeds").join(relative);
    assert_eq!(
        fs::read(&uploaded).ok(),
        fs::read(&seeds[0]).ok(),
        "the new seed is collected at its path in the checkout: {}",
        uploaded.display()
    );
    assert_eq!(uploaded_files(&artifacts.join("seeds")).len(), 1);
    assert!(artifacts.join("covcheck-campaign.xml").is_file());
    assert!(artifacts.join("coverage-report/index.html").is_file());
    the_cache_holds_the_corpus(&fixture);
}

#[test]
fn a_pull_request_without_a_bug_passes() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let fixture = Fixture::new("ci_recipe_clean", MAIN);
    let steps = run_pull_request(&fixture, REWRITTEN_DECODE);

    for step in &steps.0 {
        assert!(
            matches!(step.status, Some(0) | None),
            "every step passes: {steps}"
        );
    }
    assert_eq!(steps.status_of("cargo covcheck"), Some(0), "{steps}");
    let failing = failing_cases(&fixture.path().join("covcheck-campaign.xml"));
    assert!(failing.is_empty(), "{failing:?}");
    assert!(fixture.seed_files("decode_round_trips").is_empty());
    let artifacts = fixture.path().join("covcheck-artifacts");
    assert!(uploaded_files(&artifacts.join("seeds")).is_empty());
    assert!(artifacts.join("covcheck-campaign.xml").is_file());
    assert!(artifacts.join("coverage-report/index.html").is_file());
}

/// The campaign aims at `origin/$BASE_REF`: a base that does not exist
/// is a usage error (exit 2) that fails the job, not a campaign without
/// aim.
#[test]
fn a_base_that_does_not_exist_fails_the_campaign() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let fixture = Fixture::new("ci_recipe_no_base", MAIN);
    let overrides = [
        ("COVCHECK_BUDGET", "--runs-total 2000 --seed 1"),
        ("BASE_REF", "no-such-branch"),
    ];
    let steps = run_pull_request_with(&fixture, REWRITTEN_DECODE, &overrides);
    assert_eq!(steps.status_of("cargo test"), Some(0), "{steps}");
    assert_eq!(steps.status_of("cargo covcheck"), Some(2), "{steps}");
    assert!(
        steps
            .output_of("cargo covcheck")
            .contains("origin/no-such-branch"),
        "the error names the base: {steps}"
    );
}

/// The jobs keep the same corpus cache, and it is the corpus: what the
/// campaigns wrote is under the paths both jobs restore and save, which
/// hold no more than the campaigns' state.
fn the_cache_holds_the_corpus(fixture: &Fixture) {
    let workflow = Workflow::read();
    let mut caches = Vec::new();
    for job in ["pull-request", "nightly"] {
        for step in workflow.steps(job) {
            let uses = step.get("uses").map(Yaml::text).unwrap_or_default();
            if uses.starts_with("actions/cache/") {
                let with = step.get("with").expect("a cache step says what it keeps");
                let path = with.get("path").expect("a cache path").text();
                let key = with.get("key").expect("a cache key").text();
                caches.push((job, uses.to_string(), path.to_string(), key.to_string()));
            }
        }
    }
    assert_eq!(
        caches.len(),
        4,
        "a restore and a save in each job: {caches:?}"
    );
    let (_, _, path, key) = &caches[0];
    assert!(
        caches.iter().all(|(_, _, p, k)| p == path && k == key),
        "{caches:?}"
    );
    let paths: Vec<&str> = path.lines().map(str::trim).collect();
    assert!(paths.contains(&"target/covcheck/corpus"), "{paths:?}");
    for path in &paths {
        assert!(
            path.starts_with("target/covcheck/corpus"),
            "only the corpus, not the build: {path}"
        );
    }
    let corpus = covcheck_e2e::second_target_dir().join("covcheck/corpus");
    let kept: Vec<String> = fs::read_dir(&corpus)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.starts_with(&format!("{}.", fixture.name)))
        .collect();
    assert_eq!(kept.len(), 2, "a corpus per property: {kept:?}");
}

/// Makes `fixture` a repository whose `origin/main` is its first commit,
/// commits the pull request's `decode` over it, and runs the pull-request
/// job's steps there.
fn run_pull_request(fixture: &Fixture, decode: &str) -> Steps {
    run_pull_request_with(fixture, decode, OVERRIDES)
}

fn run_pull_request_with(fixture: &Fixture, decode: &str, overrides: &[(&str, &str)]) -> Steps {
    covcheck_e2e::build_engine();
    forget_campaigns_of(fixture.name);
    let repo = fixture.path();
    // Cargo prunes the fixture's lock file on its first look: before the
    // first commit, so that the pull request changes `src/lib.rs` alone.
    let (pruned, text) = fixture.cargo(&["metadata", "--format-version", "1"]);
    assert!(pruned, "{text}");
    git(repo, &["init", "--quiet"]);
    git(repo, &["add", "--all"]);
    git(repo, &["commit", "--quiet", "-m", "main"]);
    git(repo, &["update-ref", "refs/remotes/origin/main", "HEAD"]);
    let start = MAIN.find("    /// The code under test").unwrap();
    let end = MAIN.find("\n    #[covcheck]").unwrap();
    assert!(MAIN[start..end].contains("fn decode"));
    fixture.write_property(&MAIN.replace(&MAIN[start..end], decode.trim_end()));
    git(
        repo,
        &["commit", "--quiet", "--all", "-m", "the pull request"],
    );
    let steps = Workflow::read().run_job("pull-request", repo, overrides);
    eprintln!("{steps}");
    steps
}

/// Removes what earlier runs' campaigns on `package` left in the steps'
/// target directory (corpus, series, coverage...), as [`Fixture::new`]
/// does in the shared one: each run starts from nothing, as a pull
/// request's first run with no cache would.
fn forget_campaigns_of(package: &str) {
    let campaigns = covcheck_e2e::second_target_dir().join("covcheck");
    let Ok(kinds) = fs::read_dir(&campaigns) else {
        return;
    };
    for kind in kinds {
        let kind = kind.unwrap().path();
        if kind.ends_with("build") || !kind.is_dir() {
            continue;
        }
        for entry in fs::read_dir(&kind).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy();
            if name.split('.').next() != Some(package) {
                continue;
            }
            if path.is_dir() {
                fs::remove_dir_all(&path).unwrap();
            } else {
                fs::remove_file(&path).unwrap();
            }
        }
    }
}

/// The JUnit test cases of `file` that failed: (class name, test name).
fn failing_cases(file: &Path) -> Vec<(String, String)> {
    let xml = fs::read_to_string(file)
        .unwrap_or_else(|e| panic!("the campaign's JUnit report {}: {e}", file.display()));
    let report = quick_junit::Report::deserialize_from_str(&xml).unwrap();
    let mut failing = Vec::new();
    for suite in &report.test_suites {
        assert!(!suite.test_cases.is_empty(), "{xml}");
        for case in &suite.test_cases {
            if !matches!(case.status, quick_junit::TestCaseStatus::Success { .. }) {
                let class = case.classname.as_ref().map_or("", |c| c.as_str());
                failing.push((class.to_string(), case.name.to_string()));
            }
        }
    }
    failing
}

/// The files under `dir`, at any depth.
fn uploaded_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files.extend(uploaded_files(&path));
        } else {
            files.push(path);
        }
    }
    files
}

/// `book/src/ci/covcheck.yml`, parsed.
struct Workflow(Yaml);

impl Workflow {
    fn read() -> Workflow {
        let path = workspace_root().join("book/src/ci/covcheck.yml");
        let text = fs::read_to_string(&path).unwrap();
        Workflow(Yaml::parse(&text))
    }

    fn job(&self, job: &str) -> &Yaml {
        self.0
            .get("jobs")
            .and_then(|jobs| jobs.get(job))
            .unwrap_or_else(|| panic!("the workflow has a job `{job}`"))
    }

    fn steps(&self, job: &str) -> &[Yaml] {
        match self.job(job).get("steps") {
            Some(Yaml::List(steps)) => steps,
            other => panic!("job `{job}` has a list of steps: {other:?}"),
        }
    }

    /// Runs the `run:` steps of `job` in `dir`, as GitHub runs them: a
    /// step runs when none before it failed, or when its `if:` is
    /// `always()`. `overrides` stand for the values of the job's `env:`.
    fn run_job(&self, job: &str, dir: &Path, overrides: &[(&str, &str)]) -> Steps {
        let shell = self
            .0
            .get("defaults")
            .and_then(|d| d.get("run"))
            .and_then(|r| r.get("shell"))
            .map(Yaml::text);
        assert_eq!(
            shell,
            Some("bash"),
            "every step runs in bash, as the test runs it"
        );
        let mut env = env_of(self.job(job), overrides);
        env.extend(test_environment());
        let mut ran = Vec::new();
        let mut failed = false;
        for step in self.steps(job) {
            let Some(script) = step.get("run").map(Yaml::text) else {
                continue;
            };
            for key in ["shell", "working-directory", "continue-on-error"] {
                assert!(step.get(key).is_none(), "the test runs no `{key}:` step");
            }
            let name = step.get("name").map_or(script, Yaml::text).to_string();
            let runs = match step.get("if").map(Yaml::text) {
                None => !failed,
                Some("always()") => true,
                Some(other) => panic!("the test knows no condition `{other}`"),
            };
            let installs = ["cargo install", "rustup"]
                .iter()
                .any(|command| script.trim_start().starts_with(command));
            if !runs || installs {
                ran.push(Ran {
                    name,
                    script: script.to_string(),
                    status: None,
                    output: String::new(),
                    seconds: 0.0,
                });
                continue;
            }
            let mut step_env = env.clone();
            if let Some(own) = step.get("env") {
                step_env.extend(env_of_map(own, overrides));
            }
            let started = Instant::now();
            let output = bash(script, dir, &step_env);
            let status = output.status.code().expect("the step exited");
            failed |= status != 0;
            ran.push(Ran {
                name,
                script: script.to_string(),
                status: Some(status),
                output: text_of(&output),
                seconds: started.elapsed().as_secs_f64(),
            });
        }
        Steps(ran)
    }
}

/// Runs `script` as GitHub runs a `shell: bash` step: `bash --noprofile
/// --norc -eo pipefail {0}`.
fn bash(script: &str, dir: &Path, env: &BTreeMap<String, String>) -> std::process::Output {
    let file = tempfile::NamedTempFile::new().unwrap();
    fs::write(file.path(), script).unwrap();
    Command::new("bash")
        .args(["--noprofile", "--norc", "-eo", "pipefail"])
        .arg(file.path())
        .current_dir(dir)
        .env("PWD", dir)
        .env_remove("COVCHECK_SEED")
        .env_remove("COVCHECK_CASES")
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .env_remove("GIT_INDEX_FILE")
        .envs(env)
        .output()
        .unwrap()
}

/// A job's `env:`, each `${{ }}` value replaced by its override.
fn env_of(job: &Yaml, overrides: &[(&str, &str)]) -> BTreeMap<String, String> {
    job.get("env")
        .map_or_else(BTreeMap::new, |env| env_of_map(env, overrides))
}

fn env_of_map(env: &Yaml, overrides: &[(&str, &str)]) -> BTreeMap<String, String> {
    let Yaml::Map(entries) = env else {
        panic!("`env:` is a map: {env:?}")
    };
    let mut values = BTreeMap::new();
    for (name, value) in entries {
        let value = match overrides.iter().find(|(n, _)| n == name) {
            Some((_, value)) => value.to_string(),
            None => {
                let value = value.text();
                assert!(
                    !value.contains("${{"),
                    "`{name}: {value}` needs an override in the test"
                );
                value.to_string()
            }
        };
        values.insert(name.clone(), value);
    }
    for (name, _) in overrides {
        assert!(
            values.contains_key(*name),
            "the job sets `{name}` in its `env:`"
        );
    }
    values
}

/// What the test machine stands in for: the built `cargo covcheck` as the
/// installed one, the cargo running the tests as the toolchain's, the
/// fixtures' builds, a CI environment with one worker.
fn test_environment() -> BTreeMap<String, String> {
    // Cargo finds `cargo covcheck` as `cargo-covcheck` on PATH: a directory
    // that holds only the built one goes first.
    static BIN: std::sync::OnceLock<tempfile::TempDir> = std::sync::OnceLock::new();
    let bin = BIN.get_or_init(|| {
        let bin = tempfile::tempdir().unwrap();
        let executable = covcheck_e2e::cargo_covcheck();
        std::os::unix::fs::symlink(&executable, bin.path().join("cargo-covcheck")).unwrap();
        bin
    });
    let cargo = PathBuf::from(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    let mut path = vec![bin.path().to_path_buf()];
    if let Some(dir) = cargo.parent().filter(|d| !d.as_os_str().is_empty()) {
        path.push(dir.to_path_buf());
    }
    path.extend(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    ));
    // Cargo looks in $CARGO_HOME/bin before PATH unless PATH names it,
    // where an installed cargo-covcheck would win over the built one.
    let home_bin = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")))
        .map(|home| home.join("bin"));
    if let Some(home_bin) = home_bin.filter(|b| !path.contains(b)) {
        path.push(home_bin);
    }
    let path = std::env::join_paths(path).unwrap();
    [
        ("PATH", path.to_string_lossy().into_owned()),
        // A target directory of their own: a report is the target
        // directory's, and other tests write theirs in the shared one.
        (
            "CARGO_TARGET_DIR",
            covcheck_e2e::second_target_dir().display().to_string(),
        ),
        // The engine the other tests built (in CI: built once, into
        // ~/.cache/covcheck/engine).
        (
            "COVCHECK_ENGINE_DIR",
            covcheck_e2e::engine_dir().display().to_string(),
        ),
        ("COVCHECK_JOBS", "1".to_string()),
        ("CI", "true".to_string()),
    ]
    .into_iter()
    .map(|(name, value)| (name.to_string(), value))
    .collect()
}

/// The steps of a job as they ran.
struct Steps(Vec<Ran>);

struct Ran {
    name: String,
    script: String,
    /// None: not run (an install, or after a failure).
    status: Option<i32>,
    output: String,
    seconds: f64,
}

impl Steps {
    /// The step whose script, less its comments, names `command`.
    fn step(&self, command: &str) -> &Ran {
        let names = |step: &&Ran| {
            (step.script.lines())
                .any(|line| !line.trim_start().starts_with('#') && line.contains(command))
        };
        let mut matching = self.0.iter().filter(names);
        let step = matching
            .next()
            .unwrap_or_else(|| panic!("a step runs `{command}`: {self}"));
        assert!(matching.next().is_none(), "one step runs `{command}`");
        step
    }

    fn status_of(&self, command: &str) -> Option<i32> {
        self.step(command).status
    }

    fn output_of(&self, command: &str) -> &str {
        &self.step(command).output
    }
}

impl std::fmt::Display for Steps {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for step in &self.0 {
            match step.status {
                Some(status) => writeln!(
                    f,
                    "\n=== step `{}`: exit {status} in {:.1}s\n{}",
                    step.name, step.seconds, step.output
                )?,
                None => writeln!(f, "\n=== step `{}`: not run", step.name)?,
            }
        }
        Ok(())
    }
}

/// The part of YAML the workflow is written in: block mappings and
/// sequences, plain, quoted and literal (`|`) scalars, comments. Anything
/// else (flow collections, anchors, folded scalars) fails the test rather
/// than be misread.
#[derive(Debug)]
enum Yaml {
    Map(Vec<(String, Yaml)>),
    List(Vec<Yaml>),
    Text(String),
}

impl Yaml {
    fn parse(text: &str) -> Yaml {
        let mut parser = Parser {
            lines: text.lines().map(str::to_string).collect(),
            at: 0,
        };
        let indent = parser.next_indent().expect("a workflow");
        let root = parser.node(indent);
        assert!(
            parser.next_indent().is_none(),
            "unparsed: {:?}",
            parser.lines[parser.at]
        );
        root
    }

    fn get(&self, key: &str) -> Option<&Yaml> {
        match self {
            Yaml::Map(entries) => entries.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    fn text(&self) -> &str {
        match self {
            Yaml::Text(text) => text,
            other => panic!("a scalar: {other:?}"),
        }
    }
}

struct Parser {
    lines: Vec<String>,
    at: usize,
}

fn indent_of(line: &str) -> usize {
    line.len() - line.trim_start_matches(' ').len()
}

impl Parser {
    /// The indentation of the next line that holds something, after
    /// blank and comment lines.
    fn next_indent(&mut self) -> Option<usize> {
        while let Some(line) = self.lines.get(self.at) {
            let text = line.trim();
            if !text.is_empty() && !text.starts_with('#') {
                assert!(!line.starts_with('\t'), "tabs: {line:?}");
                return Some(indent_of(line));
            }
            self.at += 1;
        }
        None
    }

    fn starts_item(&self) -> bool {
        let text = self.lines[self.at].trim_start();
        text == "-" || text.starts_with("- ")
    }

    /// The node whose lines start at `indent`.
    fn node(&mut self, indent: usize) -> Yaml {
        if self.starts_item() {
            self.list(indent)
        } else {
            self.map(indent)
        }
    }

    fn list(&mut self, indent: usize) -> Yaml {
        let mut items = Vec::new();
        while self.next_indent() == Some(indent) && self.starts_item() {
            let rest = self.lines[self.at][indent + 1..].trim_start().to_string();
            if rest.is_empty() {
                self.at += 1;
                let inner = self.next_indent().expect("an item");
                assert!(inner > indent, "an item below its dash");
                items.push(self.node(inner));
            } else if rest.starts_with(['"', '\'']) || !(rest.contains(": ") || rest.ends_with(':'))
            {
                self.at += 1;
                items.push(Yaml::Text(scalar(&rest)));
            } else {
                // `- key: value` is a mapping whose first line is
                // `key: value` two columns in.
                self.lines[self.at] = format!("{}{rest}", " ".repeat(indent + 2));
                items.push(self.node(indent + 2));
            }
        }
        Yaml::List(items)
    }

    fn map(&mut self, indent: usize) -> Yaml {
        let mut entries = Vec::new();
        while self.next_indent() == Some(indent) && !self.starts_item() {
            let line = self.lines[self.at].trim().to_string();
            self.at += 1;
            let (key, value) = match line.split_once(": ") {
                Some((key, value)) => (key, value.trim()),
                None => (
                    line.strip_suffix(':')
                        .unwrap_or_else(|| panic!("a `key: value` line: {line:?}")),
                    "",
                ),
            };
            assert!(
                !key.starts_with(['"', '\'', '?', '{', '[', '&', '*']),
                "a plain key: {line:?}"
            );
            let value = if value == "|" {
                Yaml::Text(self.literal(indent))
            } else if value.is_empty() || value.starts_with('#') {
                match self.next_indent() {
                    Some(inner) if inner > indent => self.node(inner),
                    Some(inner) if inner == indent && self.starts_item() => self.list(indent),
                    _ => Yaml::Text(String::new()),
                }
            } else {
                Yaml::Text(scalar(value))
            };
            entries.push((key.to_string(), value));
        }
        Yaml::Map(entries)
    }

    /// The lines of a literal block scalar under a key at `indent`: as
    /// they are, less the block's indentation, with one final newline.
    fn literal(&mut self, indent: usize) -> String {
        let mut block: Vec<String> = Vec::new();
        let mut block_indent = None;
        while let Some(line) = self.lines.get(self.at) {
            if line.trim().is_empty() {
                block.push(String::new());
                self.at += 1;
                continue;
            }
            let here = indent_of(line);
            if here <= indent {
                break;
            }
            let inner = *block_indent.get_or_insert(here);
            assert!(here >= inner, "a line of the block left of it: {line:?}");
            block.push(line[inner..].to_string());
            self.at += 1;
        }
        while block.last().is_some_and(String::is_empty) {
            block.pop();
        }
        let mut text = block.join("\n");
        text.push('\n');
        text
    }
}

/// A scalar on the line of its key: quoted, or plain up to a comment.
fn scalar(value: &str) -> String {
    if let Some(rest) = value.strip_prefix('"') {
        let mut text = String::new();
        let mut chars = rest.chars();
        while let Some(c) = chars.next() {
            match c {
                '"' => return text,
                '\\' => text.push(chars.next().expect("an escaped character")),
                c => text.push(c),
            }
        }
        panic!("an unterminated string: {value}");
    }
    if let Some(rest) = value.strip_prefix('\'') {
        let end = rest.rfind('\'').expect("a terminated string");
        return rest[..end].replace("''", "'");
    }
    assert!(
        !value.starts_with(['[', '{', '&', '*', '!', '>']),
        "a plain scalar: {value}"
    );
    let end = value.find(" #").unwrap_or(value.len());
    value[..end].trim_end().to_string()
}

#[test]
fn the_workflow_parser_reads_what_the_recipe_writes() {
    let yaml = Yaml::parse(
        "a: 1 # one\nb:\n  - c: \"x: y\"\n    d: |\n      echo 1\n\n      # two\n  - e\n\
         f:\n- 'it''s'\n",
    );
    assert_eq!(yaml.get("a").unwrap().text(), "1");
    let Some(Yaml::List(items)) = yaml.get("b") else {
        panic!("{yaml:?}")
    };
    assert_eq!(items[0].get("c").unwrap().text(), "x: y");
    assert_eq!(items[0].get("d").unwrap().text(), "echo 1\n\n# two\n");
    assert_eq!(items[1].text(), "e");
    let Some(Yaml::List(items)) = yaml.get("f") else {
        panic!("{yaml:?}")
    };
    assert_eq!(items[0].text(), "it's");
}
