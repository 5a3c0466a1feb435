//! The campaign's corpus cache: each input, a choice sequence (see
//! [`crate::choice`]), in a file of its own holding the indices as text,
//! like seed files, so a person can read them and the supervisor can load
//! them without the engine.

use std::path::Path;

use covcheck_protocol::hash::content_hash;

/// The corpus cache's file name of an input: its content hash, so that the
/// same input is kept once.
pub fn corpus_file_name(choices: &[u64]) -> String {
    format!("{:016x}", content_hash(choices))
}

/// Parses whitespace-separated indices.
pub fn parse_choices(text: &str) -> Result<Vec<u64>, String> {
    text.split_whitespace()
        .map(|word| word.parse::<u64>().map_err(|e| format!("`{word}`: {e}")))
        .collect()
}

/// The inputs of a corpus directory, in file name order; unreadable files are
/// skipped (the cache is ours, and a campaign rebuilds what it loses).
pub fn load_corpus_dir(dir: &Path) -> Vec<Vec<u64>> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    // Hidden files are entries another worker is still writing.
    let mut paths: Vec<_> = entries
        .flatten()
        .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
        .map(|e| e.path())
        .collect();
    paths.sort();
    paths
        .into_iter()
        .filter_map(|p| parse_choices(&std::fs::read_to_string(p).ok()?).ok())
        .collect()
}
