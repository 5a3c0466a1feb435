//! A stream of CRC-32-framed chunks in PNG's layout over raw bytes: an
//! 8-byte signature, then chunks of a length (`u32`, big-endian, the data's
//! length), a 4-byte type, the data and the CRC-32 of type and data (`u32`,
//! big-endian; CRC-32/ISO-HDLC, as in PNG and zlib's `crc32`). A chunk whose
//! CRC does not match, or whose length runs past the input, ends the parse.
//! The bug is in the `pHYs` handler (9 bytes: x and y pixels per unit, each
//! a `u32`, then the unit): with the unit in metres it divides y by x to get
//! the aspect ratio and never rejects an x of zero. Unlike `adler_frame`, the
//! checksum covers only a chunk inside the stream and its position hangs on
//! the length field, which must be right too.

const SIGNATURE: [u8; 8] = *b"\x89PNG\r\n\x1a\n";
/// The physical pixel dimensions chunk.
const PHYS: [u8; 4] = *b"pHYs";
/// `pHYs`'s unit specifier for the metre (0 is "unknown").
const UNIT_METRE: u8 = 1;
/// The reflected CRC-32/ISO-HDLC polynomial.
const POLY: u32 = 0xEDB8_8320;

/// CRC-32/ISO-HDLC of `bytes`, one bit at a time.
pub fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &byte in bytes {
        crc ^= u32::from(byte);
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ POLY
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

/// What the parse read: the types of the chunks whose CRC matched, in
/// order, and the aspect ratio of the last `pHYs` in metres, if any.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stream {
    pub types: Vec<[u8; 4]>,
    pub aspect: Option<u32>,
}

/// Parses the chunks after the signature up to the first that is cut off
/// or whose CRC does not match; an input without the signature has none.
pub fn parse(input: &[u8]) -> Result<Stream, String> {
    let mut stream = Stream::default();
    let Some(mut rest) = input.strip_prefix(&SIGNATURE[..]) else {
        return Ok(stream);
    };
    while let [l0, l1, l2, l3, after_length @ ..] = rest {
        let Ok(len) = usize::try_from(u32::from_be_bytes([*l0, *l1, *l2, *l3])) else {
            break;
        };
        // Type, data and CRC.
        let Some(end) = len.checked_add(8).filter(|&end| end <= after_length.len()) else {
            break;
        };
        let (chunk, next) = after_length.split_at(end);
        let (typed, crc) = chunk.split_at(4 + len);
        if u32::from_be_bytes([crc[0], crc[1], crc[2], crc[3]]) != crc32(typed) {
            break;
        }
        let (kind, data) = typed.split_at(4);
        let kind = [kind[0], kind[1], kind[2], kind[3]];
        if kind == PHYS
            && let Some(aspect) = phys(data)?
        {
            stream.aspect = Some(aspect);
        }
        stream.types.push(kind);
        rest = next;
    }
    Ok(stream)
}

/// The aspect ratio (y pixels per metre over x pixels per metre) of a
/// `pHYs` chunk's data; `None` for data of another length or another unit.
fn phys(data: &[u8]) -> Result<Option<u32>, String> {
    let &[x0, x1, x2, x3, y0, y1, y2, y3, unit] = data else {
        return Ok(None);
    };
    if unit != UNIT_METRE {
        return Ok(None);
    }
    let x = u32::from_be_bytes([x0, x1, x2, x3]);
    let y = u32::from_be_bytes([y0, y1, y2, y3]);
    if x == 0 {
        // The bug: x is never checked, and `y / x` divides by zero.
        return Err(format!("pHYs: aspect ratio {y} / {x} divides by zero"));
    }
    Ok(Some(y / x))
}

pub fn check(input: &[u8]) -> Result<(), String> {
    parse(input).map(|_| ())
}

pub fn size(input: &[u8]) -> usize {
    input.len()
}
