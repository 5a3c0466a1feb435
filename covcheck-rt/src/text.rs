//! Text a property produced, made safe to print, send and store.
//!
//! A `&str` built with `from_utf8_unchecked` (a real bug class, and exactly
//! the kind of code covcheck is pointed at) can hold any bytes. Written as is
//! into a worker's event line or a seed file, such text makes the whole line
//! or file unreadable, and the finding with it. Every message and rendering
//! the runtime captures goes through [`escape_invalid_utf8`] first.

use std::fmt::Write as _;

/// `text` unchanged when it is valid UTF-8; otherwise each byte that is not
/// part of a valid sequence is written as `\xNN`, so that nothing is lost
/// and the result is valid UTF-8.
pub fn escape_invalid_utf8(text: String) -> String {
    if std::str::from_utf8(text.as_bytes()).is_ok() {
        return text;
    }
    let mut out = String::with_capacity(text.len() + 8);
    for chunk in text.as_bytes().utf8_chunks() {
        out.push_str(chunk.valid());
        for byte in chunk.invalid() {
            let _ = write!(out, "\\x{byte:02x}");
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn valid_text_is_kept_and_invalid_bytes_are_escaped() {
        assert_eq!(escape_invalid_utf8("héllo".to_string()), "héllo");
        // SAFETY (of the test, not of the code under test): the String is
        // never used as text, only handed to the function that checks it.
        let broken = unsafe { String::from_utf8_unchecked(vec![b'a', 0xff, b'b', 0xc3]) };
        assert_eq!(escape_invalid_utf8(broken), "a\\xffb\\xc3");
    }
}
