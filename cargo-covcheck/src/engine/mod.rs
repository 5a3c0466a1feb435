//! The campaign engine library, covcheck-engine: LibAFL behind a C ABI,
//! which covcheck-rt loads into a campaign worker at run time.
//!
//! Why a library of its own rather than a dependency of covcheck-rt: cargo
//! allows one semver-compatible version of a crate per build, so LibAFL's
//! dependency tree (98 crates) inside the user's graph made every
//! crate that pins an older version of one of them (`rustc-demangle`,
//! `hashbrown`, ...) unable to run campaigns. Built here, from the sources
//! and lock file embedded in this binary, it is resolved on its own, and
//! built once per machine and engine version: no crate ever recompiles it.
//!
//! Once built, the library and the broker are copied beside the sources
//! and stamped (`stamp`); each campaign checks them against the stamp
//! first, so that a cached file that was damaged since is rebuilt rather
//! than failing in every worker.

use std::ffi::OsString;
use std::io::BufReader;
use std::path::{Path, PathBuf};
use std::process::Stdio;

use cargo_metadata::Message;
use cargo_util::{ProcessBuilder, ProcessError};
use covcheck_protocol::hash::fnv1a;

use crate::error::{BuildError, ProcessFailure, WriteError};

mod stamp;

use stamp::Stamp;
pub use stamp::{Damage, Unusable};

/// The engine crate's files, as `(path in the crate, contents)`: they
/// travel inside cargo-covcheck's package (`engine/`, its manifest as
/// `Cargo.toml.in`). A test checks that this names every file of
/// `engine/src`.
const ENGINE_SOURCES: &[(&str, &str)] = &[
    ("Cargo.toml", include_str!("../../engine/Cargo.toml.in")),
    ("Cargo.lock", include_str!("../../engine/Cargo.lock")),
    ("src/lib.rs", include_str!("../../engine/src/lib.rs")),
    (
        "src/components.rs",
        include_str!("../../engine/src/components.rs"),
    ),
    ("src/host.rs", include_str!("../../engine/src/host.rs")),
    (
        "src/session.rs",
        include_str!("../../engine/src/session.rs"),
    ),
    ("src/broker.rs", include_str!("../../engine/src/broker.rs")),
    ("src/shmem.rs", include_str!("../../engine/src/shmem.rs")),
];

/// Where the ABI crate's files go, beside the engine's: its manifest names
/// it as `path = "covcheck-engine-abi"`.
const ABI_DIR: &str = "covcheck-engine-abi";

/// Every file the engine is built from, as `(path, contents)`: its own
/// and those of the ABI crate, which carries them
/// ([`covcheck_engine_abi::SOURCES`]) so that the engine is compiled
/// against the very ABI text the host (covcheck-rt) was.
fn sources() -> impl Iterator<Item = (String, &'static str)> {
    let engine = ENGINE_SOURCES
        .iter()
        .map(|&(name, contents)| (name.to_string(), contents));
    let abi = covcheck_engine_abi::SOURCES
        .into_iter()
        .map(|(name, contents)| (format!("{ABI_DIR}/{name}"), contents));
    engine.chain(abi)
}

/// Set to a directory to keep the campaign engine library there, whatever
/// the build directory.
pub const ENGINE_DIR_ENV: &str = "COVCHECK_ENGINE_DIR";

/// Where this version of the engine lives.
#[derive(Clone, Debug)]
pub struct EngineLibrary {
    /// The engine directory: the engine's cargo target directory and one
    /// source directory per engine version.
    root: PathBuf,
    /// `<root>/<version hash>`: this version's sources.
    sources: PathBuf,
    /// The built library, `<sources>/libcovcheck_engine.so` (or the
    /// platform's name for it).
    pub path: PathBuf,
    /// The LLMP broker program built with it, `<sources>/covcheck-broker`:
    /// the workers of one property share their corpus through it.
    pub broker: PathBuf,
}

impl EngineLibrary {
    /// The engine for an instrumented build in `build_dir`:
    /// `COVCHECK_ENGINE_DIR` if set; `<build_dir>/covcheck-engine` when
    /// `beside_build` (the user chose where builds go, so it goes there too)
    /// or without a home; otherwise the machine-wide cache,
    /// `$XDG_CACHE_HOME/covcheck/engine` (`~/.cache/covcheck/engine`),
    /// shared by every crate. Sharing it is safe where sharing the crate's
    /// build is not: each version has a directory named by the hash of its
    /// sources, and no crate's code is in it. `env` reads an environment
    /// variable.
    pub fn locate(
        build_dir: &Path,
        beside_build: bool,
        env: &dyn Fn(&str) -> Option<OsString>,
    ) -> EngineLibrary {
        let set = |name| env(name).filter(|d| !d.is_empty()).map(PathBuf::from);
        if let Some(dir) = set(ENGINE_DIR_ENV) {
            return EngineLibrary::under(&dir);
        }
        let cache = set("XDG_CACHE_HOME").or_else(|| set("HOME").map(|home| home.join(".cache")));
        match cache {
            Some(cache) if !beside_build => {
                EngineLibrary::under(&cache.join("covcheck").join("engine"))
            }
            _ => EngineLibrary::under(&build_dir.join("covcheck-engine")),
        }
    }

