//! The lanes' policy: how a property's workers split its budget and its
//! size steps, and when a lane starts another worker.

/// How many workers in a row may end before their campaign started (an
/// engine that cannot start, a corpus entry that kills every worker that
/// loads it) before the lane gives up with an error instead of restarting
/// them for the rest of the budget.
pub(super) const MAX_FRUITLESS_WORKERS: u32 = 5;

/// Whether the campaign goes on with another worker.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Step {
    Continue,
    Stop,
}

/// Where lane `lane` of `workers` starts its size steps: the first at the
/// smallest bound, the last at the full size, the others spread between.
/// One worker deepens the search step by step; several search the steps
/// side by side (a property whose bug needs a large input is found by the
/// last lane at once, one with a small bug still early by the first).
pub(super) fn size_start(lane: usize, workers: usize) -> f64 {
    if workers <= 1 {
        0.0
    } else {
        lane as f64 / (workers - 1) as f64
    }
}

/// The executions of `--runs` that lane `lane` of `workers` runs: an even
/// share, the first lanes taking one more when it does not divide.
pub(super) fn lane_share(runs: u64, workers: usize, lane: usize) -> u64 {
    let workers = workers.max(1) as u64;
    runs / workers + u64::from((lane as u64) < runs % workers)
}

/// How a worker ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Ended {
    /// It found a failure (a death is one).
    Found,
    /// It said it was done, without an error: its budget was spent, or it
    /// was stopped by a SIGTERM covcheck did not send, before it was.
    Done,
    /// With an error (reported), or without a word.
    Otherwise,
}

/// Whether another worker follows one that ended so, for what is left of
/// the lane's budget (`Campaign::next_worker` says whether anything is):
/// after a failure only with `--keep-going`, which restarts from the corpus
/// cache; after a worker that was done, always (a worker stopped from
/// outside leaves the rest of its budget to a new one); never after an
/// error.
pub(super) fn after_worker(ended: Ended, keep_going: bool) -> Step {
    match ended {
        Ended::Found if keep_going => Step::Continue,
        Ended::Done => Step::Continue,
        Ended::Found | Ended::Otherwise => Step::Stop,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lanes_share_the_runs_and_spread_over_the_size_steps() {
        let shares: Vec<u64> = (0..3).map(|lane| lane_share(10, 3, lane)).collect();
        assert_eq!(shares, [4, 3, 3]);
        assert_eq!(lane_share(10, 1, 0), 10);
        assert_eq!(size_start(0, 1), 0.0, "one worker steps from the smallest");
        let starts: Vec<f64> = (0..3).map(|lane| size_start(lane, 3)).collect();
        assert_eq!(starts, [0.0, 0.5, 1.0]);
    }

    #[test]
    fn a_campaign_goes_on_after_a_failure_only_with_keep_going() {
        assert_eq!(after_worker(Ended::Found, true), Step::Continue);
        assert_eq!(
            after_worker(Ended::Found, false),
            Step::Stop,
            "the first failure"
        );
        assert_eq!(
            after_worker(Ended::Done, false),
            Step::Continue,
            "for what is left of the budget, if anything"
        );
        assert_eq!(after_worker(Ended::Otherwise, true), Step::Stop, "an error");
    }
}
