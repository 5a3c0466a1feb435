//! Choosing a small seed suite that keeps every coverage feature (seed 000).
//!
//! A *feature* is an edge counter together with the AFL bucket of its hit
//! count (1, 2, 3, 4–7, 8–15, 16–31, 32–127, 128+), numbered
//! `edge * 8 + bucket`, as libFuzzer counts them. Two selection rules are
//! here, so that `cargo covcheck minimize` can report both on the same inputs:
//!
//! - [`greedy_set_cover`]: repeatedly take the input that covers the most
//!   features not yet covered, ties to the smaller input. The classic
//!   `ln n`-approximation of the smallest cover; libFuzzer's
//!   `-set_cover_merge=1`.
//! - [`forward_pass`]: libFuzzer's `-merge=1`: sort by size, keep an input
//!   when it adds a feature. Cheap, but an early small input that adds one
//!   feature stays even when a later one covers it and much more.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// AFL's hit-count bucket of a nonzero counter value.
pub const fn bucket(count: u8) -> u32 {
    match count {
        0 => panic!("zero counters are no feature"),
        1 => 0,
        2 => 1,
        3 => 2,
        4..=7 => 3,
        8..=15 => 4,
        16..=31 => 5,
        32..=127 => 6,
        128..=255 => 7,
    }
}

/// The features of one execution's counters, in increasing order.
pub fn features_of(counters: &[u8]) -> Vec<u32> {
    counters
        .iter()
        .enumerate()
        .filter(|(_, count)| **count != 0)
        .map(|(edge, count)| edge as u32 * 8 + bucket(*count))
        .collect()
}

/// A set of features as a bit vector.
#[derive(Clone, Debug, Default)]
pub struct FeatureSet {
    words: Vec<u64>,
    len: usize,
}

impl FeatureSet {
    pub fn contains(&self, feature: u32) -> bool {
        let (word, bit) = (feature as usize / 64, feature % 64);
        self.words.get(word).is_some_and(|w| w & (1 << bit) != 0)
    }

    /// Adds `feature`; true when it was new.
    pub fn insert(&mut self, feature: u32) -> bool {
        let (word, bit) = (feature as usize / 64, feature % 64);
        if word >= self.words.len() {
            self.words.resize(word + 1, 0);
        }
        let new = self.words[word] & (1 << bit) == 0;
        self.words[word] |= 1 << bit;
        self.len += usize::from(new);
        new
    }

    pub fn extend(&mut self, features: &[u32]) {
        for &f in features {
            self.insert(f);
        }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    /// How many features both sets hold.
    pub fn common(&self, other: &FeatureSet) -> usize {
        self.words
            .iter()
            .zip(&other.words)
            .map(|(a, b)| (a & b).count_ones() as usize)
            .sum()
    }

    /// How many of `features` are not in the set.
    pub fn missing(&self, features: &[u32]) -> usize {
        features.iter().filter(|f| !self.contains(**f)).count()
    }
}

/// A candidate for the suite: its size (what ties are broken on) and its
/// features (sorted, distinct).
pub struct Candidate<'a> {
    pub size: usize,
    pub features: &'a [u32],
}

/// Greedy set cover of everything `candidates` reach beyond `covered`;
/// returns the indices taken, in the order taken.
pub fn greedy_set_cover(candidates: &[Candidate<'_>], covered: &FeatureSet) -> Vec<usize> {
    let mut covered = covered.clone();
    // Lazy greedy: a candidate's gain only shrinks as the cover grows, so a
    // stale gain is an upper bound, and a popped candidate whose fresh gain
    // still equals its stale one is a true maximum.
    let mut heap: BinaryHeap<(usize, Reverse<usize>, Reverse<usize>)> = candidates
        .iter()
        .enumerate()
        .map(|(n, c)| (covered.missing(c.features), Reverse(c.size), Reverse(n)))
        .filter(|(gain, ..)| *gain > 0)
        .collect();
    let mut taken = Vec::new();
    while let Some((gain, size, Reverse(n))) = heap.pop() {
        let fresh = covered.missing(candidates[n].features);
        if fresh == 0 {
            continue;
        }
        if fresh < gain {
            heap.push((fresh, size, Reverse(n)));
            continue;
        }
        covered.extend(candidates[n].features);
        taken.push(n);
    }
    taken
}

/// libFuzzer's `-merge=1` rule over the same candidates: smallest first (then
/// in order), keep a candidate when it adds a feature.
pub fn forward_pass(candidates: &[Candidate<'_>], covered: &FeatureSet) -> Vec<usize> {
    let mut covered = covered.clone();
    let mut order: Vec<usize> = (0..candidates.len()).collect();
    order.sort_by_key(|&n| (candidates[n].size, n));
    order
        .into_iter()
        .filter(|&n| {
            let features = candidates[n].features;
            let adds = covered.missing(features) > 0;
            if adds {
                covered.extend(features);
            }
            adds
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn candidates(sets: &[(usize, Vec<u32>)]) -> Vec<Candidate<'_>> {
        sets.iter()
            .map(|(size, features)| Candidate {
                size: *size,
                features,
            })
            .collect()
    }

    #[test]
    fn buckets_follow_afl() {
        let buckets: Vec<u32> = [1, 2, 3, 4, 7, 8, 15, 16, 31, 32, 127, 128, 255]
            .into_iter()
            .map(bucket)
            .collect();
        assert_eq!(buckets, [0, 1, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7]);
        assert_eq!(features_of(&[0, 1, 0, 200]), [8, 3 * 8 + 7]);
    }

    #[test]
    fn greedy_takes_the_big_input_where_the_forward_pass_keeps_every_small_one() {
        // Small inputs each add one feature; one larger input covers them all.
        let sets = vec![
            (1, vec![1]),
            (1, vec![2]),
            (1, vec![3]),
            (1, vec![4]),
            (5, vec![1, 2, 3, 4, 5]),
        ];
        let c = candidates(&sets);
        assert_eq!(greedy_set_cover(&c, &FeatureSet::default()), [4]);
        assert_eq!(forward_pass(&c, &FeatureSet::default()), [0, 1, 2, 3, 4]);
    }

    #[test]
    fn greedy_covers_everything_and_breaks_ties_on_size() {
        let sets = vec![
            (9, vec![1, 2, 3]),
            (2, vec![3, 4, 5]),
            (3, vec![1, 2, 6]),
            (1, vec![6]),
        ];
        let c = candidates(&sets);
        let taken = greedy_set_cover(&c, &FeatureSet::default());
        // Gains 3, 3, 3: the smallest (size 2) first, then {1,2,6} (3 new).
        assert_eq!(taken, [1, 2]);
        let mut all = FeatureSet::default();
        for n in &taken {
            all.extend(c[*n].features);
        }
        assert_eq!(all.len(), 6);
    }

    #[test]
    fn features_already_covered_are_not_chased() {
        let sets = vec![(1, vec![1, 2]), (1, vec![3])];
        let c = candidates(&sets);
        let mut covered = FeatureSet::default();
        covered.extend(&[1, 2]);
        assert_eq!(greedy_set_cover(&c, &covered), [1]);
        assert_eq!(forward_pass(&c, &covered), [1]);
        assert!(covered.contains(2) && !covered.contains(3));
        let mut other = FeatureSet::default();
        other.extend(&[2, 3, 700]);
        assert_eq!(covered.common(&other), 1);
    }
}
