//! The search for a failure in plain `cargo test` mode, as a library: replay
//! a seed, run a burst of random cases, shrink what fails.
//!
//! Nothing here prints, panics on a property failure or touches the file
//! system; [`crate::harness`] turns the results into a test outcome and a
//! report. Keeping it pure is what lets the shrinking results be tested
//! exactly, and lets campaigns reuse the same pieces.

use crate::config::Config;
use crate::property::{Case, PropertyFn, Status, execute};
use crate::rng::Rng;
use crate::shrink::{Shrunk, shrink};
use crate::source::Source;
use covcheck_protocol::seeds::Seed;

/// How a burst of random cases ended.
#[derive(Debug)]
pub enum BurstOutcome {
    /// Every generated case passed.
    Passed,
    /// Case number `case_number` (1-based) failed.
    Failed { case: Case, case_number: usize },
    /// Generation rejected so many cases that the property was barely tested.
    TooManyRejected {
        passed: usize,
        rejected: usize,
        last_reason: String,
    },
}

/// Runs one property under a [`Config`].
pub struct Runner<'a, 'p> {
    property: &'a PropertyFn<'p>,
    config: Config,
}

impl<'a, 'p> Runner<'a, 'p> {
    pub fn new(property: &'a PropertyFn<'p>, config: Config) -> Self {
        Runner { property, config }
    }

    pub fn config(&self) -> &Config {
        &self.config
    }

    /// Replays a saved seed, under at least the size limit it was found
    /// under.
    pub fn replay_seed(&self, seed: &Seed) -> Case {
        execute(
            self.property,
            Source::replay(seed.indices.clone(), self.config.limits.for_seed(seed)),
            true,
        )
    }

    /// Runs `config.cases` random cases from RNG seed `seed`, stopping at the
    /// first failure. Rejected cases do not count towards the total; after ten
    /// times as many rejections as cases, the burst ends as
    /// [`BurstOutcome::TooManyRejected`] if fewer than a tenth passed.
    pub fn burst(&self, seed: u64) -> BurstOutcome {
        let mut rng = Rng::new(seed);
        let (mut passed, mut rejected) = (0, 0);
        let max_rejected = self.config.cases.saturating_mul(10).max(100);
        while passed < self.config.cases {
            let case = execute(
                self.property,
                Source::random(rng.next_u64(), self.config.limits),
                false,
            );
            match case.status {
                Status::Passed => passed += 1,
                Status::Rejected(last_reason) => {
                    rejected += 1;
                    if rejected >= max_rejected {
                        if passed * 10 < self.config.cases {
                            return BurstOutcome::TooManyRejected {
                                passed,
                                rejected,
                                last_reason,
                            };
                        }
                        break;
                    }
                }
                Status::Failed(_) => {
                    return BurstOutcome::Failed {
                        case,
                        case_number: passed + rejected + 1,
                    };
                }
            }
        }
        BurstOutcome::Passed
    }

    /// Shrinks a failing case within the configured budget.
    pub fn shrink(&self, failing: Case) -> Shrunk {
        shrink(
            self.property,
            self.config.limits,
            failing,
            self.config.shrink,
        )
    }

    /// Burst then shrink: the minimal failing case found from `seed`, if any.
    /// A convenience for tests that want the result, not a report.
    #[cfg(test)]
    pub fn find_minimal_failure(&self, seed: u64) -> Option<Shrunk> {
        match self.burst(seed) {
            BurstOutcome::Failed { case, .. } => Some(self.shrink(case)),
            _ => None,
        }
    }
}
