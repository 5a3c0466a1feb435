//! LEB128 variable-length integers, as in Protocol Buffers and WebAssembly,
//! and the zigzag mapping that gives small negative numbers short codes.

/// The longest encoding of a `u64`: ten groups of seven bits.
pub const MAX_LEN: usize = 10;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VarintError {
    /// The input ended inside a number.
    Truncated,
    /// More groups than a `u64` has room for.
    Overlong,
}

/// Appends the encoding of `value` to `out`.
pub fn encode(mut value: u64, out: &mut Vec<u8>) {
    loop {
        let group = (value & 0x7f) as u8;
        value >>= 7;
        if value == 0 {
            out.push(group);
            return;
        }
        out.push(group | 0x80);
    }
}

/// Decodes one number from the front of `bytes`: its value and how many
/// bytes it took.
pub fn decode(bytes: &[u8]) -> Result<(u64, usize), VarintError> {
    let mut value = 0u64;
    for (n, &byte) in bytes.iter().enumerate() {
        // Planted bug (shallow): an off-by-one in the length limit lets an
        // eleventh group through, whose shift by 70 bits overflows.
        if n > MAX_LEN {
            return Err(VarintError::Overlong);
        }
        value |= u64::from(byte & 0x7f) << (7 * n);
        if byte & 0x80 == 0 {
            return Ok((value, n + 1));
        }
    }
    Err(VarintError::Truncated)
}

/// Decodes numbers until the input ends.
pub fn decode_all(mut bytes: &[u8]) -> Result<Vec<u64>, VarintError> {
    let mut values = Vec::new();
    while !bytes.is_empty() {
        let (value, used) = decode(bytes)?;
        values.push(value);
        bytes = &bytes[used..];
    }
    Ok(values)
}

/// Maps 0, -1, 1, -2, ... to 0, 1, 2, 3, ...
pub fn zigzag(value: i64) -> u64 {
    ((value << 1) ^ (value >> 63)) as u64
}

pub fn unzigzag(value: u64) -> i64 {
    ((value >> 1) as i64) ^ -((value & 1) as i64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use covcheck_rt::covcheck;

    #[covcheck]
    fn varint_roundtrip_of_a_sequence(values: Vec<u64>) {
        let mut bytes = Vec::new();
        for &value in &values {
            encode(value, &mut bytes);
        }
        assert_eq!(decode_all(&bytes), Ok(values));
    }

    #[covcheck]
    fn zigzag_roundtrip_keeps_small_numbers_short(value: i64) {
        let mapped = zigzag(value);
        assert_eq!(unzigzag(mapped), value);
        assert!(mapped <= value.unsigned_abs().saturating_mul(2));
    }

    #[covcheck]
    fn decoded_varints_reencode_no_longer(bytes: Vec<u8>) {
        if let Ok((value, used)) = decode(&bytes) {
            let mut again = Vec::new();
            encode(value, &mut again);
            assert!(again.len() <= used);
            assert_eq!(decode(&again), Ok((value, again.len())));
        }
    }
}
