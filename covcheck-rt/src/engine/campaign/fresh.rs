//! Fresh random inputs: drawn with the value heuristics from the campaign's
//! own RNG stream, with their outermost collections bounded by a size bound
//! that starts small and doubles each time the campaign goes
//! [`STALL_EXECS`] executions without new coverage (seed 004's iterative
//! deepening), so that early finds are small. The bound also caps how many
//! choices a mutant may have.

use std::cell::Cell;

use crate::property::{PropertyFn, generate_only};
use crate::rng::Rng;
use crate::source::{Limits, Source};
use covcheck_protocol::worker::WorkerConfig;

/// Collections in fresh random inputs start this long at most.
const INITIAL_BOUND: usize = 4;
/// Executions without new coverage after which the campaign counts as
/// stalled: the bound doubles, or (at full size) more fresh inputs are tried.
pub(super) const STALL_EXECS: u64 = 20_000;
/// How many choices a mutant may have per element of the fresh inputs'
/// size bound: at least 1,024, and at most `Limits::max_choices` (65,536 by
/// default, reached at a bound of 1,024).
const MUTANT_CHOICES_PER_ELEMENT: usize = 64;

/// The doublings a worker's bound starts with: `size_start` of those from
/// `bound` to `max_len`, rounded up.
fn head_start(request: &WorkerConfig, bound: usize, max_len: usize) -> u32 {
    if !request.size_steps || bound == 0 {
        return 0;
    }
    let steps = (max_len.div_ceil(bound))
        .next_power_of_two()
        .trailing_zeros();
    (request.size_start.clamp(0.0, 1.0) * f64::from(steps)).ceil() as u32
}

/// Draws fresh inputs under the current size bound.
pub(super) struct Fresh<'a, 'p> {
    property: &'a PropertyFn<'p>,
    /// The campaign's limits; the bound stays within their `max_len`.
    limits: Limits,
    /// How long nested collections are drawn: no longer than plain mode
    /// draws them; only the outermost grow to the campaign's bound.
    nested_len: usize,
    rng: Rng,
    bound: usize,
    /// The mutator's cap on a mutant's choices, kept in step with the bound.
    max_choices: &'a Cell<usize>,
    /// The source the last input was drawn from, kept for its buffers.
    source: Option<Source>,
    /// The last input's choices.
    drawn: Vec<u64>,
    /// Buffers for a batch's inputs ([`Fresh::draw_batch`]).
    batch: Vec<Vec<u64>>,
}

impl<'a, 'p> Fresh<'a, 'p> {
    /// Starts at a small bound when the request steps sizes up, at the full
    /// size otherwise. `nested_len` is the property's own size limit.
    pub(super) fn new(
        property: &'a PropertyFn<'p>,
        limits: Limits,
        nested_len: usize,
        request: &WorkerConfig,
        max_choices: &'a Cell<usize>,
    ) -> Self {
        let bound = if request.size_steps {
            INITIAL_BOUND.min(limits.max_len)
        } else {
            limits.max_len
        };
        let mut fresh = Fresh {
            property,
            limits,
            nested_len,
            rng: Rng::new(request.rng_seed),
            bound,
            max_choices,
            source: None,
            drawn: Vec::new(),
            batch: Vec::new(),
        };
        for _ in 0..head_start(request, bound, limits.max_len) {
            fresh.grow();
        }
        fresh.max_choices.set(fresh.mutant_cap());
        fresh
    }

    /// A fresh input's choices. Only the arguments are drawn here: the body
    /// runs in the harness, where a crash or a hang is caught with the input
    /// in flight.
    pub(super) fn draw(&mut self) -> &[u64] {
        self.draw_up_to(self.bound)
    }

