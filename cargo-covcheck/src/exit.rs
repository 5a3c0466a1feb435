//! The exit status of `cargo covcheck`: one code per way a command ends,
//! the same ones that `--help` and the book's "Output and exit status" list.

/// Every property ran (every seed replayed) and nothing failed.
pub const PASSED: i32 = 0;
/// A property failed: a finding, a failing seed.
pub const FAILED: i32 = 1;
/// A usage or build error: a bad flag, a crate that does not build, a bad
/// manifest (clap's own code for a bad command line); also every command on
/// a host other than Linux ([`crate::platform`]).
pub const USAGE: i32 = 2;
/// covcheck's own error: a worker that could not run or answered with an
/// error, a test binary whose listing or events covcheck cannot read.
pub const INTERNAL: i32 = 3;
/// No property matched, so nothing was tested (the code cargo-nextest uses
/// for "no tests to run").
pub const NOTHING_TESTED: i32 = 4;
/// Interrupted by signal N: 128 + N, as a shell reports it.
pub const SIGNALLED: i32 = 128;

/// How a command that ran to its end went.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    Passed,
    Failed,
    /// covcheck could not do all of its work (the messages say what).
    InternalError,
    NothingTested,
    /// Cut short by this signal.
    Interrupted(i32),
}

impl Outcome {
    /// The outcome of a command in which some property `failed` and some
    /// work hit `errors` of covcheck's own. A failure is what the user must
    /// see first, so it wins.
    pub fn of(failed: bool, errors: bool) -> Outcome {
        match (failed, errors) {
            (true, _) => Outcome::Failed,
            (false, true) => Outcome::InternalError,
            (false, false) => Outcome::Passed,
        }
    }

    /// The worse of two outcomes, in the order [`Outcome::of`] gives them.
    pub fn worst(self, other: Outcome) -> Outcome {
        let rank = |o: Outcome| match o {
            Outcome::Passed => 0,
            Outcome::NothingTested => 1,
            Outcome::InternalError => 2,
            Outcome::Failed => 3,
            Outcome::Interrupted(_) => 4,
        };
        if rank(other) > rank(self) {
            other
        } else {
            self
        }
    }

    pub fn code(self) -> i32 {
        match self {
            Outcome::Passed => PASSED,
            Outcome::Failed => FAILED,
            Outcome::InternalError => INTERNAL,
            Outcome::NothingTested => NOTHING_TESTED,
            Outcome::Interrupted(signal) => SIGNALLED + signal,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failure_wins_over_an_error_of_covchecks_own() {
        assert_eq!(Outcome::of(true, true).code(), FAILED);
        assert_eq!(Outcome::of(false, true).code(), INTERNAL);
        assert_eq!(Outcome::of(false, false).code(), PASSED);
        assert_eq!(
            Outcome::InternalError.worst(Outcome::Failed),
            Outcome::Failed
        );
        assert_eq!(Outcome::Failed.worst(Outcome::Passed), Outcome::Failed);
        assert_eq!(Outcome::Interrupted(libc::SIGINT).code(), 130);
        assert_eq!(Outcome::Interrupted(libc::SIGTERM).code(), 143);
    }
}
