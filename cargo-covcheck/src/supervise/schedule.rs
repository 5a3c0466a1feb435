//! One budget for a whole run (`--time-total`, `--runs-total`), shared
//! among the properties a slice at a time.
//!
//! A suite's properties are not alike: most converge in seconds, a few
//! keep finding new coverage for minutes, and one that found its bug has
//! nothing left to do. An even split gives each the same time whatever it
//! does with it. Here every property's campaign waits for a worker slot,
//! runs one slice (a worker process that resumes from the corpus cache and
//! the size step where the last one stopped), and gives the slot back with
//! what the slice brought (new corpus entries per second); the next free
//! slot goes to:
//!
//! 1. a property that has not run yet (those whose corpus reaches changed
//!    code, with `--since`, first);
//! 2. otherwise the property that has had the least time for its weight
//!    (weighted fair queueing, [`Standing::weight`]): 1 to 2 while its
//!    slices find new coverage (more for more per second), 1/2 after a
//!    slice that found nothing, 1/4 after three, and four times that when
//!    its corpus reaches changed code.
//!
//! The weights are bounded on purpose: a corpus that stopped growing may
//! still hide the bug (a magic value, an overflow past a bound), so a
//! property that finds nothing keeps at least an eighth of what the most
//! productive one gets, never starving. Most of what the schedule gains
//! comes from the properties that are out: one whose campaign ended (its
//! bug found, an error) gives its share to the others. The decisions are
//! [`pick`], a pure function of the standings; [`Schedule`] holds them for
//! the lanes.

use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use crate::interrupt;

/// How much more a property whose corpus reaches changed code (`--since`)
/// weighs.
pub const FOCUS_WEIGHT: f64 = 4.0;
/// The weight of a property after one dry slice (no new coverage), and
/// after [`DRY_LONG`] in a row.
const DRY_WEIGHT: f64 = 0.5;
const DRY_LONG: u32 = 3;
const LONG_DRY_WEIGHT: f64 = 0.25;
/// The yield of the last slice weighs this much against the earlier ones.
const RECENT_WEIGHT: f64 = 0.5;
/// Slices are no shorter than this (a worker takes a moment to start and
/// to load its corpus) and no longer (the scheduler must get to decide).
const MIN_SLICE: Duration = Duration::from_secs(1);
const MAX_SLICE: Duration = Duration::from_secs(30);
/// Execution slices of `--runs-total`, likewise bounded.
const MIN_SLICE_RUNS: u64 = 2_000;
const MAX_SLICE_RUNS: u64 = 2_000_000;
/// Each property gets about this many slices of an even share.
const SLICES_PER_SHARE: u32 = 3;

/// The run's budget.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Total {
    Time(Duration),
    Runs(u64),
}

/// The budget of one slice.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Slice {
    Time(Duration),
    Runs(u64),
}

/// What one slice brought.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SliceResult {
    /// How long its worker ran.
    pub busy: Duration,
    pub execs: u64,
    /// Corpus entries it added (new coverage, new `target()` bests).
    pub new_entries: u64,
    /// Its corpus reaches code a change touched (`--since`).
    pub reaches_change: bool,
}

/// Where one property stands.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Standing {
    /// Its campaign waits for a slot.
    pub waiting: bool,
    /// It holds a slot now.
    pub running: bool,
    /// Its campaign ended: it gets no more slots.
    pub done: bool,
    pub slices: u32,
    pub busy: Duration,
    pub execs: u64,
    /// What it has had of the budget: seconds of a time budget, thousands
    /// of executions of an execution budget.
    pub spent: f64,
    /// New corpus entries per second (per thousand executions of an
    /// execution budget), recent slices weighing most.
    pub yield_rate: f64,
    /// Slices in a row, up to the last, that found nothing new.
    pub dry_slices: u32,
    /// Its corpus reaches changed code.
    pub reaches_change: bool,
    /// When (from the run's start) a slice of it last found something new.
    pub last_new: Option<Duration>,
}

impl Standing {
    /// Its share of the budget relative to the others' (see the module's
    /// documentation).
    pub fn weight(&self) -> f64 {
        let activity = match self.dry_slices {
            0 => 1.0 + self.yield_rate.ln_1p().min(1.0),
            n if n < DRY_LONG => DRY_WEIGHT,
            _ => LONG_DRY_WEIGHT,
        };
        activity
            * if self.reaches_change {
                FOCUS_WEIGHT
            } else {
                1.0
            }
    }
}