    /// `count` fresh inputs, as `count` calls of [`Fresh::draw`] would
    /// draw them. Drawing runs the generators, whose code in the crates
    /// under test is instrumented, so the execution after a draw clears
    /// and sweeps the whole map ([`crate::engine::novelty`]): drawn
    /// together, a stalled campaign's fresh inputs pay for that once a
    /// round rather than once each.
    pub(super) fn draw_batch(&mut self, count: usize) -> &[Vec<u64>] {
        for k in 0..count {
            self.draw();
            if k == self.batch.len() {
                self.batch.push(Vec::new());
            }
            self.batch[k].clone_from(&self.drawn);
        }
        &self.batch[..count]
    }

    /// A fresh input as plain `cargo test` draws it: collections up to the
    /// property's own size limit, whatever the bound. A campaign starts with
    /// some, so that it finds at once what a plain burst finds in its first
    /// cases (a bug most long operation sequences reach, which the size
    /// steps' small first bound would leave to mutations to grow into).
    pub(super) fn draw_plain(&mut self) -> &[u64] {
        self.draw_up_to(self.nested_len.min(self.limits.max_len))
    }

    fn draw_up_to(&mut self, max_len: usize) -> &[u64] {
        let limits = Limits {
            max_len,
            nested_len: self.nested_len,
            ..self.limits
        };
        let seed = self.rng.at_most(u64::MAX);
        let mut src = match self.source.take() {
            Some(mut src) => {
                src.random_again(seed, limits);
                src
            }
            None => Source::random(seed, limits),
        };
        src = generate_only(self.property, src);
        self.drawn.clear();
        self.drawn.extend(src.choices().iter().map(|c| c.index));
        self.source = Some(src);
        &self.drawn
    }

    /// Whether the bound has reached the campaign's size limit.
    pub(super) fn at_full_size(&self) -> bool {
        self.bound >= self.limits.max_len
    }

    /// Where the size steps stand, from 0 (the first bound) to 1 (the
    /// campaign's size limit): [`WorkerConfig::size_start`] of a worker
    /// that goes on from here.
    pub(super) fn step(&self) -> f64 {
        let first = INITIAL_BOUND.min(self.limits.max_len).max(1);
        let steps = (self.limits.max_len.div_ceil(first))
            .next_power_of_two()
            .trailing_zeros();
        let done = (self.bound / first).max(1).ilog2();
        if steps == 0 || self.at_full_size() {
            1.0
        } else {
            f64::from(done) / f64::from(steps)
        }
    }

    /// Doubles the bound, up to the campaign's size limit.
    pub(super) fn grow(&mut self) {
        self.bound = (self.bound * 2).min(self.limits.max_len);
        self.max_choices.set(self.mutant_cap());
    }

    /// Mutants may grow past the fresh inputs' bound, but not without limit:
    /// a corpus of inputs of thousands of elements from the first minute
    /// would slow every later execution down. The cap grows with the bound.
    fn mutant_cap(&self) -> usize {
        (self.bound * MUTANT_CHOICES_PER_ELEMENT).clamp(1024, self.limits.max_choices)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(size_steps: bool, size_start: f64) -> WorkerConfig {
        let mut request: WorkerConfig = serde_json::from_str(
            r#"{"test_name":"t","mode":{"mode":"campaign"},"rng_seed":1,"runs":null,
                "time_ms":null,"timeout_ms":1,"rss_limit_mb":1,"corpus_dir":"c",
                "inflight_path":"i","cmp_mutations":true,"stop_on_failure":true}"#,
        )
        .unwrap();
        request.size_steps = size_steps;
        request.size_start = size_start;
        request
    }

    #[test]
    fn a_worker_starts_its_size_steps_where_its_request_says() {
        // From 4 to 4,096: ten doublings.
        assert_eq!(head_start(&request(true, 0.0), 4, 4096), 0);
        assert_eq!(head_start(&request(true, 0.5), 4, 4096), 5);
        assert_eq!(head_start(&request(true, 1.0), 4, 4096), 10);
        assert_eq!(head_start(&request(false, 1.0), 4, 4096), 0, "no steps");
    }
}
