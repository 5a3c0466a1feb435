//! What a campaign worker measures as it runs, sent in [`Event::Status`]
//! and [`Event::Done`](super::Event::Done): its [`Progress`], with the
//! tokens, `target()` values and costs that go with it, and how the
//! progress of a property's workers adds up.
//!
//! [`Event::Status`]: super::Event::Status

use serde::{Deserialize, Serialize};

use crate::messages;

#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct Progress {
    pub execs: u64,
    pub corpus: usize,
    /// Distinct coverage counters hit so far.
    pub edges: usize,
    pub elapsed_ms: u64,
    /// Corpus entries received from the property's other workers (or
    /// machines) that were new here and kept.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub imported: u64,
    /// The dictionary tokens that led to the most corpus entries, most
    /// first (at most [`TOP_TOKENS`]); empty without a dictionary.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tokens: Vec<TokenUse>,
    /// The best value of each label the property's `target()` calls
    /// reported, in the order first reached; empty for a property that
    /// calls none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub targets: Vec<TargetBest>,
    /// Performance mode's cost profile; `None` in other campaigns.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub costs: Option<CostProfile>,
    /// How often each failure already reported (or known from a seed) was
    /// hit again, with `--keep-going`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hits: Vec<FailureHits>,
    /// The counters of [`WorkerConfig::focus`](super::WorkerConfig::focus)
    /// the worker's corpus has reached, ascending.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub focus: Vec<u32>,
    /// Where its size steps stand, from 0 (the smallest size bound) to 1
    /// (the full size): a worker that continues the campaign starts there.
    #[serde(default, skip_serializing_if = "is_zero_f64")]
    pub size_step: f64,
}

/// How often one failure was hit.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct FailureHits {
    /// Its location (`file:line:column`) and call path, as in its finding.
    pub location: String,
    #[serde(default)]
    pub path: u64,
    pub hits: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

fn is_zero_f64(n: &f64) -> bool {
    *n == 0.0
}

impl Progress {
    /// `self` (earlier workers', or other lanes') and `later` as one:
    /// executions and imports added up; edges and corpus the larger (a
    /// restarted worker resumes from the corpus cache, and workers that
    /// share a corpus count alike); tokens added up; each label's best
    /// target; the costlier cost profile; the rest (elapsed time) from
    /// `later`.
    pub fn merge(&self, later: &Progress) -> Progress {
        Progress {
            execs: self.execs + later.execs,
            imported: self.imported + later.imported,
            edges: self.edges.max(later.edges),
            corpus: self.corpus.max(later.corpus),
            tokens: add_tokens(&self.tokens, &later.tokens),
            targets: best_targets(&self.targets, &later.targets),
            costs: costlier(&self.costs, &later.costs),
            elapsed_ms: later.elapsed_ms,
            hits: add_hits(&self.hits, &later.hits),
            focus: union(&self.focus, &later.focus),
            size_step: self.size_step.max(later.size_step),
        }
    }
}

/// The hit counts of `before` and `later`, added up failure by failure.
fn add_hits(before: &[FailureHits], later: &[FailureHits]) -> Vec<FailureHits> {
    let mut all = before.to_vec();
    for hit in later {
        match (all.iter_mut()).find(|h| h.location == hit.location && h.path == hit.path) {
            Some(h) => h.hits += hit.hits,
            None => all.push(hit.clone()),
        }
    }
    all
}

/// The counters in `a` or `b`, ascending.
fn union(a: &[u32], b: &[u32]) -> Vec<u32> {
    let mut all: Vec<u32> = a.iter().chain(b).copied().collect();
    all.sort_unstable();
    all.dedup();
    all
}

/// The best `target()` values of `before` and `later`: for each label, the
/// higher value and the input that reached it (`before`'s on a tie, as it
/// got there first).
fn best_targets(before: &[TargetBest], later: &[TargetBest]) -> Vec<TargetBest> {
    let mut all = before.to_vec();
    for best in later {
        match all.iter_mut().find(|b| b.label == best.label) {
            Some(b) if best.value > b.value => *b = best.clone(),
            Some(_) => {}
            None => all.push(best.clone()),
        }
    }
    all
}

/// The token counts of `before` and `later`, added up (each worker counts
/// the corpus entries it made).
fn add_tokens(before: &[TokenUse], later: &[TokenUse]) -> Vec<TokenUse> {
    let mut all = before.to_vec();
    for token in later {
        match all.iter_mut().find(|t| t.token == token.token) {
            Some(t) => t.entries += token.entries,
            None => all.push(token.clone()),
        }
    }
    top_tokens(all)
}

/// Of two workers' cost profiles, the one with the costlier input (workers
/// of a property measure the same cost, so the other adds nothing to
/// report).
fn costlier(before: &Option<CostProfile>, later: &Option<CostProfile>) -> Option<CostProfile> {
    let cost = |p: &Option<CostProfile>| {
        p.as_ref()
            .and_then(|p| p.costliest.as_ref())
            .map(|c| c.cost)
    };
    if cost(later) > cost(before) {
        later.clone()
    } else {
        before.clone().or_else(|| later.clone())
    }
}

