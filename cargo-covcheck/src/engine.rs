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

use std::io::BufReader;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use cargo_metadata::Message;
use covcheck_protocol::hash::fnv1a;

use crate::error::{BuildError, WriteError};

/// The engine crate's files, as `(path in the crate, contents)`. A test
/// checks that this names every file of `covcheck-engine/src`.
const SOURCES: &[(&str, &str)] = &[
    (
        "Cargo.toml",
        include_str!("../../covcheck-engine/Cargo.toml"),
    ),
    (
        "Cargo.lock",
        include_str!("../../covcheck-engine/Cargo.lock"),
    ),
    (
        "src/lib.rs",
        include_str!("../../covcheck-engine/src/lib.rs"),
    ),
    (
        "src/abi.rs",
        include_str!("../../covcheck-engine/src/abi.rs"),
    ),
    (
        "src/components.rs",
        include_str!("../../covcheck-engine/src/components.rs"),
    ),
    (
        "src/session.rs",
        include_str!("../../covcheck-engine/src/session.rs"),
    ),
    (
        "src/broker.rs",
        include_str!("../../covcheck-engine/src/broker.rs"),
    ),
    (
        "src/shmem.rs",
        include_str!("../../covcheck-engine/src/shmem.rs"),
    ),
];

/// Where this version of the engine lives under an instrumented build
/// directory.
#[derive(Clone, Debug)]
pub struct EngineLibrary {
    /// `<build dir>/covcheck-engine`: the engine's cargo target directory
    /// and one source directory per engine version.
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
    /// The engine of this cargo-covcheck, under `build_dir`.
    pub fn under(build_dir: &Path) -> EngineLibrary {
        let root = build_dir.join("covcheck-engine");
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

    /// Builds the library unless it is there. Cargo's own output goes to the
    /// terminal, as for the test build.
    pub fn ensure(&self) -> Result<(), BuildError> {
        if self.is_built() {
            return Ok(());
        }
        let create = |path: &Path| {
            std::fs::create_dir_all(path).map_err(|source| BuildError::Create {
                path: path.to_path_buf(),
                source,
            })
        };
        create(&self.sources.join("src"))?;
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
        if self.is_built() {
            return Ok(()); // built by another `cargo covcheck` meanwhile
        }
        for (name, contents) in SOURCES {
            let path = self.sources.join(name);
            if std::fs::read_to_string(&path).ok().as_deref() != Some(contents) {
                crate::atomic::write_atomically(&path, contents.as_bytes())?;
            }
        }
        let built = self.build()?;
        // The library last: its presence says both are there.
        copy(&built.broker, &self.broker)?;
        make_executable(&self.broker)?;
        copy(&built.library, &self.path)?;
        Ok(())
    }

    fn is_built(&self) -> bool {
        self.path.is_file() && self.broker.is_file()
    }

    /// Runs cargo on the engine's sources; the paths of what it built.
    fn build(&self) -> Result<Built, BuildError> {
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let mut child = Command::new(cargo)
            .args([
                "build",
                "--release",
                "--locked",
                "--message-format=json-render-diagnostics",
            ])
            .arg("--manifest-path")
            .arg(self.sources.join("Cargo.toml"))
            .arg("--target-dir")
            .arg(self.root.join("target"))
            // The user's flags and wrappers are for their crates, not ours.
            .env_remove("RUSTFLAGS")
            .env_remove("CARGO_ENCODED_RUSTFLAGS")
            .env_remove("RUSTC_WORKSPACE_WRAPPER")
            .stdout(Stdio::piped())
            .spawn()
            .map_err(BuildError::CargoNotRun)?;
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
        let status = child.wait().map_err(BuildError::CargoNotRun)?;
        match (library, broker) {
            (Some(library), Some(broker)) if status.success() => Ok(Built { library, broker }),
            _ => Err(BuildError::Engine {
                dir: self.sources.clone(),
            }),
        }
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
    fnv1a(
        SOURCES
            .iter()
            .flat_map(|(name, contents)| [name.as_bytes(), b"\0", contents.as_bytes(), b"\0"])
            .flatten()
            .copied(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_source_file_of_the_engine_is_embedded() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../covcheck-engine/src");
        let mut on_disk: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| format!("src/{}", e.unwrap().file_name().to_string_lossy()))
            .collect();
        on_disk.sort();
        let mut embedded: Vec<&str> = SOURCES
            .iter()
            .map(|(name, _)| *name)
            .filter(|name| name.starts_with("src/"))
            .collect();
        embedded.sort();
        assert_eq!(on_disk, embedded);
    }

    #[test]
    fn each_engine_version_has_a_directory_of_its_own() {
        let library = EngineLibrary::under(Path::new("/b"));
        assert!(library.path.starts_with("/b/covcheck-engine"));
        assert_eq!(
            library.path.parent().unwrap().file_name().unwrap().len(),
            16
        );
    }
}
