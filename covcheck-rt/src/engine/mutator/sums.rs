//! Checksum repair, after REDQUEEN's: a stored checksum that
//! input-to-state made right breaks again with the next change to what it
//! covers, and a frame with a wrong sum reaches nothing new, so a body that
//! must change in two places at once (its content and its sum) is out of
//! reach. A corpus entry's traced run tells which values it stores are
//! sums ([`stored_sums`]); its mutants are run traced, and a sum the code
//! now computes differently is written back ([`ChoiceMutator::repair_sums`]).

use super::bytes::{byte_runs, index_at};
use super::compare::encodings;
use super::{ChoiceMutator, Shape};
use crate::engine::sancov::IntCmp;
use crate::property::PropertyFn;
use crate::source::Limits;

/// A checksum (or length) stored in an input: a comparison of two computed
/// values held, and one of them is stored in the input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sum {
    /// The value as the code compared it.
    pub compared: u64,
    /// The comparison's width in bytes.
    pub size: u8,
}

impl ChoiceMutator {
    /// Repairs the `sums` of a corpus entry in a traced mutant of it
    /// (`shape`): where the mutant still stores such a value but the code
    /// now computed another (the mutation changed what the sum covers), the
    /// stored value becomes the computed one, at every width and byte order
    /// input-to-state writes. Returns the sums the mutant now stores in
    /// their place (empty when none was repaired).
    pub fn repair_sums(&mut self, sums: &[Sum], shape: &Shape, indices: &mut [u64]) -> Vec<Sum> {
        let mut repaired = Vec::new();
        for sum in sums {
            let Some(computed) = computed_now(sum, shape) else {
                continue;
            };
            let (from, to) = (sum.compared, computed);
            let cmp = IntCmp {
                a: from,
                b: to,
                size: sum.size,
            };
            let written = self.replace_int(shape, indices, cmp)
                || encodings(from, to, sum.size)
                    .into_iter()
                    .filter(|(.., text)| !text)
                    .any(|(from, to, _)| self.replace_bytes(shape, indices, &from, &to));
            if written {
                repaired.push(Sum {
                    compared: computed,
                    size: sum.size,
                });
            }
        }
        repaired
    }

    /// Runs `choices` traced and repairs the sums it stores
    /// ([`ChoiceMutator::repair_sums`]), returning the sums it stores in
    /// their place. An input that fails as it is stays as it is: that
    /// failure is not to be lost to a repair.
    ///
    /// A replay reads zeros past the end of `choices`, so the run may draw
    /// more choices than it holds (a shrinking candidate cut short, a
    /// mutant that lost its tail): those are written as zeros first, for
    /// the repair to reach them, and trailing zeros are dropped again.
    pub fn run_and_repair_sums(
        &mut self,
        property: &PropertyFn<'_>,
        limits: Limits,
        sums: &[Sum],
        choices: &mut Vec<u64>,
    ) -> Vec<Sum> {
        let shape = Shape::learn(property, choices, limits, true);
        if shape.failed {
            return Vec::new();
        }
        let len = choices.len();
        choices.resize(len.max(shape.choices.len()), 0);
        let repaired = self.repair_sums(sums, &shape, choices);
        while choices.len() > len && choices.last() == Some(&0) {
            choices.pop();
        }
        repaired
    }
}

/// The value the code compared `sum` against in the traced run `shape`, when
/// it is no longer the stored one.
fn computed_now(sum: &Sum, shape: &Shape) -> Option<u64> {
    shape.comparisons.ints.iter().find_map(|cmp| {
        let other = match (cmp.a == sum.compared, cmp.b == sum.compared) {
            (true, false) => cmp.b,
            (false, true) => cmp.a,
            _ => return None,
        };
        (cmp.size == sum.size).then_some(other)
    })
}

/// The comparisons of equal values (`shape.comparisons.equal`) whose value
/// is stored in the input: an integer draw of that value, or its bytes in
/// either order in a string or byte vector. Each value once.
pub(super) fn stored_sums(shape: &Shape, indices: &[u64]) -> Vec<Sum> {
    let mut sums: Vec<Sum> = Vec::new();
    if shape.comparisons.equal.is_empty() {
        return sums;
    }
    // The input's integer values and byte runs, read once for all the
    // comparisons.
    let draws: Vec<u64> = shape
        .ints
        .iter()
        .filter_map(|(&position, draw)| draw.value_bits(index_at(indices, position)))
        .collect();
    let runs: Vec<Vec<u8>> = byte_runs(shape, indices)
        .iter()
        .map(|run| run.iter().map(|e| e.byte).collect())
        .collect();
    for cmp in &shape.comparisons.equal {
        if !sums.iter().any(|s| s.compared == cmp.a) && stored(&draws, &runs, cmp.a, cmp.size) {
            sums.push(Sum {
                compared: cmp.a,
                size: cmp.size,
            });
        }
    }
    sums
}

/// Whether `value` (of `size` bytes) is one of the input's integer values
/// (`draws`) or is spelled in one of its byte runs (`runs`), in either
/// byte order.
fn stored(draws: &[u64], runs: &[Vec<u8>], value: u64, size: u8) -> bool {
    draws.contains(&value)
        || encodings(value, value, size)
            .into_iter()
            .filter(|(.., text)| !text)
            .any(|(bytes, ..)| {
                runs.iter()
                    .any(|run| run.windows(bytes.len()).any(|w| w == bytes))
            })
}
