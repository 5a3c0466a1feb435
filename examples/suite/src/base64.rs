//! Base64 with the standard alphabet and `=` padding (RFC 4648, section 4).

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Base64Error {
    /// Not a whole number of four-character groups.
    Length,
    /// A character outside the alphabet, or padding before the end.
    BadChar(usize),
}

pub fn encode(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let group = u32::from(b[0]) << 16 | u32::from(b[1]) << 8 | u32::from(b[2]);
        for n in 0..4 {
            if n <= chunk.len() {
                let index = (group >> (18 - 6 * n)) & 63;
                out.push(char::from(ALPHABET[index as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

fn sextet(c: u8) -> Option<u32> {
    let value = match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        b'/' => 63,
        _ => return None,
    };
    Some(u32::from(value))
}

pub fn decode(text: &str) -> Result<Vec<u8>, Base64Error> {
    let bytes = text.as_bytes();
    if !bytes.len().is_multiple_of(4) {
        return Err(Base64Error::Length);
    }
    // Planted bug (medium): the padding is not limited to two characters,
    // so three or four `=` make the output length wrong (or underflow).
    let padding = bytes.iter().rev().take_while(|&&c| c == b'=').count();
    let out_len = bytes.len() / 4 * 3 - padding;
    let mut out = Vec::with_capacity(out_len + 3);
    for (n, quad) in bytes.chunks(4).enumerate() {
        let mut group = 0u32;
        for (k, &c) in quad.iter().enumerate() {
            let at = n * 4 + k;
            let value = if at >= bytes.len() - padding {
                0
            } else {
                sextet(c).ok_or(Base64Error::BadChar(at))?
            };
            group = group << 6 | value;
        }
        out.extend_from_slice(&group.to_be_bytes()[1..]);
    }
    out.truncate(out_len);
    // Bits the padding hides must be zero, or two texts would decode alike.
    if padding > 0 && encode(&out) != text {
        return Err(Base64Error::BadChar(bytes.len() - padding - 1));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use covcheck_rt::covcheck;

    #[covcheck]
    fn base64_roundtrip(bytes: Vec<u8>) {
        let text = encode(&bytes);
        assert_eq!(text.len() % 4, 0);
        assert_eq!(decode(&text), Ok(bytes));
    }

    #[covcheck]
    fn base64_decoding_is_one_to_one(text: String) {
        if let Ok(bytes) = decode(&text) {
            assert_eq!(encode(&bytes), text);
        }
    }
}
