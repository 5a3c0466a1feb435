use super::*;

/// An 8-aligned map of `len` counters, with `skip` counters before it in
/// the same storage (so that `skip` not a multiple of 8 makes a head).
fn map_in(storage: &mut [u64], skip: usize, len: usize) -> &mut [u8] {
    // SAFETY: the bytes of `storage`, which outlives the map.
    let bytes = unsafe {
        std::slice::from_raw_parts_mut(storage.as_mut_ptr().cast::<u8>(), storage.len() * 8)
    };
    &mut bytes[skip..skip + len]
}

/// Executions that reach nothing, until the sweeps have spread out so that
/// the next execution is not swept after.
fn settle(novelty: &mut Novelty, map: &mut [u8]) {
    while novelty.blocks.since_sweep + 1 >= novelty.blocks.interval {
        novelty.observe(map);
        novelty.clear(map, false);
    }
}

#[test]
fn novelty_reports_new_counters_and_leaves_the_counts_as_they_are() {
    let mut storage = vec![0u64; 40];
    let counters = map_in(&mut storage, 0, 279);
    // Every count once, then zero words, then two more counters.
    for (at, count) in (0..=255u8).enumerate() {
        counters[at] = count;
    }
    counters[277] = 3;
    counters[278] = 200;
    let before = counters.to_vec();
    let mut novelty = Novelty::default();
    assert!(novelty.observe(counters).new);
    assert_eq!(counters, &before[..]);
}

/// Every count against every count a corpus entry reached before: new
/// exactly when its bucket is higher.
#[test]
fn a_count_is_new_exactly_when_its_bucket_is_above_the_corpus() {
    let mut storage = vec![0u64; 40];
    let map = map_in(&mut storage, 0, 300);
    for committed in 1..=255u8 {
        let mut novelty = Novelty::default();
        map[70] = committed;
        assert!(novelty.observe(map).new);
        novelty.commit(map);
        novelty.clear(map, false);
        for count in 1..=255u8 {
            map[70] = count;
            let new = novelty.observe(map).new;
            novelty.clear(map, false);
            let higher = bucket(count) > bucket(committed);
            assert_eq!(new, higher, "{count} after {committed}");
        }
    }
}

#[test]
fn only_a_higher_bucket_than_the_corpus_reached_is_new() {
    let mut storage = vec![0u64; 40];
    let map = map_in(&mut storage, 0, 300);
    let mut novelty = Novelty::default();
    // Every run enters the corpus here, as a new input would.
    let mut run = |at: usize, count: u8| {
        map[at] = count;
        let new = novelty.observe(map).new;
        novelty.commit(map);
        novelty.clear(map, false);
        new
    };
    assert!(run(100, 5), "a new edge");
    assert!(!run(100, 6), "the same bucket");
    assert!(!run(100, 1), "a lower bucket");
    assert!(run(100, 9), "a higher one");
    assert!(!run(100, 8));
    assert!(run(290, 1), "a counter past the last whole block");
    map[100] = 5;
    assert!(!novelty.observe(map).new);
    let mut novelty = Novelty::default();
    map[100] = 5;
    assert!(novelty.observe(map).new);
    assert!(novelty.observe(map).new, "not recorded until committed");
}

#[test]
fn a_dead_block_is_judged_with_the_execution_that_reached_it_or_run_again() {
    let mut storage = vec![0u64; 64];
    let map = map_in(&mut storage, 0, 512);
    let mut novelty = Novelty::default();
    // The first execution to reach block 2, swept right after it.
    map[130] = 1;
    let first = novelty.observe(map);
    assert_eq!((first.new, first.sweep), (true, Sweep::Clean));
    novelty.commit(map);
    novelty.clear(map, false);
    // Block 2 is live from now on, and read after every execution.
    settle(&mut novelty, map);
    map[131] = 1;
    assert!(novelty.observe(map).new);
    novelty.clear(map, false);
    // Block 5 reached between sweeps: not judged yet...
    settle(&mut novelty, map);
    map[330] = 1;
    assert_eq!(
        novelty.observe(map),
        Observed {
            new: false,
            sweep: Sweep::NotDue
        }
    );
    novelty.clear(map, false);
    assert_eq!(map[330], 1, "left for the sweep");
    // ... and the sweep cannot tell which execution reached it.
    let mut sweep = Sweep::NotDue;
    while sweep == Sweep::NotDue {
        sweep = novelty.observe(map).sweep;
        novelty.clear(map, false);
    }
    assert_eq!(sweep, Sweep::Unattributed);
    assert_eq!(map[330], 0, "zeroed for the executions run again");
    // Run again, the one that reaches it is judged with it.
    map[330] = 1;
    assert!(novelty.observe(map).new);
}

