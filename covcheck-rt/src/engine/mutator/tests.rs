//! Unit tests of the mutations, on hand-made inputs.

use super::stored::Stored;
use super::*;
use crate::choice::char_index;
use crate::engine::sancov::IntCmp;
use crate::generate::Generate;
use crate::source::{IntDraw, Limits, Source, nested};

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
    use crate::int::Ordinal;
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
    assert!(mutator.resize_run(&Stored::read(&shape, &indices), &mut indices, 3, 7));
    assert_eq!(value_of::<String>(&indices), "abccccc");
    let shape = shape_of::<String>(&indices);
    assert!(mutator.resize_run(&Stored::read(&shape, &indices), &mut indices, 7, 2));
    assert_eq!(value_of::<String>(&indices), "ab");
}

/// The choices of `text` as a `String`.
fn string_choices(text: &str) -> Vec<u64> {
    text.chars().flat_map(|c| [1, char_index(c)]).collect()
}

/// The choices of `bytes` as a `Vec<u8>`.
fn byte_choices(bytes: &[u8]) -> Vec<u64> {
    bytes.iter().flat_map(|&b| [1, u64::from(b)]).collect()
}

#[test]
fn byte_runs_read_into_a_used_buffer_are_the_runs_read_afresh() {
    type Three = (String, String, String);
    let runs_of = |text: [&str; 3]| -> Vec<u64> {
        text.iter()
            .flat_map(|t| string_choices(t).into_iter().chain([0]))
            .collect()
    };
    let mut buffer = Vec::new();
    for text in [
        ["wxyz", "uv", "t"],
        ["ab", "\u{e9}", "cde"],
        ["", "", "f"],
        ["", "", ""],
    ] {
        let indices = runs_of(text);
        let shape = shape_of::<Three>(&indices);
        bytes::byte_runs_into(&shape, &indices, &mut buffer);
        assert_eq!(buffer, bytes::byte_runs(&shape, &indices), "{text:?}");
    }
    assert!(buffer.is_empty());
}

/// The values `mutate` makes of `indices` over `tries` seeds.
fn mutants<T: Generate>(
    indices: &[u64],
    tries: u64,
    mut mutate: impl FnMut(&mut ChoiceMutator, &mut Vec<u64>) -> bool,
) -> Vec<T> {
    (0..tries)
        .filter_map(|seed| {
            let mut mutator = ChoiceMutator::new(seed, true);
            let mut copy = indices.to_vec();
            mutate(&mut mutator, &mut copy).then(|| value_of::<T>(&copy))
        })
        .collect()
}

#[test]
fn tokens_are_inserted_into_strings_or_written_over_them() {
    let indices = string_choices("ab");
    let shape = shape_of::<String>(&indices);
    let values: Vec<String> = mutants(&indices, 40, |m, i| {
        m.tokens.push(b"GET ".to_vec());
        m.write_token(&shape, i)
    });
    assert!(values.iter().all(|v| v.contains("GET ")), "{values:?}");
    assert!(values.iter().any(|v| v.len() == 6), "inserted: {values:?}");
    assert!(
        values.iter().any(|v| v.len() < 6),
        "written over: {values:?}"
    );
}

#[test]
fn literals_of_the_crate_are_tokens_too() {
    let indices = byte_choices(b"xy");
    let shape = shape_of::<Vec<u8>>(&indices);
    let values: Vec<Vec<u8>> = mutants(&indices, 20, |m, i| {
        m.literals.push(b"\x89PNG".to_vec());
        m.write_token(&shape, i)
    });
    assert!(!values.is_empty() && values.iter().all(|v| v.windows(4).any(|w| w == b"\x89PNG")));
}

#[test]
fn a_property_s_own_tokens_are_half_of_the_dictionary_s() {
    let indices = byte_choices(b"xy");
    let shape = shape_of::<Vec<u8>>(&indices);
    let values: Vec<Vec<u8>> = mutants(&indices, 200, |m, i| {
        m.literals.push(b"FROBNITZ".to_vec());
        m.literals
            .extend((0..100).map(|n| format!("literal{n}").into_bytes()));
        m.own_tokens = 1;
        m.write_token(&shape, i)
    });
    let own = values
        .iter()
        .filter(|v| v.windows(8).any(|w| w == b"FROBNITZ"))
        .count();
    assert!(
        (70..=130).contains(&own),
        "{own} of {} wrote the own token",
        values.len()
    );
}