/// Which waiting property gets the next slot; `None` when none waits.
pub fn pick(standings: &[Standing]) -> Option<usize> {
    let waiting =
        || (standings.iter().enumerate()).filter(|(_, s)| s.waiting && !s.running && !s.done);
    let never_ran = waiting()
        .filter(|(_, s)| s.slices == 0)
        .min_by_key(|(n, s)| (!s.reaches_change, *n));
    if let Some((n, _)) = never_ran {
        return Some(n);
    }
    waiting()
        .min_by(|(a, sa), (b, sb)| {
            (sa.spent / sa.weight())
                .total_cmp(&(sb.spent / sb.weight()))
                .then(a.cmp(b))
        })
        .map(|(n, _)| n)
}

/// The budget of each slice, from the run's budget, the properties and the
/// slots: about a third of an even share, within bounds.
pub fn slice_of(total: Total, properties: usize, slots: usize) -> Slice {
    let rounds = (properties.max(1) as u32).div_ceil(slots.max(1) as u32);
    let shares = rounds * SLICES_PER_SHARE;
    // A budget too small for the bounds gives each property one even
    // share at least, rather than all of it to the first ones.
    match total {
        Total::Time(time) => {
            let floor = MIN_SLICE.min(time / rounds);
            Slice::Time((time / shares).clamp(floor, MAX_SLICE.max(floor)))
        }
        Total::Runs(runs) => {
            let floor = MIN_SLICE_RUNS.min(runs / u64::from(rounds)).max(1);
            Slice::Runs((runs / u64::from(shares)).clamp(floor, MAX_SLICE_RUNS.max(floor)))
        }
    }
}

/// The shared budget of a run and the properties' standings.
pub struct Schedule {
    total: Total,
    slice: Slice,
    started: Instant,
    state: Mutex<State>,
    changed: Condvar,
}

#[derive(Debug)]
struct State {
    standings: Vec<Standing>,
    /// Slots free now.
    free: usize,
    /// Executions given out in slices (`--runs-total`).
    runs_granted: u64,
    /// The property each pick chose and that has not taken its slot yet.
    granted: Vec<bool>,
    /// The executions of each property's running slice (`--runs-total`).
    in_slice: Vec<u64>,
    /// Each property asked for its first slot (or ended): slots are
    /// handed out only once all have, so that the first pick does not go
    /// to whichever campaign's thread happened to start first.
    arrived: Vec<bool>,
}

impl Schedule {
    /// A schedule of `total` for `properties` on `slots` workers, the
    /// properties whose corpus reaches changed code marked in
    /// `reaches_change` (empty without `--since`).
    pub fn new(total: Total, properties: usize, slots: usize, reaches_change: &[bool]) -> Schedule {
        let standings = (0..properties)
            .map(|n| Standing {
                reaches_change: reaches_change.get(n).copied().unwrap_or(false),
                ..Standing::default()
            })
            .collect();
        Schedule {
            total,
            slice: slice_of(total, properties, slots),
            started: Instant::now(),
            state: Mutex::new(State {
                standings,
                free: slots.max(1),
                runs_granted: 0,
                granted: vec![false; properties],
                in_slice: vec![0; properties],
                arrived: vec![false; properties],
            }),
            changed: Condvar::new(),
        }
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().expect("no panics while held")
    }

    /// Waits until property `index` gets a slot, and returns its slice;
    /// `None` when the budget is spent or the run interrupted (the
    /// property's campaign then ends).
    pub fn acquire(&self, index: usize) -> Option<Slice> {
        let mut state = self.state();
        state.standings[index].waiting = true;
        state.arrived[index] = true;
        loop {
            if interrupt::interrupted().is_some() || self.spent(&state) {
                state.standings[index].waiting = false;
                state.standings[index].done = true;
                self.changed.notify_all();
                return None;
            }
            self.hand_out(&mut state);
            if state.granted[index] {
                state.granted[index] = false;
                let slice = self.slice_now(&mut state, index);
                let standing = &mut state.standings[index];
                standing.waiting = false;
                standing.running = true;
                return Some(slice);
            }
            state = (self.changed)
                .wait_timeout(state, Duration::from_millis(200))
                .expect("no panics while held")
                .0;
        }
    }

