//! The builds: `cargo test --no-run` into the user's own target directory
//! (for `cargo covcheck replay`), or instrumented, with the SanitizerCoverage
//! wrapper, covcheck-rt's `campaign` feature and a profile of our own, into a
//! build directory of its own so that the user's normal build stays valid.
//!
//! That build directory is the workspace's own, `<target>/covcheck/build`
//! (see `build_dirs`), never one shared by name: cargo tells two path
//! packages of one name and version apart only by their path relative to
//! their workspace, so two checkouts of one crate sharing a build directory
//! took each other's test binaries for their own. What is worth sharing
//! between crates, the campaign engine library ([`crate::engine`], LibAFL,
//! about three minutes on two cores), is built outside the user's
//! dependency graph and cached once per machine, keyed by its sources.

use std::io::{BufReader, IsTerminal};
use std::path::{Path, PathBuf};
use std::process::Stdio;

use cargo_metadata::{
    CargoOpt, Message, Metadata, MetadataCommand, Package, PackageId, TargetKind,
};
use cargo_util::ProcessBuilder;

use crate::cli::BuildArgs;
use crate::engine::EngineLibrary;
use crate::error::{BuildError, ProcessFailure, WriteError};
use crate::instrument::{INSTRUMENT_ENV, InstrumentSet, Narrowing};
use crate::wrapper::{COUNT_EDGES_ENV, KEEP_DEAD_CODE_ENV, STUBS_ENV, WRAPPER_ENV};
use package_env::package_env;

mod failure;
mod package_env;

pub use failure::{BuildFailure, FailedBuild};
use failure::{Diagnosis, PackageFacts};

/// The weak callback archive built by `build.rs`.
const STUBS: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/libcovcheck_sancov_stubs.a"));

/// What `cargo metadata` told us, and which packages are under test.
pub struct Plan {
    pub metadata: Metadata,
    pub selected: Vec<PackageId>,
    /// `<target-dir>/covcheck`: the campaign state (corpus cache, work
    /// directories, coverage records) of this crate.
    pub covcheck_dir: PathBuf,
    /// Where the instrumented build goes.
    pub build_dir: PathBuf,
    /// The campaign engine library the instrumented build's workers load.
    pub engine: EngineLibrary,
    /// The user's target directory, for the plain build.
    target_dir: PathBuf,
    /// For each selected package, the name it gives covcheck-rt.
    runtime_names: Vec<String>,
    /// The crates the instrumented build instruments.
    pub instrumented: InstrumentSet,
}

/// A built test binary of a package under test.
#[derive(Clone, Debug)]
pub struct TestBinary {
    pub path: PathBuf,
    /// The package directory: test binaries run from there, as under `cargo test`.
    pub package_root: PathBuf,
    /// Where the shared libraries it links are searched first, as under
    /// `cargo test`: see `library_dirs`.
    pub library_dirs: Vec<PathBuf>,
    /// The variables `cargo test` sets for it at run time
    /// (`package_env`).
    pub env: Vec<(String, String)>,
    /// How `cargo test -p` names its package: see [`Plan::package_spec`].
    pub package_spec: String,
}

impl TestBinary {
    /// The process that runs the binary as `cargo test` does: from its
    /// package's directory, with cargo's variables for the package and the
    /// shared libraries of its build found.
    pub fn process(&self) -> ProcessBuilder {
        let mut process = ProcessBuilder::new(&self.path);
        process.cwd(&self.package_root);
        for (name, value) in &self.env {
            process.env(name, value);
        }
        if let Some(value) = library_path(&self.library_dirs, std::env::var_os(LIBRARY_PATH)) {
            process.env(LIBRARY_PATH, value);
        }
        process
    }
}

/// The variable of the dynamic linker's search path, which cargo sets for
/// the tests it runs.
const LIBRARY_PATH: &str = if cfg!(windows) {
    "PATH"
} else if cfg!(target_os = "macos") {
    "DYLD_FALLBACK_LIBRARY_PATH"
} else {
    "LD_LIBRARY_PATH"
};

