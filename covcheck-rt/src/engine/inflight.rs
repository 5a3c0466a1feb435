//! The in-flight slot: a file shared with the supervisor, mapped into the
//! worker's memory, holding the input being executed. Copying an input into
//! memory costs a few nanoseconds; a crash, a timeout or the out-of-memory
//! killer then cannot lose it, because the supervisor reads the file after the
//! worker is gone. No file is written per execution.

use std::fs::OpenOptions;
use std::io;
use std::path::Path;

pub struct Inflight {
    words: *mut u64,
    capacity: usize,
}

impl Inflight {
    /// Maps `path`, which the supervisor created with
    /// [`covcheck_protocol::inflight::inflight_len`] bytes.
    pub fn open(path: &Path) -> io::Result<Inflight> {
        use std::os::fd::AsRawFd;
        let file = OpenOptions::new().read(true).write(true).open(path)?;
        let len = file.metadata()?.len() as usize;
        if len < 24 {
            return Err(io::Error::other(format!("{} is too small", path.display())));
        }
        // SAFETY: a fresh shared mapping of a file we opened read-write; it
        // stays valid after the descriptor is closed.
        let ptr = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED,
                file.as_raw_fd(),
                0,
            )
        };
        if ptr == libc::MAP_FAILED {
            return Err(io::Error::last_os_error());
        }
        Ok(Inflight {
            words: ptr.cast(),
            capacity: len / 8 - 2,
        })
    }

    /// Records `choices` as the input in flight, and `execs` as the number
    /// of executions started (the input is truncated to the capacity, which
    /// the supervisor sizes to the choice limit).
    pub fn store(&mut self, execs: u64, choices: &[u64]) {
        let n = choices.len().min(self.capacity);
        // SAFETY: the mapping holds 2 + capacity words.
        unsafe {
            std::ptr::copy_nonoverlapping(choices.as_ptr(), self.words.add(2), n);
            self.words.add(1).write_volatile(n as u64);
            self.words.write_volatile(execs);
        }
    }
}
