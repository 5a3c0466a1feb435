//! Strings read as the UTF-8 the code under test compares: where a byte
//! string a `memcmp` compared falls across characters of more than one
//! byte, the characters it covers are replaced by those of the other
//! operand.
//!
//! The byte runs input-to-state searches ([`super::bytes::byte_runs`]) hold
//! the elements whose value is one byte: a string's ASCII characters. A
//! random string is mostly wider characters, so a compared window of its
//! bytes (`text[at..].starts_with("covcheck")` compares eight) usually
//! spans one, and no run holds it; the other operand was never written.

use super::Shape;
use super::bytes::index_at;
use crate::choice::{ChoiceKind, char_from_index, char_index};

/// A string of the input: the position of each character's value choice,
/// and the string's UTF-8 bytes with the character each byte belongs to.
#[derive(Debug, Default)]
pub(super) struct Text {
    chars: Vec<usize>,
    bytes: Vec<u8>,
    char_of_byte: Vec<usize>,
}

/// The strings of an input (of `shape`) that hold a character of more
/// than one byte: the others are byte runs whole.
pub(super) fn wide_texts(shape: &Shape, indices: &[u64]) -> Vec<Text> {
    let mut texts = Vec::new();
    let mut current = Text::default();
    let mut wide = false;
    let choices = &shape.choices;
    let mut i = 0;
    while i < choices.len() {
        let more = choices[i].kind == ChoiceKind::More && index_at(indices, i) == 1;
        match choices.get(i + 1) {
            Some(value) if more && value.kind == ChoiceKind::Char => {
                let c = char_from_index(index_at(indices, i + 1).min(value.max));
                let mut buffer = [0; 4];
                let encoded = c.encode_utf8(&mut buffer).as_bytes();
                wide |= encoded.len() > 1;
                current.bytes.extend_from_slice(encoded);
                let k = current.chars.len();
                current.char_of_byte.extend(encoded.iter().map(|_| k));
                current.chars.push(i + 1);
                i += 2;
            }
            _ => {
                if std::mem::take(&mut wide) {
                    texts.push(std::mem::take(&mut current));
                } else {
                    // An ASCII string (the usual kind) keeps the buffers.
                    current.chars.clear();
                    current.bytes.clear();
                    current.char_of_byte.clear();
                }
                i += 1;
            }
        }
    }
    if wide {
        texts.push(current);
    }
    texts
}

/// Where `from` occurs in a text, starting at a character: the text and
/// the range of its characters the occurrence covers, the last one whole.
/// None for an empty `from` (a `memcmp` of no bytes), which covers nothing.
pub(super) fn text_sites(texts: &[Text], from: &[u8]) -> Vec<(usize, std::ops::Range<usize>)> {
    let mut sites = Vec::new();
    if from.is_empty() {
        return sites;
    }
    for (t, text) in texts.iter().enumerate() {
        for start in 0..text
            .bytes
            .len()
            .saturating_sub(from.len().saturating_sub(1))
        {
            let starts_char =
                start == 0 || text.char_of_byte[start - 1] != text.char_of_byte[start];
            if starts_char && text.bytes[start..].starts_with(from) {
                let first = text.char_of_byte[start];
                let last = text.char_of_byte[start + from.len() - 1];
                sites.push((t, first..last + 1));
            }
        }
    }
    sites
}

/// Replaces the characters `range` of `text` by those of `to`, each a
/// "more" flag and a value; false when `to` is not UTF-8, or a character
/// of it cannot be drawn there.
pub(super) fn splice_chars(
    shape: &Shape,
    indices: &mut Vec<u64>,
    text: &Text,
    range: std::ops::Range<usize>,
    to: &[u8],
) -> bool {
    let Ok(to) = std::str::from_utf8(to) else {
        return false;
    };
    let template = text.chars[range.start];
    let max = shape.choices[template].max;
    let mut pairs = Vec::with_capacity(2 * to.len());
    for c in to.chars() {
        let index = char_index(c);
        if index > max {
            return false;
        }
        pairs.extend([1, index]);
    }
    let start = text.chars[range.start] - 1;
    let end = text.chars[range.end - 1] + 1;
    if end > indices.len() || indices[start..end] == pairs[..] {
        return false;
    }
    indices.splice(start..end, pairs);
    true
}
