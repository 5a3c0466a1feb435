//! [`strategy()`]: values of any proptest [`Strategy`].
//!
//! A strategy makes its value from the random numbers of a proptest
//! [`TestRng`]. Here that RNG is proptest's `PassThrough` one, whose
//! "random" stream is a byte string given in advance, and the byte string is
//! a sequence of 32-bit words drawn from the choice sequence, each an
//! integer choice of its own, written out little-endian. So the value is a
//! function of the choices, and covcheck's mutator, shrinker and seeds work
//! on it; proptest's own shrinking (the value tree) is not used.
//!
//! Words rather than bytes, because the RNG is read a word at a time
//! (`next_u32`, or two words for `next_u64`): deleting a word keeps every
//! later read aligned, so the shrinker can drop one random number without
//! garbling all that follow; lowering a word lowers the number it is; and
//! input-to-state finds a compared value in the word it came from.
//!
//! Past the drawn words the stream goes on with the word 1, not with zeros as
//! a `PassThrough` RNG does once its bytes run out: rand's uniform sampling
//! rejects a zero word for any range whose size is not a power of two and
//! draws again, so on an endless run of zeros `0..10u8` would never return.
//! The word 1 is never rejected and gives the low end of every range.
//!
//! In a random case there are as many words as the strategy read on a run of
//! proptest's own (ChaCha) RNG, each picked with covcheck's value
//! heuristics.

use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};

use crate::generate::Generator;
use crate::rng::Rng;
use crate::source::{Source, label_of};

/// The most words a strategy gets (16 KiB; two choices a word).
const MAX_WORDS: usize = 4 * 1024;

/// How much of the word 1 follows the drawn words (see the module docs): as
/// much as the longest draw, so that a strategy would have to read twice
/// that before it could meet the zeros past it.
const TAIL_BYTES: usize = 4 * MAX_WORDS;

/// How many times a filtered strategy (`prop_filter`) may retry within one
/// case before the case is rejected: as many as covcheck's own `filter`.
/// Proptest's default (65,536) would spend seconds on an input whose words
/// ran out, where every retry reads the same word 1.
const LOCAL_REJECTS: u32 = 100;

/// Generates values with a proptest [`Strategy`], which makes a proptest
/// test's generation usable in a property unchanged. Needs covcheck-rt's
/// feature `proptest`.
///
/// ```
/// use covcheck_rt::covcheck;
/// use covcheck_rt::generators;
/// use proptest::collection::vec;
///
/// #[covcheck]
/// fn sorting_keeps_the_length(
///     #[generate(generators::strategy(vec(0..10u8, 1..5)))] mut digits: Vec<u8>,
/// ) {
///     let len = digits.len();
///     digits.sort();
///     assert_eq!(digits.len(), len);
/// }
/// # fn main() {}
/// ```
///
/// The strategy reads its random numbers from 32-bit words drawn from the
/// choice sequence (at most 4,096), and the value is the strategy's first
/// value for them (`new_tree(..).current()`). Covcheck shrinks the words, not
/// the value: towards fewer words, and each towards 0. Past its words the
/// strategy reads the word 1 over and over, which gives the low end of
/// ranges and sizes, the first alternative of a `prop_oneof!`, `false`, and 1
/// for a raw integer (`any::<u32>()`). A strategy that rejects its input
/// (a `prop_filter` that keeps refusing, 100 times within one case) rejects
/// the case, like [`crate::assume`].
///
/// Combinators that split the RNG (`prop_flat_map`, `prop_perturb`) give
/// each part half of the remaining bytes, so they need long inputs; prefer
/// `prop_map` and tuples where they do.
pub fn strategy<S: Strategy>(strategy: S) -> FromStrategy<S> {
    FromStrategy {
        strategy,
        config: Config {
            max_local_rejects: LOCAL_REJECTS,
            ..Config::default()
        },
    }
}

/// See [`strategy()`].
pub struct FromStrategy<S> {
    strategy: S,
    config: Config,
}

impl<S: Strategy> FromStrategy<S> {
    /// How many words the strategy reads on proptest's own RNG, seeded from
    /// `rng`: how many a random case draws.
    fn words_wanted(&self, rng: &mut Rng) -> usize {
        let mut seed = [0u8; 32];
        for chunk in seed.chunks_mut(8) {
            chunk.copy_from_slice(&rng.next_u64().to_le_bytes());
        }
        let recorder = TestRng::from_seed(RngAlgorithm::Recorder, &seed);
        let mut runner = TestRunner::new_with_rng(self.config.clone(), recorder);
        let _ = self.strategy.new_tree(&mut runner);
        runner.bytes_used().len().div_ceil(4)
    }
}

impl<S: Strategy> Generator for FromStrategy<S> {
    type Value = S::Value;