    /// Property `index` gives its slot back after a slice that brought
    /// `result`.
    pub fn release(&self, index: usize, result: SliceResult) {
        let now = self.started.elapsed();
        let mut state = self.state();
        state.free += 1;
        // What a slice of executions did not run goes back to the budget.
        let granted = std::mem::take(&mut state.in_slice[index]);
        if granted > 0 {
            state.runs_granted =
                state.runs_granted.saturating_sub(granted) + result.execs.min(granted);
        }
        let standing = &mut state.standings[index];
        standing.running = false;
        // It asks again at once unless its campaign ends ([`Schedule::finish`]):
        // the slot it frees may go to it again.
        standing.waiting = true;
        standing.slices += 1;
        standing.busy += result.busy;
        standing.execs += result.execs;
        standing.spent += match self.total {
            Total::Time(_) => result.busy.as_secs_f64(),
            Total::Runs(_) => result.execs as f64 / 1000.0,
        };
        standing.dry_slices = if result.new_entries > 0 {
            0
        } else {
            standing.dry_slices + 1
        };
        standing.reaches_change |= result.reaches_change;
        // Per second of a time budget; per thousand executions of an
        // execution budget, so that its schedule does not depend on the
        // machine's speed.
        let rate = match self.total {
            Total::Time(_) => result.new_entries as f64 / result.busy.as_secs_f64().max(0.001),
            Total::Runs(_) => result.new_entries as f64 * 1000.0 / result.execs.max(1) as f64,
        };
        standing.yield_rate = if standing.slices == 1 {
            rate
        } else {
            RECENT_WEIGHT * rate + (1.0 - RECENT_WEIGHT) * standing.yield_rate
        };
        if result.new_entries > 0 {
            standing.last_new = Some(now);
        }
        self.changed.notify_all();
    }

    /// Property `index`'s campaign ended: it takes no more slots.
    pub fn finish(&self, index: usize) {
        let mut state = self.state();
        state.arrived[index] = true;
        if std::mem::take(&mut state.granted[index]) {
            // Picked as it ended: the slot goes to another.
            state.free += 1;
        }
        let standing = &mut state.standings[index];
        standing.done = true;
        standing.waiting = false;
        self.changed.notify_all();
    }

    /// Property `index`'s standing now.
    pub fn standing(&self, index: usize) -> Standing {
        self.state().standings[index].clone()
    }

    /// Whether the run's budget is spent.
    fn spent(&self, state: &State) -> bool {
        match self.total {
            Total::Time(time) => self.started.elapsed() >= time,
            Total::Runs(runs) => state.runs_granted >= runs,
        }
    }

    /// Gives the free slots to the properties [`pick`] chooses.
    fn hand_out(&self, state: &mut State) {
        if !state.arrived.iter().all(|a| *a) {
            return;
        }
        while state.free > 0 {
            let candidates: Vec<Standing> = (state.standings.iter().zip(&state.granted))
                .map(|(s, granted)| Standing {
                    waiting: s.waiting && !granted,
                    ..s.clone()
                })
                .collect();
            let Some(chosen) = pick(&candidates) else {
                return;
            };
            state.free -= 1;
            state.granted[chosen] = true;
        }
    }

