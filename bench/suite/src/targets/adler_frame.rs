//! A frame parser behind an Adler-32 checksum over raw bytes: the last four
//! bytes of a frame are the Adler-32 (big-endian) of the rest, the body. A
//! frame whose checksum does not match is dropped; only then is the body
//! parsed, `[0xA5, count, items..]`, and past that magic byte the parser
//! trusts `count`: a count beyond the items reads past the body. Unlike
//! `checksum`, the input is the raw frame with a real checksum at its end.

const MOD_ADLER: u32 = 65_521;
const MAGIC: u8 = 0xA5;

pub fn adler32(data: &[u8]) -> u32 {
    let (mut a, mut b) = (1u32, 0u32);
    for &byte in data {
        a = (a + u32::from(byte)) % MOD_ADLER;
        b = (b + a) % MOD_ADLER;
    }
    (b << 16) | a
}

/// The items of a frame whose checksum matches and whose body starts with
/// the magic byte; `None` for any other frame.
pub fn parse(frame: &[u8]) -> Result<Option<&[u8]>, String> {
    let Some(split) = frame.len().checked_sub(4) else {
        return Ok(None);
    };
    let (body, sum) = frame.split_at(split);
    let sum = u32::from_be_bytes([sum[0], sum[1], sum[2], sum[3]]);
    if sum != adler32(body) {
        return Ok(None);
    }
    let [MAGIC, count, items @ ..] = body else {
        return Ok(None);
    };
    let count = usize::from(*count);
    if count > items.len() {
        // The bug: the count is never checked against the body.
        return Err(format!(
            "read {count} items past a body of {} bytes",
            body.len()
        ));
    }
    Ok(Some(&items[..count]))
}

pub fn check(frame: &[u8]) -> Result<(), String> {
    parse(frame).map(|_| ())
}

pub fn size(frame: &[u8]) -> usize {
    frame.len()
}
