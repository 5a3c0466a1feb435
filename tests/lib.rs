//! Helpers for the end-to-end tests in `tests/`: scratch crates outside this
//! workspace that depend on `covcheck-rt` by path, as a user's crate would,
//! and the commands run on them.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use covcheck_protocol::messages::Finding;
use covcheck_protocol::messages::{Message, parse_message};
use covcheck_protocol::seeds::{Seed, SeedStore};

pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// One target directory for all fixtures, kept between runs, so that
/// LibAFL and the runtime are built once: `e2e/` inside the workspace's
/// target directory, wherever cargo puts that (`CARGO_TARGET_DIR`,
/// `--target-dir` or `build.target-dir`).
pub fn target_dir() -> PathBuf {
    built_cargo_covcheck().target_dir.join("e2e")
}

/// A second target directory for the fixtures, kept between runs like the
/// first: for the tests that need a build apart from the shared one (a
/// second checkout of a package). Its first use builds the runtime again.
pub fn second_target_dir() -> PathBuf {
    target_dir().join("second")
}

/// The campaign engine directory of the fixtures' build: with
/// `--target-dir`, `cargo covcheck` keeps the engine beside the build.
pub fn engine_dir() -> PathBuf {
    target_dir().join("covcheck/build/covcheck-engine")
}

/// Builds the fixtures' campaign engine (LibAFL) unless it is built, once
/// per test process, with a campaign of one run on a passing property.
pub fn build_engine() {
    static BUILT: std::sync::OnceLock<()> = std::sync::OnceLock::new();
    BUILT.get_or_init(|| {
        let fixture = Fixture::new(
            "engine_build",
            "    #[covcheck]\n    fn passes(x: u8) {\n        std::hint::black_box(x);\n    }",
        );
        let output = fixture.covcheck(&["--runs", "1", "--seed", "1"]);
        assert!(output.status.success(), "{}", text_of(&output));
    });
}

/// Makes `dir` an engine directory of its own, as cheap to rebuild as the
/// fixtures' one: a copy of its built versions (each file's modification
/// time kept, so that cargo finds their sources unchanged) and a link to
/// its cargo target directory, where LibAFL is built. A test can then use
/// it as a machine-wide cache of its own, or damage it, without touching
/// what the other tests load.
pub fn copy_engine(dir: &Path) {
    build_engine();
    fs::create_dir_all(dir).unwrap();
    for entry in fs::read_dir(engine_dir()).unwrap() {
        let entry = entry.unwrap();
        if entry.file_type().unwrap().is_dir() && entry.file_name() != "target" {
            copy_tree(&entry.path(), &dir.join(entry.file_name()));
        }
    }
    std::os::unix::fs::symlink(engine_dir().join("target"), dir.join("target")).unwrap();
}

/// Copies the directory `from` to `to`, with the files' modification times.
fn copy_tree(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
            continue;
        }
        fs::copy(entry.path(), &target).unwrap();
        let modified = entry.metadata().unwrap().modified().unwrap();
        fs::File::options()
            .write(true)
            .open(&target)
            .unwrap()
            .set_modified(modified)
            .unwrap();
    }
}

/// Builds `cargo-covcheck` (dev profile) and returns its path.
pub fn cargo_covcheck() -> PathBuf {
    built_cargo_covcheck().executable.clone()
}

/// The `cargo-covcheck` executable and the target directory it was built in.
pub struct Built {
    pub executable: PathBuf,
    pub target_dir: PathBuf,
}

/// Builds `cargo-covcheck` once per test process and asks cargo where the
/// executable went, rather than guessing `target/debug`: a configured
/// target directory would leave a stale or missing binary there.
pub fn built_cargo_covcheck() -> &'static Built {
    static BUILT: std::sync::OnceLock<Built> = std::sync::OnceLock::new();
    BUILT.get_or_init(|| {
        let executable = build_executable(&workspace_root(), "cargo-covcheck");
        // <target>/debug/cargo-covcheck
        let target_dir = executable
            .parent()
            .and_then(Path::parent)
            .expect("the executable lies in <target>/<profile>/")
            .to_path_buf();
        Built {
            executable,
            target_dir,
        }
    })
}