/// The search path `dirs` first, then what it was (`current`); `None` when
/// there is nothing to add or a directory's name cannot be in the variable.
/// On macOS an unset `DYLD_FALLBACK_LIBRARY_PATH` means `$HOME/lib`,
/// `/usr/local/lib` and `/usr/lib`, which setting it would lose: as cargo
/// does, they come last.
fn library_path(
    dirs: &[PathBuf],
    current: Option<std::ffi::OsString>,
) -> Option<std::ffi::OsString> {
    if dirs.is_empty() {
        return None;
    }
    let mut current: Vec<PathBuf> = current
        .map(|value| std::env::split_paths(&value).collect())
        .unwrap_or_default();
    if cfg!(target_os = "macos") && current.is_empty() {
        if let Some(home) = std::env::var_os("HOME") {
            current.push(PathBuf::from(home).join("lib"));
        }
        current.extend(["/usr/local/lib", "/usr/lib"].map(PathBuf::from));
    }
    std::env::join_paths(dirs.iter().chain(&current)).ok()
}

/// The directories a test binary's shared libraries are searched in, in
/// `cargo test`'s order: those the build scripts named
/// (`cargo::rustc-link-search`) inside the build's output directory (a
/// `-sys` crate's shared C library), the build's `deps` and output
/// directories, and the target's standard library (`sysroot_libdir`),
/// which a proc-macro crate's tests link dynamically (cargo builds them
/// with `-C prefer-dynamic`). `binary` lies in `<output>/deps` (or
/// `<output>/examples`).
fn library_dirs(
    binary: &Path,
    script_dirs: &[PathBuf],
    sysroot_libdir: Option<&Path>,
) -> Vec<PathBuf> {
    let Some(output) = binary.parent().and_then(Path::parent) else {
        return Vec::new();
    };
    let mut dirs: Vec<PathBuf> = script_dirs
        .iter()
        .filter(|dir| dir.starts_with(output))
        .cloned()
        .collect();
    dirs.extend([output.join("deps"), output.to_path_buf()]);
    dirs.extend(sysroot_libdir.map(Path::to_path_buf));
    let mut seen = std::collections::HashSet::new();
    dirs.retain(|dir| seen.insert(dir.clone()));
    dirs
}

/// A build script's `cargo::rustc-link-search=[KIND=]PATH`, as cargo
/// reports it: the path.
fn search_dir(linked_path: &str) -> PathBuf {
    let kinds = ["native=", "crate=", "dependency=", "framework=", "all="];
    let path = kinds
        .iter()
        .find_map(|kind| linked_path.strip_prefix(kind))
        .unwrap_or(linked_path);
    PathBuf::from(path)
}

/// Where the target's standard library lies as a shared object
/// (`rustc --print target-libdir`), if rustc says.
fn sysroot_libdir() -> Option<PathBuf> {
    let output = ProcessBuilder::new(rustc())
        .args(&["--print", "target-libdir"])
        .exec_with_output()
        .ok()?;
    let text = String::from_utf8(output.stdout).ok()?;
    let dir = text.trim();
    (!dir.is_empty()).then(|| PathBuf::from(dir))
}

/// The rustc cargo runs: `RUSTC`, or the one on the path.
fn rustc() -> std::ffi::OsString {
    std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into())
}

/// Reads the workspace and decides what to build, and where.
pub fn plan(build: &BuildArgs) -> Result<Plan, BuildError> {
    let metadata = metadata(build)?;
    let chosen = chosen_packages(&metadata, build)?;
    let (selected, runtime_names) = runtime_users(&chosen);
    if selected.is_empty() {
        let packages = chosen.iter().map(|p| p.name.to_string()).collect();
        return Err(BuildError::NoRuntime { packages });
    }
    // Absolute, because workers run from their package's directory.
    let target_dir = match &build.target_dir {
        Some(dir) => std::path::absolute(dir).map_err(|source| BuildError::TargetDir {
            dir: dir.clone(),
            source,
        })?,
        None => metadata.target_directory.clone().into_std_path_buf(),
    };
    let (build_dir, engine) = build_dirs(build.target_dir.is_some(), &target_dir, &|name| {
        std::env::var_os(name)
    });
    let narrowing = Narrowing {
        only: &build.instrument,
        without: &build.no_instrument,
    };
    let instrumented = InstrumentSet::choose(&metadata, &selected, &narrowing)?;
    Ok(Plan {
        instrumented,
        covcheck_dir: target_dir.join("covcheck"),
        engine,
        build_dir,
        target_dir,
        metadata,
        selected,
        runtime_names,
    })
}

