//! Shrinking: from a failing case to a minimal one, on the choice sequence.
//!
//! The shrinker knows nothing about the property's types. It edits the
//! failing case's choice indices, replays each candidate, and keeps it when it
//! (a) still fails at the same [`Origin`](crate::property::Origin) — so shrinking never trades one bug
//! for another — and (b) is smaller in shortlex order (fewer choices, then
//! lexicographically smaller indices). Because index zero is the simplest value
//! of every draw, smaller sequences render as simpler values. Every accepted
//! step strictly decreases a well-founded order, so shrinking terminates; a
//! budget of executions and time makes it stop early on huge inputs, with the
//! best value so far.
//!
//! The passes, run in rounds until a round changes nothing (after Hypothesis):
//!
//! | pass | edit |
//! |---|---|
//! | `delete_sibling_runs` | remove 8, 4 or 2 adjacent sibling spans at once (a chunk of a collection, of a stateful sequence's commands) |
//! | `delete_spans` | remove a whole span (one collection element, one subtree) |
//! | `delete_and_copy` | remove a span and make one integer equal to another of the same domain (a sequence whose delete must name a key a put used) |
//! | `delete_sibling_pairs` | remove two spans of one label and depth anywhere in a collection (two commands that only together keep a state, like two puts that grow a table) |
//! | `truncate_and_delete_chunks` | cut the tail; remove 8, 4, 2 or 1 consecutive choices |
//! | `zero_spans` | set every choice of a span to zero (the simplest sub-value) |
//! | `replace_with_descendant` | replace a span by a nested span of the same label (a tree by its subtree) |
//! | `minimize_choices` | try zero and the eight simplest indices, then binary-search each index down; signed integers shrink in magnitude, then try the negative |
//! | `redistribute` | move one integer's value onto a later one, so the first can be deleted (`[600, 500]` → `[0, 1100]`) |
//! | `lower_pairs` | lower two nearby choices by the same amount (keeps `x == y` failures failing) |
//! | `sort_siblings` | swap adjacent sibling spans into lexicographic order |

use std::collections::HashSet;
use std::time::{Duration, Instant};

use crate::choice::{ChoiceKind, Span, shortlex_less};
use crate::property::{Case, Failure, PropertyFn, execute};
use crate::source::{Limits, Source};

/// When shrinking gives up and reports the best value found so far.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ShrinkBudget {
    /// Property executions.
    pub max_runs: usize,
    pub max_time: Duration,
}

impl Default for ShrinkBudget {
    fn default() -> Self {
        ShrinkBudget {
            max_runs: 20_000,
            max_time: Duration::from_secs(60),
        }
    }
}

/// The outcome of shrinking.
#[derive(Clone, Debug)]
pub struct Shrunk {
    /// The smallest failing case found, replayed once more with argument
    /// renderings.
    pub case: Case,
    /// Property executions spent shrinking.
    pub runs: usize,
    /// Number of candidates accepted.
    pub steps: usize,
    /// Set when the budget ran out before shrinking converged.
    pub stopped_early: Option<String>,
    /// The failure of the smallest failing case, as the shrinker saw it:
    /// `case` replays that case once more, and a failure that shows in
    /// some runs only (a race) may pass then.
    pub failure: Option<Failure>,
}

/// Shrinks `failing` (a failed case of `property`).
pub fn shrink(
    property: &PropertyFn<'_>,
    limits: Limits,
    failing: Case,
    budget: ShrinkBudget,
) -> Shrunk {
    let origin = failing
        .failure()
        .expect("only failing cases are shrunk")
        .origin
        .clone();
    let mut same_failure = |case: &Case| case.failure().is_some_and(|f| f.origin == origin);
    shrink_while(property, limits, failing, budget, &mut same_failure)
}

