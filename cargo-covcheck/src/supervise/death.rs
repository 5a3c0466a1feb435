//! Names what killed a worker: the failure kind and a line about it, from
//! its exit status, its log and what the watchdog saw.

use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::ExitStatus;

use covcheck_protocol::worker::{EXIT_TIMEOUT, FailureKind};

use super::Settings;
use super::watchdog::{SILENCE_LIMIT, Watched};

/// A worker that died, and the input it was running.
#[derive(Clone, Debug)]
pub struct Death {
    pub kind: FailureKind,
    pub detail: String,
    pub choices: Vec<u64>,
    /// Killed by a signal that comes from outside a program (SIGKILL,
    /// SIGTERM, SIGHUP, SIGINT, SIGQUIT) that covcheck did not send: the
    /// kernel's OOM killer, a person, a CI runner. Its input is to blame
    /// only if it kills a worker again.
    pub from_outside: bool,
}

/// Names what killed a worker from its exit status. LibAFL's handlers exit
/// with 128 + the signal after a crash and with [`EXIT_TIMEOUT`] after a hang.
pub fn classify_death(
    status: Option<ExitStatus>,
    watched: Watched,
    settings: &Settings,
    log: &Path,
) -> Option<Death> {
    let (kind, detail) = if watched.out_of_memory {
        (
            FailureKind::OutOfMemory,
            format!("used more than {} MiB of memory", settings.rss_limit_mb),
        )
    } else if watched.silent {
        (
            FailureKind::Timeout,
            format!("the worker hung for {} s", SILENCE_LIMIT.as_secs()),
        )
    } else {
        from_status(status?, settings, log)?
    };
    let signal = status.and_then(|s| s.signal());
    let from_outside = !watched.out_of_memory
        && !watched.silent
        && matches!(
            signal,
            Some(libc::SIGKILL | libc::SIGTERM | libc::SIGHUP | libc::SIGINT | libc::SIGQUIT)
        );
    Some(Death {
        kind,
        detail,
        choices: Vec::new(),
        from_outside,
    })
}

/// The kind and detail of a death the exit status (and the log) explain.
fn from_status(
    status: ExitStatus,
    settings: &Settings,
    log: &Path,
) -> Option<(FailureKind, String)> {
    let log_text = std::fs::read_to_string(log).unwrap_or_default();
    let signal = status
        .signal()
        .or_else(|| status.code().filter(|c| *c > 128).map(|c| c - 128));
    Some(match (status.code(), signal) {
        (Some(EXIT_TIMEOUT), _) => (
            FailureKind::Timeout,
            format!("ran longer than {} ms", settings.timeout.as_millis()),
        ),
        _ if log_text.contains("memory allocation of") => {
            (FailureKind::OutOfMemory, "allocation failed".to_string())
        }
        // Rust's runtime says so before it aborts.
        _ if log_text.contains("has overflowed its stack") => (
            FailureKind::StackOverflow,
            "overflowed its stack".to_string(),
        ),
        (_, Some(libc::SIGABRT)) => (FailureKind::Abort, "aborted (SIGABRT)".to_string()),
        (_, Some(libc::SIGSEGV | libc::SIGBUS)) => (
            FailureKind::Segfault,
            format!("killed by signal {}", signal?),
        ),
        (_, Some(sig)) => (FailureKind::Crash, format!("killed by signal {sig}")),
        (Some(code), None) => (
            FailureKind::Exit,
            format!(
                "the process exited with status {code} in the middle of an execution \
                 (std::process::exit in the property or code it calls)"
            ),
        ),
        (None, None) => return None,
    })
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;
    use std::time::Duration;

    use super::*;

    fn settings() -> Settings {
        Settings {
            timeout: Duration::from_millis(250),
            rss_limit_mb: 100,
            ..Settings::for_tools(PathBuf::new())
        }
    }

    fn kind(status: ExitStatus, log: &str) -> FailureKind {
        let dir = std::env::temp_dir().join(format!("covcheck-classify-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("campaign.log");
        std::fs::write(&path, log).unwrap();
        classify_death(Some(status), Watched::default(), &settings(), &path)
            .expect("a death")
            .kind
    }

    #[test]
    fn deaths_are_named_from_libafl_exit_codes_signals_and_the_log() {
        assert_eq!(
            kind(ExitStatus::from_raw(EXIT_TIMEOUT << 8), ""),
            FailureKind::Timeout
        );
        assert_eq!(
            kind(ExitStatus::from_raw((128 + 6) << 8), ""),
            FailureKind::Abort
        );
        assert_eq!(
            kind(ExitStatus::from_raw((128 + 11) << 8), ""),
            FailureKind::Segfault
        );
        assert_eq!(
            kind(ExitStatus::from_raw(libc::SIGABRT), ""),
            FailureKind::Abort
        );
        // Rust's runtime aborts after a stack overflow, saying so first.
        assert_eq!(
            kind(
                ExitStatus::from_raw(libc::SIGABRT),
                "\nthread 'main' has overflowed its stack\nfatal runtime error: stack overflow"
            ),
            FailureKind::StackOverflow
        );
        assert_eq!(
            kind(ExitStatus::from_raw(0), ""),
            FailureKind::Exit,
            "a worker that exits 0 before it is done"
        );
        assert_eq!(
            kind(
                ExitStatus::from_raw((128 + 6) << 8),
                "memory allocation of 1099511627776 bytes failed"
            ),
            FailureKind::OutOfMemory
        );
        let log = Path::new("/nonexistent");
        let oom = Watched {
            out_of_memory: true,
            silent: false,
        };
        let oom = classify_death(None, oom, &settings(), log).unwrap();
        assert_eq!(oom.kind, FailureKind::OutOfMemory);
        let silent = Watched {
            out_of_memory: false,
            silent: true,
        };
        let hang = classify_death(None, silent, &settings(), log).unwrap();
        assert_eq!(hang.kind, FailureKind::Timeout);
    }
}
