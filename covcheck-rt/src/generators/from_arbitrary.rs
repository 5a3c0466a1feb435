//! [`arbitrary()`]: values of any type that implements
//! [`arbitrary::Arbitrary`], the input type of a cargo-fuzz target.
//!
//! `Arbitrary` builds a value from a byte string through
//! [`arbitrary::Unstructured`]. Here that byte string is drawn from the
//! choice sequence like a `Vec<u8>` (up to the size bound, `size`), and the
//! value is `T::arbitrary_take_rest` of it. So the value is a function of the
//! choices: the campaign mutates its bytes (input-to-state finds a compared
//! integer's little-endian bytes there, which is how `Arbitrary` reads
//! integers), the shrinker deletes and lowers them, and a seed replays it.
//! Bytes the value does not need are left over and shrunk away; a value that
//! needs more than there are reads zeros, as `Unstructured` does.

use std::fmt::Debug;
use std::marker::PhantomData;

use ::arbitrary::{Arbitrary, Unstructured};

use crate::generate::Generator;
use crate::heuristics;
use crate::source::{Source, label_of};

/// Generates any `T` with its [`arbitrary::Arbitrary`] implementation,
/// which makes a cargo-fuzz target's input type usable in a property
/// unchanged. Needs covcheck-rt's feature `arbitrary`.
///
/// ```
/// use covcheck_rt::covcheck;
/// use covcheck_rt::generators;
///
/// // Any `Arbitrary` type: most often one with `#[derive(arbitrary::Arbitrary)]`.
/// #[covcheck]
/// fn packets_parse(#[generate(generators::arbitrary())] packet: (u16, Vec<u8>)) {
///     let (port, body) = packet;
///     let _ = (port, body.len());
/// }
/// # fn main() {}
/// ```
///
/// The value is `T::arbitrary_take_rest` of a byte string drawn from the
/// choice sequence like a `Vec<u8>`: at most as many bytes as
/// `T::size_hint` says `T` reads, or, when it gives no upper bound, at most
/// `size` (raise it for types that need long inputs). It shrinks towards
/// what `Arbitrary` makes of fewer and smaller bytes: all-zero bytes, or
/// none, give `0`, `false`, empty collections and the first enum variant.
/// When `Arbitrary` refuses the bytes (`IncorrectFormat`, or any other
/// error), the case is rejected, like [`crate::assume`].
pub fn arbitrary<T>() -> FromArbitrary<T>
where
    T: for<'a> Arbitrary<'a> + Debug,
{
    FromArbitrary {
        size_hint: T::size_hint(0),
        value: PhantomData,
    }
}

/// See [`arbitrary()`].
pub struct FromArbitrary<T> {
    /// How many bytes `T` says it reads: at least `.0`, at most `.1`.
    size_hint: (usize, Option<usize>),
    value: PhantomData<fn() -> T>,
}

impl<T> Generator for FromArbitrary<T>
where
    T: for<'a> Arbitrary<'a>,
{
    type Value = T;

    fn generate(&self, src: &mut Source) -> T {
        // A type that reads a bounded number of bytes may have them all,
        // whatever the size bound, and a random case gets a length within
        // its bounds (the heuristic lengths, clamped). Bytes read past the
        // end are zeros that no mutation can target (input-to-state finds a
        // compared value only among the drawn bytes), and a campaign that
        // starts with a small size bound would otherwise keep only short
        // inputs of such a type: a longer input down the same path adds no
        // coverage.
        let (max, planned) = match self.size_hint {
            (min, Some(max)) => {
                let max = max.max(min);
                (max, src.plan(|rng| heuristics::length(rng, min, max)))
            }
            (_, None) => (usize::MAX, None),
        };
        let bytes = byte_string(src, max, planned);
        T::arbitrary_take_rest(Unstructured::new(&bytes)).unwrap_or_else(|error| {
            crate::property::reject(&format!(
                "`<{} as arbitrary::Arbitrary>::arbitrary_take_rest` refused its bytes: {error}",
                std::any::type_name::<T>()
            ))
        })
    }
}