    /// The slice a property starts now: the usual one, or what is left of
    /// the budget.
    fn slice_now(&self, state: &mut State, index: usize) -> Slice {
        match (self.slice, self.total) {
            (Slice::Time(slice), Total::Time(total)) => {
                Slice::Time(slice.min(total.saturating_sub(self.started.elapsed())))
            }
            (Slice::Runs(slice), Total::Runs(total)) => {
                let runs = slice.min(total.saturating_sub(state.runs_granted));
                state.runs_granted += runs;
                state.in_slice[index] = runs;
                Slice::Runs(runs)
            }
            (slice, _) => slice,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn standing(slices: u32, spent: f64, dry_slices: u32) -> Standing {
        Standing {
            waiting: true,
            slices,
            spent,
            yield_rate: 2.0,
            dry_slices,
            ..Standing::default()
        }
    }

    #[test]
    fn properties_that_never_ran_go_first_those_reaching_changed_code_before() {
        let mut all = vec![
            standing(1, 0.5, 0),
            standing(0, 0.0, 0),
            standing(0, 0.0, 0),
        ];
        assert_eq!(pick(&all), Some(1));
        all[2].reaches_change = true;
        assert_eq!(pick(&all), Some(2));
    }

    #[test]
    fn the_least_served_for_its_weight_goes_next() {
        // Equal weights: the one that had least.
        let all = vec![standing(3, 6.0, 0), standing(3, 4.0, 0)];
        assert_eq!(pick(&all), Some(1));
        // Dry for a slice: half the weight, so 4 s count as 8.
        let all = vec![standing(3, 6.0, 0), standing(3, 4.0, 1)];
        assert_eq!(pick(&all), Some(0));
        // Dry for long: a quarter, against a productive one's 2; still
        // picked once that one had eight times as much (none starves).
        let all = vec![standing(3, 33.0, 0), standing(3, 4.0, 5)];
        assert_eq!(pick(&all), Some(1));
        // Reaching changed code weighs four times.
        let mut all = vec![standing(3, 4.0, 0), standing(3, 12.0, 0)];
        all[1].reaches_change = true;
        assert_eq!(pick(&all), Some(1));
    }

    #[test]
    fn weights_are_bounded_so_none_starves() {
        let busy = Standing {
            yield_rate: 1e9,
            ..standing(1, 0.0, 0)
        };
        assert_eq!(busy.weight(), 2.0);
        assert_eq!(standing(1, 0.0, 1).weight(), 0.5);
        assert_eq!(standing(1, 0.0, DRY_LONG).weight(), 0.25);
    }

    #[test]
    fn running_done_and_absent_properties_are_not_picked() {
        let mut all = vec![standing(1, 0.0, 0), standing(1, 5.0, 0)];
        all[0].running = true;
        assert_eq!(pick(&all), Some(1));
        all[1].done = true;
        assert_eq!(pick(&all), None);
        assert_eq!(pick(&[]), None);
    }

    #[test]
    fn slices_are_a_third_of_an_even_share_within_bounds() {
        let minute = Total::Time(Duration::from_secs(60));
        assert_eq!(slice_of(minute, 2, 2), Slice::Time(Duration::from_secs(20)));
        assert_eq!(slice_of(minute, 20, 2), Slice::Time(Duration::from_secs(2)));
        assert_eq!(
            slice_of(minute, 40, 2),
            Slice::Time(MIN_SLICE),
            "60/60 s is 1 s"
        );
        assert_eq!(
            slice_of(Total::Time(Duration::from_secs(3600)), 1, 1),
            Slice::Time(MAX_SLICE)
        );
        assert_eq!(slice_of(Total::Runs(600_000), 20, 2), Slice::Runs(20_000));
        assert_eq!(
            slice_of(Total::Runs(1_000), 2, 1),
            Slice::Runs(500),
            "a small budget: an even share each"
        );
    }

    #[test]
    fn an_execution_budget_is_handed_out_once_and_unused_runs_come_back() {
        let schedule = Schedule::new(Total::Runs(50_000), 2, 1, &[]);
        let spent = |result: SliceResult| result.execs;
        let (early, late) = std::thread::scope(|scope| {
            // Property 0 finds its bug early in its first slice: what it
            // did not run goes back to the budget.
            let early = scope.spawn(|| {
                let slice = schedule.acquire(0);
                let result = SliceResult {
                    execs: 100,
                    new_entries: 3,
                    busy: Duration::from_secs(1),
                    reaches_change: false,
                };
                schedule.release(0, result);
                schedule.finish(0);
                (slice, spent(result))
            });
            let late = scope.spawn(|| {
                let mut ran = 0;
                while let Some(Slice::Runs(runs)) = schedule.acquire(1) {
                    ran += runs;
                    let result = SliceResult {
                        execs: runs,
                        ..SliceResult::default()
                    };
                    schedule.release(1, result);
                }
                ran
            });
            (early.join().unwrap(), late.join().unwrap())
        });
        assert_eq!(early.0, Some(Slice::Runs(50_000 / 6)));
        assert_eq!(early.1 + late, 50_000, "every execution given out, once");
        assert!(schedule.standing(1).done && schedule.standing(0).done);
    }
}
