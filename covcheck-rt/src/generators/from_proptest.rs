//! [`strategy()`]: values of any proptest [`Strategy`].
//!
//! A strategy makes its value from the random numbers of a proptest
//! [`TestRng`]. Here that RNG is proptest's `PassThrough` one, whose
//! "random" stream is a byte string given in advance (random words are read
//! from it little-endian), and the byte string is drawn from the choice
//! sequence like a `Vec<u8>`. So the value is a function of the choices, and
//! covcheck's mutator, shrinker and seeds work on it; proptest's own
//! shrinking (the value tree) is not used.
//!
//! Past the drawn bytes the stream goes on with the 32-bit word 1, not with
//! zeros as a `PassThrough` RNG does once its bytes run out: rand's uniform
//! sampling rejects a zero word for any range whose size is not a power of
//! two and draws again, so on an endless run of zeros `0..10u8` would never
//! return. The word 1 is never rejected and gives the low end of every range.
//!
//! In a random case the byte string is as long as the strategy needed on a
//! run of proptest's own (ChaCha) RNG, and its bytes are picked with
//! covcheck's value heuristics.

use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};

use super::byte_string;
use crate::generate::Generator;
use crate::rng::Rng;
use crate::source::Source;

/// The longest byte string a strategy gets (two choices a byte). A
/// strategy that reads more gets zeros past it.
const MAX_BYTES: usize = 16 * 1024;

/// How much of the word 1 follows the drawn bytes (see the module docs): as
/// much as the longest byte string, so that a strategy would have to read
/// twice that before it could meet the zeros past it.
const TAIL_BYTES: usize = MAX_BYTES;

/// How many times a filtered strategy (`prop_filter`) may retry within one
/// case before the case is rejected: as many as covcheck's own `filter`.
/// Proptest's default (65,536) would spend seconds on an input whose bytes
/// ran out, where every retry reads the same zeros.
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
/// The strategy draws its random numbers from a byte string drawn from the
/// choice sequence (at most 16 KiB), and the value is the strategy's first
/// value for them (`new_tree(..).current()`). Covcheck shrinks the bytes, not
/// the value: towards fewer bytes, and each towards 0. Past its bytes the
/// strategy reads the 32-bit word 1 over and over, which gives the low end of
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
    /// How many bytes the strategy reads on proptest's own RNG, seeded from
    /// `rng`: the length of a random case's byte string.
    fn bytes_wanted(&self, rng: &mut Rng) -> usize {
        let mut seed = [0u8; 32];
        for chunk in seed.chunks_mut(8) {
            chunk.copy_from_slice(&rng.next_u64().to_le_bytes());
        }
        let recorder = TestRng::from_seed(RngAlgorithm::Recorder, &seed);
        let mut runner = TestRunner::new_with_rng(self.config.clone(), recorder);
        let _ = self.strategy.new_tree(&mut runner);
        runner.bytes_used().len()
    }
}

impl<S: Strategy> Generator for FromStrategy<S> {
    type Value = S::Value;

    fn generate(&self, src: &mut Source) -> S::Value {
        let planned = src.plan(|rng| self.bytes_wanted(rng));
        let rng = TestRng::from_seed(
            RngAlgorithm::PassThrough,
            &stream(byte_string(src, MAX_BYTES, planned)),
        );
        let mut runner = TestRunner::new_with_rng(self.config.clone(), rng);
        match self.strategy.new_tree(&mut runner) {
            Ok(tree) => tree.current(),
            Err(reason) => crate::property::reject(&format!(
                "the proptest strategy rejected its input: {reason}"
            )),
        }
    }
}

/// The RNG's stream: the drawn bytes, zeros up to a whole word, then the
/// word 1 over and over (see the module docs).
fn stream(mut bytes: Vec<u8>) -> Vec<u8> {
    bytes.resize(bytes.len().next_multiple_of(4), 0);
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

    /// The choices of a byte string: a "more" flag and the byte, per byte.
    fn bytes(bytes: &[u64]) -> Vec<u64> {
        bytes.iter().flat_map(|&b| [1, b]).collect()
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
        // Every word of the drawn bytes is zero, which rand's sampling
        // rejects for these ranges; it goes on to the word 1 past them.
        let g = strategy(vec((0..10u8, 0..1000u32), 3..=3));
        assert_eq!(replay(&g, bytes(&[0; 64])), vec![(0, 0); 3]);
        // An odd number of bytes still leaves the tail's words aligned.
        assert_eq!(replay(&g, bytes(&[0; 7])), vec![(0, 0); 3]);
    }

    #[test]
    fn random_words_are_read_little_endian() {
        let value = replay(&strategy(any::<u32>()), bytes(&[0x78, 0x56, 0x34, 0x12]));
        assert_eq!(value, 0x1234_5678);
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
        // The byte strings are long enough for varied values.
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
            Source::replay(bytes(&[4]), Limits::default()),
            false,
        );
        assert_eq!(case.status, Status::Passed);
    }
}
