//! An accidentally quadratic run-length encoder: the worked example of
//! performance mode (`cargo covcheck --perf`, the book's "Performance
//! mode" chapter).
//!
//! [`encode`] is linear in the length of its input, except on inputs with
//! long runs of one byte: each byte that extends a run recounts the run
//! from its start, so a run of `n` equal bytes costs `n²/2` steps. Random
//! inputs have short runs, so no assertion and no ordinary test notices;
//! performance mode finds the runs, because it keeps the costliest input of
//! each size and grows inputs by repeating their parts.
//!
//! With the `linear` feature the run grows by one instead, as it should.

/// Run-length encodes `data`: each run of equal bytes becomes
/// `(byte, length)`.
pub fn encode(data: &[u8]) -> Vec<(u8, usize)> {
    let mut runs: Vec<(u8, usize)> = Vec::new();
    for (i, &byte) in data.iter().enumerate() {
        match runs.last_mut() {
            Some((last, length)) if *last == byte => *length = grown(data, i, *length),
            _ => runs.push((byte, 1)),
        }
    }
    runs
}

/// The length of the run that `data[i]` extends, `length` long before it.
#[cfg(not(feature = "linear"))]
fn grown(data: &[u8], i: usize, _length: usize) -> usize {
    // Recounting from the end: the accidental quadratic.
    data[..=i].iter().rev().take_while(|&&b| b == data[i]).count()
}

/// The length of the run that `data[i]` extends, `length` long before it.
#[cfg(feature = "linear")]
fn grown(_data: &[u8], _i: usize, length: usize) -> usize {
    length + 1
}

/// The bytes that `runs` encode.
pub fn decode(runs: &[(u8, usize)]) -> Vec<u8> {
    runs.iter()
        .flat_map(|&(byte, length)| std::iter::repeat_n(byte, length))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use covcheck_rt::covcheck;

    /// Holds (the encoder is correct); performance mode looks for its
    /// costliest inputs all the same (`#[covcheck(perf)]`).
    #[covcheck(perf)]
    fn encoding_round_trips(data: Vec<u8>) {
        assert_eq!(decode(&encode(&data)), data);
    }

    /// The same, with a cost bound: about 12 edges per byte is what the
    /// linear encoder runs on the longest inputs campaigns draw (4096
    /// bytes: 50,000 edges), so 200,000 edges leaves room for changes
    /// that are not a new growth. Checked where edges are counted
    /// (`cargo covcheck --perf`, `cargo covcheck replay --perf`).
    #[covcheck(perf, max_cost = 200_000)]
    fn encoding_is_linear(data: Vec<u8>) {
        assert_eq!(decode(&encode(&data)), data);
    }
}
