//! A length-prefixed binary format from crates.io: DER, decoded by `der`
//! 0.5.1. Every value is a tag, a length and that many bytes; the record is
//! `SEQUENCE { version INTEGER (0..=255), body OCTET STRING }`. An `INTEGER`
//! whose content is longer than its Rust type (`02 02 01 00`, 256, for the
//! `u8` version) panics in `copy_from_slice` instead of failing to decode:
//! RustCrypto/formats#447 ("fix handling of oversized unsigned `INTEGER`
//! inputs", found by fuzzing in #446), fixed in 0.6.0. The lengths must be
//! consistent to get there: the sequence's length covers exactly the
//! integer's header and content.

use der::Decoder;

/// The record's version and the length of its body.
pub fn parse(record: &[u8]) -> der::Result<(u8, usize)> {
    let mut decoder = Decoder::new(record)?;
    let fields = decoder.sequence(|fields| {
        let version = fields.uint8()?;
        let body = fields.octet_string()?;
        Ok((version, body.as_bytes().len()))
    })?;
    decoder.finish(fields)
}

pub fn check(record: &[u8]) -> Result<(), String> {
    crate::unwind::caught(|| parse(record)).map(|_| ())
}

pub fn size(record: &[u8]) -> usize {
    record.len()
}
