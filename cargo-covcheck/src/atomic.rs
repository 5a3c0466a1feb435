//! Files that are either written whole or not at all: a temporary file in
//! the same directory, then a rename, so a reader (or a CI system picking up a
//! report) never sees half a file.

use std::path::Path;

pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), String> {
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    // Readable by all, like any file a user writes (tempfile's default is 0600).
    let mut temp = tempfile::Builder::new()
        .permissions(std::os::unix::fs::PermissionsExt::from_mode(0o644))
        .tempfile_in(dir)
        .map_err(|e| format!("cannot write in {}: {e}", dir.display()))?;
    std::io::Write::write_all(&mut temp, bytes)
        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    temp.persist(path)
        .map_err(|e| format!("cannot write {}: {}", path.display(), e.error))?;
    Ok(())
}
