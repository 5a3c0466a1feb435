//! The seed store: failing (and, later, covering) inputs saved next to the
//! crate's source, one small human-readable TOML file each, replayed by every
//! `cargo test` before any random case.
//!
//! Layout: `<crate>/covcheck-seeds/<module path>/<property>/<hash>.toml`, e.g.
//! `covcheck-seeds/mycrate/tests/parses_back/e71eb185e2edcc4c.toml`. The
//! directory comes from the property's *module path*, not its file, so moving
//! a property between files keeps its seeds; the file name is a hash of the
//! choices, so the same input is never stored twice.
//!
//! Files are written atomically (a temporary file in the same directory, then a
//! rename) and covcheck never deletes one, but for the unshrunk stand-in of
//! a failure that a campaign saved the moment it caught it and then
//! replaced with the shrunk value ([`SeedStore::replace`]): a seed that no
//! longer parses is reported with its path and left for a person to fix or
//! remove.

use std::fmt::Write as _;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::failure::FailureKind;
use crate::hash::content_hash;

/// Version of the seed file format; files of other versions are refused with
/// an explanation rather than misread.
pub const FORMAT_VERSION: u32 = 1;

/// Name of the directory, at the crate root, that holds all seeds.
pub const SEEDS_DIR: &str = "covcheck-seeds";

/// A seed file's contents.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SeedFile {
    pub format: u32,
    /// The property's full path, e.g. `mycrate::tests::p`.
    pub property: String,
    pub kind: SeedKind,
    /// The choice indices, space-separated: what actually replays.
    pub choices: String,
    /// The size limit (`COVCHECK_SIZE`: the longest collection or string)
    /// the input was found under, when it was not the default. A seed is
    /// replayed under at least this limit: campaigns search far past the
    /// plain default, and a longer input cut short would pass silently.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<usize>,
    /// What went wrong when this input was found (failure seeds only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure: Option<FailureRecord>,
    /// What the input cost when it was found (performance seeds only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub performance: Option<PerformanceRecord>,
    /// How each argument rendered (`Debug`) when saved; used to warn when the
    /// choices now generate something else.
    #[serde(default, rename = "arg")]
    pub args: Vec<ArgRecord>,
}

/// Why a seed was saved.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SeedKind {
    /// An input that made the property fail.
    Failure,
    /// An input kept because it covers code no other seed covers.
    Covering,
    /// The costliest input a performance campaign found (`cargo covcheck
    /// --perf`), kept to replay as a regression case.
    Performance,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FailureRecord {
    pub message: String,
    pub location: String,
    /// How it failed when it was not a panic, e.g. `abort`, `stack-overflow`,
    /// `timeout` (seeds saved by `cargo covcheck`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<FailureKind>,
    /// The failure did not come back on every replay when it was found: it
    /// depends on more than the input (time, randomness, state), so a
    /// replay that passes does not mean it is fixed.
    #[serde(default, skip_serializing_if = "is_false")]
    pub flaky: bool,
    /// The input as it was caught, not shrunk: the run was interrupted, or
    /// its worker ended, before shrinking finished (or it is flaky).
    #[serde(default, skip_serializing_if = "is_false")]
    pub unshrunk: bool,
}

fn is_false(value: &bool) -> bool {
    !value
}

/// The cost of a performance seed's input, in edges executed, when a
/// campaign found it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PerformanceRecord {
    pub cost: u64,
    /// Choices the input drew.
    pub size: usize,
    /// The median cost of the inputs of about its size the campaign ran.
    pub median: u64,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ArgRecord {
    pub name: String,
    pub value: String,
}

impl ArgRecord {
    /// Records of `(name, rendering)` pairs, as cases and reports carry them.
    pub fn from_pairs<N: AsRef<str>>(pairs: &[(N, String)]) -> Vec<ArgRecord> {
        pairs
            .iter()
            .map(|(name, value)| ArgRecord {
                name: name.as_ref().to_string(),
                value: value.clone(),
            })
            .collect()
    }
}

impl SeedFile {
    /// The seed of an input that made property `property` fail. `size` is
    /// the size limit it was found under when that was not the default;
    /// `args` its arguments' `Debug` renderings.
    pub fn failure(
        property: &str,
        choices: &[u64],
        size: Option<usize>,
        failure: FailureRecord,
        args: &[(impl AsRef<str>, String)],
    ) -> SeedFile {
        SeedFile {
            failure: Some(failure),
            ..SeedFile::covering(property, choices, size, args)
        }
        .with_kind(SeedKind::Failure)
    }