#[test]
fn written_dictionary_tokens_are_noted_for_the_coverage_they_lead_to() {
    let indices = byte_choices(b"xy");
    let shape = shape_of::<Vec<u8>>(&indices);
    let mut mutator = ChoiceMutator::new(3, true);
    mutator.literals = vec![b"GET ".to_vec(), b"POST".to_vec()];
    mutator.tokens = vec![b"seen".to_vec()];
    for _ in 0..100 {
        let mut copy = indices.clone();
        mutator.written.clear();
        let wrote = mutator.write_token(&shape, &mut copy);
        let value: Vec<u8> = value_of(&copy);
        let literal = [b"GET ", b"POST"]
            .iter()
            .position(|t| value.windows(4).any(|w| w == *t));
        // A byte string from a comparison is no dictionary token.
        assert_eq!(mutator.written, literal.into_iter().collect::<Vec<_>>());
        assert!(wrote);
    }
    let mut copy = indices.clone();
    mutator.written = vec![1];
    mutator.mutate(&shape, &mut copy, None);
    assert!(
        mutator.written.iter().all(|&at| at < 2),
        "each mutation starts afresh"
    );
}

#[test]
fn digits_and_printable_text_are_written_into_strings() {
    let indices = string_choices("abcd");
    let shape = shape_of::<String>(&indices);
    let values: Vec<String> = mutants(&indices, 200, |m, i| m.write_text(&shape, i));
    let with_digits = values
        .iter()
        .filter(|v| v.bytes().any(|b| b.is_ascii_digit()))
        .count();
    assert!(
        with_digits > 40,
        "{with_digits} of {}: {values:?}",
        values.len()
    );
    assert!(
        values
            .iter()
            .any(|v| v.contains("4294967296") || v.contains("9223372036854775808"))
    );
    assert!(values.iter().all(|v| v.is_ascii()));
}

#[test]
fn a_char_gets_another_utf8_width() {
    let indices = string_choices("abc");
    let shape = shape_of::<String>(&indices);
    let values: Vec<String> = mutants(&indices, 60, |m, i| m.utf8_width(&shape, i));
    let widths: std::collections::BTreeSet<usize> = values
        .iter()
        .flat_map(|v| v.chars().map(char::len_utf8).collect::<Vec<_>>())
        .collect();
    assert_eq!(widths, [1, 2, 3, 4].into(), "{values:?}");
    assert!(values.iter().all(|v| v.chars().count() == 3));
}

#[test]
fn part_of_a_byte_vector_is_copied_within_it_and_from_another_entry() {
    let indices = byte_choices(b"abcdef");
    let shape = shape_of::<Vec<u8>>(&indices);
    let copies: Vec<Vec<u8>> = mutants(&indices, 40, |m, i| m.copy_within(&shape, i));
    assert!(copies.iter().any(|v| v.len() > 6), "inserted: {copies:?}");
    assert!(
        copies
            .iter()
            .all(|v| v.iter().all(|b| b"abcdef".contains(b)))
    );
    let donor = byte_choices(b"XYZ");
    let donor_shape = shape_of::<Vec<u8>>(&donor);
    let crossed: Vec<Vec<u8>> = mutants(&indices, 40, |m, i| {
        m.crossover(&shape, i, (&donor_shape, &donor))
    });
    assert!(!crossed.is_empty());
    assert!(
        crossed.iter().all(|v| v.iter().any(|b| b"XYZ".contains(b))),
        "{crossed:?}"
    );
}

#[test]
fn input_to_state_patches_a_big_endian_field_in_bytes() {
    // A stored big-endian u32 checksum 0x01020304 after two payload bytes,
    // compared (as a u32) with the computed 0xCAFEBABE.
    let indices = byte_choices(&[9, 9, 1, 2, 3, 4]);
    let mut shape = shape_of::<Vec<u8>>(&indices);
    shape.comparisons.ints = vec![IntCmp {
        a: 0x0102_0304,
        b: 0xCAFE_BABE,
        size: 4,
    }];
    let values: Vec<Vec<u8>> = mutants(&indices, 40, |m, i| m.input_to_state(&shape, i));
    assert!(
        values.contains(&vec![9, 9, 0xCA, 0xFE, 0xBA, 0xBE]),
        "{values:?}"
    );
}

