//! How a property failed: the kind a seed file records
//! ([`crate::seeds::FailureRecord::kind`]) and the `--message-format json`
//! messages name ([`crate::messages::Message::WorkerDied`], and a
//! finding's `kind`).
//!
//! Both are stable formats, so this enum is stable too: its names
//! (`"stack-overflow"`, ...) never change, and a kind is only added in a
//! minor release. The worker wire format carries the same type.

use serde::{Deserialize, Serialize};

/// How a property failed.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq, Hash)]
#[serde(rename_all = "kebab-case")]
pub enum FailureKind {
    /// A panic or an `Err` returned by the property (caught in-process).
    Panic,
    /// The process aborted (`SIGABRT`): `std::process::abort`, a failed
    /// allocation, a panic while panicking.
    Abort,
    /// The property's thread ran out of stack.
    StackOverflow,
    /// An invalid memory access (`SIGSEGV`, `SIGBUS`).
    Segfault,
    /// Killed by another signal.
    Crash,
    /// An execution ran longer than the per-execution timeout.
    Timeout,
    /// An execution used more memory than the memory limit allows.
    OutOfMemory,
    /// The process ended itself in the middle of an execution
    /// (`std::process::exit`), which no test can see past.
    Exit,
}

impl FailureKind {
    /// The kind in words, as reports show it (`"stack overflow"`).
    pub fn describe(self) -> &'static str {
        match self {
            FailureKind::Panic => "panic",
            FailureKind::Abort => "abort",
            FailureKind::StackOverflow => "stack overflow",
            FailureKind::Segfault => "segmentation fault",
            FailureKind::Crash => "crash",
            FailureKind::Timeout => "timeout",
            FailureKind::OutOfMemory => "out of memory",
            FailureKind::Exit => "process exit",
        }
    }
}