/// `cargo metadata` for the graph the build will have: which dependencies
/// are there depends on the features.
fn metadata(build: &BuildArgs) -> Result<Metadata, BuildError> {
    let mut command = MetadataCommand::new();
    if let Some(path) = &build.manifest_path {
        command.manifest_path(path);
    }
    if build.all_features {
        command.features(CargoOpt::AllFeatures);
    }
    if build.no_default_features {
        command.features(CargoOpt::NoDefaultFeatures);
    }
    let features: Vec<String> = build
        .features
        .iter()
        .flat_map(|f| f.split([' ', ',']))
        .filter(|f| !f.is_empty())
        .map(str::to_string)
        .collect();
    if !features.is_empty() {
        command.features(CargoOpt::SomeFeatures(features));
    }
    Ok(command.exec()?)
}

/// The packages `-p`/`--workspace` choose, as `cargo test` would, less
/// those `--exclude` names.
fn chosen_packages<'m>(
    metadata: &'m Metadata,
    build: &BuildArgs,
) -> Result<Vec<&'m Package>, BuildError> {
    let members: Vec<&Package> = metadata.workspace_packages();
    let member = |spec: &String| {
        members
            .iter()
            .find(|p| p.name.as_str() == spec)
            .copied()
            .ok_or_else(|| BuildError::UnknownPackage {
                spec: spec.clone(),
                members: members.iter().map(|p| p.name.to_string()).collect(),
            })
    };
    let excluded = build
        .exclude
        .iter()
        .map(member)
        .collect::<Result<Vec<_>, _>>()?;
    let chosen = if build.workspace {
        members.clone()
    } else if build.package.is_empty() {
        match metadata.root_package() {
            Some(root) => vec![root],
            None => metadata.workspace_default_packages(),
        }
    } else {
        build.package.iter().map(member).collect::<Result<_, _>>()?
    };
    Ok(chosen
        .into_iter()
        .filter(|p| !excluded.iter().any(|e| e.id == p.id))
        .collect())
}

/// Of the `chosen` packages, those that depend on covcheck-rt, and the
/// names they give it.
fn runtime_users(chosen: &[&Package]) -> (Vec<PackageId>, Vec<String>) {
    let mut selected = Vec::new();
    let mut runtime_names = Vec::new();
    for package in chosen {
        let dep = package
            .dependencies
            .iter()
            .find(|d| d.name == "covcheck-rt");
        if let Some(dep) = dep {
            selected.push(package.id.clone());
            let name = dep.rename.clone().unwrap_or_else(|| dep.name.clone());
            if !runtime_names.contains(&name) {
                runtime_names.push(name);
            }
        }
    }
    (selected, runtime_names)
}

/// Set to a directory to put every instrumented build there (and the
/// engine library, unless [`crate::engine::ENGINE_DIR_ENV`] says otherwise).
pub const BUILD_DIR_ENV: &str = "COVCHECK_BUILD_DIR";

/// The instrumented build's directory and the engine library's.
///
/// The build goes to `COVCHECK_BUILD_DIR` or else `<target>/covcheck/build`,
/// the workspace's own: it must not be shared by two checkouts of one
/// package (see the module's documentation). The engine library goes where
/// [`EngineLibrary::locate`] says: beside the build when the user chose
/// where builds go (`COVCHECK_BUILD_DIR`, `--target-dir`), in the
/// machine-wide cache otherwise. `env` reads an environment variable.
fn build_dirs(
    explicit_target_dir: bool,
    target_dir: &Path,
    env: &dyn Fn(&str) -> Option<std::ffi::OsString>,
) -> (PathBuf, EngineLibrary) {
    let chosen = env(BUILD_DIR_ENV)
        .filter(|d| !d.is_empty())
        .map(PathBuf::from);
    let build_dir = chosen
        .clone()
        .unwrap_or_else(|| target_dir.join("covcheck").join("build"));
    let engine = EngineLibrary::locate(&build_dir, chosen.is_some() || explicit_target_dir, env);
    (build_dir, engine)
}

impl Plan {
    /// The names of the packages under test.
    pub fn selected_names(&self) -> Vec<String> {
        self.selected
            .iter()
            .filter_map(|id| self.package(id))
            .map(|p| p.name.to_string())
            .collect()
    }

    /// The directories of the packages under test.
    pub fn selected_roots(&self) -> Vec<PathBuf> {
        self.selected
            .iter()
            .filter_map(|id| self.package(id))
            .map(|p| package_dir(p.manifest_path.as_std_path()))
            .collect()
    }

