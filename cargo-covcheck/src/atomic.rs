//! Files that are either written whole or not at all, so that a reader (or a
//! CI system picking up a report) never sees half a file: the seed store's
//! writer, with the path in the error.

use std::path::Path;

use crate::error::WriteError;

pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), WriteError> {
    covcheck_protocol::seeds::write_atomically(path, bytes).map_err(|source| WriteError {
        path: path.to_path_buf(),
        source,
    })
}
