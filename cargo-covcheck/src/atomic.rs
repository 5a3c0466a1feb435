//! Files that are either written whole or not at all, so that a reader (or a
//! CI system picking up a report) never sees half a file: the seed store's
//! writer, with the path in the error.
//!
//! Not cargo-util's `paths::write_atomic`, although cargo-covcheck uses
//! cargo-util for its processes: that one gives a new file mode 0600 (its
//! temporary file's; it keeps the mode only of a file it replaces), so a
//! report or a shared engine cache would be unreadable to the CI runner or
//! the other user who reads it; it creates no directory, its errors do not
//! all name the path, and it panics on a path without a file name
//! (`--junit /`). Working round each of those took more code than the one
//! writer it would replace, and the seed store's also syncs to disk.

use std::path::Path;

use crate::error::WriteError;

pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), WriteError> {
    covcheck_protocol::seeds::write_atomically(path, bytes).map_err(|source| WriteError {
        path: path.to_path_buf(),
        source,
    })
}