/// Shrinks `start` through candidates for which `keep` holds; `keep` is
/// called right after each candidate ran, so it may also look at what the
/// run left behind (`cargo covcheck minimize` keeps a covering input's
/// coverage features this way). [`shrink`] keeps the same failure.
pub fn shrink_while(
    property: &PropertyFn<'_>,
    limits: Limits,
    start: Case,
    budget: ShrinkBudget,
    keep: &mut dyn FnMut(&Case) -> bool,
) -> Shrunk {
    shrink_repairing(property, limits, start, budget, keep, None)
}

/// A repair of a candidate that `keep` rejected: runs the property once
/// (every call counts as an execution) and returns the candidate changed
/// so that it may be kept after all, or `None`. A campaign repairs the
/// checksums a deletion broke this way
/// ([`crate::engine::mutator::ChoiceMutator::repair_sums`]), so that a
/// failure behind a checksum still shrinks.
pub type Repair<'a> = &'a mut dyn FnMut(&[u64]) -> Option<Vec<u64>>;

/// [`shrink_while`], where a candidate that is not kept gets `repair`'s
/// try, when there is one.
pub fn shrink_repairing(
    property: &PropertyFn<'_>,
    limits: Limits,
    start: Case,
    budget: ShrinkBudget,
    keep: &mut dyn FnMut(&Case) -> bool,
    repair: Option<Repair<'_>>,
) -> Shrunk {
    let mut shrinker = Shrinker {
        property,
        limits,
        keep,
        repair,
        best_indices: start.indices(),
        best: start,
        tried: HashSet::new(),
        runs: 0,
        steps: 0,
        budget,
        started: Instant::now(),
    };
    shrinker.run();
    let stopped_early = shrinker.out_of_budget().then(|| {
        format!(
            "shrinking stopped after {} executions and {:.1} s (limits: {} executions, {} s); \
             the value shown is the smallest found so far",
            shrinker.runs,
            shrinker.started.elapsed().as_secs_f64(),
            budget.max_runs,
            budget.max_time.as_secs()
        )
    });
    let case = execute(
        property,
        Source::replay(shrinker.best_indices.clone(), limits),
        true,
    );
    Shrunk {
        case,
        runs: shrinker.runs,
        steps: shrinker.steps,
        stopped_early,
        failure: shrinker.best.failure().cloned(),
    }
}

struct Shrinker<'a, 'p, 'r> {
    property: &'a PropertyFn<'p>,
    limits: Limits,
    keep: &'a mut dyn FnMut(&Case) -> bool,
    repair: Option<Repair<'r>>,
    best: Case,
    best_indices: Vec<u64>,
    tried: HashSet<Vec<u64>>,
    runs: usize,
    steps: usize,
    budget: ShrinkBudget,
    started: Instant,
}