    /// Names of the packages the build of the selected packages compiles.
    fn built_packages(&self) -> std::collections::HashSet<&str> {
        let mut built = std::collections::HashSet::new();
        let Some(resolve) = &self.metadata.resolve else {
            return built;
        };
        let mut queue: Vec<&PackageId> = self.selected.iter().collect();
        let mut seen = std::collections::HashSet::new();
        while let Some(id) = queue.pop() {
            if !seen.insert(id) {
                continue;
            }
            if let Some(package) = self.package(id) {
                built.insert(package.name.as_str());
            }
            if let Some(node) = resolve.nodes.iter().find(|n| &n.id == id) {
                queue.extend(node.deps.iter().map(|d| &d.pkg));
            }
        }
        built
    }

    fn package(&self, id: &PackageId) -> Option<&Package> {
        self.metadata.packages.iter().find(|p| &p.id == id)
    }

    /// How `cargo test -p` names `package` in rerun commands: its name, or
    /// `name@version` when the build has another package of that name.
    /// covcheck-rt brings some in itself (`serde_json`, `toml`, `serde`, ...):
    /// in serde_json's own workspace, `-p serde_json` is ambiguous.
    pub fn package_spec(&self, package: &Package) -> String {
        let namesakes = self
            .metadata
            .packages
            .iter()
            .filter(|p| p.name == package.name);
        if namesakes.count() > 1 {
            format!("{}@{}", package.name, package.version)
        } else {
            package.name.to_string()
        }
    }

    /// What the plan says of package `id`, for a failed build's diagnosis.
    fn facts(&self, id: &PackageId) -> PackageFacts {
        let package = self.package(id);
        let name = package.map_or_else(|| id.repr.clone(), |p| p.name.to_string());
        let instrumented = package.is_some_and(|p| {
            let key = (p.name.to_string(), p.version.to_string());
            self.instrumented.packages.contains(&key)
        });
        PackageFacts {
            name,
            instrumented,
            under_test: self.selected.contains(id),
        }
    }
}

/// Which build of the tests.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Build {
    /// SanitizerCoverage, into the instrumented build directory.
    Instrumented,
    /// The same with every function kept, even those no test calls, for the
    /// coverage report (`cargo covcheck report`): a profile of its own, so
    /// that the campaigns' build and its coverage map stay as they are.
    Coverage,
    /// What `cargo test` builds, in the same target directory, so that it is
    /// shared with `cargo test`.
    Plain,
    /// The instrumented build that also counts every edge executed, the
    /// cost measure of performance mode (`--perf`): a profile of its own,
    /// as the count slows every execution.
    Perf,
}

/// Builds the test binaries. Cargo's own diagnostics go to the terminal as
/// they would under `cargo test`.
pub fn build(plan: &Plan, build: &BuildArgs, kind: Build) -> Result<Vec<TestBinary>, BuildError> {
    if kind != Build::Plain {
        check_toolchain()?;
    }
    let failed = match kind {
        Build::Plain => FailedBuild::Plain,
        _ => FailedBuild::Instrumented {
            release: build.release,
        },
    };
    run_build(plan, build_command(plan, build, kind)?, failed)
}

/// The `cargo test --no-run` command of a build.
fn build_command(
    plan: &Plan,
    build: &BuildArgs,
    kind: Build,
) -> Result<ProcessBuilder, BuildError> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut command = ProcessBuilder::new(cargo);
    command.args(&["test", "--no-run", message_format()]);
    if let Some(path) = &build.manifest_path {
        command.arg("--manifest-path").arg(path);
    }
    for id in &plan.selected {
        // The package ID (`path+file:///ws/json#serde_json@1.0.150`) is never
        // ambiguous, where the name is when a dependency has it too.
        if plan.package(id).is_some() {
            command.args(&["-p", id.repr.as_str()]);
        }
    }
    let mut features: Vec<String> = match kind {
        Build::Instrumented | Build::Coverage | Build::Perf => plan
            .runtime_names
            .iter()
            .map(|n| format!("{n}/campaign"))
            .collect(),
        Build::Plain => Vec::new(),
    };
    features.extend(build.features.iter().cloned());
    if !features.is_empty() {
        command.arg("--features").arg(features.join(","));
    }
    if build.all_features {
        command.arg("--all-features");
    }
    if build.no_default_features {
        command.arg("--no-default-features");
    }
    if kind == Build::Plain {
        command.arg("--target-dir").arg(&plan.target_dir);
        if build.release {
            command.arg("--release");
        }
        return Ok(command);
    }
    instrument(&mut command, plan, build, kind)?;
    Ok(command)
}

