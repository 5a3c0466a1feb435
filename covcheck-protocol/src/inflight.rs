//! The in-flight input file: a worker maps it into memory and copies every
//! input into it before running it, so that when the worker dies (abort,
//! segfault, timeout, memory limit) the supervisor can still read what it
//! was running, and how many executions it had started.
//!
//! Layout, little-endian 64-bit words: the number of executions so far, the
//! input's length in choices, then its choices.

/// The most choices one input may have (more read as zero): the in-flight
/// file of every worker holds this many.
pub const MAX_CHOICES: usize = 64 * 1024;

/// Size of the in-flight input file for inputs of up to `max_choices` choices.
pub fn inflight_len(max_choices: usize) -> usize {
    8 * (max_choices + 2)
}

/// Reads what a dead worker left in its in-flight file: how many executions
/// it had started, and the input it was running.
pub fn read_inflight(path: &std::path::Path) -> std::io::Result<(u64, Vec<u64>)> {
    let bytes = std::fs::read(path)?;
    let words: Vec<u64> = bytes
        .chunks_exact(8)
        .map(|w| u64::from_le_bytes(w.try_into().expect("8 bytes")))
        .collect();
    let execs = words.first().copied().unwrap_or(0);
    let n = (words.get(1).copied().unwrap_or(0) as usize).min(words.len().saturating_sub(2));
    Ok((execs, words.get(2..2 + n).unwrap_or_default().to_vec()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cut_short_file_yields_what_it_holds() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("inflight");
        let words: Vec<u8> = [7u64, 5, 1, 2]
            .iter()
            .flat_map(|w| w.to_le_bytes())
            .collect();
        std::fs::write(&path, words).unwrap();
        assert_eq!(read_inflight(&path).unwrap(), (7, vec![1, 2]));
    }
}
