//! What the engine library and its broker were when they were built: each
//! file's name, size and content hash, written beside them once both are in
//! place. A cached file that no longer matches (cut short when a disk
//! filled, overwritten, or left from a copy that never finished) would fail
//! in every worker that loads it; checked against its stamp before each
//! campaign, it is rebuilt instead.
//!
//! The hash is 64-bit FNV-1a ([`covcheck_protocol::hash::fnv1a`], already
//! what seed names use): it guards against accidents, not against someone
//! who can write the cache (they could write the stamp too), and the two
//! files are a few megabytes, hashed in milliseconds. The sizes make a cut
//! short file plain in the message.

use std::io;
use std::path::{Path, PathBuf};

use covcheck_protocol::hash::fnv1a;

/// The files as built.
#[derive(Debug, PartialEq, Eq)]
pub struct Stamp {
    files: Vec<Entry>,
}

/// One file of a [`Stamp`].
#[derive(Debug, PartialEq, Eq)]
struct Entry {
    /// The file's name, in the stamp's directory.
    name: String,
    size: u64,
    hash: u64,
}

/// Why the cached engine cannot be used as it is.
#[derive(Debug)]
pub enum Unusable {
    /// Not built yet: no stamp (none, or only an older covcheck's unstamped
    /// build), or a file deleted to have it rebuilt.
    NotBuilt,
    /// A file is not what was built.
    Damaged(Damage),
}

/// A cached file that is not what was built, and how it differs.
#[derive(Debug, thiserror::Error)]
#[error("{} {problem}", path.display())]
pub struct Damage {
    pub path: PathBuf,
    pub problem: String,
}

const HEADER: &str = "# covcheck-engine as built: file name, size in bytes, FNV-1a hash. \
                      `cargo covcheck` rebuilds a file that differs.";

impl Stamp {
    /// The stamp of `files` as they are now.
    pub fn of(files: &[&Path]) -> io::Result<Stamp> {
        let files = files
            .iter()
            .map(|path| {
                let bytes = std::fs::read(path)?;
                Ok(Entry {
                    name: file_name(path),
                    size: bytes.len() as u64,
                    hash: content_hash(&bytes),
                })
            })
            .collect::<io::Result<_>>()?;
        Ok(Stamp { files })
    }

    /// The stamp at `path`: [`Unusable::NotBuilt`] when there is none.
    pub fn read(path: &Path) -> Result<Stamp, Unusable> {
        let damaged = |problem: String| {
            Unusable::Damaged(Damage {
                path: path.to_path_buf(),
                problem,
            })
        };
        let text = match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Err(Unusable::NotBuilt),
            Err(e) => return Err(damaged(format!("cannot be read: {e}"))),
        };
        Stamp::parse(&text)
            .ok_or_else(|| damaged("is not a stamp covcheck wrote (its lines do not parse)".into()))
    }

    /// Checks that each of `files` is there, of the size and content hash
    /// the stamp records for its name.
    pub fn check(&self, files: &[&Path]) -> Result<(), Unusable> {
        for path in files {
            let damaged = |problem: String| {
                Unusable::Damaged(Damage {
                    path: path.to_path_buf(),
                    problem,
                })
            };
            let name = file_name(path);
            let Some(entry) = self.files.iter().find(|e| e.name == name) else {
                return Err(damaged(
                    "is not in the stamp written when it was built".into(),
                ));
            };
            let bytes = match std::fs::read(path) {
                Ok(bytes) => bytes,
                Err(e) if e.kind() == io::ErrorKind::NotFound => return Err(Unusable::NotBuilt),
                Err(e) => return Err(damaged(format!("cannot be read: {e}"))),
            };
            if bytes.len() as u64 != entry.size {
                return Err(damaged(format!(
                    "is {} bytes long, but was {} when it was built",
                    bytes.len(),
                    entry.size
                )));
            }
            if content_hash(&bytes) != entry.hash {
                return Err(damaged(
                    "is not the file that was built (its content hash differs)".into(),
                ));
            }
        }
        Ok(())
    }

    /// The stamp as its file holds it.
    pub fn to_text(&self) -> String {
        let mut text = format!("{HEADER}\n");
        for entry in &self.files {
            text.push_str(&format!(
                "{} {} {:016x}\n",
                entry.name, entry.size, entry.hash
            ));
        }
        text
    }

    fn parse(text: &str) -> Option<Stamp> {
        let files = text
            .lines()
            .filter(|line| !line.starts_with('#') && !line.trim().is_empty())
            .map(|line| {
                let mut fields = line.split_whitespace();
                let entry = Entry {
                    name: fields.next()?.to_string(),
                    size: fields.next()?.parse().ok()?,
                    hash: u64::from_str_radix(fields.next()?, 16).ok()?,
                };
                fields.next().is_none().then_some(entry)
            })
            .collect::<Option<Vec<_>>>()?;
        (!files.is_empty()).then_some(Stamp { files })
    }
}