#[test]
fn input_to_state_skips_its_dead_ends_and_draws_what_searching_them_would() {
    // No operand of these comparisons is anywhere in the input.
    let indices = byte_choices(&[9, 9, 9, 9]);
    let mut shape = shape_of::<Vec<u8>>(&indices);
    shape.comparisons.ints = vec![
        IntCmp {
            a: 1000,
            b: 2000,
            size: 8,
        },
        IntCmp {
            a: 70_000,
            b: 80_000,
            size: 4,
        },
    ];
    shape.comparisons.bytes = vec![(b"ab".to_vec(), b"cd".to_vec())];
    let mut remembering = ChoiceMutator::new(7, true);
    let mut searching = ChoiceMutator::new(7, true);
    let stored = Stored::read(&shape, &indices);
    for _ in 0..3 {
        let mut copy = indices.clone();
        assert!(!remembering.input_to_state(&shape, &mut copy));
        assert_eq!(copy, indices);
        // The same tries, each searched in full.
        for _ in 0..16 {
            let pick = searching.rng.index(3);
            let forward = searching.rng.percent(50);
            assert!(!searching.try_comparison(&shape, &stored, &mut copy, pick, forward));
        }
    }
    assert_eq!(remembering.dead_ends.len(), 6, "every try is a dead end");
    assert_eq!(remembering.rng.next_u64(), searching.rng.next_u64());
}

#[test]
fn input_to_state_rewrites_a_number_in_text() {
    let indices = string_choices("len=123;");
    let mut shape = shape_of::<String>(&indices);
    shape.comparisons.ints = vec![IntCmp {
        a: 123,
        b: 65536,
        size: 8,
    }];
    let values: Vec<String> = mutants(&indices, 40, |m, i| m.input_to_state(&shape, i));
    assert!(values.contains(&"len=65536;".to_string()), "{values:?}");
}

#[derive(Debug, PartialEq)]
enum Op {
    Push(u8),
    Pop,
}

impl Generate for Op {
    fn generate(src: &mut Source) -> Self {
        nested(src, 0x0b, |src| match src.draw_variant(2, 2) {
            0 => Op::Pop,
            _ => Op::Push(u8::generate(src)),
        })
    }
}

