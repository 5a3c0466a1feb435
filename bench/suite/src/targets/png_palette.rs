//! An image decoder from crates.io: `png` 0.12.0 reading an image's first
//! frame (`Decoder::read_info`, then `Reader::next_frame`). An indexed-colour
//! image (colour type 3) without a `PLTE` chunk panics in `expand_paletted`'s
//! `unwrap` on its first row instead of failing to decode: the first panic of
//! image-png#79, fixed by #81 and released in 0.13.0. Getting a row there is
//! the hard part. The decoder checks each chunk's CRC-32 as the chunk ends,
//! so the `IHDR` chunk that declares the colour type must carry the CRC-32 of
//! its type and data, and the colour type, the other fields and the sum must
//! change together. Then the `IDAT` chunk's zlib stream must yield the row,
//! for instance as a stored block whose LEN and NLEN (its one's complement)
//! agree; the stream's Adler-32 is checked only if it lies inside the `IDAT`,
//! and the `IDAT`'s own CRC only after the row has been decoded.
//!
//! As for the other crates' targets, the bug is any panic in the crate. Two
//! more of #79's panics are reachable through the same calls, behind the same
//! CRC and zlib framing, and count too: the Avg and Paeth filters index past
//! a row that is shorter than one pixel's bytes (a width of 0, or RGB at bit
//! depth 1: filter.rs:67 and :80), and an indexed image at bit depth 16 that
//! has a `PLTE` overflows a shift in `unpack_bits` (utils.rs:18, under the
//! overflow checks of the suite's release profile). 0.13.0 panics on none of
//! them. Interlaced images are left out (`check` passes them without decoding
//! them): on interlaced RGB or RGBA below 8 bits, `expand_pass` indexes past
//! the frame (utils.rs:176-182), a panic that 0.13.0 still has.
//!
//! png 0.12.0 has no size limits: it allocates rows in proportion to the
//! width that `IHDR` declares, and an allocation that fails aborts the
//! process, which no unwinding turns into an `Err`. So `check` passes,
//! without decoding them, images wider or taller than 65536 pixels or of
//! more than 2^20 pixels, reading the size where `IHDR` must be.

use std::io::Cursor;

use crate::unwind::caught;

/// Where `IHDR`'s data starts: the decoder takes no chunk before `IHDR`,
/// which follows the 8-byte signature, its length and its type. The width
/// and the height come first (`u32`s, big-endian), the interlace method
/// last, 12 bytes in.
const IHDR_DATA: usize = 16;
const INTERLACE: usize = IHDR_DATA + 12;
/// The largest width or height decoded.
const MAX_SIDE: u64 = 1 << 16;
/// The largest number of pixels decoded.
const MAX_PIXELS: u64 = 1 << 20;
/// The largest frame buffer allocated, in bytes.
const MAX_FRAME: usize = 64 << 20;

/// Whether `check` decodes `input`: not an image larger than the limits
/// above, nor an interlaced one. Inputs too short to hold those fields fail
/// to decode before anything is allocated for them.
fn in_scope(input: &[u8]) -> bool {
    let field = |at: usize| {
        input
            .get(at..at + 4)
            .map(|bytes| u64::from(u32::from_be_bytes(bytes.try_into().unwrap())))
    };
    if let (Some(width), Some(height)) = (field(IHDR_DATA), field(IHDR_DATA + 4))
        && (width > MAX_SIDE || height > MAX_SIDE || width * height > MAX_PIXELS)
    {
        return false;
    }
    input.get(INTERLACE).is_none_or(|&method| method == 0)
}

/// Decodes `input`'s first frame into a buffer of its own.
pub fn decode(input: &[u8]) -> Result<(), png::DecodingError> {
    let (info, mut reader) = png::Decoder::new(Cursor::new(input)).read_info()?;
    match info.line_size.checked_mul(info.height as usize) {
        Some(len) if len <= MAX_FRAME => reader.next_frame(&mut vec![0; len]),
        _ => Ok(()),
    }
}

pub fn check(input: &[u8]) -> Result<(), String> {
    if !in_scope(input) {
        return Ok(());
    }
    caught(|| decode(input)).map(|_| ())
}

pub fn size(input: &[u8]) -> usize {
    input.len()
}
