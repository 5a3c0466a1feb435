//! One test per planted bug, on an input that triggers it: each asserts that
//! the bug is there, so these tests pass while the bugs are planted.
//!
//! `cargo covcheck` puts the literals of every target of the package, this
//! file included, into the campaigns' dictionary. So the inputs below are
//! built from the library's constants, from ASCII `char`s and from integers
//! below ten, which the dictionary leaves out, never spelled as string,
//! byte-string or larger integer literals: a witness must not hand a
//! campaign its answer.

use std::panic::catch_unwind;

use suite::{base64, clock, config, packet, ring, varint};

#[test]
fn a_full_ring_takes_one_more_item_and_loses_its_oldest() {
    let mut ring = ring::Ring::new(1);
    assert_eq!(ring.push(1u8), Ok(()));
    // A correct ring would hand the item back.
    assert_eq!(ring.push(2), Ok(()));
    assert_eq!(ring.len(), 2);
    assert_eq!(ring.pop(), Some(2));
}

#[test]
fn an_eleventh_varint_group_overflows_the_shift() {
    let overlong = vec![u8::MAX; varint::MAX_LEN + 1];
    assert!(catch_unwind(|| varint::decode(&overlong)).is_err());
    // Ten groups are refused without a panic only when they are all there
    // is to read.
    assert!(varint::decode(&overlong[..varint::MAX_LEN]).is_err());
}

#[test]
fn four_padding_characters_underflow_the_base64_length() {
    let padding: String = std::iter::repeat_n('=', 4).collect();
    assert!(catch_unwind(|| base64::decode(&padding)).is_err());
}

#[test]
fn a_timeout_past_the_microseconds_range_overflows() {
    let largest = u32::MAX / 1_000_000;
    let settings = config::Settings {
        timeout_us: largest * 1_000_000,
        ..config::Settings::default()
    };
    let text = settings.render();
    assert_eq!(config::Settings::load(&text), Ok(settings));
    let past = text.replace(&largest.to_string(), &(largest + 1).to_string());
    assert_ne!(past, text);
    assert!(catch_unwind(|| config::Settings::load(&past)).is_err());
}

#[test]
fn a_record_one_byte_past_the_payload_is_sliced_out_of_range() {
    let (id, length) = (1, 1);
    let bytes = packet::encode(packet::Kind::Table, &[id, length]).unwrap();
    let (frame, _) = packet::decode(&bytes).unwrap();
    assert!(catch_unwind(|| frame.records().map(|records| records.len())).is_err());
}

#[test]
fn a_second_sixty_that_is_no_leap_second_reads_as_the_next_minute() {
    let noon = clock::DAY / 2;
    let mut text = clock::format_time(noon);
    text.truncate(text.len() - 2);
    text.push_str(&60.to_string());
    // A correct parser refuses it: only 23:59:60 is a leap second.
    assert_eq!(clock::parse_time(&text), Some(noon + 60));
}
