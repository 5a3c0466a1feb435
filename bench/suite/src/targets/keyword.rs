//! A keyword scanner: counts where the keywords of a small language occur in
//! a text, at every position. Its counters were sized before the last
//! keyword, the 8-byte `covcheck`, was added, so the scanner panics (an
//! index out of bounds) only on a text that contains `covcheck` somewhere.

const KEYWORDS: [&str; 7] = ["fn", "let", "if", "else", "while", "return", "covcheck"];

/// How often each keyword occurs in `text`, overlapping occurrences included.
pub fn scan(text: &str) -> Vec<u32> {
    // The bug: one counter short of `KEYWORDS.len()`.
    let mut counts = vec![0; 6];
    let bytes = text.as_bytes();
    for at in 0..bytes.len() {
        for (k, keyword) in KEYWORDS.iter().enumerate() {
            if bytes[at..].starts_with(keyword.as_bytes()) {
                counts[k] += 1;
            }
        }
    }
    counts
}

pub fn check(text: &str) -> Result<(), String> {
    crate::unwind::caught(|| scan(text)).map(|_| ())
}

pub fn size(text: &str) -> usize {
    text.len()
}