/// Builds package `package` of the workspace at `root` (dev profile) and
/// returns its executable's path, as cargo reports it.
pub fn build_executable(root: &Path, package: &str) -> PathBuf {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let output = Command::new(cargo)
        .args(["build", "--quiet", "--message-format=json", "-p", package])
        .current_dir(root)
        .stderr(std::process::Stdio::inherit())
        .output()
        .unwrap();
    assert!(output.status.success(), "{package} builds");
    executable_of(&String::from_utf8_lossy(&output.stdout), package)
        .unwrap_or_else(|| panic!("cargo reported no executable for {package}"))
}

/// The `executable` of `package`'s compiler-artifact message in cargo's
/// JSON output.
pub fn executable_of(messages: &str, package: &str) -> Option<PathBuf> {
    messages
        .lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .filter(|m| m["reason"] == "compiler-artifact" && m["target"]["name"] == package)
        .find_map(|m| m["executable"].as_str().map(PathBuf::from))
}

/// A crate whose `src/lib.rs` holds a `#[cfg(test)] mod tests`, outside
/// this workspace as a user's crate is. Each test uses its own package
/// name: cargo hashes path packages relative to their workspace, so two
/// fixtures with one name would share (and race on) their build output.
///
/// A fixture lives in `fixtures/<name>` of the fixtures' target directory,
/// kept between runs: a file whose contents are unchanged is not written
/// again, so that cargo finds the crate built and a warm run of the suite
/// builds only what a test changed. What a run leaves behind (seeds, the
/// campaigns' corpus and series of the package) is removed when the
/// fixture is made, so every run starts from the same state.
pub struct Fixture {
    root: Root,
    pub name: &'static str,
}

/// Where a fixture's files are.
enum Root {
    /// `fixtures/<name>` of the fixtures' target directory.
    Kept(PathBuf),
    /// A directory of its own, removed with the fixture: a second checkout
    /// of a package, which must not be where the first one is.
    Scratch(tempfile::TempDir),
}

impl Fixture {
    /// A crate named `name` whose test module holds `body` (with
    /// `covcheck_rt::covcheck` in scope).
    pub fn new(name: &'static str, body: &str) -> Fixture {
        Fixture::made(name, Root::kept(name), &crate_files(name, body))
    }

    /// A checkout of the crate [`Fixture::new`] makes in a directory of its
    /// own, made afresh for each test: for tests of two checkouts of one
    /// package. (Where two checkouts share a build directory, cargo takes
    /// the one built last for the other when the other's sources are
    /// older, so a kept one would see the scratch one's build of the run
    /// before.)
    pub fn another_checkout(name: &'static str, body: &str) -> Fixture {
        let root = Root::Scratch(tempfile::tempdir().unwrap());
        Fixture::made(name, root, &crate_files(name, body))
    }

    /// A copy of the bundled example `examples/<example>` (a crate named
    /// `example`), its path dependency on `covcheck-rt` made absolute: its
    /// campaigns and seeds then stay out of the source tree.
    pub fn from_example(example: &'static str) -> Fixture {
        let source = workspace_root().join("examples").join(example);
        let manifest = fs::read_to_string(source.join("Cargo.toml")).unwrap();
        let relative = "path = \"../../covcheck-rt\"";
        assert!(
            manifest.contains(relative),
            "{example}'s Cargo.toml names {relative}"
        );
        let manifest = manifest.replace(relative, &format!("path = {:?}", rt_path()));
        let mut files = vec![
            ("Cargo.toml".to_string(), manifest),
            (
                "Cargo.lock".to_string(),
                fs::read_to_string(source.join("Cargo.lock")).unwrap(),
            ),
        ];
        for entry in fs::read_dir(source.join("src")).unwrap() {
            let entry = entry.unwrap().path();
            let name = entry.file_name().unwrap().to_str().unwrap().to_string();
            files.push((format!("src/{name}"), fs::read_to_string(&entry).unwrap()));
        }
        Fixture::made(example, Root::kept(example), &files)
    }

