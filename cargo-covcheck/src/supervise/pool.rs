//! The one worker pool of `cargo covcheck`: campaigns, `minimize` and
//! `replay` all run their properties through [`in_parallel`], a few at a
//! time, and see the events of the running ones in one place.

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{self, Sender};

/// The number of workers to run at once when `-j` is not given.
pub fn default_jobs() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// The most workers `-j` starts per core: past a few per core they only
/// take turns, each holding its memory and its share of the corpus.
pub const MAX_JOBS_PER_CORE: usize = 4;
/// The most workers one run can stop on Ctrl-C ([`crate::interrupt`]'s table).
const MAX_JOBS: usize = 1024;

/// The workers to start for `-j requested`: at most [`MAX_JOBS_PER_CORE`]
/// per core, with a line saying so when that is fewer than asked.
pub fn capped_jobs(requested: Option<usize>) -> (usize, Option<String>) {
    let cores = default_jobs();
    let cap = (cores * MAX_JOBS_PER_CORE).min(MAX_JOBS);
    match requested {
        None => (cores, None),
        Some(asked) if asked > cap => (
            cap,
            Some(format!(
                "-j {asked} is more than {MAX_JOBS_PER_CORE} workers per core on this \
                 machine's {cores} core(s): running {cap}"
            )),
        ),
        Some(asked) => (asked, None),
    }
}

/// How many of `items` to run at once: `requested` (default: the number of
/// cores), at least one and no more than there are items.
pub fn jobs(requested: Option<usize>, items: usize) -> usize {
    requested
        .unwrap_or_else(default_jobs)
        .clamp(1, items.max(1))
}

/// How many workers each of `items` properties runs on when `jobs` workers
/// run in all: one each when there are at least as many properties as
/// workers; else the workers spread evenly, the first properties taking
/// one more when they do not divide.
pub fn workers_per_item(jobs: usize, items: usize) -> Vec<usize> {
    let jobs = jobs.max(1);
    if items >= jobs {
        return vec![1; items];
    }
    (0..items)
        .map(|i| jobs / items + usize::from(i < jobs % items))
        .collect()
}

/// Runs `work` on every item (with its index), `jobs` at a time, and
/// returns the results in the items' order. What `work` sends reaches
/// `on_event` on the calling thread as it comes, so that a reporter sees
/// every running item's events live, one at a time.
pub fn in_parallel<'i, T: Sync, R: Send, E: Send>(
    jobs: usize,
    items: &'i [T],
    work: impl Fn(usize, &'i T, &Sender<E>) -> R + Sync,
    mut on_event: impl FnMut(E),
) -> Vec<R> {
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<R>>> = Mutex::new(items.iter().map(|_| None).collect());
    let (tx, rx) = mpsc::channel();
    std::thread::scope(|scope| {
        for _ in 0..jobs.clamp(1, items.len().max(1)) {
            let (tx, next, results, work) = (tx.clone(), &next, &results, &work);
            scope.spawn(move || {
                loop {
                    let index = next.fetch_add(1, Ordering::SeqCst);
                    let Some(item) = items.get(index) else {
                        break;
                    };
                    let result = work(index, item, &tx);
                    results.lock().expect("no worker thread panics")[index] = Some(result);
                }
            });
        }
        drop(tx);
        for event in rx {
            on_event(event);
        }
    });
    results
        .into_inner()
        .expect("no worker thread panics")
        .into_iter()
        .map(|r| r.expect("every item ran"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn more_jobs_than_a_few_per_core_are_capped_with_a_warning() {
        let cores = default_jobs();
        assert_eq!(capped_jobs(None), (cores, None));
        assert_eq!(capped_jobs(Some(3)).0, 3.min(cores * MAX_JOBS_PER_CORE));
        let (used, warning) = capped_jobs(Some(100_000));
        assert_eq!(used, (cores * MAX_JOBS_PER_CORE).min(1024));
        assert!(warning.is_some_and(|w| w.starts_with("-j 100000 is more than")));
    }

    #[test]
    fn workers_left_over_go_to_the_selected_properties() {
        assert_eq!(workers_per_item(16, 1), [16]);
        assert_eq!(workers_per_item(2, 1), [2]);
        assert_eq!(workers_per_item(5, 2), [3, 2]);
        assert_eq!(
            workers_per_item(2, 3),
            [1, 1, 1],
            "more properties than workers"
        );
        assert_eq!(workers_per_item(4, 0), [0usize; 0]);
    }

    #[test]
    fn results_keep_the_items_order_and_every_event_arrives() {
        let items: Vec<u32> = (0..20).collect();
        let mut events = Vec::new();
        let results = in_parallel(
            3,
            &items,
            |index, item, tx| {
                let _ = tx.send(index);
                item * 2
            },
            |index| events.push(index),
        );
        assert_eq!(results, items.iter().map(|i| i * 2).collect::<Vec<_>>());
        events.sort();
        assert_eq!(events, (0..20).collect::<Vec<_>>());
        assert!(in_parallel(2, &[] as &[u32], |_, _, _: &Sender<()>| 0, |_| {}).is_empty());
    }
}