/// What a performance campaign found out about its property's cost (edges
/// executed per execution) against input size (choices drawn).
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct CostProfile {
    /// One point per size class (sizes within a quarter of a doubling of
    /// each other), smallest first.
    pub points: Vec<CostPoint>,
    /// The costliest input of all, with its choices and arguments.
    pub costliest: Option<CostliestInput>,
}

/// The costs of the inputs of one size class.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct CostPoint {
    /// The size of the costliest input of the class.
    pub size: usize,
    /// The highest cost an input of the class reached.
    pub max: u64,
    /// The median cost of the fresh (random, not mutated) inputs of the
    /// class the campaign ran, within an eighth of a doubling; 0 when it
    /// ran none.
    pub median: u64,
    /// How many fresh inputs of the class the campaign ran.
    pub fresh: u64,
}

/// The costliest input a performance campaign ran.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct CostliestInput {
    pub size: usize,
    pub cost: u64,
    /// The median cost of the fresh inputs of its size class ([`CostPoint`]).
    pub median: u64,
    /// How many fresh inputs that median is of.
    pub fresh: u64,
    pub choices: Vec<u64>,
    /// The size limit (`COVCHECK_SIZE`) it ran under, when that was not the
    /// default: its seed replays under it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size_limit: Option<usize>,
    /// Each argument's `Debug` rendering, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub args: Vec<(String, String)>,
}

/// The highest value a campaign's executions reached for one `target()`
/// label, and the input that reached it.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct TargetBest {
    pub label: String,
    pub value: f64,
    /// The input's choices, as a seed stores them.
    pub choices: Vec<u64>,
    /// Each argument's `Debug` rendering, in order; empty when the worker
    /// did not get to render them (a status sent before it died).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub args: Vec<(String, String)>,
}

/// How many tokens [`Progress::tokens`] names.
pub const TOP_TOKENS: usize = 5;

/// A dictionary token and how much new coverage it led to.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct TokenUse {
    /// The token as a dictionary spells it between its quotes
    /// ([`crate::dictionary::escape`]).
    pub token: String,
    /// Corpus entries (inputs that found new coverage) whose creating
    /// mutation wrote the token.
    pub entries: u64,
}

/// The [`TOP_TOKENS`] tokens of `uses` with the most entries (most first,
/// ties in the order given), tokens that led to nothing left out.
pub fn top_tokens(mut uses: Vec<TokenUse>) -> Vec<TokenUse> {
    uses.retain(|u| u.entries > 0);
    uses.sort_by_key(|u| std::cmp::Reverse(u.entries));
    uses.truncate(TOP_TOKENS);
    uses
}

// What the messages say of the wire types above. Each conversion takes its
// value apart field by field, with no `..`: a field added to a wire type
// does not compile until its author decides here whether the stable
// message shows it (and adds it there, in a minor release) or not.

impl From<Progress> for messages::Progress {
    fn from(progress: Progress) -> Self {
        let Progress {
            execs,
            corpus,
            edges,
            elapsed_ms,
            imported,
            tokens,
            targets,
            costs,
            hits,
            focus: _,
            size_step: _,
        } = progress;
        messages::Progress {
            execs,
            corpus,
            edges,
            elapsed_ms,
            imported,
            tokens: tokens.into_iter().map(Into::into).collect(),
            targets: targets.into_iter().map(Into::into).collect(),
            costs: costs.map(Into::into),
            hits: hits.into_iter().map(Into::into).collect(),
        }
    }
}

impl From<FailureHits> for messages::FailureHits {
    fn from(hits: FailureHits) -> Self {
        let FailureHits {
            location,
            path,
            hits,
        } = hits;
        messages::FailureHits {
            location,
            call_path: path,
            hits,
        }
    }
}

impl From<TokenUse> for messages::TokenUse {
    fn from(token: TokenUse) -> Self {
        let TokenUse { token, entries } = token;
        messages::TokenUse { token, entries }
    }
}

impl From<TargetBest> for messages::TargetBest {
    fn from(best: TargetBest) -> Self {
        let TargetBest {
            label,
            value,
            choices,
            args,
        } = best;
        messages::TargetBest {
            label,
            value,
            choices,
            args,
        }
    }
}

impl From<CostProfile> for messages::CostProfile {
    fn from(profile: CostProfile) -> Self {
        let CostProfile { points, costliest } = profile;
        messages::CostProfile {
            points: points.into_iter().map(Into::into).collect(),
            costliest: costliest.map(Into::into),
        }
    }
}

impl From<CostPoint> for messages::CostPoint {
    fn from(point: CostPoint) -> Self {
        let CostPoint {
            size,
            max,
            median,
            fresh,
        } = point;
        messages::CostPoint {
            size,
            max,
            median,
            fresh,
        }
    }
}