/// Makes `command` the instrumented build: its build directory, profile
/// and rustc wrapper, with the weak callback archive in place.
fn instrument(
    command: &mut ProcessBuilder,
    plan: &Plan,
    build: &BuildArgs,
    kind: Build,
) -> Result<(), BuildError> {
    let keep_dead_code = kind == Build::Coverage;
    std::fs::create_dir_all(&plan.covcheck_dir).map_err(|source| BuildError::Create {
        path: plan.covcheck_dir.clone(),
        source,
    })?;
    let stubs = plan.covcheck_dir.join("libcovcheck_sancov_stubs.a");
    if std::fs::read(&stubs).ok().as_deref() != Some(STUBS) {
        std::fs::write(&stubs, STUBS).map_err(|source| WriteError {
            path: stubs.clone(),
            source,
        })?;
    }
    let exe = std::env::current_exe().map_err(BuildError::CurrentExe)?;
    command.arg("--target-dir").arg(&plan.build_dir);
    let base = if build.release { "release" } else { "covcheck" };
    let profile = match kind {
        Build::Coverage => "covcheck-report",
        Build::Perf => "covcheck-perf",
        Build::Instrumented | Build::Plain => base,
    };
    command.args(
        &plan
            .instrumented
            .profile_overrides(profile, &plan.built_packages()),
    );
    if !build.release {
        command.args(&[
            "--config",
            "profile.covcheck.inherits=\"release\"",
            "--config",
            "profile.covcheck.debug-assertions=true",
            "--config",
            "profile.covcheck.overflow-checks=true",
            // The checks are for the code under test. The runtime's own
            // code (generating each input, the engine's mutations and
            // novelty check) runs on every execution: with them it ran a
            // fifth slower, and they catch nothing in code the user does
            // not write, which its own test suite checks.
            "--config",
            "profile.covcheck.package.\"covcheck-rt\".debug-assertions=false",
            "--config",
            "profile.covcheck.package.\"covcheck-rt\".overflow-checks=false",
        ]);
    }
    if keep_dead_code {
        command
            .arg("--config")
            .arg(format!("profile.covcheck-report.inherits=\"{base}\""))
            .env(KEEP_DEAD_CODE_ENV, "1");
        // Unoptimised, the packages under test keep a block per branch and
        // no inlined calls, so that each counter's line is the line the
        // code is on: optimised, `if c { a } else { b }` becomes one
        // branch-free block attributed to the caller. Without overflow
        // checks, `i += 1` is not "partly reached" for want of an overflow:
        // the inputs replayed passed the campaign's build, which checks
        // overflow, so they run the same here.
        for name in plan.selected_names() {
            for setting in ["opt-level=0", "overflow-checks=false"] {
                command.arg("--config").arg(format!(
                    "profile.covcheck-report.package.\"{name}\".{setting}"
                ));
            }
        }
    }
    if kind == Build::Perf {
        command
            .arg("--config")
            .arg(format!("profile.covcheck-perf.inherits=\"{base}\""))
            .env(COUNT_EDGES_ENV, "1");
    }
    if profile == "release" {
        command.arg("--release");
    } else {
        command.args(&["--profile", profile]);
    }
    // RUSTC_WRAPPER (not the workspace wrapper): dependencies are
    // instrumented too. Cargo fingerprints the wrapper's path.
    command
        .env("RUSTC_WRAPPER", &exe)
        .env_remove("RUSTC_WORKSPACE_WRAPPER")
        .env(WRAPPER_ENV, "1")
        .env(INSTRUMENT_ENV, plan.instrumented.to_env())
        .env(STUBS_ENV, &stubs);
    Ok(())
}

/// The oldest Rust the campaign build compiles with: LibAFL 0.16's
/// `rust-version`. Plain `cargo test` needs only the workspace's.
const CAMPAIGN_RUST: (u32, u32, u32) = (1, 93, 1);