impl Shrinker<'_, '_, '_> {
    fn run(&mut self) {
        loop {
            let before = self.best_indices.clone();
            self.delete_sibling_runs();
            self.delete_spans();
            self.delete_sibling_pairs();
            self.delete_and_copy();
            self.truncate_and_delete_chunks();
            self.zero_spans();
            self.replace_with_descendant();
            self.minimize_choices();
            self.redistribute();
            self.lower_pairs();
            self.sort_siblings();
            if self.best_indices == before || self.out_of_budget() {
                return;
            }
        }
    }

    fn out_of_budget(&self) -> bool {
        self.runs >= self.budget.max_runs || self.started.elapsed() >= self.budget.max_time
    }

    /// Replays `candidate`; keeps it when `keep` holds and it is smaller,
    /// or else when its repair ([`Repair`]) is kept and smaller.
    fn attempt(&mut self, candidate: Vec<u64>) -> bool {
        if self.out_of_budget()
            || !shortlex_less(&candidate, &self.best_indices)
            || !self.tried.insert(candidate.clone())
        {
            return false;
        }
        if self.try_candidate(&candidate) {
            return true;
        }
        let Some(repair) = self.repair.as_mut() else {
            return false;
        };
        self.runs += 1;
        match repair(&candidate) {
            Some(repaired)
                if shortlex_less(&repaired, &self.best_indices)
                    && self.tried.insert(repaired.clone()) =>
            {
                self.try_candidate(&repaired)
            }
            _ => false,
        }
    }

    /// Runs `candidate`; keeps it when `keep` holds and it is smaller.
    fn try_candidate(&mut self, candidate: &[u64]) -> bool {
        if self.out_of_budget() {
            return false;
        }
        self.runs += 1;
        let source = Source::replay(candidate.to_vec(), self.limits);
        let case = execute(self.property, source, false);
        let kept = (self.keep)(&case);
        let indices = case.indices();
        if kept && shortlex_less(&indices, &self.best_indices) {
            self.best = case;
            self.best_indices = indices;
            self.steps += 1;
            true
        } else {
            false
        }
    }

    fn with_index(&self, at: usize, index: u64) -> Vec<u64> {
        let mut candidate = self.best_indices.clone();
        candidate[at] = index;
        candidate
    }

    /// The current best's spans, largest first.
    fn spans_by_size(&self) -> Vec<Span> {
        let mut spans = self.best.spans.clone();
        spans.sort_by_key(|s| (std::cmp::Reverse(s.len()), s.start));
        spans
    }

    /// Runs `edit` on each span of the current best, largest first; after a
    /// success the span list is recomputed and the walk goes on where it was.
    fn for_each_span(&mut self, mut edit: impl FnMut(&mut Self, Span) -> bool) {
        let mut position = 0;
        let mut spans = self.spans_by_size();
        while position < spans.len() && !self.out_of_budget() {
            if edit(self, spans[position]) {
                spans = self.spans_by_size();
            } else {
                position += 1;
            }
        }
    }

    fn delete_spans(&mut self) {
        self.for_each_span(|this, span| {
            let mut candidate = this.best_indices.clone();
            candidate.drain(span.start..span.end);
            this.attempt(candidate)
        });
    }

    /// Deletes runs of adjacent spans of one label and depth (elements of
    /// one collection, commands of one sequence), longest runs first: a
    /// sequence of 40 commands of which 4 matter loses most of the rest in
    /// a few steps rather than one command at a time.
    fn delete_sibling_runs(&mut self) {
        for run in [8, 4, 2] {
            self.try_each(
                |this| sibling_runs(&this.best.spans, run),
                |this, &run| this.without(&[run]),
            );
        }
    }

    /// Deletes two spans of one label and depth at once, wherever they are:
    /// a sequence whose every single command matters to the failure (five
    /// puts whose count grows a table, then a delete) may still shrink by
    /// two. Only for collections of at most [`MAX_PAIRED_SIBLINGS`] such
    /// spans, which keeps the pairs tried few.
    fn delete_sibling_pairs(&mut self) {
        self.try_each(
            |this| sibling_pairs(&this.best.spans),
            |this, (a, b)| this.without(&[(a.start, a.end), (b.start, b.end)]),
        );
    }

    /// Deletes one span of a small collection and, in the same candidate,
    /// copies one integer's value onto another of the same domain: the two
    /// edits a stateful sequence often needs at once, when a command can
    /// go only if a later one names another key (five puts and a delete
    /// of the first; drop a put, delete the second). Each edit alone
    /// passes, so neither pass on its own gets there.
    fn delete_and_copy(&mut self) {
        self.try_each(Self::deletions_with_a_copy, |_, candidate| {
            candidate.clone()
        });
    }

    /// Tries a candidate built from each of the edits `list` makes for the
    /// current best, in order; after one is kept, lists them again for the
    /// new best and goes on at the same place.
    fn try_each<T>(
        &mut self,
        list: impl Fn(&Self) -> Vec<T>,
        build: impl Fn(&Self, &T) -> Vec<u64>,
    ) {
        let mut edits = list(self);
        let mut at = 0;
        while at < edits.len() && !self.out_of_budget() {
            if self.attempt(build(self, &edits[at])) {
                edits = list(self);
            } else {
                at += 1;
            }
        }
    }

    /// The current best without the choices of `ranges` (`start..end`).
    fn without(&self, ranges: &[(usize, usize)]) -> Vec<u64> {
        self.best_indices
            .iter()
            .enumerate()
            .filter(|&(i, _)| !ranges.iter().any(|&(start, end)| (start..end).contains(&i)))
            .map(|(_, &index)| index)
            .collect()
    }

    /// The candidates of [`Self::delete_and_copy`], in a fixed order.
    fn deletions_with_a_copy(&self) -> Vec<Vec<u64>> {
        let mut candidates = Vec::new();
        for span in small_collection_spans(&self.best.spans) {
            let kept: Vec<usize> = (0..self.best_indices.len())
                .filter(|i| !(span.start..span.end).contains(i))
                .collect();
            let ints: Vec<usize> = (0..kept.len())
                .filter(|&k| matches!(self.best.choices[kept[k]].kind, ChoiceKind::Int { .. }))
                .collect();
            let deleted: Vec<u64> = kept.iter().map(|&i| self.best_indices[i]).collect();
            for &to in &ints {
                for &from in &ints {
                    let same_domain =
                        self.best.choices[kept[to]].max == self.best.choices[kept[from]].max;
                    if to != from && same_domain && deleted[to] != deleted[from] {
                        let mut candidate = deleted.clone();
                        candidate[to] = deleted[from];
                        candidates.push(candidate);
                    }
                }
            }
        }
        candidates
    }

    fn truncate_and_delete_chunks(&mut self) {
        let mut keep = self.best_indices.len() / 2;
        while keep > 0 && self.attempt(self.best_indices[..keep].to_vec()) {
            keep = self.best_indices.len() / 2;
        }
        for chunk in [8, 4, 2, 1] {
            let mut start = self.best_indices.len().saturating_sub(chunk);
            loop {
                if start + chunk <= self.best_indices.len() {
                    let mut candidate = self.best_indices.clone();
                    candidate.drain(start..start + chunk);
                    self.attempt(candidate);
                }
                if start == 0 || self.out_of_budget() {
                    break;
                }
                start -= 1;
            }
        }
    }

    fn zero_spans(&mut self) {
        self.for_each_span(|this, span| {
            let slice = &this.best_indices[span.start..span.end];
            if slice.iter().all(|&i| i == 0) {
                return false;
            }
            let mut candidate = this.best_indices.clone();
            candidate[span.start..span.end].fill(0);
            this.attempt(candidate)
        });
    }

    fn replace_with_descendant(&mut self) {
        self.for_each_span(|this, outer| {
            let inner_spans: Vec<Span> = this
                .best
                .spans
                .iter()
                .filter(|s| {
                    s.label == outer.label
                        && s.start >= outer.start
                        && s.end <= outer.end
                        && s.len() < outer.len()
                })
                .copied()
                .collect();
            inner_spans.into_iter().any(|inner| {
                let mut candidate = this.best_indices[..outer.start].to_vec();
                candidate.extend_from_slice(&this.best_indices[inner.start..inner.end]);
                candidate.extend_from_slice(&this.best_indices[outer.end..]);
                this.attempt(candidate)
            })
        });
    }

    fn minimize_choices(&mut self) {
        let mut at = 0;
        while at < self.best_indices.len() && !self.out_of_budget() {
            self.minimize_at(at);
            at += 1;
        }
    }

    fn minimize_at(&mut self, at: usize) {
        let choice = self.best.choices[at];
        let current = choice.index;
        if current == 0 || self.attempt(self.with_index(at, 0)) {
            return;
        }
        // The simplest few values first (for integers: -1, 1, -2, 2, ...):
        // a binary search that keeps the sign would never reach -1 from 65535.
        for small in 1..current.min(9) {
            if self.attempt(self.with_index(at, small)) {
                return;
            }
        }
        match choice.kind {
            ChoiceKind::Int { zigzag_limit } if current <= zigzag_limit => {
                // Indices alternate -1, +1, -2, +2, ...: shrink the magnitude
                // keeping the sign, then try the negative of equal magnitude.
                let negative = current % 2 == 1;
                let magnitude = current.div_ceil(2);
                let encode = move |m: u64| {
                    if m == 0 {
                        0
                    } else {
                        2 * m - u64::from(negative)
                    }
                };
                self.binary_search_down(at, magnitude, encode);
                if !negative {
                    let now = self.best_indices[at];
                    if now > 0 {
                        self.attempt(self.with_index(at, now - 1));
                    }
                }
            }
            _ => self.binary_search_down(at, current, |i| i),
        }
    }

    /// Finds a small `x` in `1..high` for which setting choice `at` to
    /// `encode(x)` still fails, assuming `encode(high)` fails and `encode(0)`
    /// does not. The predicate need not be monotone; then this finds a local
    /// minimum, which later rounds improve on.
    fn binary_search_down(&mut self, at: usize, high: u64, encode: impl Fn(u64) -> u64) {
        let (mut lo, mut hi) = (0, high);
        while lo + 1 < hi && !self.out_of_budget() {
            let mid = lo + (hi - lo) / 2;
            if self.attempt(self.with_index(at, encode(mid))) {
                hi = mid;
            } else {
                lo = mid;
            }
        }
    }

    /// Integer choice positions of the current best.
    fn int_positions(&self) -> Vec<usize> {
        (0..self.best.choices.len())
            .filter(|&i| matches!(self.best.choices[i].kind, ChoiceKind::Int { .. }))
            .collect()
    }

    fn redistribute(&mut self) {
        let positions = self.int_positions();
        for (n, &i) in positions.iter().enumerate() {
            for &j in positions.iter().skip(n + 1).take(8) {
                if self.out_of_budget() || j >= self.best.choices.len() || self.best_indices[i] == 0
                {
                    break;
                }
                let (a, b) = (self.best.choices[i], self.best.choices[j]);
                if a.kind != b.kind {
                    continue;
                }
                let sum = to_signed(a.kind, a.index) + to_signed(b.kind, b.index);
                if let Some(index) = from_signed(b.kind, b.max, sum) {
                    let mut candidate = self.with_index(i, 0);
                    candidate[j] = index;
                    self.attempt(candidate);
                }
            }
        }
    }

    fn lower_pairs(&mut self) {
        let positions = self.int_positions();
        for (n, &i) in positions.iter().enumerate() {
            for &j in positions.iter().skip(n + 1).take(4) {
                if self.out_of_budget() || j >= self.best_indices.len() {
                    break;
                }
                let (xi, xj) = (self.best_indices[i], self.best_indices[j]);
                let mut by = xi.min(xj);
                while by > 0 {
                    let mut candidate = self.with_index(i, xi - by);
                    candidate[j] = xj - by;
                    if self.attempt(candidate) {
                        break;
                    }
                    by /= 2;
                }
            }
        }
    }

    fn sort_siblings(&mut self) {
        let mut n = 0;
        while n < self.best.spans.len() && !self.out_of_budget() {
            let a = self.best.spans[n];
            n += 1;
            let sibling = |b: &&Span| b.start == a.end && b.label == a.label && b.depth == a.depth;
            let Some(b) = self.best.spans.iter().find(sibling).copied() else {
                continue;
            };
            let first = &self.best_indices[a.start..a.end];
            let second = &self.best_indices[b.start..b.end];
            if shortlex_less(second, first) {
                let mut candidate = self.best_indices[..a.start].to_vec();
                candidate.extend_from_slice(second);
                candidate.extend_from_slice(first);
                candidate.extend_from_slice(&self.best_indices[b.end..]);
                self.attempt(candidate);
            }
        }
    }
}

