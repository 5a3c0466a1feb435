//! Checksum repair, after REDQUEEN's: a stored checksum that
//! input-to-state made right breaks again with the next change to what it
//! covers, and a frame with a wrong sum reaches nothing new, so a body that
//! must change in two places at once (its content and its sum) is out of
//! reach. A corpus entry's traced run tells which values it stores are
//! sums ([`stored_sums`]); its mutants are run traced, and a sum the code
//! now computes differently is written back ([`ChoiceMutator::repair_sums`]).

use super::bytes::{byte_runs, index_at};
use super::compare::byte_encodings;
use super::stored::Stored;
use super::xor_sums::XorSum;
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
            let stored = Stored::read(shape, indices);
            let written = self.replace_int(shape, &stored, indices, cmp)
                || byte_encodings(from, to, sum.size)
                    .any(|(from, to)| self.replace_bytes(shape, &stored, indices, &from, &to));
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
    /// ([`ChoiceMutator::repair_sums`]) and the XOR-form ones
    /// ([`ChoiceMutator::repair_xor_sums`]). An input that fails as it is
    /// stays as it is: that failure is not to be lost to a repair.
    ///
    /// A replay reads zeros past the end of `choices`, so the run may draw
    /// more choices than it holds (a shrinking candidate cut short, a
    /// mutant that lost its tail): those are written as zeros first, for
    /// the repair to reach them, and trailing zeros are dropped again.
    pub fn run_and_repair_sums(
        &mut self,
        runs: &mut RepairRuns<'_, '_>,
        sums: &[Sum],
        xor_sums: &[XorSum],
        choices: &mut Vec<u64>,
    ) -> Repaired {
        let shape = runs.learn(choices);
        if shape.failed {
            return Repaired {
                sums: Vec::new(),
                xor_sums: xor_sums.to_vec(),
                any: false,
            };
        }
        let len = choices.len();
        choices.resize(len.max(shape.choices.len()), 0);
        let repaired = self.repair_sums(sums, &shape, choices);
        let (mut xor_sums, xor_repaired) = self.repair_xor_sums(xor_sums, &shape, choices);
        if xor_repaired && runs.locate {
            xor_sums = self.locate_xor_sums(runs, xor_sums, choices);
        }
        while choices.len() > len && choices.last() == Some(&0) {
            choices.pop();
        }
        Repaired {
            any: !repaired.is_empty() || xor_repaired,
            sums: repaired,
            xor_sums,
        }
    }
}

/// How a repair runs inputs, all of them traced.
pub struct RepairRuns<'a, 'p> {
    pub property: &'a PropertyFn<'p>,
    pub limits: Limits,
    /// Called with each input before it runs: a campaign counts the run
    /// and names the input in its in-flight slot, for a crash to be
    /// pinned on it.
    pub before_run: &'a mut dyn FnMut(&[u64]),
    /// Whether an XOR-form sum whose repair did not take is looked for in
    /// other windows ([`ChoiceMutator::locate_xor_sums`]), at the cost of
    /// a run per window tried.
    pub locate: bool,
}

impl RepairRuns<'_, '_> {
    pub(super) fn learn(&mut self, choices: &[u64]) -> Shape {
        (self.before_run)(choices);
        Shape::traced(self.property, choices, self.limits)
    }
}

/// What [`ChoiceMutator::run_and_repair_sums`] did to an input.
#[derive(Debug, Default)]
pub struct Repaired {
    /// The value sums it wrote ([`ChoiceMutator::repair_sums`]).
    pub sums: Vec<Sum>,
    /// The XOR-form sums the input stores after it, rewritten or not.
    pub xor_sums: Vec<XorSum>,
    /// Whether it changed the input.
    pub any: bool,
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
pub(super) fn stored_sums(shape: &Shape, values: &InputValues) -> Vec<Sum> {
    let mut sums: Vec<Sum> = Vec::new();
    for cmp in &shape.comparisons.equal {
        if !sums.iter().any(|s| s.compared == cmp.a) && values.stores(cmp.a, cmp.size) {
            sums.push(Sum {
                compared: cmp.a,
                size: cmp.size,
            });
        }
    }
    sums
}

/// An input's integer values and byte runs, read once to test many
/// comparisons against.
pub(super) struct InputValues {
    draws: Vec<u64>,
    runs: Vec<Vec<u8>>,
    /// Which byte values occur in the runs: a spelling with a byte none
    /// holds is not searched for (most compared values are not stored).
    present: [u64; 4],
}

impl InputValues {
    pub(super) fn read(shape: &Shape, indices: &[u64]) -> InputValues {
        let draws = shape
            .ints
            .iter()
            .filter_map(|draw| draw.value_bits(index_at(indices, draw.position)))
            .collect();
        let runs: Vec<Vec<u8>> = byte_runs(shape, indices)
            .iter()
            .map(|run| run.iter().map(|e| e.byte).collect())
            .collect();
        let mut present = [0; 4];
        for &byte in runs.iter().flatten() {
            present[usize::from(byte >> 6)] |= 1 << (byte & 63);
        }
        InputValues {
            draws,
            runs,
            present,
        }
    }

    /// Whether `value` (of `size` bytes) is one of the input's integer
    /// values or is spelled in one of its byte runs, in either byte order.
    pub(super) fn stores(&self, value: u64, size: u8) -> bool {
        self.draws.contains(&value)
            || byte_encodings(value, value, size).any(|(bytes, _)| self.spells(&bytes))
    }

    /// Whether one of the runs holds `bytes`.
    fn spells(&self, bytes: &[u8]) -> bool {
        let present = |b: &u8| self.present[usize::from(b >> 6)] & (1 << (b & 63)) != 0;
        let Some((&first, rest)) = bytes.split_first() else {
            return false;
        };
        bytes.iter().all(present)
            && self.runs.iter().any(|run| {
                (run.iter().enumerate())
                    .filter(|&(_, &b)| b == first)
                    .any(|(at, _)| run.get(at + 1..at + bytes.len()) == Some(rest))
            })
    }
}