/// Says which Rust the campaign build needs before cargo fails deep inside
/// LibAFL's dependencies with a less helpful message.
fn check_toolchain() -> Result<(), BuildError> {
    let mut process = ProcessBuilder::new(rustc());
    process.arg("--version");
    // Its stderr is left to the terminal: rustup prints there when it
    // installs the toolchain first.
    let output = process
        .build_command()
        .stderr(Stdio::inherit())
        .output()
        .map_err(|source| BuildError::NotStarted(ProcessFailure::not_started(&process, source)))?;
    let text = String::from_utf8_lossy(&output.stdout);
    let Some(version) = rustc_version(&text) else {
        return Ok(()); // an unusual rustc: let cargo speak for it
    };
    if version >= CAMPAIGN_RUST {
        return Ok(());
    }
    Err(BuildError::OldRust {
        needs: CAMPAIGN_RUST,
        found: text.trim().to_string(),
    })
}

/// (major, minor, patch) of `rustc --version` output ("rustc 1.95.0 (...)").
fn rustc_version(text: &str) -> Option<(u32, u32, u32)> {
    let number = text.split_whitespace().nth(1)?;
    let number = number.split('-').next()?;
    let mut parts = number.split('.').map(|p| p.parse::<u32>().ok());
    Some((parts.next()??, parts.next()??, parts.next()??))
}

/// Cargo's JSON messages with the compiler's diagnostics in them, which
/// [`run_build`] prints as cargo would (in colour where cargo would use
/// it): with them, covcheck can say which target failed.
fn message_format() -> &'static str {
    let colour = match std::env::var("CARGO_TERM_COLOR").as_deref() {
        Ok("always") => true,
        Ok("never") => false,
        _ => std::io::stderr().is_terminal(),
    };
    if colour {
        "--message-format=json-diagnostic-rendered-ansi"
    } else {
        "--message-format=json"
    }
}

/// Runs the cargo build and collects the test binaries of the selected
/// packages from its JSON messages, printing the compiler's diagnostics;
/// when it fails, says where and why (`failed` says which build it was).
///
/// Cargo runs as the `std::process::Command` its `ProcessBuilder` builds,
/// not through `exec_with_streaming`, which would pipe its stderr too:
/// cargo draws its progress bar and colours there, on the terminal.
fn run_build(
    plan: &Plan,
    process: ProcessBuilder,
    failed: FailedBuild,
) -> Result<Vec<TestBinary>, BuildError> {
    let mut child = process
        .build_command()
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .map_err(|source| BuildError::NotStarted(ProcessFailure::not_started(&process, source)))?;
    let stdout = child.stdout.take().expect("piped");
    let mut binaries = Vec::new();
    let mut script_dirs = Vec::new();
    let mut diagnosis = Diagnosis::default();
    for message in Message::parse_stream(BufReader::new(stdout)) {
        let artifact = match message {
            Ok(Message::CompilerArtifact(artifact)) => artifact,
            Ok(Message::CompilerMessage(message)) => {
                if let Some(rendered) = &message.message.rendered {
                    eprint!("{rendered}");
                }
                diagnosis.compiler_message(&message, plan.facts(&message.package_id));
                continue;
            }
            Ok(Message::BuildScriptExecuted(script)) => {
                diagnosis.build_script_ran(&script.package_id);
                let dirs = script.linked_paths.iter().map(|p| search_dir(p.as_str()));
                script_dirs.extend(dirs);
                continue;
            }
            _ => continue,
        };
        if artifact.target.kind.contains(&TargetKind::CustomBuild) {
            let name = plan.facts(&artifact.package_id).name;
            diagnosis.build_script_compiled(&artifact.package_id, &name);
        }
        let Some(executable) = artifact.executable else {
            continue;
        };
        if !artifact.profile.test || !plan.selected.contains(&artifact.package_id) {
            continue;
        }
        let Some(package) = plan.package(&artifact.package_id) else {
            continue;
        };
        binaries.push(TestBinary {
            path: executable.into_std_path_buf(),
            package_root: package_dir(package.manifest_path.as_std_path()),
            library_dirs: Vec::new(),
            env: package_env(package, &artifact.target.name),
            package_spec: plan.package_spec(package),
        });
    }
    if !child.wait().is_ok_and(|status| status.success()) {
        let failure = diagnosis.conclude(failed, plan.selected.len());
        return Err(BuildError::Failed(failure));
    }
    let sysroot = sysroot_libdir();
    for binary in &mut binaries {
        binary.library_dirs = library_dirs(&binary.path, &script_dirs, sysroot.as_deref());
    }
    Ok(binaries)
}