    fn generate(&self, src: &mut Source) -> S::Value {
        let planned = src.plan(|rng| self.words_wanted(rng));
        let rng = TestRng::from_seed(RngAlgorithm::PassThrough, &stream(src, planned));
        let mut runner = TestRunner::new_with_rng(self.config.clone(), rng);
        match self.strategy.new_tree(&mut runner) {
            Ok(tree) => tree.current(),
            Err(reason) => crate::property::reject(&format!(
                "the proptest strategy rejected its input: {reason}"
            )),
        }
    }
}

/// The RNG's stream: the drawn words, little-endian, then the word 1 over
/// and over (see the module docs). Each word is a "more" flag and a `u32`
/// choice, one span, like the elements of a `Vec<u32>`.
fn stream(src: &mut Source, planned: Option<usize>) -> Vec<u8> {
    let mut bytes = Vec::new();
    src.collection(0, MAX_WORDS, planned, label_of::<u32>(), |src, _| {
        bytes.extend_from_slice(&src.draw_int(0, u32::MAX).to_le_bytes());
    });
    bytes.extend_from_slice(&TAIL);
    bytes
}

/// The word 1, little-endian, over and over: built once, copied per case.
static TAIL: [u8; TAIL_BYTES] = {
    let mut tail = [0; TAIL_BYTES];
    let mut i = 0;
    while i < TAIL_BYTES {
        tail[i] = 1;
        i += 4;
    }
    tail
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::property::{Status, execute};
    use crate::source::Limits;
    use proptest::collection::vec;
    use proptest::prelude::{Just, any, prop_oneof};

    fn replay<S: Strategy>(generator: &FromStrategy<S>, indices: Vec<u64>) -> S::Value {
        generator.generate(&mut Source::replay(indices, Limits::default()))
    }

    /// The choices of `words`: a "more" flag and the word, per word.
    fn words(words: &[u64]) -> Vec<u64> {
        words.iter().flat_map(|&w| [1, w]).collect()
    }

    #[test]
    fn no_choices_give_the_simplest_value() {
        assert_eq!(replay(&strategy(vec(0..10u8, 1..5)), vec![]), vec![0]);
        let either = strategy(prop_oneof![Just('x'), Just('y')]);
        assert_eq!(replay(&either, vec![]), 'x');
        let raw = strategy((any::<bool>(), any::<u32>(), 3..=7u64));
        assert_eq!(replay(&raw, vec![]), (false, 1, 3));
    }

    #[test]
    fn zero_bytes_do_not_stall_range_sampling() {
        // Every drawn word is zero, which rand's sampling rejects for these
        // ranges; it goes on to the word 1 past them.
        let g = strategy(vec((0..10u8, 0..1000u32), 3..=3));
        assert_eq!(replay(&g, words(&[0; 16])), vec![(0, 0); 3]);
    }

    #[test]
    fn each_random_number_is_a_word() {
        let value = replay(&strategy(any::<u32>()), words(&[0x1234_5678]));
        assert_eq!(value, 0x1234_5678);
        // A u64 is two words, the low one first.
        let value = replay(&strategy(any::<u64>()), words(&[2, 1]));
        assert_eq!(value, (1 << 32) | 2);
    }

    #[test]
    fn deleting_a_word_keeps_the_later_ones_aligned() {
        // The first word is the length (one possible length here).
        let g = strategy(vec(any::<u32>(), 3..=3));
        assert_eq!(replay(&g, words(&[0, 7, 8, 9])), vec![7, 8, 9]);
        assert_eq!(replay(&g, words(&[0, 7, 9])), vec![7, 9, 1]);
    }

    #[test]
    fn a_random_case_replays_to_the_same_value() {
        let generator = strategy(vec((0..1000u32, any::<bool>()), 0..20));
        let mut lengths = Vec::new();
        for seed in 0..50 {
            let mut src = Source::random(seed, Limits::default());
            let value = generator.generate(&mut src);
            let indices = src.choices().iter().map(|c| c.index).collect();
            assert_eq!(replay(&generator, indices), value, "seed {seed}");
            lengths.push(value.len());
        }
        // There are enough words for varied values.
        assert!(
            lengths.iter().filter(|&&n| n > 5).count() > 10,
            "{lengths:?}"
        );
    }

    #[test]
    fn a_rejecting_strategy_rejects_the_case() {
        let generator = strategy(any::<u8>().prop_filter("even", |n| n % 2 == 0));
        let property = |src: &mut Source| {
            generator.generate(src);
            Ok(())
        };
        // Past the end every retry reads 1, which the filter refuses.
        let case = execute(&property, Source::replay(vec![], Limits::default()), false);
        let Status::Rejected(reason) = case.status else {
            panic!("{:?}", case.status);
        };
        assert!(reason.contains("proptest strategy rejected"), "{reason}");
        let case = execute(
            &property,
            Source::replay(words(&[4]), Limits::default()),
            false,
        );
        assert_eq!(case.status, Status::Passed);
    }
}
