//! Coverage counters to source lines: each counter's code address (from
//! the instrumented build's PC table, which the reach worker reports as an
//! offset into the mapped binary) looked up in the test binary's debug line
//! tables. The instrumented build keeps line tables for every instrumented
//! crate, so this works on its release-like profile.

use std::path::{Path, PathBuf};

use object::{Object, ObjectSegment};

/// Reads one test binary's debug information.
pub struct Symbolizer {
    loader: addr2line::Loader,
    /// The link-time address mapped at the start of the binary's file
    /// mapping: 0 for the position-independent executables Rust builds by
    /// default, the first segment's address otherwise.
    base: u64,
}

impl Symbolizer {
    pub fn open(binary: &Path) -> Result<Symbolizer, String> {
        let cannot = |e: &dyn std::fmt::Display| {
            format!(
                "cannot read the debug information of {}: {e}",
                binary.display()
            )
        };
        let loader = addr2line::Loader::new(binary).map_err(|e| cannot(&e))?;
        let data = std::fs::read(binary).map_err(|e| cannot(&e))?;
        let file = object::File::parse(&*data).map_err(|e| cannot(&e))?;
        let base = match file.kind() {
            object::ObjectKind::Executable => file
                .segments()
                .filter(|s| s.file_range().0 == 0)
                .map(|s| s.address())
                .min()
                .unwrap_or(0),
            _ => 0,
        };
        Ok(Symbolizer { loader, base })
    }

    /// The source file and line of the code at `offset` in the mapped
    /// binary: where the instruction's code was written, inlined or not.
    pub fn line_of(&self, offset: u64) -> Option<(PathBuf, u32)> {
        let location = self.loader.find_location(self.base + offset).ok()??;
        Some((PathBuf::from(location.file?), location.line?))
    }
}