    /// A workspace of several crates: each `(path, contents)` of `files`
    /// written as is, where `{covcheck-rt}` stands for covcheck-rt's path
    /// (`covcheck-rt = { path = "{covcheck-rt}" }`). `name` is the
    /// directory of its seeds, as for [`Fixture::new`]; the crates' names
    /// must be unique among the fixtures, as theirs are.
    pub fn workspace(name: &'static str, files: &[(&str, &str)]) -> Fixture {
        let mut all: Vec<(String, String)> = files
            .iter()
            .map(|(path, contents)| {
                let contents = contents.replace("{covcheck-rt}", &rt_path());
                (path.to_string(), contents)
            })
            .collect();
        all.push(("Cargo.lock".to_string(), workspace_lock()));
        Fixture::made(name, Root::kept(name), &all)
    }

    fn made(name: &'static str, root: Root, files: &[(String, String)]) -> Fixture {
        let fixture = Fixture { root, name };
        sync_files(fixture.path(), files);
        forget_campaigns_of(name);
        fixture
    }

    pub fn path(&self) -> &Path {
        match &self.root {
            Root::Kept(dir) => dir,
            Root::Scratch(dir) => dir.path(),
        }
    }

    pub fn write_property(&self, body: &str) {
        fs::write(self.path().join("src/lib.rs"), lib_of(body)).unwrap();
    }

    /// Runs cargo with `args`; returns (success, stdout + stderr).
    pub fn cargo(&self, args: &[&str]) -> (bool, String) {
        self.cargo_with_env(args, &[])
    }

    /// Runs cargo with `args` and the environment variables `env` (none of
    /// the caller's `COVCHECK_SEED` or `COVCHECK_CASES`); returns (success,
    /// stdout + stderr).
    pub fn cargo_with_env(&self, args: &[&str], env: &[(&str, &str)]) -> (bool, String) {
        self.cargo_in(self.path(), args, env)
    }

    /// Runs cargo with `args` and `env` from the directory `dir`, as a user
    /// whose shell is there would.
    pub fn cargo_in(&self, dir: &Path, args: &[&str], env: &[(&str, &str)]) -> (bool, String) {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let output = Command::new(cargo)
            .args(args)
            .current_dir(dir)
            // As a shell that `cd`'d there sets it: covcheck-rt's rerun
            // commands are written for this directory.
            .env("PWD", dir)
            .env("CARGO_TARGET_DIR", target_dir())
            .env_remove("COVCHECK_SEED")
            .env_remove("COVCHECK_CASES")
            .envs(env.iter().copied())
            .output()
            .unwrap();
        (output.status.success(), text_of(&output))
    }

    /// Runs `cargo covcheck <args>` on the fixture.
    pub fn covcheck(&self, args: &[&str]) -> Output {
        self.covcheck_command(args).output().unwrap()
    }

    /// A campaign that runs the same way every time: `cargo covcheck
    /// --runs <runs> --seed 1 --no-save --no-resume`, then `extra`.
    pub fn budgeted_campaign(&self, runs: u64, extra: &[&str]) -> Output {
        let runs = runs.to_string();
        let mut args = vec!["--runs", &runs, "--seed", "1", "--no-save", "--no-resume"];
        args.extend_from_slice(extra);
        self.covcheck(&args)
    }

    /// `cargo covcheck <args>` on the fixture, to add to before it runs.
    /// One worker per property unless `args` say `-j`: a campaign on one
    /// worker with a fixed seed and execution budget runs the same way
    /// every time, on any machine (with more, the workers' sharing depends
    /// on timing, and the default is the machine's number of cores).
    pub fn covcheck_command(&self, args: &[&str]) -> Command {
        let mut command = Command::new(cargo_covcheck());
        command
            .arg("covcheck")
            .args(args)
            .arg("--manifest-path")
            .arg(self.path().join("Cargo.toml"))
            .arg("--target-dir")
            .arg(target_dir())
            .env("COVCHECK_JOBS", "1");
        command
    }