#[test]
fn swarm_makes_every_operation_one_variant_with_its_fields() {
    // push 5, pop, push 6, pop, pop
    let mut indices = Vec::new();
    for op in [Some(5u64), None, Some(6), None, None] {
        indices.push(1);
        match op {
            Some(x) => indices.extend([1, x]),
            None => indices.push(0),
        }
    }
    assert_eq!(value_of::<Vec<Op>>(&indices)[..2], [Op::Push(5), Op::Pop]);
    let shape = shape_of::<Vec<Op>>(&indices);
    let values: Vec<Vec<Op>> = mutants(&indices, 40, |m, i| m.swarm(&shape, i));
    assert!(values.iter().all(|v| v.len() == 5), "{values:?}");
    assert!(
        values
            .iter()
            .any(|v| v.iter().all(|op| matches!(op, Op::Push(5 | 6)))),
        "{values:?}"
    );
    assert!(
        values.iter().any(|v| v.iter().all(|op| *op == Op::Pop)),
        "{values:?}"
    );
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

#[test]
fn rearranging_swaps_moves_and_copies_operations_of_different_sizes() {
    // push 5, pop, push 6: the pushes' spans are longer than the pop's.
    let indices = vec![1, 1, 5, 1, 0, 1, 1, 6];
    assert_eq!(
        value_of::<Vec<Op>>(&indices),
        [Op::Push(5), Op::Pop, Op::Push(6)]
    );
    let shape = shape_of::<Vec<Op>>(&indices);
    let values: Vec<Vec<Op>> = mutants(&indices, 200, |m, i| m.rearrange_spans(&shape, i));
    let seen = |expected: &[Op]| values.iter().any(|v| v == expected);
    // A swap of a push with the pop, a move of the pop to the front, and a
    // copy of a push before another.
    assert!(seen(&[Op::Pop, Op::Push(5), Op::Push(6)]), "{values:?}");
    assert!(seen(&[Op::Push(5), Op::Push(6), Op::Pop]), "{values:?}");
    assert!(
        seen(&[Op::Push(5), Op::Push(5), Op::Pop, Op::Push(6)]),
        "{values:?}"
    );
}

#[test]
fn mutants_of_a_stateful_sequence_meet_every_precondition() {
    use crate::stateful::Commands;
    use crate::tests::stateful::{FullPopBug, preconditions_hold};
    // push 1, push 2, pop, peek: each step a `More` flag, then the try's
    // variant and its field.
    let indices = vec![1, 0, 1, 1, 0, 2, 1, 1, 1, 2];
    assert_eq!(
        value_of::<Commands<FullPopBug>>(&indices).commands().len(),
        4
    );
    let shape = shape_of::<Commands<FullPopBug>>(&indices);
    let mut mutator = ChoiceMutator::new(30, true);
    let mut lengths = std::collections::BTreeSet::new();
    for _ in 0..3000 {
        let mut mutant = indices.clone();
        mutator.mutate(&shape, &mut mutant, Some((&shape, &indices)));
        let commands = value_of::<Commands<FullPopBug>>(&mutant);
        assert!(preconditions_hold(commands.commands()), "{commands:?}");
        lengths.insert(commands.commands().len());
    }
    assert!(lengths.len() > 3, "mutants of many lengths: {lengths:?}");
}

#[test]
fn a_stored_checksum_is_a_sum_and_a_magic_number_elsewhere_is_not() {
    // Two payload bytes and a big-endian checksum 0x01020304; the code
    // found it equal to what it computed, and also compared 0x7777 (stored
    // nowhere) with itself.
    let indices = byte_choices(&[9, 9, 1, 2, 3, 4]);
    let mut shape = shape_of::<Vec<u8>>(&indices);
    let equal = |a, size| IntCmp { a, b: a, size };
    shape.comparisons.equal = vec![
        equal(0x0102_0304, 4),
        equal(0x7777, 2),
        equal(0x0102_0304, 4),
    ];
    assert_eq!(
        super::sums::stored_sums(&shape, &super::sums::InputValues::read(&shape, &indices)),
        [Sum {
            compared: 0x0102_0304,
            size: 4
        }]
    );
}

#[test]
fn a_mutant_stores_the_checksum_its_code_computed_after_repair() {
    // The entry stored 0x01020304 and its code computed the same. The
    // mutant changed the payload: its code computed 0xCAFEBABE instead,
    // and made an unrelated comparison first.
    let sums = [Sum {
        compared: 0x0102_0304,
        size: 4,
    }];
    let mutant = byte_choices(&[7, 9, 1, 2, 3, 4]);
    let mut shape = shape_of::<Vec<u8>>(&mutant);
    shape.comparisons.ints = vec![
        IntCmp {
            a: 7,
            b: 0xA5,
            size: 1,
        },
        IntCmp {
            a: 0xCAFE_BABE,
            b: 0x0102_0304,
            size: 4,
        },
    ];
    let repaired: Vec<Vec<u8>> = mutants(&mutant, 5, |m, i| {
        !m.repair_sums(&sums, &shape, i).is_empty()
    });
    assert_eq!(repaired, vec![vec![7, 9, 0xCA, 0xFE, 0xBA, 0xBE]; 5]);

    // A mutant whose sums all still hold needs no repair.
    shape.comparisons.ints.truncate(1);
    assert!(
        mutants::<Vec<u8>>(&mutant, 5, |m, i| !m
            .repair_sums(&sums, &shape, i)
            .is_empty())
        .is_empty()
    );
}

#[test]
fn a_checksum_in_a_typed_field_is_repaired_too() {
    let sums = [Sum {
        compared: 500,
        size: 4,
    }];
    let mutant: Vec<u64> = {
        let mut indices = byte_choices(&[1, 2]);
        indices.push(0); // end of the payload
        let draw_of_500 = (0..1_000_000)
            .find(|&i| value_of::<(Vec<u8>, u32)>(&[indices.clone(), vec![i]].concat()).1 == 500)
            .unwrap();
        indices.push(draw_of_500);
        indices
    };
    let mut shape = shape_of::<(Vec<u8>, u32)>(&mutant);
    shape.comparisons.ints = vec![IntCmp {
        a: 500,
        b: 71_234,
        size: 4,
    }];
    let repaired: Vec<(Vec<u8>, u32)> = mutants(&mutant, 3, |m, i| {
        !m.repair_sums(&sums, &shape, i).is_empty()
    });
    assert_eq!(repaired, vec![(vec![1, 2], 71_234); 3]);
}

#[test]
fn integer_literals_of_the_crate_are_written_into_integer_draws_with_both_signs() {
    let indices = vec![7];
    let shape = shape_of::<u32>(&indices);
    let values: Vec<u32> = mutants(&indices, 400, |m, i| {
        m.literals = vec![b"GET ".to_vec(), b"40503".to_vec()];
        m.interesting(&shape, i)
    });
    assert!(values.contains(&40503), "{values:?}");
    assert!(values.contains(&40503u32.wrapping_neg()), "{values:?}");
    let signed_shape = shape_of::<i64>(&[0]);
    let signed: Vec<i64> = mutants(&[0], 400, |m, i| {
        m.literals = vec![b"40503".to_vec()];
        m.interesting(&signed_shape, i)
    });
    assert!(
        signed.contains(&40503) && signed.contains(&-40503),
        "{signed:?}"
    );
}

/// CRC-32/ISO-HDLC, as the XOR-form tests compute it.
fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &byte in bytes {
        crc ^= u32::from(byte);
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

/// The comparison a CRC check of `frame` (its body, then the big-endian
/// CRC) makes once LLVM folds the final NOT: `stored ^ !crc` against
/// `0xFFFFFFFF`, the constant first.
fn folded_crc_check(frame: &[u8]) -> IntCmp {
    let (body, stored) = frame.split_at(frame.len() - 4);
    let stored = u32::from_be_bytes(stored.try_into().unwrap());
    IntCmp {
        a: 0xFFFF_FFFF,
        b: u64::from(stored ^ !crc32(body)),
        size: 4,
    }
}

#[test]
fn a_failed_comparison_with_a_constant_is_a_miss_stored_or_not() {
    let indices = byte_choices(&[0x11, 0x22, 0x33, 0x44, 0x55]);
    let mut shape = shape_of::<Vec<u8>>(&indices);
    shape.comparisons.constants = vec![
        // Held: no miss, but it counts for `nth`.
        IntCmp {
            a: 0x1000,
            b: 0x1000,
            size: 2,
        },
        // The stored big-endian 0x2233 missed 0x1000.
        IntCmp {
            a: 0x1000,
            b: 0x2233,
            size: 2,
        },
        // Stored nowhere, and at least 256: maybe a checksum.
        IntCmp {
            a: 0xFFFF_FFFF,
            b: 0xDEAD_BEEF,
            size: 4,
        },
        // Stored nowhere and small: a counter, no miss.
        IntCmp {
            a: 0xFFFF_FFFF,
            b: 7,
            size: 4,
        },
    ];
    let values = super::sums::InputValues::read(&shape, &indices);
    let misses = super::xor_sums::misses(&shape, &values);
    let found: Vec<(u64, usize, bool)> =
        misses.iter().map(|m| (m.cmp.b, m.nth, m.stored)).collect();
    assert_eq!(found, [(0x2233, 1, true), (0xDEAD_BEEF, 0, false)]);
}

#[test]
fn an_xor_solve_makes_a_folded_crc_check_hold_in_some_window() {
    // A body and a wrong big-endian CRC; the solve picks a window at
    // random, so over many seeds one is the CRC's own.
    let mut frame = vec![0xA5, 0x01, 0x02];
    frame.extend(0x1234_5678u32.to_be_bytes());
    let indices = byte_choices(&frame);
    let mut shape = shape_of::<Vec<u8>>(&indices);
    shape.comparisons.constants = vec![folded_crc_check(&frame)];
    let values = super::sums::InputValues::read(&shape, &indices);
    shape.misses = super::xor_sums::misses(&shape, &values);
    let solved: Vec<Vec<u8>> = mutants(&indices, 64, |m, i| m.xor_solve(&shape, i));
    let right: Vec<&Vec<u8>> = solved
        .iter()
        .filter(|f| folded_crc_check(f).b == 0xFFFF_FFFF)
        .collect();
    assert!(!right.is_empty(), "{solved:?}");
    assert!(right.iter().all(|f| f[..3] == frame[..3]), "{right:?}");
}

#[test]
fn a_repaired_xor_sum_is_rewritten_where_the_entry_stored_it() {
    // The entry's CRC was right; its mutant changed the body.
    let body = [0xA5, 0x07, 0x02];
    let crc = crc32(&body);
    let mut mutant = vec![0xA5, 0x09, 0x02];
    mutant.extend(crc.to_be_bytes());
    let indices = byte_choices(&mutant);
    let mut shape = shape_of::<Vec<u8>>(&indices);
    shape.comparisons.constants = vec![folded_crc_check(&mutant)];
    let sums = [XorSum {
        stored: u64::from(crc),
        constant: 0xFFFF_FFFF,
        size: 4,
        nth: 0,
    }];
    let repaired: Vec<Vec<u8>> = mutants(&indices, 3, |m, i| m.repair_xor_sums(&sums, &shape, i).1);
    let mut expected = vec![0xA5, 0x09, 0x02];
    expected.extend(crc32(&expected).to_be_bytes());
    assert_eq!(repaired, vec![expected; 3]);

    // A mutant whose check still holds is left alone, and keeps the sum.
    let mut entry = body.to_vec();
    entry.extend(crc.to_be_bytes());
    let indices = byte_choices(&entry);
    shape = shape_of::<Vec<u8>>(&indices);
    shape.comparisons.constants = vec![folded_crc_check(&entry)];
    let mut m = ChoiceMutator::new(1, true);
    let mut copy = indices.clone();
    assert_eq!(
        m.repair_xor_sums(&sums, &shape, &mut copy),
        (sums.to_vec(), false)
    );
    assert_eq!(copy, indices);
}

#[test]
fn input_to_state_solves_a_stored_length_plus_a_constant() {
    // A big-endian length 0x01000000 whose end, length + 8, was compared
    // with the 11 bytes left: the length becomes 11 - 8.
    let mut bytes = vec![0x01, 0x00, 0x00, 0x00];
    bytes.extend([7; 11]);
    let indices = byte_choices(&bytes);
    let mut shape = shape_of::<Vec<u8>>(&indices);
    shape.comparisons.ints = vec![IntCmp {
        a: 0x0100_0008,
        b: 11,
        size: 8,
    }];
    let values: Vec<Vec<u8>> = mutants(&indices, 40, |m, i| m.input_to_state(&shape, i));
    let mut expected = vec![0, 0, 0, 3];
    expected.extend([7; 11]);
    assert!(values.contains(&expected), "{values:?}");
}

#[test]
fn a_length_out_of_reach_of_a_short_input_is_zeroed_and_the_input_grown() {
    // The same length, with 6 bytes left: no length fits. It becomes 0 and
    // the vector grows by 8 - 6 bytes, so that length + 8 is what is left.
    let mut bytes = vec![0x01, 0x00, 0x00, 0x00];
    bytes.extend([7; 6]);
    let indices = byte_choices(&bytes);
    let mut shape = shape_of::<Vec<u8>>(&indices);
    shape.comparisons.ints = vec![IntCmp {
        a: 0x0100_0008,
        b: 6,
        size: 8,
    }];
    let values: Vec<Vec<u8>> = mutants(&indices, 40, |m, i| m.input_to_state(&shape, i));
    let mut expected = vec![0, 0, 0, 0];
    expected.extend([7; 8]);
    assert!(values.contains(&expected), "{values:?}");
}

#[test]
fn spellings_are_counted_as_listed() {
    let mut rng = crate::rng::Rng::new(3);
    let mut values = vec![0, 1, 0x0101, 0x1234, 0x0102_0201, 0xFFFF, 1 << 31, u64::MAX];
    values.extend((0..200).map(|_| rng.next_u64() >> rng.at_most(63)));
    for &from in &values {
        for &to in &values[..12] {
            for size in [0, 1, 2, 3, 4, 8, 9] {
                assert_eq!(
                    compare::spelling_count(from, to, size),
                    compare::encodings(from, to, size).len(),
                    "{from:#x} {to:#x} {size}"
                );
            }
        }
    }
}

#[test]
fn a_compared_integer_is_spelled_in_either_byte_order_and_in_decimal() {
    let spelled = |from, to, size| -> Vec<(Vec<u8>, Vec<u8>, bool)> {
        compare::encodings(from, to, size)
            .iter()
            .map(|(from, to, text)| (from.to_vec(), to.to_vec(), *text))
            .collect()
    };
    assert_eq!(
        spelled(0x1234, 0xBEEF, 2),
        [
            (vec![0x34, 0x12], vec![0xEF, 0xBE], false),
            (vec![0x12, 0x34], vec![0xBE, 0xEF], false),
            (b"4660".to_vec(), b"48879".to_vec(), true),
            (b"4660".to_vec(), b"-16657".to_vec(), true),
        ]
    );
    let decimals: Vec<_> = spelled(i64::MIN as u64, u64::MAX, 8)
        .into_iter()
        .filter(|(.., text)| *text)
        .collect();
    assert_eq!(
        decimals,
        [
            (
                b"9223372036854775808".to_vec(),
                b"18446744073709551615".to_vec(),
                true
            ),
            (b"-9223372036854775808".to_vec(), b"-1".to_vec(), true),
        ]
    );
}

/// `a[2] % 65521 == 22222` with `a[2] = 3443258481`: the compared remainder
/// (64410) is no draw, but the draw less it plus 22222 has the remainder
/// sought. Without the comparison being one with a constant, or with a
/// constant too small to be taken for a remainder, nothing is written.
#[test]
fn input_to_state_solves_a_remainder_compared_with_a_constant() {
    let values: Vec<u32> = vec![40503, 3571, 3_443_258_481, 0];
    let indices: Vec<u64> = values.iter().flat_map(|&v| [1, u64::from(v)]).collect();
    assert_eq!(value_of::<Vec<u32>>(&indices), values);
    let remainder = IntCmp {
        a: 22222,
        b: 3_443_258_481 % 65521,
        size: 4,
    };
    let mut shape = shape_of::<Vec<u32>>(&indices);
    shape.comparisons.ints = vec![remainder];
    shape.comparisons.constants = vec![remainder];
    let solved: Vec<Vec<u32>> = mutants(&indices, 40, |m, i| m.input_to_state(&shape, i));
    assert!(
        solved
            .iter()
            .any(|v| v[2] % 65521 == 22222 && v[2] / 65521 == 3_443_258_481 / 65521),
        "{solved:?}"
    );

    shape.comparisons.constants.clear();
    let unsolved: Vec<Vec<u32>> = mutants(&indices, 40, |m, i| m.input_to_state(&shape, i));
    assert!(unsolved.iter().all(|v| v == &values), "{unsolved:?}");

    let small = IntCmp {
        a: 200,
        b: 3_443_258_481 % 65521,
        size: 4,
    };
    shape.comparisons.ints = vec![small];
    shape.comparisons.constants = vec![small];
    let unsolved: Vec<Vec<u32>> = mutants(&indices, 40, |m, i| m.input_to_state(&shape, i));
    assert!(unsolved.iter().all(|v| v == &values), "{unsolved:?}");
}

/// `split(',')` over `covcheck:explode` compares every byte after the colon
/// with `,` and finds none: the comma is appended (not only written over a
/// byte of the keyword). A byte compared with one other byte only is no
/// scan, and gets no append.
#[test]
fn input_to_state_appends_a_delimiter_a_scan_ran_off_the_end_for() {
    let indices = string_choices("covcheck:explode");
    let mut shape = shape_of::<String>(&indices);
    shape.comparisons.ints = (b"explode".iter())
        .map(|&b| IntCmp {
            a: u64::from(b),
            b: u64::from(b','),
            size: 1,
        })
        .collect();
    let mutated: Vec<String> = mutants(&indices, 60, |m, i| m.input_to_state(&shape, i));
    assert!(
        mutated.iter().any(|s| s == "covcheck:explode,"),
        "{mutated:?}"
    );
    assert!(mutated.iter().any(|s| s.contains(',') && s.len() == 16));

    shape.comparisons.ints = vec![IntCmp {
        a: u64::from(b'e'),
        b: u64::from(b','),
        size: 1,
    }];
    let mutated: Vec<String> = mutants(&indices, 60, |m, i| m.input_to_state(&shape, i));
    assert!(mutated.iter().all(|s| s.len() == 16), "{mutated:?}");
}

/// A compared window of a string's UTF-8 that covers wider characters
/// (`é` is two bytes, `🦀` four) has its characters replaced by those of
/// the other operand, however many bytes each takes; a window that starts
/// inside a character is no place to write.
#[test]
fn input_to_state_writes_a_compared_byte_string_over_wide_characters() {
    let indices = string_choices("aébc🦀xyz");
    let mut shape = shape_of::<String>(&indices);
    shape.comparisons.bytes = vec![("ébc🦀".as_bytes().to_vec(), b"covcheck".to_vec())];
    let mutated: Vec<String> = mutants(&indices, 20, |m, i| m.input_to_state(&shape, i));
    assert!(!mutated.is_empty());
    assert!(mutated.iter().all(|s| s == "acovcheckxyz"), "{mutated:?}");

    // The second byte of `é` on: no character starts there.
    shape.comparisons.bytes = vec![("ébc".as_bytes()[1..].to_vec(), b"cov".to_vec())];
    let mutated: Vec<String> = mutants(&indices, 20, |m, i| m.input_to_state(&shape, i));
    assert!(mutated.is_empty(), "{mutated:?}");
}

/// `a[0] * 12 == 7_200_000` is compared as the product (an even factor is
/// not folded into the constant), `a[1] / 1000 == 777` as the range check
/// `a[1] - 777_000 < 1000`, and `a[2] / 16 == 99_999` as
/// `a[2] & !15 == 1_599_984`: no compared value is a draw, and each is
/// solved for one. Without the constants, nothing is written.
#[test]
fn input_to_state_solves_a_product_and_quotients_compared_with_a_constant() {
    let values: Vec<u32> = vec![123_457, 3_417_466_629, 17, 0];
    let indices: Vec<u64> = values.iter().flat_map(|&v| [1, u64::from(v)]).collect();
    let compared = |a: u64, b: u64| IntCmp { a, b, size: 4 };
    let product = compared(123_457u32.wrapping_mul(12).into(), 7_200_000);
    let quotient = compared(3_417_466_629 - 777_000, 1000);
    let high_bits = compared(17 & !15, 1_599_984);
    let mut shape = shape_of::<Vec<u32>>(&indices);
    shape.comparisons.ints = vec![product, quotient, high_bits];
    shape.comparisons.constants = [product, quotient, high_bits]
        .map(|c| compared(c.b, c.a))
        .to_vec();
    let solved: Vec<Vec<u32>> = mutants(&indices, 80, |m, i| m.input_to_state(&shape, i));
    let opened = |gate: fn(&[u32]) -> bool| solved.iter().any(|v| gate(v));
    assert!(opened(|v| v[0].wrapping_mul(12) == 7_200_000), "{solved:?}");
    assert!(opened(|v| v[1] / 1000 == 777), "{solved:?}");
    assert!(opened(|v| v[2] / 16 == 99_999), "{solved:?}");

    shape.comparisons.constants.clear();
    let unsolved: Vec<Vec<u32>> = mutants(&indices, 80, |m, i| m.input_to_state(&shape, i));
    assert!(unsolved.iter().all(|v| v == &values), "{unsolved:?}");
}

/// A frame whose last two bytes are a sum of the others (big-endian), and
/// behind the sum a magic byte: its first missed comparison with a
/// constant is swept over each byte holding the compared value, and each
/// try's broken sum is repaired before it runs again. Without the repair
/// no try reaches the magic byte's comparison at all.
#[test]
fn a_sweep_behind_a_checksum_repairs_the_sum_each_try_breaks() {
    use crate::engine::sancov::{__sanitizer_cov_trace_cmp2, __sanitizer_cov_trace_const_cmp1};
    fn sum(body: &[u8]) -> u16 {
        (body.iter().map(|&b| u32::from(b)).sum::<u32>() * 7 + 300) as u16
    }
    let property = |src: &mut Source| {
        let frame = Vec::<u8>::generate(src);
        crate::source::begin_body(src);
        let Some(split) = frame.len().checked_sub(2) else {
            return Ok(());
        };
        let (body, stored) = frame.split_at(split);
        let stored = u16::from_be_bytes([stored[0], stored[1]]);
        __sanitizer_cov_trace_cmp2(stored, sum(body));
        if stored != sum(body) || body.is_empty() {
            return Ok(());
        }
        __sanitizer_cov_trace_const_cmp1(0xA5, body[0]);
        if body[0] == 0xA5 {
            return Err("the magic byte behind the sum".to_string());
        }
        Ok(())
    };
    let body = [13u8; 40];
    let frame = [&body[..], &sum(&body).to_be_bytes()].concat();
    let entry = byte_choices(&frame);
    let shape = Shape::learn(&property, &entry, long(), true);
    assert!(!shape.sums.is_empty(), "{:?}", shape.sums);
    let miss = *shape.misses.first().expect("the magic byte missed");
    let mut choices = entry.clone();
    let mut before_run = |_: &[u64]| {};
    let mut runs = RepairRuns {
        property: &property,
        limits: long(),
        before_run: &mut before_run,
        locate: true,
    };
    let mut mutator = ChoiceMutator::new(1, true);
    assert!(
        mutator
            .sweep_miss(&mut runs, &shape, miss, &mut choices, &[])
            .is_some()
    );
    let solved = value_of::<Vec<u8>>(&choices);
    let (body, stored) = solved.split_at(solved.len() - 2);
    assert_eq!(body[0], 0xA5, "{solved:?}");
    assert_eq!(stored, sum(body).to_be_bytes(), "{solved:?}");
}

/// A `memcmp` of no bytes is recorded like any other: it covers no
/// character, and writes nothing into a string with wide characters.
#[test]
fn an_empty_compared_byte_string_writes_nothing_into_wide_text() {
    let indices = string_choices("aé🦀");
    let mut shape = shape_of::<String>(&indices);
    shape.comparisons.bytes = vec![(Vec::new(), Vec::new())];
    let mutated: Vec<String> = mutants(&indices, 20, |m, i| m.input_to_state(&shape, i));
    assert!(mutated.is_empty(), "{mutated:?}");
}

/// The factor of a product is solved, not searched, yet it is the one a
/// search of 2 to 64 finds, wrapping at every width, for odd and even
/// values and for products of no such factor.
#[test]
fn the_factor_of_a_product_is_the_smallest_a_search_finds() {
    let mut rng = crate::rng::Rng::new(29);
    for bits in [8, 16, 32, 64] {
        let low = |v: u64| if bits == 64 { v } else { v & ((1 << bits) - 1) };
        for _ in 0..2000 {
            let shift = rng.at_most(u64::from(bits) - 1) as u32;
            let x = low(rng.next_u64() << shift);
            let product = if rng.percent(50) {
                low(x.wrapping_mul(rng.at_most(80)))
            } else {
                low(rng.next_u64())
            };
            let searched = (x > 1)
                .then(|| (2..=64).find(|&k| low(x.wrapping_mul(k)) == product))
                .flatten();
            assert_eq!(
                arithmetic::factor(x, product, bits),
                searched,
                "{x} {product} {bits}"
            );
        }
    }
}