    /// The seed of an input kept for the coverage it reaches.
    pub fn covering(
        property: &str,
        choices: &[u64],
        size: Option<usize>,
        args: &[(impl AsRef<str>, String)],
    ) -> SeedFile {
        SeedFile {
            format: FORMAT_VERSION,
            property: property.to_string(),
            kind: SeedKind::Covering,
            choices: SeedFile::format_indices(choices),
            size,
            failure: None,
            performance: None,
            args: ArgRecord::from_pairs(args),
        }
    }

    /// The seed of the costliest input of a performance campaign.
    pub fn performance(
        property: &str,
        choices: &[u64],
        size: Option<usize>,
        record: PerformanceRecord,
        args: &[(impl AsRef<str>, String)],
    ) -> SeedFile {
        SeedFile {
            performance: Some(record),
            ..SeedFile::covering(property, choices, size, args)
        }
        .with_kind(SeedKind::Performance)
    }

    fn with_kind(self, kind: SeedKind) -> SeedFile {
        SeedFile { kind, ..self }
    }

    /// How the input failed, when it did: `Panic` for a failure seed saved
    /// without a kind (by `cargo test`, or a caught panic).
    pub fn failure_kind(&self) -> Option<FailureKind> {
        let failure = self.failure.as_ref()?;
        Some(failure.kind.unwrap_or(FailureKind::Panic))
    }

    /// The choice indices, parsed from [`SeedFile::choices`].
    pub fn indices(&self) -> Result<Vec<u64>, String> {
        self.choices
            .split_whitespace()
            .map(|word| {
                word.parse::<u64>().map_err(|_| {
                    format!("`choices` must be whole numbers from 0 to {} separated by spaces; found `{word}`", u64::MAX)
                })
            })
            .collect()
    }

    pub fn format_indices(indices: &[u64]) -> String {
        let mut out = String::new();
        for (n, index) in indices.iter().enumerate() {
            if n > 0 {
                out.push(' ');
            }
            let _ = write!(out, "{index}");
        }
        out
    }
}

/// A seed read from disk.
#[derive(Clone, Debug)]
pub struct Seed {
    pub path: PathBuf,
    pub file: SeedFile,
    pub indices: Vec<u64>,
}

impl Seed {
    /// The seed's file name, which names it in reports and in the
    /// seed-suite coverage record.
    pub fn file_name(&self) -> String {
        self.path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    }
}

/// Why the seeds of a property could not be read.
#[derive(Debug, thiserror::Error)]
pub enum SeedError {
    #[error("cannot read seed directory or file {path}: {source}")]
    Io { path: PathBuf, source: io::Error },
    #[error(
        "seed file {path} is not a valid covcheck seed: {problem}\n\
         The file was left untouched. Fix it, or delete it if the input no longer matters \
         (covcheck never deletes seeds by itself)."
    )]
    Invalid { path: PathBuf, problem: String },
}

/// The seeds of one property.
#[derive(Clone, Debug)]
pub struct SeedStore {
    dir: PathBuf,
}

impl SeedStore {
    /// The store of the property `name` in module `module_path` of the crate
    /// rooted at `crate_root`.
    pub fn new(crate_root: &Path, module_path: &str, name: &str) -> Self {
        let mut dir = crate_root.join(SEEDS_DIR);
        for segment in module_path.split("::") {
            dir.push(segment);
        }
        dir.push(name);
        SeedStore { dir }
    }