    /// The engine of this cargo-covcheck, in the engine directory `root`
    /// (made absolute: the engine is built from its own directory, and
    /// workers load it from wherever they run).
    pub fn under(root: &Path) -> EngineLibrary {
        let root = std::path::absolute(root).unwrap_or_else(|_| root.to_path_buf());
        let sources = root.join(format!("{:016x}", version_hash()));
        let file = format!(
            "{}covcheck_engine{}",
            std::env::consts::DLL_PREFIX,
            std::env::consts::DLL_SUFFIX
        );
        EngineLibrary {
            path: sources.join(file),
            broker: sources.join(format!("covcheck-broker{}", std::env::consts::EXE_SUFFIX)),
            root,
            sources,
        }
    }

    /// The directory that holds every engine version and the build's
    /// target directory.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Whether the library and the broker are there and intact, as the
    /// stamp written when they were built describes them.
    pub fn check(&self) -> Result<(), Unusable> {
        Stamp::read(&self.stamp_path())?.check(&[&self.path, &self.broker])
    }

    /// Builds the library and the broker unless they are intact. Cargo's own
    /// output goes to the terminal, as for the test build; when the engine's
    /// cargo target directory is still there, a rebuild only copies.
    pub fn build(&self) -> Result<(), BuildError> {
        let create = |path: &Path| {
            std::fs::create_dir_all(path).map_err(|source| BuildError::Create {
                path: path.to_path_buf(),
                source,
            })
        };
        create(&self.sources.join("src"))?;
        create(&self.sources.join(ABI_DIR).join("src"))?;
        // Builds of two engine versions share the target directory: hold a
        // lock from the build to the copy, so that each copies its own.
        let lock_path = self.root.join("build.lock");
        let lock = std::fs::File::create(&lock_path).map_err(|source| BuildError::Create {
            path: lock_path.clone(),
            source,
        })?;
        lock.lock().map_err(|source| BuildError::Create {
            path: lock_path,
            source,
        })?;
        if self.check().is_ok() {
            return Ok(()); // built by another `cargo covcheck` meanwhile
        }
        for (name, contents) in sources() {
            let path = self.sources.join(name);
            if std::fs::read_to_string(&path).ok().as_deref() != Some(contents) {
                crate::atomic::write_atomically(&path, contents.as_bytes())?;
            }
        }
        let built = self.compile()?;
        copy(&built.broker, &self.broker)?;
        make_executable(&self.broker)?;
        copy(&built.library, &self.path)?;
        // The stamp last: its presence says both files are whole.
        let stamp = Stamp::of(&[&self.path, &self.broker]).map_err(|source| WriteError {
            path: self.path.clone(),
            source,
        })?;
        crate::atomic::write_atomically(&self.stamp_path(), stamp.to_text().as_bytes())?;
        Ok(())
    }

    /// `<sources>/engine.stamp`.
    fn stamp_path(&self) -> PathBuf {
        self.sources.join("engine.stamp")
    }

    /// The cargo command that builds the engine's sources.
    fn command(&self) -> ProcessBuilder {
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let mut command = ProcessBuilder::new(cargo);
        command
            .args(&[
                "build",
                "--release",
                "--locked",
                "--message-format=json-render-diagnostics",
            ])
            .arg("--manifest-path")
            .arg(self.sources.join("Cargo.toml"))
            .arg("--target-dir")
            .arg(self.root.join("target"))
            // Cargo reads `.cargo/config.toml` from the directory it runs in
            // and those above it: from the engine's own, the user's
            // project's `[patch]`es, aliases and flags stay out of a build
            // that resolves nothing of theirs (a `[patch]` of a crate
            // covcheck depends on would otherwise make the engine's lock
            // file stale); the machine's cargo home still applies (source
            // replacement, mirrors, network settings).
            .cwd(&self.sources)
            // The user's flags and wrappers are for their crates, not ours:
            // those of the environment, and those of the `.cargo/config.toml`
            // above the engine's directory when it is inside the user's
            // target directory, which an empty `CARGO_ENCODED_RUSTFLAGS`
            // overrides.
            .env_remove("RUSTFLAGS")
            .env("CARGO_ENCODED_RUSTFLAGS", "")
            .env_remove("RUSTC_WORKSPACE_WRAPPER");
        command
    }