    /// The seed directory of the property `tests::<property>`.
    pub fn seed_dir(&self, property: &str) -> PathBuf {
        self.path()
            .join("covcheck-seeds")
            .join(self.name)
            .join("tests")
            .join(property)
    }

    /// The seeds of `tests::<property>`, read as covcheck reads them, in
    /// file name order; a file that is not a valid seed fails the test.
    pub fn seeds(&self, property: &str) -> Vec<Seed> {
        SeedStore::in_dir(self.seed_dir(property))
            .load()
            .unwrap_or_else(|e| panic!("{e}"))
    }

    /// The seed files of `tests::<property>`, sorted.
    pub fn seed_files(&self, property: &str) -> Vec<PathBuf> {
        let mut files: Vec<PathBuf> = match fs::read_dir(self.seed_dir(property)) {
            Ok(entries) => entries.map(|e| e.unwrap().path()).collect(),
            Err(_) => Vec::new(),
        };
        files.sort();
        files
    }
}

impl Root {
    fn kept(name: &str) -> Root {
        Root::Kept(target_dir().join("fixtures").join(name))
    }
}

/// The manifest, lock file and `src/lib.rs` of [`Fixture::new`]'s crate.
fn crate_files(name: &str, body: &str) -> Vec<(String, String)> {
    let manifest = format!(
        "[package]\nname = \"{name}\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n\
         [dev-dependencies]\ncovcheck-rt = {{ path = {:?} }}\n\n[workspace]\n",
        rt_path()
    );
    vec![
        ("Cargo.toml".to_string(), manifest),
        ("Cargo.lock".to_string(), workspace_lock()),
        ("src/lib.rs".to_string(), lib_of(body)),
    ]
}

fn lib_of(body: &str) -> String {
    format!("#[cfg(test)]\nmod tests {{\n    use covcheck_rt::covcheck;\n\n{body}\n}}\n")
}

fn rt_path() -> String {
    workspace_root().join("covcheck-rt").display().to_string()
}

/// The workspace's lock file: it pins the same dependency versions, so a
/// fixture builds from the cache without resolving anything new. (Cargo
/// prunes it to the fixture's packages on the first build; writing it
/// again makes cargo prune it again, and rebuilds nothing.)
fn workspace_lock() -> String {
    fs::read_to_string(workspace_root().join("Cargo.lock")).unwrap()
}

/// Makes `dir` hold exactly `files` (paths relative to it): a file whose
/// contents are already right is left alone, keeping its modification time
/// (cargo's fingerprint); anything else in `dir` is removed.
fn sync_files(dir: &Path, files: &[(String, String)]) {
    let wanted: std::collections::HashSet<PathBuf> =
        files.iter().map(|(path, _)| dir.join(path)).collect();
    if dir.exists() {
        remove_unwanted(dir, &wanted);
    }
    for (path, contents) in files {
        let path = dir.join(path);
        if fs::read(&path).is_ok_and(|old| old == contents.as_bytes()) {
            continue;
        }
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(&path, contents).unwrap();
    }
}

/// Removes every file under `dir` not in `wanted`, and the directories
/// left empty.
fn remove_unwanted(dir: &Path, wanted: &std::collections::HashSet<PathBuf>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() && !path.is_symlink() {
            remove_unwanted(&path, wanted);
            if fs::read_dir(&path).unwrap().next().is_none() {
                fs::remove_dir(&path).unwrap();
            }
        } else if !wanted.contains(&path) {
            fs::remove_file(&path).unwrap();
        }
    }
}