    /// The store whose directory is `dir` (as a test binary reported it).
    pub fn in_dir(dir: PathBuf) -> Self {
        SeedStore { dir }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// All seeds, in file name order. A missing directory means no seeds; an
    /// unreadable or invalid file is an error naming it.
    pub fn load(&self) -> Result<Vec<Seed>, SeedError> {
        self.paths()?.iter().map(|path| read_seed(path)).collect()
    }

    /// The seed files' paths, sorted.
    fn paths(&self) -> Result<Vec<PathBuf>, SeedError> {
        let entries = match fs::read_dir(&self.dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(source) => {
                return Err(SeedError::Io {
                    path: self.dir.clone(),
                    source,
                });
            }
        };
        let mut paths = Vec::new();
        for entry in entries {
            let entry = entry.map_err(|source| SeedError::Io {
                path: self.dir.clone(),
                source,
            })?;
            let path = entry.path();
            let name = entry.file_name();
            let name = name.to_string_lossy();
            if !name.starts_with('.') && name.ends_with(".toml") && path.is_file() {
                paths.push(path);
            }
        }
        paths.sort();
        Ok(paths)
    }

    /// The seed files' names as they are on disk now, sorted (none when the
    /// directory cannot be read).
    pub fn file_names(&self) -> Vec<String> {
        self.paths()
            .unwrap_or_default()
            .iter()
            .filter_map(|path| Some(path.file_name()?.to_string_lossy().into_owned()))
            .collect()
    }

    /// The seeds that can be read, and an error naming each one that cannot:
    /// for a campaign, which must not lose every seed to one bad file.
    pub fn load_valid(&self) -> (Vec<Seed>, Vec<SeedError>) {
        let (mut seeds, mut errors) = (Vec::new(), Vec::new());
        match self.paths() {
            Ok(paths) => {
                for path in paths {
                    match read_seed(&path) {
                        Ok(seed) => seeds.push(seed),
                        Err(error) => errors.push(error),
                    }
                }
            }
            Err(error) => errors.push(error),
        }
        (seeds, errors)
    }

    /// Where `file` is saved: `<hash of its choices>.toml`.
    pub fn path_of(&self, file: &SeedFile) -> io::Result<PathBuf> {
        let indices = file.indices().map_err(io::Error::other)?;
        Ok(self
            .dir
            .join(format!("{:016x}.toml", content_hash(&indices))))
    }

    /// Saves `file` atomically at [`SeedStore::path_of`] and returns its
    /// path. An identical seed already there is left as it is.
    pub fn save(&self, file: &SeedFile) -> io::Result<PathBuf> {
        let path = self.path_of(file)?;
        if !path.exists() {
            write_seed(&path, file)?;
        }
        Ok(path)
    }

    /// Saves `file`, the shrunk value of the failure that this same run
    /// saved unshrunk at `unshrunk` a moment before, and then removes that
    /// stand-in: after, so that the failure is on disk at every moment.
    /// When shrinking changed nothing, the file is rewritten in place with
    /// what shrinking learnt. Call it only for a stand-in the run created.
    pub fn replace(&self, unshrunk: &Path, file: &SeedFile) -> io::Result<PathBuf> {
        let path = self.path_of(file)?;
        if path == unshrunk {
            write_seed(&path, file)?;
            return Ok(path);
        }
        let path = self.save(file)?;
        fs::remove_file(unshrunk)?;
        Ok(path)
    }
}

/// Writes `file` at `path` atomically.
fn write_seed(path: &Path, file: &SeedFile) -> io::Result<()> {
    write_atomically(path, file.to_text().map_err(io::Error::other)?.as_bytes())
}

impl SeedFile {
    /// The file's text, with the header every seed has.
    pub fn to_text(&self) -> Result<String, toml::ser::Error> {
        let body = toml::to_string(self)?;
        Ok(format!(
            "# A covcheck seed: `cargo test` replays it before any random case.\n\
             # Commit it so the input stays tested. `choices` is what replays; the\n\
             # rest records what it meant when it was saved.\n{body}"
        ))
    }
}

/// Writes `bytes` to `path` whole or not at all: a hidden temporary file in
/// the same directory (which no reader of seeds picks up), synced, then
/// renamed over `path`, and on Unix the directory synced so that the rename
/// itself survives a crash. On Unix readable by all, like any file a
/// collaborator's checkout gets (tempfile's default, 0600, is for secrets);
/// the umask still applies. Elsewhere (Windows) the file gets the directory's
/// inherited permissions, as any new file does. Creates the directory.
///
/// Not cargo-util's `paths::write_atomic` (cargo-covcheck's `atomic` module
/// says why it writes its reports with this too): a seed is a failure the
/// user commits, and this syncs it to disk before the rename, which
/// `write_atomic` does not; and this crate is in the user's dependency graph
/// (through covcheck-rt, a dev-dependency of every crate under test), where
/// cargo-util would bring anyhow, tracing, walkdir, sha2, jobserver and more
/// into their builds.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    fs::create_dir_all(dir)?;
    let mut builder = tempfile::Builder::new();
    builder.prefix(".covcheck-").suffix(".tmp");
    #[cfg(unix)]
    builder.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o644));
    let mut temp = builder.tempfile_in(dir)?;
    io::Write::write_all(&mut temp, bytes)?;
    temp.as_file().sync_all()?;
    temp.persist(path).map_err(|e| e.error)?;
    // A directory opens read-only for fsync on Unix; elsewhere there is no
    // such call, and the rename is as durable as the platform makes it.
    #[cfg(unix)]
    fs::File::open(dir)?.sync_all()?;
    Ok(())
}