fn package_dir(manifest: &Path) -> PathBuf {
    manifest.parent().map(Path::to_path_buf).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_instrumented_build_is_the_workspaces_own_unless_one_is_chosen() {
        let home = |name: &str| (name == "HOME").then(|| "/home/u".into());
        let target = Path::new("/ws/target");
        for explicit_target_dir in [false, true] {
            let (build_dir, _) = build_dirs(explicit_target_dir, target, &home);
            assert_eq!(build_dir, Path::new("/ws/target/covcheck/build"));
        }
        let chosen = |name: &str| match name {
            BUILD_DIR_ENV => Some("/shared".into()),
            "HOME" => Some("/home/u".into()),
            _ => None,
        };
        let (build_dir, engine) = build_dirs(false, target, &chosen);
        assert_eq!(build_dir, Path::new("/shared"));
        assert!(engine.path.starts_with("/shared/covcheck-engine"));
        // By default the engine is the machine's, not the workspace's.
        let (_, engine) = build_dirs(false, target, &home);
        assert!(engine.path.starts_with("/home/u/.cache/covcheck/engine"));
    }

    #[test]
    fn exclude_leaves_packages_out_of_any_choice() {
        let metadata = MetadataCommand::new()
            .manifest_path(concat!(env!("CARGO_MANIFEST_DIR"), "/../Cargo.toml"))
            .exec()
            .unwrap();
        let names = |build: &BuildArgs| -> Vec<String> {
            let chosen = chosen_packages(&metadata, build).unwrap();
            chosen.iter().map(|p| p.name.to_string()).collect()
        };
        let workspace = BuildArgs {
            workspace: true,
            exclude: vec!["xtask".to_string()],
            ..BuildArgs::default()
        };
        let chosen = names(&workspace);
        assert!(chosen.contains(&"cargo-covcheck".to_string()), "{chosen:?}");
        assert!(!chosen.contains(&"xtask".to_string()), "{chosen:?}");
        let packages = BuildArgs {
            package: vec!["xtask".to_string(), "covcheck-rt".to_string()],
            exclude: vec!["xtask".to_string()],
            ..BuildArgs::default()
        };
        assert_eq!(names(&packages), ["covcheck-rt"]);
        let unknown = BuildArgs {
            workspace: true,
            exclude: vec!["no-such-package".to_string()],
            ..BuildArgs::default()
        };
        let error = chosen_packages(&metadata, &unknown).unwrap_err();
        assert!(error.to_string().contains("`no-such-package`"), "{error}");
    }

    #[test]
    fn test_binaries_find_the_shared_libraries_cargo_test_would() {
        let scripts = [
            search_dir("native=/ws/target/debug/build/sys-1/out"),
            search_dir("/usr/lib/x86_64-linux-gnu"),
            search_dir("dependency=/ws/target/debug/deps"),
        ];
        let sysroot = Path::new("/rust/lib/rustlib/x86_64-unknown-linux-gnu/lib");
        let dirs = library_dirs(
            Path::new("/ws/target/debug/deps/props-0123"),
            &scripts,
            Some(sysroot),
        );
        // The system's directories are the system's to search, as under cargo.
        assert_eq!(
            dirs,
            [
                Path::new("/ws/target/debug/build/sys-1/out"),
                Path::new("/ws/target/debug/deps"),
                Path::new("/ws/target/debug"),
                sysroot,
            ]
        );
        let joined = library_path(&dirs[..1], Some("/opt/lib".into())).unwrap();
        assert_eq!(
            std::env::split_paths(&joined).collect::<Vec<_>>(),
            [
                Path::new("/ws/target/debug/build/sys-1/out"),
                Path::new("/opt/lib")
            ]
        );
        assert_eq!(library_path(&[], Some("/opt/lib".into())), None);
    }

    #[test]
    fn rustc_versions_are_read_and_compared() {
        assert_eq!(
            rustc_version("rustc 1.95.0 (59807616e 2026-04-14)"),
            Some((1, 95, 0))
        );
        assert_eq!(
            rustc_version("rustc 1.94.0-nightly (abc 2026-01-01)"),
            Some((1, 94, 0))
        );
        assert_eq!(rustc_version("garbage"), None);
        assert!(rustc_version("rustc 1.93.0 (x)").unwrap() < CAMPAIGN_RUST);
        assert!(rustc_version("rustc 1.93.1 (x)").unwrap() >= CAMPAIGN_RUST);
    }
}