fn content_hash(bytes: &[u8]) -> u64 {
    fnv1a(bytes.iter().copied())
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A library and a broker, stamped, in a directory of their own.
    fn stamped() -> (tempfile::TempDir, PathBuf, PathBuf, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let library = dir.path().join("libcovcheck_engine.so");
        let broker = dir.path().join("covcheck-broker");
        std::fs::write(&library, b"\x7fELF the library").unwrap();
        std::fs::write(&broker, b"\x7fELF the broker").unwrap();
        let stamp = dir.path().join("engine.stamp");
        let text = Stamp::of(&[&library, &broker]).unwrap().to_text();
        std::fs::write(&stamp, text).unwrap();
        (dir, library, broker, stamp)
    }

    fn check(stamp: &Path, library: &Path, broker: &Path) -> Result<(), Unusable> {
        Stamp::read(stamp)?.check(&[library, broker])
    }

    fn damage(result: Result<(), Unusable>) -> Damage {
        match result {
            Err(Unusable::Damaged(damage)) => damage,
            other => panic!("not damaged: {other:?}"),
        }
    }

    #[test]
    fn the_files_as_built_pass() {
        let (_dir, library, broker, stamp) = stamped();
        check(&stamp, &library, &broker).unwrap();
    }

    #[test]
    fn a_library_cut_short_is_damaged_and_says_by_how_much() {
        let (_dir, library, broker, stamp) = stamped();
        std::fs::write(&library, b"\x7fELF").unwrap();
        let damage = damage(check(&stamp, &library, &broker));
        assert_eq!(damage.path, library);
        assert_eq!(
            damage.to_string(),
            format!(
                "{} is 4 bytes long, but was 16 when it was built",
                library.display()
            )
        );
    }

    #[test]
    fn garbage_of_the_same_size_is_damaged() {
        let (_dir, library, broker, stamp) = stamped();
        std::fs::write(&broker, b"garbage garbage").unwrap();
        let damage = damage(check(&stamp, &library, &broker));
        assert_eq!(damage.path, broker);
        assert!(damage.problem.contains("content hash differs"), "{damage}");
    }

    #[test]
    fn no_stamp_or_a_deleted_file_is_not_built_yet() {
        let (_dir, library, broker, stamp) = stamped();
        std::fs::remove_file(&library).unwrap();
        assert!(matches!(
            check(&stamp, &library, &broker),
            Err(Unusable::NotBuilt)
        ));
        std::fs::remove_file(&stamp).unwrap();
        assert!(matches!(
            check(&stamp, &library, &broker),
            Err(Unusable::NotBuilt)
        ));
    }

    #[test]
    fn a_garbage_stamp_is_damaged() {
        let (_dir, library, broker, stamp) = stamped();
        std::fs::write(&stamp, "libcovcheck_engine.so many bytes").unwrap();
        let damage = damage(check(&stamp, &library, &broker));
        assert_eq!(damage.path, stamp);
    }

    #[test]
    fn a_stamp_reads_back_as_written() {
        let (_dir, library, broker, stamp) = stamped();
        let text = std::fs::read_to_string(&stamp).unwrap();
        assert!(text.starts_with("# covcheck-engine"), "{text}");
        assert_eq!(
            Stamp::parse(&text).unwrap(),
            Stamp::of(&[&library, &broker]).unwrap()
        );
    }
}
