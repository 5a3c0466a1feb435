//! The campaign's input type: a choice sequence (see [`crate::choice`]).
//! Corpus files hold the indices as text, like seed files, so a person can
//! read them and the supervisor can load them without LibAFL.

use std::hash::Hash;
use std::path::Path;

use libafl::Error;
use libafl::corpus::CorpusId;
use libafl::inputs::Input;
use serde::{Deserialize, Serialize};

use covcheck_protocol::hash::content_hash;
use covcheck_protocol::seeds::SeedFile;

#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq, Eq, Hash)]
pub struct ChoiceInput {
    pub choices: Vec<u64>,
}

impl Input for ChoiceInput {
    fn to_file<P: AsRef<Path>>(&self, path: P) -> Result<(), Error> {
        std::fs::write(path, SeedFile::format_indices(&self.choices))?;
        Ok(())
    }

    fn from_file<P: AsRef<Path>>(path: P) -> Result<Self, Error> {
        let text = std::fs::read_to_string(path)?;
        parse_choices(&text)
            .map(|choices| ChoiceInput { choices })
            .map_err(Error::illegal_argument)
    }

    fn generate_name(&self, _id: Option<CorpusId>) -> String {
        format!("{:016x}", content_hash(&self.choices))
    }
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
    let mut paths: Vec<_> = entries.flatten().map(|e| e.path()).collect();
    paths.sort();
    paths
        .into_iter()
        .filter_map(|p| parse_choices(&std::fs::read_to_string(p).ok()?).ok())
        .collect()
}
