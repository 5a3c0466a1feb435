//! Unit tests of the mutations, on hand-made inputs.

use super::*;
use crate::choice::char_index;
use crate::engine::sancov::IntCmp;
use crate::generate::Generate;
use crate::source::{IntDraw, Limits, Source};

/// The shape of the input that generates `value`, learned without tracing.
fn shape_of<T: Generate + 'static>(indices: &[u64]) -> Shape {
    let property = |src: &mut Source| {
        let _ = T::generate(src);
        Ok(())
    };
    Shape::learn(&property, indices, Limits::default(), false)
}

fn value_of<T: Generate>(indices: &[u64]) -> T {
    T::generate(&mut Source::replay(indices.to_vec(), Limits::default()))
}

#[test]
fn input_to_state_replaces_the_low_bytes_of_a_masked_comparison() {
    use crate::int::Int;
    // The program computed `x & 0xFFFF` (0x4242) and compared it with 0xBEEF.
    let value: i64 = 0x1234_5678_0000_4242;
    let draw = IntDraw {
        position: 0,
        domain: crate::choice::IntDomain::new(
            i64::MIN.to_ordinal(),
            i64::MAX.to_ordinal(),
            0i64.to_ordinal(),
        ),
        bits: 64,
        signed: true,
    };
    let mut indices = vec![draw.index_of(value as u64).unwrap()];
    assert_eq!(value_of::<i64>(&indices), value);
    let mut shape = shape_of::<i64>(&indices);
    shape.comparisons.ints = vec![IntCmp {
        a: 0x4242,
        b: 0xBEEF,
        size: 8,
    }];
    let mut mutator = ChoiceMutator::new(1, true);
    let mut tries = 0;
    while value_of::<i64>(&indices) != 0x1234_5678_0000_BEEF {
        tries += 1;
        assert!(
            tries < 50,
            "never replaced: {:#x}",
            value_of::<i64>(&indices)
        );
        mutator.input_to_state(&shape, &mut indices);
    }
}

#[test]
fn input_to_state_writes_a_compared_byte_string_into_a_string() {
    // "abcdef": a more-flag and a char per element.
    let mut indices = Vec::new();
    for c in "abcdef".chars() {
        indices.extend([1, char_index(c)]);
    }
    let mut shape = shape_of::<String>(&indices);
    shape.comparisons.bytes = vec![(b"cde".to_vec(), b"XYZ".to_vec())];
    let mut mutator = ChoiceMutator::new(1, true);
    let mut tries = 0;
    while value_of::<String>(&indices) != "abXYZf" {
        tries += 1;
        assert!(
            tries < 50,
            "never replaced: {:?}",
            value_of::<String>(&indices)
        );
        mutator.input_to_state(&shape, &mut indices);
    }
}

/// A campaign's limits: room for long runs.
fn long() -> Limits {
    Limits {
        max_len: 4096,
        ..Limits::default()
    }
}

#[test]
fn a_span_repeated_many_times_makes_a_long_run() {
    // [7]: a more-flag and a byte.
    let mut indices = vec![1, 7];
    let property = |src: &mut Source| {
        let _ = Vec::<u8>::generate(src);
        Ok(())
    };
    let shape = Shape::learn(&property, &indices, long(), false);
    let mut mutator = ChoiceMutator::new(3, false);
    let longest = (0..40)
        .map(|_| {
            let mut copy = indices.clone();
            mutator.repeat_span(&shape, &mut copy);
            Vec::<u8>::generate(&mut Source::replay(copy, long())).len()
        })
        .max()
        .unwrap();
    assert!(longest >= 256, "a run past 255 within 40 tries: {longest}");
    // Every copy is the same element.
    assert!(mutator.repeat_span(&shape, &mut indices));
    let value = Vec::<u8>::generate(&mut Source::replay(indices, long()));
    assert!(
        value.len() >= 4 && value.iter().all(|&b| b == 7),
        "{value:?}"
    );
}

#[test]
fn a_stretch_of_bytes_is_overwritten_with_one_byte() {
    let mut indices = Vec::new();
    for b in [1u8, 2, 3, 4, 5, 6] {
        indices.extend([1, u64::from(b)]);
    }
    let property = |src: &mut Source| {
        let _ = Vec::<u8>::generate(src);
        Ok(())
    };
    let shape = Shape::learn(&property, &indices, long(), false);
    let mut mutator = ChoiceMutator::new(1, false);
    assert!(mutator.overwrite_run(&shape, &mut indices));
    let value = Vec::<u8>::generate(&mut Source::replay(indices, long()));
    assert_eq!(value.len(), 6);
    let longest_run = value
        .chunk_by(|a, b| a == b)
        .map(<[u8]>::len)
        .max()
        .unwrap();
    assert!(longest_run >= 2, "{value:?}");
}

#[test]
fn a_compared_length_resizes_a_string() {
    let mut indices = Vec::new();
    for c in "abc".chars() {
        indices.extend([1, char_index(c)]);
    }
    let shape = shape_of::<String>(&indices);
    let mut mutator = ChoiceMutator::new(1, true);
    assert!(mutator.resize_run(&shape, &mut indices, 3, 7));
    assert_eq!(value_of::<String>(&indices), "abccccc");
    let shape = shape_of::<String>(&indices);
    assert!(mutator.resize_run(&shape, &mut indices, 7, 2));
    assert_eq!(value_of::<String>(&indices), "ab");
}

#[test]
fn tokens_are_inserted_into_strings() {
    let mut indices = Vec::new();
    for c in "ab".chars() {
        indices.extend([1, char_index(c)]);
    }
    let shape = shape_of::<String>(&indices);
    let mut mutator = ChoiceMutator::new(1, true);
    mutator.tokens.push(b"GET ".to_vec());
    assert!(mutator.insert_token(&shape, &mut indices));
    let value = value_of::<String>(&indices);
    assert!(value.contains("GET "), "{value}");
    assert_eq!(value.len(), 6);
}

#[test]
fn mutants_always_generate_a_value() {
    let mut indices = Vec::new();
    for n in 0..5u64 {
        indices.extend([1, n * 7]);
    }
    let shape = shape_of::<Vec<(u8, bool)>>(&indices);
    let mut mutator = ChoiceMutator::new(9, true);
    for _ in 0..2000 {
        let mut mutant = indices.clone();
        mutator.mutate(&shape, &mut mutant, Some((&shape, &indices)));
        let _: Vec<(u8, bool)> = value_of(&mutant);
    }
}
