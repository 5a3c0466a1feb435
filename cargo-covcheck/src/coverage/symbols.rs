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

    /// The source file and line of the block of code that starts at
    /// `offset` in the mapped binary and ends before `end`. The counter
    /// increment that starts the block is the compiler's own code (line 0),
    /// so the first instruction with a line of its own speaks for the
    /// block; if that instruction was inlined from another function (a
    /// `#[inline]` method of std, say), the line of the call in the
    /// function the block belongs to.
    pub fn line_of(&self, offset: u64, end: u64) -> Option<(PathBuf, u32)> {
        let (start, end) = (self.base + offset, self.base + end.max(offset + 1));
        let mut rows = self.loader.find_location_range(start, end).ok()?;
        let (address, _, location) = rows.find(|(_, _, l)| l.line.is_some_and(|line| line != 0))?;
        self.outermost(address)
            .or_else(|| Some((PathBuf::from(location.file?), location.line?)))
    }

    /// The location, in the function the code at `address` was compiled
    /// into, of the (possibly inlined) code there.
    fn outermost(&self, address: u64) -> Option<(PathBuf, u32)> {
        let mut frames = self.loader.find_frames(address).ok()?;
        let mut outer = None;
        while let Ok(Some(frame)) = frames.next() {
            if let Some(location) = frame.location
                && let (Some(file), Some(line)) = (location.file, location.line)
                && line != 0
            {
                outer = Some((PathBuf::from(file), line));
            }
        }
        outer
    }
}