/// Removes what earlier campaigns on package `package` left in the
/// fixtures' target directory (its corpus, series, coverage, dictionary
/// and plots), so that no campaign of this run resumes one of an earlier
/// run and every run tests the same thing.
fn forget_campaigns_of(package: &str) {
    let campaigns = target_dir().join("covcheck");
    for kind in ["corpus", "series", "coverage", "dictionary", "perf"] {
        let Ok(entries) = fs::read_dir(campaigns.join(kind)) else {
            continue;
        };
        for entry in entries {
            let path = entry.unwrap().path();
            let file_name = path.file_name().unwrap().to_string_lossy();
            if file_name.split('.').next() != Some(package) {
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

/// The messages `cargo covcheck --message-format json` printed on `stdout`,
/// typed. A line that looks like a message (a JSON object) but is not one
/// fails the test: the protocol and the CLI would have drifted apart.
pub fn events(stdout: &[u8]) -> Vec<Message> {
    String::from_utf8_lossy(stdout)
        .lines()
        .filter_map(|line| {
            let message = parse_message(line)?;
            Some(message.unwrap_or_else(|e| panic!("not a covcheck message ({e}): {line}")))
        })
        .collect()
}

/// A [`Message::Finding`]: a failure, shrunk, where its seed was saved and
/// the command that reruns its property.
#[derive(Debug)]
pub struct Reported<'a> {
    pub property: &'a str,
    pub finding: &'a Finding,
    pub seed: Option<&'a Path>,
    pub rerun: &'a str,
}

impl Reported<'_> {
    /// The rendering (`Debug`) of the finding's first argument.
    pub fn first_arg(&self) -> &str {
        &self
            .finding
            .args
            .first()
            .unwrap_or_else(|| panic!("an argument: {self:?}"))
            .1
    }

    /// Where its seed was saved (it must have been).
    pub fn saved_seed(&self) -> &Path {
        self.seed
            .unwrap_or_else(|| panic!("the seed is saved: {self:?}"))
    }
}

/// The findings among `events`, in the order they were reported.
pub fn findings(events: &[Message]) -> Vec<Reported<'_>> {
    events
        .iter()
        .filter_map(|event| match event {
            Message::Finding {
                property,
                finding,
                seed,
                rerun,
                ..
            } => Some(Reported {
                property,
                finding,
                seed: seed.as_deref(),
                rerun,
            }),
            _ => None,
        })
        .collect()
}

/// The finding reported for `property` (its full path,
/// `crate::tests::name`); fails the test when there is none.
pub fn finding_for<'a>(events: &'a [Message], property: &str) -> Reported<'a> {
    findings(events)
        .into_iter()
        .find(|f| f.property == property)
        .unwrap_or_else(|| panic!("no finding for {property}: {events:#?}"))
}

/// The executions and findings of `property`'s finished campaign, if it
/// finished.
pub fn finished(events: &[Message], property: &str) -> Option<(u64, usize)> {
    events.iter().find_map(|event| match event {
        Message::Finished {
            property: p,
            execs,
            findings,
            ..
        } if p == property => Some((*execs, *findings)),
        _ => None,
    })
}

/// The seed file at `path` (as a finding reports it), read as covcheck
/// reads it, with the others of its property's directory.
pub fn read_seed(path: &Path) -> Seed {
    let dir = path
        .parent()
        .unwrap_or_else(|| panic!("{} lies in a seed directory", path.display()));
    SeedStore::in_dir(dir.to_path_buf())
        .load()
        .unwrap_or_else(|e| panic!("{e}"))
        .into_iter()
        .find(|seed| seed.path == path)
        .unwrap_or_else(|| panic!("{} is a seed file", path.display()))
}

/// A command's stdout and stderr, together.
pub fn text_of(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// Runs git in `repo`, as a user with no configuration of their own.
pub fn git(repo: &Path, args: &[&str]) {
    let output = Command::new("git")
        .args([
            "-c",
            "user.name=covcheck",
            "-c",
            "user.email=dev@covcheck.invalid",
        ])
        .args([
            "-c",
            "commit.gpgsign=false",
            "-c",
            "init.defaultBranch=main",
        ])
        .args(args)
        .current_dir(repo)
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .env_remove("GIT_INDEX_FILE")
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "git {args:?}: {}",
        text_of(&output)
    );
}
