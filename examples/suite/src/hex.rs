//! Hexadecimal text, with `:` or space separators allowed between bytes.

const DIGITS: &[u8; 16] = b"0123456789abcdef";

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HexError {
    /// A character that is neither a digit nor a separator, at this offset.
    BadChar(usize),
    /// A byte with one digit.
    OddDigit,
}

/// Lower-case digits, two per byte, no separators.
pub fn encode(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len() * 2);
    for &b in bytes {
        out.push(char::from(DIGITS[usize::from(b >> 4)]));
        out.push(char::from(DIGITS[usize::from(b & 15)]));
    }
    out
}

fn digit(c: u8) -> Option<u8> {
    match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        b'A'..=b'F' => Some(c - b'A' + 10),
        _ => None,
    }
}

/// Reads pairs of digits in either case; a `:` or a space may separate two
/// bytes, but not the digits of one.
pub fn decode(text: &str) -> Result<Vec<u8>, HexError> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len() / 2);
    let mut at = 0;
    while at < bytes.len() {
        if matches!(bytes[at], b':' | b' ') && !out.is_empty() {
            at += 1;
            continue;
        }
        let high = digit(bytes[at]).ok_or(HexError::BadChar(at))?;
        let low = match bytes.get(at + 1) {
            None => return Err(HexError::OddDigit),
            Some(&c) => digit(c).ok_or(HexError::BadChar(at + 1))?,
        };
        out.push(high << 4 | low);
        at += 2;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use covcheck_rt::covcheck;

    #[covcheck]
    fn hex_roundtrip(bytes: Vec<u8>) {
        let text = encode(&bytes);
        assert_eq!(text.len(), bytes.len() * 2);
        assert_eq!(decode(&text), Ok(bytes.clone()));
        assert_eq!(decode(&text.to_uppercase()), Ok(bytes));
    }

    #[covcheck]
    fn decoded_hex_is_the_text_without_separators(text: String) {
        match decode(&text) {
            Ok(bytes) => {
                let digits: String = text
                    .chars()
                    .filter(|&c| c != ':' && c != ' ')
                    .collect::<String>()
                    .to_lowercase();
                assert_eq!(encode(&bytes), digits);
            }
            Err(HexError::BadChar(at)) => assert!(at < text.len()),
            Err(HexError::OddDigit) => {}
        }
    }
}
