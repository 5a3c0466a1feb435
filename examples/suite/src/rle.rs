//! Run-length encoding as pairs of `(count, byte)`, runs of at most 255.

pub fn encode(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut rest = bytes;
    while let Some(&first) = rest.first() {
        let run = rest
            .iter()
            .take(usize::from(u8::MAX))
            .take_while(|&&b| b == first)
            .count();
        out.push(run as u8);
        out.push(first);
        rest = &rest[run..];
    }
    out
}

/// `None` for an odd length or a run of zero.
pub fn decode(pairs: &[u8]) -> Option<Vec<u8>> {
    if !pairs.len().is_multiple_of(2) {
        return None;
    }
    let mut out = Vec::new();
    for pair in pairs.chunks(2) {
        if pair[0] == 0 {
            return None;
        }
        out.extend(std::iter::repeat_n(pair[1], usize::from(pair[0])));
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use covcheck_rt::covcheck;

    #[covcheck]
    fn rle_roundtrip(bytes: Vec<u8>) {
        let pairs = encode(&bytes);
        assert_eq!(decode(&pairs), Some(bytes.clone()));
        // Neighbouring runs of one byte only split at 255.
        for (a, b) in pairs.chunks(2).zip(pairs.chunks(2).skip(1)) {
            assert!(a[1] != b[1] || a[0] == u8::MAX);
        }
    }
}