/// The signed offset from the target that an integer index stands for.
/// The most spans of one label and depth [`Shrinker::delete_sibling_pairs`]
/// pairs up: 32 spans make 496 pairs.
const MAX_PAIRED_SIBLINGS: usize = 32;

/// Every two disjoint spans of one label and depth, the first before the
/// second, from groups of at most [`MAX_PAIRED_SIBLINGS`], in input order.
fn sibling_pairs(spans: &[Span]) -> Vec<(Span, Span)> {
    let groups = sibling_groups(spans);
    let mut pairs = Vec::new();
    for group in groups.values().filter(|g| g.len() <= MAX_PAIRED_SIBLINGS) {
        for (i, a) in group.iter().enumerate() {
            for b in &group[i + 1..] {
                if a.end <= b.start {
                    pairs.push((*a, *b));
                }
            }
        }
    }
    pairs.sort_by_key(|(a, b)| (a.start, b.start));
    pairs
}

/// The spans of each label and depth that has at most [`MAX_COPY_SIBLINGS`]
/// of them: the elements of small collections, the commands of short
/// sequences.
fn small_collection_spans(spans: &[Span]) -> Vec<Span> {
    let groups = sibling_groups(spans);
    let mut small: Vec<Span> = groups
        .into_values()
        .filter(|g| g.len() <= MAX_COPY_SIBLINGS)
        .flatten()
        .collect();
    small.sort_by_key(|s| s.start);
    small
}