impl From<CostliestInput> for messages::CostliestInput {
    fn from(input: CostliestInput) -> Self {
        let CostliestInput {
            size,
            cost,
            median,
            fresh,
            choices,
            size_limit,
            args,
        } = input;
        messages::CostliestInput {
            size,
            cost,
            median,
            fresh,
            choices,
            size_limit,
            args,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn uses(counts: &[(&str, u64)]) -> Vec<TokenUse> {
        counts
            .iter()
            .map(|&(token, entries)| TokenUse {
                token: token.into(),
                entries,
            })
            .collect()
    }

    #[test]
    fn merged_progress_adds_executions_and_tokens_and_keeps_the_best_targets() {
        let best = |label: &str, value: f64, choice: u64| TargetBest {
            label: label.into(),
            value,
            choices: vec![choice],
            args: Vec::new(),
        };
        let before = Progress {
            execs: 10,
            edges: 7,
            corpus: 3,
            elapsed_ms: 5,
            tokens: uses(&[("a", 2), ("b", 1)]),
            targets: vec![best("depth", 3.0, 1), best("len", 9.0, 2)],
            ..Progress::default()
        };
        let later = Progress {
            execs: 4,
            edges: 5,
            corpus: 4,
            elapsed_ms: 9,
            imported: 2,
            tokens: uses(&[("b", 3), ("c", 1)]),
            targets: vec![
                best("len", 7.0, 3),
                best("depth", 5.0, 4),
                best("x", 1.0, 5),
            ],
            ..Progress::default()
        };
        let merged = before.merge(&later);
        assert_eq!(
            (merged.execs, merged.imported, merged.edges, merged.corpus),
            (14, 2, 7, 4)
        );
        assert_eq!(merged.elapsed_ms, 9, "the later worker's time");
        assert_eq!(merged.tokens, uses(&[("b", 4), ("a", 2), ("c", 1)]));
        assert_eq!(
            merged.targets,
            [
                best("depth", 5.0, 4),
                best("len", 9.0, 2),
                best("x", 1.0, 5)
            ]
        );
    }

    #[test]
    fn token_counts_are_optional_on_the_wire() {
        let old = r#"{"execs":5,"corpus":2,"edges":9,"elapsed_ms":10}"#;
        let progress: Progress = serde_json::from_str(old).unwrap();
        assert!(progress.tokens.is_empty());
        assert_eq!(serde_json::to_string(&progress).unwrap(), old);
        let with = Progress {
            tokens: vec![TokenUse {
                token: "GET ".into(),
                entries: 12,
            }],
            ..progress
        };
        let line = serde_json::to_string(&with).unwrap();
        assert!(
            line.ends_with(r#""tokens":[{"token":"GET ","entries":12}]}"#),
            "{line}"
        );
        assert_eq!(serde_json::from_str::<Progress>(&line).unwrap(), with);
    }

    #[test]
    fn target_values_are_optional_on_the_wire() {
        let old = r#"{"execs":5,"corpus":2,"edges":9,"elapsed_ms":10}"#;
        let progress: Progress = serde_json::from_str(old).unwrap();
        assert!(progress.targets.is_empty());
        let with = Progress {
            targets: vec![TargetBest {
                label: "depth".into(),
                value: 7.5,
                choices: vec![1, 2],
                args: vec![("tree".into(), "[[]]".into())],
            }],
            ..progress
        };
        let line = serde_json::to_string(&with).unwrap();
        assert!(
            line.ends_with(
                r#""targets":[{"label":"depth","value":7.5,"choices":[1,2],"args":[["tree","[[]]"]]}]}"#
            ),
            "{line}"
        );
        assert_eq!(serde_json::from_str::<Progress>(&line).unwrap(), with);
    }

    #[test]
    fn the_top_tokens_are_those_with_most_entries() {
        let all = uses(&[
            ("a", 1),
            ("b", 0),
            ("c", 7),
            ("d", 1),
            ("e", 3),
            ("f", 2),
            ("g", 1),
        ]);
        assert_eq!(
            top_tokens(all),
            uses(&[("c", 7), ("e", 3), ("f", 2), ("a", 1), ("d", 1)])
        );
    }

    /// The stable message of a progress is the wire's, field for field:
    /// the JSON that `--message-format json` printed when the messages
    /// carried the wire type itself.
    #[test]
    fn a_progress_reads_the_same_in_a_message() {
        let progress = Progress {
            execs: 7,
            corpus: 2,
            edges: 30,
            elapsed_ms: 12,
            imported: 1,
            tokens: uses(&[("GET ", 3)]),
            targets: vec![TargetBest {
                label: "depth".into(),
                value: 2.5,
                choices: vec![4],
                args: vec![("t".into(), "[]".into())],
            }],
            costs: Some(CostProfile {
                points: vec![CostPoint {
                    size: 4,
                    max: 90,
                    median: 40,
                    fresh: 3,
                }],
                costliest: Some(CostliestInput {
                    size: 4,
                    cost: 90,
                    median: 40,
                    fresh: 3,
                    choices: vec![1, 2],
                    size_limit: Some(64),
                    args: vec![("v".into(), "[1]".into())],
                }),
            }),
            hits: Vec::new(),
            focus: Vec::new(),
            size_step: 0.0,
        };
        let wire = serde_json::to_string(&progress).unwrap();
        let stable = serde_json::to_string(&messages::Progress::from(progress)).unwrap();
        assert_eq!(stable, wire);
    }
}
