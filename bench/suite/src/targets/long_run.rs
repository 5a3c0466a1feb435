//! Run-length encoding of raw bytes as `(count, byte)` pairs whose count is
//! one byte: the encoder truncates a run longer than 255 to its length
//! modulo 256 instead of splitting it, so only such a run (256 or more equal
//! bytes in a row) breaks the round trip. Unlike `rle`, whose inputs are
//! `(byte, run length)` segments, the input is the raw data.

/// `(count, byte)` pairs, two bytes per run.
pub fn encode(data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut rest = data;
    while let [byte, ..] = rest {
        let run = rest.iter().take_while(|b| *b == byte).count();
        // The bug: a run of more than 255 bytes should become several pairs.
        out.extend([run as u8, *byte]);
        rest = &rest[run..];
    }
    out
}

pub fn decode(encoded: &[u8]) -> Vec<u8> {
    encoded
        .chunks_exact(2)
        .flat_map(|pair| std::iter::repeat_n(pair[1], usize::from(pair[0])))
        .collect()
}

pub fn check(data: &[u8]) -> Result<(), String> {
    let decoded = decode(&encode(data));
    if decoded == data {
        Ok(())
    } else {
        Err(format!(
            "round trip of {} bytes gave {} bytes",
            data.len(),
            decoded.len()
        ))
    }
}

pub fn size(data: &[u8]) -> usize {
    data.len()
}