    /// Runs cargo on the engine's sources; the paths of what it built.
    /// As for the test build, cargo's stderr stays the terminal's (see
    /// `compile::run_build`): its `ProcessBuilder` gives a
    /// `std::process::Command`, and its failure is told in cargo-util's
    /// words.
    fn compile(&self) -> Result<Built, BuildError> {
        let process = self.command();
        let mut child = process
            .build_command()
            .stdout(Stdio::piped())
            .spawn()
            .map_err(|source| {
                BuildError::NotStarted(ProcessFailure::not_started(&process, source))
            })?;
        let stdout = child.stdout.take().expect("piped");
        let (mut library, mut broker) = (None, None);
        for message in Message::parse_stream(BufReader::new(stdout)).flatten() {
            let Message::CompilerArtifact(artifact) = message else {
                continue;
            };
            if artifact.target.name == "covcheck_engine" {
                library = artifact
                    .filenames
                    .into_iter()
                    .map(|f| f.into_std_path_buf())
                    .find(|f| f.extension() == self.path.extension());
            } else if artifact.target.name == "covcheck-broker" {
                broker = artifact.executable.map(|f| f.into_std_path_buf());
            }
        }
        let status = child.wait().map_err(|source| {
            BuildError::NotStarted(ProcessFailure::not_started(&process, source))
        })?;
        let cargo = match (library, broker) {
            _ if !status.success() => ProcessFailure::exited(&process, status),
            (Some(library), Some(broker)) => return Ok(Built { library, broker }),
            _ => {
                let message = format!("{process} built no engine library or broker");
                ProcessFailure(ProcessError::new(&message, Some(status), None).into())
            }
        };
        Err(BuildError::Engine {
            dir: self.sources.clone(),
            cargo,
        })
    }
}

/// What cargo built, in its target directory.
struct Built {
    library: PathBuf,
    broker: PathBuf,
}

fn copy(from: &Path, to: &Path) -> Result<(), BuildError> {
    let bytes = std::fs::read(from).map_err(|source| WriteError {
        path: from.to_path_buf(),
        source,
    })?;
    crate::atomic::write_atomically(to, &bytes)?;
    Ok(())
}

fn make_executable(path: &Path) -> Result<(), BuildError> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).map_err(|source| {
        BuildError::from(WriteError {
            path: path.to_path_buf(),
            source,
        })
    })
}

/// Hash of the embedded sources: a new engine version gets a directory of
/// its own.
pub fn version_hash() -> u64 {
    let bytes: Vec<u8> = sources()
        .flat_map(|(name, contents)| [name.into_bytes(), vec![0], contents.into(), vec![0]])
        .flatten()
        .collect();
    fnv1a(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_source_file_of_the_engine_is_embedded() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("engine/src");
        let mut on_disk: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| format!("src/{}", e.unwrap().file_name().to_string_lossy()))
            .collect();
        on_disk.sort();
        let mut embedded: Vec<&str> = ENGINE_SOURCES
            .iter()
            .map(|(name, _)| *name)
            .filter(|name| name.starts_with("src/"))
            .collect();
        embedded.sort();
        assert_eq!(on_disk, embedded);
    }

    #[test]
    fn the_users_rustflags_and_config_stay_out_of_the_engine() {
        let library = EngineLibrary::under(Path::new("/e"));
        let command = library.command();
        let env = command.get_envs();
        assert_eq!(env.get("RUSTFLAGS"), Some(&None), "{env:?}");
        // Empty, not unset: cargo then ignores the configured rustflags too.
        assert_eq!(
            env.get("CARGO_ENCODED_RUSTFLAGS"),
            Some(&Some(OsString::new())),
            "{env:?}"
        );
        // Nor the `.cargo/config.toml` of the directory `cargo covcheck`
        // runs in.
        assert_eq!(command.get_cwd(), Some(Path::new(&library.sources)));
    }

    #[test]
    fn each_engine_version_has_a_directory_of_its_own() {
        let library = EngineLibrary::under(Path::new("/e"));
        assert!(library.path.starts_with("/e"));
        assert_eq!(
            library.path.parent().unwrap().file_name().unwrap().len(),
            16
        );
        assert_eq!(library.broker.parent(), library.path.parent());
    }

    /// The engine's directory for a build in `/t/covcheck/build`, given the
    /// environment `vars`.
    fn located(vars: &[(&str, &str)], beside_build: bool) -> PathBuf {
        let env = |name: &str| {
            vars.iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| OsString::from(v))
        };
        EngineLibrary::locate(Path::new("/t/covcheck/build"), beside_build, &env).root
    }

    #[test]
    fn the_engine_is_cached_once_per_machine_unless_builds_go_elsewhere() {
        let home = [("HOME", "/home/u")];
        assert_eq!(
            located(&home, false),
            Path::new("/home/u/.cache/covcheck/engine")
        );
        let xdg = [("HOME", "/home/u"), ("XDG_CACHE_HOME", "/xdg")];
        assert_eq!(located(&xdg, false), Path::new("/xdg/covcheck/engine"));
        // `COVCHECK_BUILD_DIR` or `--target-dir`: beside the build.
        assert_eq!(
            located(&xdg, true),
            Path::new("/t/covcheck/build/covcheck-engine")
        );
        assert_eq!(
            located(&[], false),
            Path::new("/t/covcheck/build/covcheck-engine")
        );
        let chosen = [("HOME", "/home/u"), (ENGINE_DIR_ENV, "/engine")];
        assert_eq!(located(&chosen, false), Path::new("/engine"));
        assert_eq!(located(&chosen, true), Path::new("/engine"));
    }
}
