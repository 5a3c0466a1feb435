//! A range encoder, and a campaign steered towards its long ranges by
//! `covcheck_rt::target`.
//!
//! The encoder writes each run of consecutive ascending bytes (`7, 8, 9`)
//! as one range. Long ranges are where such an encoder's bugs hide (a
//! length field too narrow, an off-by-one at the end of the byte values),
//! but no coverage counter measures how long a range is: random bytes hold
//! ranges of two or three, and a mutation that lengthens one takes the same
//! branches as before (the hit counts grow with the extensions over the
//! whole input, not with the longest range), so a coverage-guided campaign
//! usually throws it away. The
//! property reports the longest range with `target()`; a campaign then
//! keeps every input that lengthens it and mutates it further, climbing a
//! byte at a time. `cargo xtask target` measures the longest range found
//! with and without `--no-target`, under the same execution budget.

/// A run of consecutive ascending bytes: its first byte and its length.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Range {
    pub first: u8,
    pub len: u16,
}

/// `data` as ranges of consecutive ascending bytes: `[3, 4, 5, 9]` becomes
/// `3+3, 9+1`.
pub fn encode(data: &[u8]) -> Vec<Range> {
    let mut ranges: Vec<Range> = Vec::new();
    for &byte in data {
        match ranges.last_mut() {
            Some(last) if u16::from(last.first) + last.len == u16::from(byte) => last.len += 1,
            _ => ranges.push(Range {
                first: byte,
                len: 1,
            }),
        }
    }
    ranges
}

/// The bytes `ranges` encode.
pub fn decode(ranges: &[Range]) -> Vec<u8> {
    ranges
        .iter()
        .flat_map(|range| (0..range.len).map(move |k| (u16::from(range.first) + k) as u8))
        .collect()
}

#[cfg(test)]
mod tests {
    use covcheck_rt::{covcheck, target};

    use super::{decode, encode};

    #[covcheck]
    fn ranges_round_trip(data: Vec<u8>) {
        let ranges = encode(&data);
        let longest = ranges.iter().map(|r| r.len).max().unwrap_or(0);
        target("longest range", f64::from(longest));
        assert_eq!(decode(&ranges), data);
    }

    #[test]
    fn ascending_bytes_make_one_range() {
        let ranges = encode(&[3, 4, 5, 9, 254, 255, 0]);
        let lens: Vec<u16> = ranges.iter().map(|r| r.len).collect();
        assert_eq!(lens, [3, 1, 2, 1]);
    }
}
