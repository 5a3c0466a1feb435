//! Run-length encoding whose counts are bytes: runs longer than 255 break the
//! round trip. Inputs are `(byte, run length)` segments so that long runs
//! are reachable with every tool's default collection sizes.

fn encode(data: &[u8]) -> Vec<(u8, u8)> {
    let mut out: Vec<(u8, u8)> = Vec::new();
    for &b in data {
        match out.last_mut() {
            // The bug: the count wraps at 256 instead of starting a new run.
            Some((byte, count)) if *byte == b => *count = count.wrapping_add(1),
            _ => out.push((b, 1)),
        }
    }
    out
}

fn decode(runs: &[(u8, u8)]) -> Vec<u8> {
    runs.iter()
        .flat_map(|&(b, n)| std::iter::repeat_n(b, n as usize))
        .collect()
}

pub fn expand(segments: &[(u8, u16)]) -> Vec<u8> {
    segments
        .iter()
        .flat_map(|&(b, n)| std::iter::repeat_n(b, (n % 512) as usize))
        .collect()
}

pub fn check(segments: &[(u8, u16)]) -> Result<(), String> {
    let data = expand(segments);
    let decoded = decode(&encode(&data));
    if decoded == data {
        Ok(())
    } else {
        Err(format!(
            "round trip lost {} bytes",
            data.len().abs_diff(decoded.len())
        ))
    }
}

pub fn size(segments: &[(u8, u16)]) -> usize {
    expand(segments).len()
}