#[test]
fn clearing_all_sweeps_what_a_run_outside_the_harness_left() {
    let mut storage = vec![0u64; 64];
    let map = map_in(&mut storage, 0, 512);
    let mut novelty = Novelty::default();
    map[10] = 1;
    assert!(novelty.observe(map).new);
    novelty.commit(map);
    // Right after a sweep, what is in a dead block is the outside run's:
    // zeroed, and nothing to run again.
    map[10] = 3;
    map[200] = 7;
    assert_eq!(novelty.clear(map, true), Sweep::Clean);
    assert!(map.iter().all(|&c| c == 0));
    assert!(!novelty.blocks.is_live[3]);
    // After executions since the last sweep, it may be theirs.
    settle(&mut novelty, map);
    novelty.observe(map);
    map[200] = 7;
    assert_eq!(novelty.clear(map, true), Sweep::Unattributed);
    assert!(map.iter().all(|&c| c == 0));
    assert!(novelty.blocks.is_live[3]);
}

#[test]
fn pinned_counters_are_read_after_every_execution() {
    let mut storage = vec![0u64; 64];
    let map = map_in(&mut storage, 0, 512);
    let mut novelty = Novelty::default();
    novelty.pin(&[400]);
    novelty.clear(map, true);
    settle(&mut novelty, map);
    map[401] = 1;
    assert!(novelty.observe(map).new, "block 6 is live");
}

#[test]
fn novelty_clears_what_it_reads_after_every_execution_unless_told_to_clear_all() {
    // An unaligned map: a head and a tail shorter than a word.
    let mut storage = vec![0u64; 40];
    let map = map_in(&mut storage, 3, 314);
    let mut novelty = Novelty::default();
    for at in [0, 4, 5, 100, 250, 313] {
        map[at] = 2;
    }
    assert!(novelty.observe(map).new);
    novelty.commit(map);
    // Left behind by something outside the harness, in a word the
    // execution did not touch: only clearing all removes it.
    map[170] = 9;
    novelty.clear(map, false);
    let left: Vec<usize> = (0..map.len()).filter(|&at| map[at] != 0).collect();
    assert_eq!(left, [170]);
    novelty.clear(map, true);
    assert!(map.iter().all(|&c| c == 0));

    // What was committed is judged as before: the same counts are not
    // new, a new counter and a higher bucket are.
    map[250] = 2;
    assert!(!novelty.observe(map).new);
    novelty.clear(map, false);
    map[313] = 5;
    assert!(novelty.observe(map).new);
    novelty.clear(map, false);
    // Block 2 holds no counter an execution reached yet: the sweep after
    // the second execution since the last finds this one, unable to tell
    // which of the two reached it. Run again, it is new.
    map[171] = 1;
    let observed = novelty.observe(map);
    assert_eq!(
        observed,
        Observed {
            new: false,
            sweep: Sweep::Unattributed
        }
    );
    map[171] = 1;
    assert!(novelty.observe(map).new);
}

#[test]
fn every_nonzero_counter_of_a_large_map_is_found_wherever_it_lies() {
    // Blocks of 64 counters are tested four at a time: counters at the
    // edges of blocks and of those groups, and in the rest and the tail.
    let at = [0, 63, 64, 255, 256, 511, 1031, 4095, 4096, 7679, 7680, 7999];
    for &a in &at {
        let mut storage = vec![0u64; 1001];
        let map = map_in(&mut storage, 0, 8005);
        let mut novelty = Novelty::default();
        map[a] = 1;
        assert!(novelty.observe(map).new, "the counter at {a}");
        novelty.clear(map, false);
        assert!(map.iter().all(|&c| c == 0), "cleared: the counter at {a}");
    }
}

#[test]
fn the_portable_scan_and_the_one_the_processor_gets_agree() {
    // On a processor with AVX2 the tests above run its copy; this runs
    // the portable one too, which other processors get.
    let mut blocks = vec![[0u64; 8]; 37];
    for (b, k) in [(0, 0), (3, 7), (4, 0), (11, 3), (16, 1), (36, 7)] {
        blocks[b][k] = 1 << (8 * (b % 8));
    }
    let mut from = 0;
    let mut found = Vec::new();
    while from < blocks.len() {
        let next = next_nonzero_block_in(&blocks, from);
        assert_eq!(next, next_nonzero_block(&blocks, from));
        found.push(next);
        from = next + 1;
    }
    assert_eq!(found, [0, 3, 4, 11, 16, 36]);
    assert_eq!(next_nonzero_block_in(&blocks, 37), 37);
    assert_eq!(next_nonzero_block_in(&[], 0), 0);
}
