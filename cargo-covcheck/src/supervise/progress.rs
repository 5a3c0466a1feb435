//! The progress of a property's campaign, lane by lane: each lane's
//! finished workers' totals and its running worker's last status, summed
//! with [`Progress::merge`] into the campaign's.

use covcheck_protocol::worker::Progress;

/// Each lane's progress.
#[derive(Debug, Default)]
pub struct LaneProgresses {
    lanes: Vec<LaneProgress>,
}

#[derive(Clone, Debug, Default)]
struct LaneProgress {
    /// The totals of the lane's finished workers.
    finished: Progress,
    /// The last status of its running worker.
    current: Progress,
}

impl LaneProgress {
    /// The lane's status: its running worker's, counted on top of its
    /// finished workers'.
    fn combined(&self) -> Progress {
        self.finished.merge(&self.current)
    }
}

impl LaneProgresses {
    pub fn new(lanes: usize) -> LaneProgresses {
        LaneProgresses {
            lanes: vec![LaneProgress::default(); lanes],
        }
    }

    /// The campaign's status from its lanes'.
    pub fn all(&self) -> Progress {
        (self.lanes.iter())
            .map(LaneProgress::combined)
            .fold(Progress::default(), |all, lane| all.merge(&lane))
    }

    /// The executions of lane `lane`'s finished workers.
    pub fn finished_execs(&self, lane: usize) -> u64 {
        self.lanes[lane].finished.execs
    }

    /// The campaign's executions before lane `lane`'s running worker's
    /// own: its finished workers', and every other lane's so far.
    pub fn execs_before(&self, lane: usize) -> u64 {
        let others = (self.lanes.iter().enumerate())
            .filter(|(n, _)| *n != lane)
            .map(|(_, l)| l.combined().execs);
        self.lanes[lane].finished.execs + others.sum::<u64>()
    }

    /// Lane `lane`'s running worker said `progress`; the campaign's status.
    pub fn update(&mut self, lane: usize, progress: &Progress) -> Progress {
        self.lanes[lane].current = progress.clone();
        self.all()
    }

    /// Lane `lane`'s worker ended, its last status `last`.
    pub fn worker_ended(&mut self, lane: usize, last: &Progress) {
        let lane = &mut self.lanes[lane];
        lane.current = last.clone();
        lane.finished = lane.combined();
        lane.current = Progress::default();
    }
}
