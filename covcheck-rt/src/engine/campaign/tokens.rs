//! The campaign's dictionary and what it brought: the property's own tokens
//! (`#[covcheck(dict = [...], dict_file = "...")]`) first, then the
//! package's literal dictionary that `cargo covcheck` wrote, without
//! repeats; and for each token, the corpus entries whose creating mutation
//! wrote it, for the status that says which tokens led to new coverage.
//!
//! Counting draws no random number, so it changes no decision of the
//! campaign.

use std::collections::HashSet;
use std::path::Path;

use crate::info::PropertyInfo;
use covcheck_protocol::worker::{Event, TokenUse, WorkerConfig, emit, top_tokens};

/// A campaign's dictionary.
pub(super) struct Dictionary {
    /// The property's tokens, then the literal dictionary's.
    pub(super) tokens: Vec<Vec<u8>>,
    /// How many of `tokens` are the property's.
    pub(super) own: usize,
}

/// The dictionary of the campaign `request` asks for. A bad `dict_file` is
/// an error (the campaign does not run); a literal dictionary that cannot be
/// read is reported, and the campaign goes on without it.
pub(super) fn dictionary(
    info: &PropertyInfo,
    request: &WorkerConfig,
) -> Result<Dictionary, String> {
    let mut tokens = if request.property_dictionary {
        crate::dictionary::property_tokens(info)?
    } else {
        Vec::new()
    };
    let own: HashSet<Vec<u8>> = tokens.iter().cloned().collect();
    let literals = literal_dictionary(request.dictionary.as_deref());
    tokens.extend(literals.into_iter().filter(|t| !own.contains(t)));
    Ok(Dictionary {
        tokens,
        own: own.len(),
    })
}

/// The literal dictionary's tokens; one that cannot be read is reported and
/// the campaign goes on without it.
fn literal_dictionary(path: Option<&Path>) -> Vec<Vec<u8>> {
    let Some(path) = path else {
        return Vec::new();
    };
    let parsed = std::fs::read_to_string(path)
        .map_err(|e| e.to_string())
        .and_then(|text| covcheck_protocol::dictionary::parse(&text));
    match parsed {
        Ok(tokens) => tokens,
        Err(error) => {
            emit(&Event::Warning {
                message: format!(
                    "dictionary {}: {error}; the campaign goes on without it",
                    path.display()
                ),
            });
            Vec::new()
        }
    }
}

/// For each dictionary token (in the mutator's order), the corpus entries
/// whose creating mutation wrote it.
#[derive(Debug, Default)]
pub(super) struct TokenCounts {
    tokens: Vec<Vec<u8>>,
    entries: Vec<u64>,
}

impl TokenCounts {
    pub(super) fn new(tokens: &[Vec<u8>]) -> TokenCounts {
        TokenCounts {
            tokens: tokens.to_vec(),
            entries: vec![0; tokens.len()],
        }
    }

    /// A mutation that wrote the tokens at `written` (positions in the
    /// dictionary) made a new corpus entry.
    pub(super) fn entry_added(&mut self, written: &[usize]) {
        for &at in written {
            if let Some(count) = self.entries.get_mut(at) {
                *count += 1;
            }
        }
    }

    /// The tokens that led to the most entries, for the status.
    pub(super) fn top(&self) -> Vec<TokenUse> {
        let uses = self
            .tokens
            .iter()
            .zip(&self.entries)
            .map(|(token, &entries)| TokenUse {
                token: covcheck_protocol::dictionary::escape(token),
                entries,
            })
            .collect();
        top_tokens(uses)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_ranked_by_the_entries_they_made() {
        let mut counts = TokenCounts::new(&[b"GET ".to_vec(), b"\r\n".to_vec(), b"x".to_vec()]);
        assert!(counts.top().is_empty());
        counts.entry_added(&[1]);
        counts.entry_added(&[1, 0]);
        counts.entry_added(&[1]);
        let top: Vec<(String, u64)> = counts
            .top()
            .into_iter()
            .map(|u| (u.token, u.entries))
            .collect();
        assert_eq!(
            top,
            [("\\x0d\\x0a".to_string(), 3), ("GET ".to_string(), 1)]
        );
    }
}