fn read_seed(path: &Path) -> Result<Seed, SeedError> {
    let invalid = |problem: String| SeedError::Invalid {
        path: path.to_path_buf(),
        problem,
    };
    let text = fs::read_to_string(path).map_err(|source| SeedError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    let file: SeedFile =
        toml::from_str(&text).map_err(|e| invalid(e.to_string().trim_end().to_string()))?;
    if file.format != FORMAT_VERSION {
        return Err(invalid(format!(
            "it has format version {}, but this covcheck reads version {FORMAT_VERSION}; \
             upgrade covcheck-rt or regenerate the seed",
            file.format
        )));
    }
    let indices = file.indices().map_err(invalid)?;
    Ok(Seed {
        path: path.to_path_buf(),
        file,
        indices,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> SeedFile {
        SeedFile {
            size: None,
            format: FORMAT_VERSION,
            property: "demo::tests::p".into(),
            kind: SeedKind::Failure,
            choices: SeedFile::format_indices(&[12345, 0, u64::MAX]),
            failure: Some(FailureRecord {
                message: "assertion failed: x < 12345\nwith \"quotes\"".into(),
                location: "src/lib.rs:3:5".into(),
                kind: None,
                flaky: false,
                unshrunk: false,
            }),
            performance: None,
            args: vec![ArgRecord {
                name: "x".into(),
                value: "12345".into(),
            }],
        }
    }

    #[test]
    fn performance_seeds_read_as_they_were_written() {
        let file = SeedFile::performance(
            "demo::tests::p",
            &[1, 14, 1, 14, 0],
            Some(4096),
            PerformanceRecord {
                cost: 8_388_608,
                size: 5,
                median: 45_056,
            },
            &[("data", "[14, 14]".to_string())],
        );
        let text = toml::to_string(&file).unwrap();
        assert!(text.contains("kind = \"performance\""), "{text}");
        assert!(text.contains("[performance]\ncost = 8388608"), "{text}");
        assert_eq!(toml::from_str::<SeedFile>(&text).unwrap(), file);
    }

    #[test]
    fn saves_and_loads_round_trip() {
        let root = tempfile::tempdir().unwrap();
        let store = SeedStore::new(root.path(), "demo::tests", "p");
        let path = store.save(&sample()).unwrap();
        assert!(path.starts_with(root.path().join("covcheck-seeds/demo/tests/p")));
        let seeds = store.load().unwrap();
        assert_eq!(seeds.len(), 1);
        assert_eq!(seeds[0].file, sample());
        assert_eq!(seeds[0].indices, vec![12345, 0, u64::MAX]);
        // Saving the same input again neither duplicates nor rewrites it.
        assert_eq!(store.save(&sample()).unwrap(), path);
        assert_eq!(fs::read_dir(store.dir()).unwrap().count(), 1);
    }

    #[cfg(unix)]
    #[test]
    fn seed_files_are_readable_by_collaborators() {
        use std::os::unix::fs::PermissionsExt;
        let root = tempfile::tempdir().unwrap();
        let store = SeedStore::new(root.path(), "demo", "p");
        let path = store.save(&sample()).unwrap();
        let mode = fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(
            mode & 0o044,
            0o044,
            "group and others can read it: {mode:o}"
        );
    }

    #[test]
    fn one_bad_file_does_not_hide_the_good_seeds() {
        let root = tempfile::tempdir().unwrap();
        let store = SeedStore::new(root.path(), "demo", "p");
        store.save(&sample()).unwrap();
        fs::write(store.dir().join("bad.toml"), "choices = [").unwrap();
        let (seeds, errors) = store.load_valid();
        assert_eq!(seeds.len(), 1);
        assert_eq!(errors.len(), 1);
        assert!(errors[0].to_string().contains("bad.toml"), "{}", errors[0]);
    }

    #[test]
    fn invalid_files_are_named_and_left_alone() {
        let root = tempfile::tempdir().unwrap();
        let store = SeedStore::new(root.path(), "demo", "p");
        fs::create_dir_all(store.dir()).unwrap();
        let path = store.dir().join("bad.toml");
        fs::write(&path, "format = 1\nchoices = \"12 x\"\n").unwrap();
        let err = store.load().unwrap_err().to_string();
        assert!(err.contains("bad.toml"), "{err}");
        assert_eq!(
            fs::read_to_string(&path).unwrap(),
            "format = 1\nchoices = \"12 x\"\n"
        );
    }

    #[test]
    fn crash_kinds_read_as_they_were_written() {
        let text = "format = 1\nproperty = \"d::p\"\nkind = \"failure\"\nchoices = \"1\"\n\n\
                    [failure]\nmessage = \"m\"\nlocation = \"\"\nkind = \"stack-overflow\"\n";
        let file: SeedFile = toml::from_str(text).unwrap();
        assert_eq!(file.failure_kind(), Some(FailureKind::StackOverflow));
        assert_eq!(sample().failure_kind(), Some(FailureKind::Panic));
    }

    #[test]
    fn a_missing_directory_means_no_seeds() {
        let root = tempfile::tempdir().unwrap();
        assert!(
            SeedStore::new(root.path(), "demo", "p")
                .load()
                .unwrap()
                .is_empty()
        );
    }
}