/// The spans of each label and depth, in input order.
fn sibling_groups(spans: &[Span]) -> std::collections::BTreeMap<(u64, u32), Vec<Span>> {
    let mut groups: std::collections::BTreeMap<(u64, u32), Vec<Span>> = Default::default();
    for span in spans {
        groups
            .entry((span.label, span.depth))
            .or_default()
            .push(*span);
    }
    for group in groups.values_mut() {
        group.sort_by_key(|s| s.start);
    }
    groups
}

/// The most spans of one label and depth [`Shrinker::delete_and_copy`]
/// deletes one of (each deletion then tries every copy between two
/// integers of the rest).
const MAX_COPY_SIBLINGS: usize = 12;

/// The choice ranges of every `run` adjacent spans of one label and depth,
/// each span starting where the one before ended, in input order.
fn sibling_runs(spans: &[Span], run: usize) -> Vec<(usize, usize)> {
    let mut sorted: Vec<Span> = spans.to_vec();
    sorted.sort_by_key(|s| (s.label, s.depth, s.start));
    let mut ranges = Vec::new();
    for window in sorted.windows(run) {
        let (first, last) = (window[0], window[run - 1]);
        let adjacent = window.windows(2).all(|pair| {
            pair[1].label == first.label
                && pair[1].depth == first.depth
                && pair[1].start == pair[0].end
        });
        if adjacent {
            ranges.push((first.start, last.end));
        }
    }
    ranges.sort_unstable();
    ranges.dedup();
    ranges
}

fn to_signed(kind: ChoiceKind, index: u64) -> i128 {
    match kind {
        ChoiceKind::Int { zigzag_limit } if index <= zigzag_limit => {
            let magnitude = i128::from(index.div_ceil(2));
            if index % 2 == 1 {
                -magnitude
            } else {
                magnitude
            }
        }
        _ => i128::from(index),
    }
}

/// The index of a signed offset (inverse of [`to_signed`]), if representable.
fn from_signed(kind: ChoiceKind, max: u64, value: i128) -> Option<u64> {
    let index = match kind {
        ChoiceKind::Int { zigzag_limit } if zigzag_limit > 0 => {
            let index = if value < 0 {
                2 * (-value) - 1
            } else {
                2 * value
            };
            (index <= i128::from(zigzag_limit)).then_some(index)?
        }
        _ if value >= 0 => value,
        _ => return None,
    };
    u64::try_from(index).ok().filter(|&i| i <= max)
}