/// A byte string drawn exactly as a `Vec<u8>` is: a "more" flag, then an
/// 8-bit integer, per byte. The campaign mutator treats such a run as a byte
/// vector (input-to-state writes compared integers into it, little- or
/// big-endian; dictionary tokens land in it), and the shrinker deletes bytes
/// and lowers each towards 0. `max` is honoured as given (`usize::MAX`: the
/// size bound); `planned` fixes the length of a random case.
fn byte_string(src: &mut Source, max: usize, planned: Option<usize>) -> Vec<u8> {
    let mut bytes = Vec::new();
    src.collection(0, max, planned, label_of::<u8>(), |src, _| {
        bytes.push(src.draw_int(0, u8::MAX));
    });
    bytes
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::property::{Status, execute};
    use crate::source::Limits;

    // Written out rather than derived: covcheck-rt does not build
    // arbitrary's derive. They read what the derive would.
    #[derive(Debug, PartialEq)]
    enum Kind {
        Read,
        Write,
    }

    impl<'a> Arbitrary<'a> for Kind {
        fn arbitrary(u: &mut Unstructured<'a>) -> ::arbitrary::Result<Self> {
            Ok(if u.arbitrary()? {
                Kind::Write
            } else {
                Kind::Read
            })
        }
    }

    #[derive(Debug, PartialEq)]
    struct Command {
        kind: Kind,
        len: u16,
        payload: Vec<u8>,
    }

    impl<'a> Arbitrary<'a> for Command {
        fn arbitrary(u: &mut Unstructured<'a>) -> ::arbitrary::Result<Self> {
            Ok(Command {
                kind: u.arbitrary()?,
                len: u.arbitrary()?,
                payload: u.arbitrary()?,
            })
        }

        fn arbitrary_take_rest(mut u: Unstructured<'a>) -> ::arbitrary::Result<Self> {
            Ok(Command {
                kind: u.arbitrary()?,
                len: u.arbitrary()?,
                payload: Vec::arbitrary_take_rest(u)?,
            })
        }
    }

    fn replay(generator: &FromArbitrary<Command>, indices: Vec<u64>) -> Command {
        generator.generate(&mut Source::replay(indices, Limits::default()))
    }

    #[test]
    fn no_choices_give_the_simplest_value() {
        let simplest = Command {
            kind: Kind::Read,
            len: 0,
            payload: vec![],
        };
        assert_eq!(replay(&arbitrary(), vec![]), simplest);
    }

    #[test]
    fn bytes_are_read_as_arbitrary_reads_them() {
        // Each byte is a "more" flag (1) and the byte: an odd byte is
        // `true`, `len` is little-endian, and the last field takes the rest,
        // each element after an odd byte that says one more follows.
        let bytes = [1u64, 0x34, 0x12, 1, 7, 3, 8, 0];
        let indices = bytes.iter().flat_map(|&b| [1, b]).collect();
        let command = replay(&arbitrary(), indices);
        assert_eq!(
            command,
            Command {
                kind: Kind::Write,
                len: 0x1234,
                payload: vec![7, 8],
            }
        );
    }

    #[test]
    fn a_random_case_replays_to_the_same_value() {
        let generator = arbitrary::<Command>();
        for seed in 0..50 {
            let mut src = Source::random(seed, Limits::default());
            let value = generator.generate(&mut src);
            let indices = src.choices().iter().map(|c| c.index).collect();
            assert_eq!(replay(&generator, indices), value, "seed {seed}");
        }
    }

    #[test]
    fn a_bounded_type_gets_all_its_bytes_whatever_the_size_bound() {
        let tiny = Limits {
            max_len: 2,
            ..Limits::default()
        };
        let generator = arbitrary::<[u8; 8]>();
        let values: Vec<[u8; 8]> = (0..50)
            .map(|seed| generator.generate(&mut Source::random(seed, tiny)))
            .collect();
        // (The last element is `u8::arbitrary_take_rest` of what the array's
        // `arbitrary` left, nothing: arbitrary 1.5 reads arrays so.)
        assert!(values.iter().any(|v| v[6] != 0), "{values:?}");
    }

    #[derive(Debug)]
    struct Even;

    impl<'a> Arbitrary<'a> for Even {
        fn arbitrary(u: &mut Unstructured<'a>) -> ::arbitrary::Result<Self> {
            let n = u8::arbitrary(u)?;
            if n % 2 == 0 {
                Ok(Even)
            } else {
                Err(::arbitrary::Error::IncorrectFormat)
            }
        }
    }

    #[test]
    fn a_refused_input_rejects_the_case() {
        let generator = arbitrary::<Even>();
        let property = |src: &mut Source| {
            generator.generate(src);
            Ok(())
        };
        let case = execute(
            &property,
            Source::replay(vec![1, 3], Limits::default()),
            false,
        );
        let Status::Rejected(reason) = case.status else {
            panic!("{:?}", case.status);
        };
        assert!(reason.contains("refused its bytes"), "{reason}");
        let case = execute(
            &property,
            Source::replay(vec![1, 4], Limits::default()),
            false,
        );
        assert_eq!(case.status, Status::Passed);
    }
}
