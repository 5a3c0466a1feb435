//! Mutations of a choice sequence, never of raw bytes.
//!
//! Every mutation edits the indices of an input whose *shape* (each choice's
//! kind, the spans, the integer domains, and the comparisons it made) was
//! learned by running it once. Because generators are pure functions of the
//! choices, any edit still generates a valid value of the property's types:
//! deleting a collection element's span deletes the element, changing a
//! choice changes one field.
//!
//! | mutation | what it does |
//! |---|---|
//! | interesting / fresh | redraws one choice with the value heuristics (AFL's interesting values for its width, extremes, small values); an integer a quarter of the time becomes one of the integer literals of the crates under test, or its negation |
//! | bit flip, arithmetic | flips a bit of, or adds ±1..35 to, the *value* of an integer draw |
//! | delete / duplicate / rearrange spans | collections grow and shrink coherently; rearranging swaps two values of one type, or moves or copies one before another (commands between a stateful sequence's threads too) |
//! | repeat a span | 3 to 512 copies of a span at once: long operation sequences, long runs of one element |
//! | overwrite a run | a stretch of a string or byte vector becomes one repeated byte |
//! | splice | replaces a span by a span of the same type from another corpus entry |
//! | input-to-state | replaces a draw by the operand it was compared against (integers by value or by low bytes, strings and byte vectors by `memcmp` operands, in a string's UTF-8 across wider characters too, collection lengths), appends a delimiter a scan ran off the end for, or solves for a stored value the compared one is a function of: a small offset (zeroing it and growing the input where the input is too short for any), a remainder, a product, a quotient (a range check, or high bits for a power of two) |
//! | checksum repair | not a mutation of its own: after the others, a mutant of an entry that stores a checksum is run traced and the stored sum set to the one computed ([`ChoiceMutator::repair_sums`], and [`ChoiceMutator::repair_xor_sums`] for one compared in XOR form) |
//! | XOR solve | makes a comparison with a constant hold that a checksum compared in XOR form failed (`stored ^ crc == 0xFFFFFFFF`), by fixing a window of the input picked at random ([`ChoiceMutator::xor_solve`]); a new corpus entry's first missed comparison with a constant is also swept, every window tried ([`ChoiceMutator::sweep_miss`]) |
//! | tokens | inserts or writes a dictionary token into a string or byte vector: byte strings the code compared against, the property's own tokens (`dict`, `dict_file`), and the string and number literals of the crates under test |
//! | text | writes or inserts ASCII digits, a number at a width boundary, or printable ASCII |
//! | UTF-8 width | makes a `char` one of a different UTF-8 length (1 to 4 bytes) |
//! | copy within | copies part of a string or byte vector elsewhere in it |
//! | crossover | copies part of another corpus entry's string or byte vector into one of this entry's |
//! | swarm | makes some or all values of one enum type in the input the same variant (swarm testing), favouring the variants of entries that found new coverage |

mod arithmetic;
mod bytes;
mod compare;
mod shape;
mod spans;
mod stored;
mod sums;
#[cfg(test)]
mod tests;
mod text;
mod windows;
mod xor_sums;

pub use shape::{Shape, ShapeCache};
pub use sums::{RepairRuns, Sum};
pub use xor_sums::{Miss, XorSum};

use std::collections::HashMap;

use crate::choice::ChoiceKind;
use crate::engine::sancov::Comparisons;
use crate::heuristics;
use crate::rng::Rng;

/// The most choices one [`ChoiceMutator::repeat_span`] adds.
const MAX_REPEATED_CHOICES: usize = 8192;

/// The mutator LibAFL's mutational stage calls; see the module docs.
pub struct ChoiceMutator {
    pub rng: Rng,
    /// Input-to-state and token mutations (off for the ablation).
    pub cmp_mutations: bool,
    /// Byte strings seen in comparisons of any corpus entry.
    pub tokens: Vec<Vec<u8>>,
    /// The dictionary given before the campaign: the property's own tokens,
    /// then the string and number literals of the crates under test.
    pub literals: Vec<Vec<u8>>,
    /// How many of `literals`, at their start, are the property's own: a
    /// token of the dictionary is one of them half the time, so that a few
    /// keywords are not drowned among a crate's hundreds of literals.
    pub own_tokens: usize,
    /// Performance mode: half of the mutation stacks start by growing the
    /// input with copies of a part of it (a span repeated, duplicated, or
    /// bytes copied over others), seed 003's rules for making inputs
    /// greedy: repeated structure is what drives most accidental
    /// super-linear costs (a run of equal elements, a key hashed again and
    /// again, a nesting repeated), and the scheduler keeps the copies that
    /// raised the cost.
    pub grow: bool,
    /// The positions in `literals` of the tokens the last
    /// [`ChoiceMutator::mutate`] wrote, so that the campaign can count which
    /// tokens lead to new coverage.
    pub written: Vec<usize>,
    /// The XOR-form checksums the last [`ChoiceMutator::mutate`] solved
    /// ([`ChoiceMutator::xor_solve`]), for the campaign to hand to the entry
    /// the mutant becomes.
    pub xor_solved: Vec<XorSum>,
    /// How often each enum variant, by (span label, variant index), occurs
    /// in the corpus entries that found new coverage.
    variant_uses: HashMap<(u64, u64), u32>,
    /// The buffer [`ChoiceMutator::input_to_state`] reads an input into.
    stored: stored::Stored,
    /// The buffer the mutations of bytes read an input's runs into.
    runs: Vec<Vec<bytes::Element>>,
    /// The tries of input-to-state that found nowhere to write in `stored`.
    dead_ends: Vec<compare::DeadEnd>,
    /// The buffer [`ChoiceMutator::mutate`] keeps the input to mutate in,
    /// to tell whether the mutations changed it.
    original: Vec<u64>,
    /// How many times input-to-state's solvers picked a place to write at:
    /// a try that picked none found none.
    sites_picked: u64,
    /// The integer literals among `literals` (which spell them in
    /// decimal), read once: [`ChoiceMutator::interesting`] writes them into
    /// integer draws.
    numbers: std::cell::OnceCell<Vec<u64>>,
}

/// The mutations, picked uniformly (the ones that do not apply to an input
/// are skipped, and another is picked).
#[derive(Clone, Copy, Debug)]
enum Op {
    Fresh,
    Interesting,
    BitFlip,
    Arith,
    DeleteSpan,
    DuplicateSpan,
    RepeatSpan,
    RearrangeSpans,
    Splice,
    InputToState,
    XorSolve,
    WriteToken,
    OverwriteRun,
    Text,
    Utf8Width,
    CopyWithin,
    Crossover,
    Swarm,
}

const OPS: [Op; 18] = [
    Op::Fresh,
    Op::Interesting,
    Op::BitFlip,
    Op::Arith,
    Op::DeleteSpan,
    Op::DuplicateSpan,
    Op::RepeatSpan,
    Op::OverwriteRun,
    Op::RearrangeSpans,
    Op::Splice,
    Op::InputToState,
    Op::XorSolve,
    Op::WriteToken,
    Op::Text,
    Op::Utf8Width,
    Op::CopyWithin,
    Op::Crossover,
    Op::Swarm,
];

impl ChoiceMutator {
    pub fn new(seed: u64, cmp_mutations: bool) -> Self {
        ChoiceMutator {
            rng: Rng::new(seed),
            cmp_mutations,
            tokens: Vec::new(),
            literals: Vec::new(),
            own_tokens: 0,
            grow: false,
            written: Vec::new(),
            xor_solved: Vec::new(),
            variant_uses: HashMap::new(),
            stored: stored::Stored::default(),
            runs: Vec::new(),
            dead_ends: Vec::new(),
            sites_picked: 0,
            original: Vec::new(),
            numbers: std::cell::OnceCell::new(),
        }
    }

    /// Adds the byte strings an entry compared against to the dictionary.
    pub fn learn_tokens(&mut self, comparisons: &Comparisons) {
        if !self.cmp_mutations {
            return;
        }
        for (a, b) in &comparisons.bytes {
            for token in [a, b] {
                if token.len() >= 2 && !self.tokens.contains(token) && self.tokens.len() < 1024 {
                    self.tokens.push(token.clone());
                }
            }
        }
    }

    /// Mutates `indices` (whose shape is `shape`) with a stack of 1 to 4
    /// mutations. Span mutations only come first, while the spans still
    /// describe the sequence. `donor` is another corpus entry for splicing.
    /// Returns false when nothing could be changed.
    pub fn mutate(
        &mut self,
        shape: &Shape,
        indices: &mut Vec<u64>,
        donor: Option<(&Shape, &[u64])>,
    ) -> bool {
        self.written.clear();
        self.xor_solved.clear();
        indices.resize(shape.choices.len().max(indices.len()), 0);
        let stack = 1 + self.rng.at_most(3) as usize;
        let mut spans_valid = true;
        let mut applicable = [Op::Fresh; OPS.len()];
        let mut count = 0;
        for op in OPS {
            if self.applies(op, shape, donor.is_some()) {
                applicable[count] = op;
                count += 1;
            }
        }
        if count == 0 {
            return false;
        }
        let mut original = std::mem::take(&mut self.original);
        original.clone_from(indices);
        let growing = self.grow_ops(&applicable[..count]);
        for level in 0..stack {
            for _attempt in 0..8 {
                let op = if level == 0 && !growing.is_empty() && self.rng.percent(50) {
                    *self.rng.pick(&growing)
                } else {
                    *self.rng.pick(&applicable[..count])
                };
                let applied = match op {
                    Op::Fresh => self.fresh(shape, indices),
                    Op::Interesting => self.interesting(shape, indices),
                    Op::BitFlip => self.bit_flip(shape, indices),
                    Op::Arith => self.arith(shape, indices),
                    Op::DeleteSpan if spans_valid => self.delete_span(shape, indices),
                    Op::DuplicateSpan if spans_valid => self.duplicate_span(shape, indices),
                    Op::RepeatSpan if spans_valid => self.repeat_span(shape, indices),
                    Op::OverwriteRun => self.overwrite_run(shape, indices),
                    Op::RearrangeSpans if spans_valid => self.rearrange_spans(shape, indices),
                    Op::Splice if spans_valid => {
                        donor.is_some_and(|d| self.splice(shape, indices, d))
                    }
                    Op::InputToState if spans_valid => self.input_to_state(shape, indices),
                    Op::XorSolve if spans_valid => self.xor_solve(shape, indices),
                    Op::WriteToken if spans_valid => self.write_token(shape, indices),
                    Op::Text if spans_valid => self.write_text(shape, indices),
                    Op::Utf8Width => self.utf8_width(shape, indices),
                    Op::CopyWithin if spans_valid => self.copy_within(shape, indices),
                    Op::Crossover if spans_valid => {
                        donor.is_some_and(|d| self.crossover(shape, indices, d))
                    }
                    Op::Swarm if spans_valid => self.swarm(shape, indices),
                    _ => false,
                };
                if applied {
                    if indices.len() != shape.choices.len() {
                        spans_valid = false;
                        // Positions past the end read as zero anyway.
                        if indices.len() < shape.choices.len() {
                            indices.resize(shape.choices.len(), 0);
                        }
                    }
                    break;
                }
            }
        }
        let changed = *indices != original;
        self.original = original;
        changed
    }

    /// Of the `applicable` mutations, those that grow an input with copies
    /// of its own parts, in performance mode (none otherwise).
    fn grow_ops(&self, applicable: &[Op]) -> Vec<Op> {
        if !self.grow {
            return Vec::new();
        }
        applicable
            .iter()
            .copied()
            .filter(|op| matches!(op, Op::RepeatSpan | Op::DuplicateSpan | Op::CopyWithin))
            .collect()
    }

    /// Whether `op` can change an input of `shape` at all: picking only
    /// among those keeps the mutations that do apply as likely as before
    /// new kinds were added, and wastes no attempts.
    fn applies(&self, op: Op, shape: &Shape, donor: bool) -> bool {
        let (choices, spans) = (!shape.choices.is_empty(), !shape.spans.is_empty());
        match op {
            Op::Fresh | Op::Interesting | Op::BitFlip | Op::Arith => choices,
            Op::DeleteSpan | Op::DuplicateSpan | Op::RepeatSpan | Op::RearrangeSpans => spans,
            Op::Splice => spans && donor,
            Op::InputToState => {
                self.cmp_mutations
                    && !(shape.comparisons.ints.is_empty() && shape.comparisons.bytes.is_empty())
            }
            Op::XorSolve => self.cmp_mutations && shape.misses.iter().any(|m| !m.stored),
            Op::WriteToken => {
                shape.has.bytes && !(self.tokens.is_empty() && self.literals.is_empty())
            }
            Op::OverwriteRun | Op::Text | Op::CopyWithin => shape.has.bytes,
            Op::Crossover => shape.has.bytes && donor,
            Op::Utf8Width => shape.has.chars,
            Op::Swarm => shape.has.enums,
        }
    }

    /// A random choice position whose index is meaningful to change.
    fn position(&mut self, shape: &Shape) -> Option<usize> {
        if shape.choices.is_empty() {
            return None;
        }
        Some(self.rng.index(shape.choices.len()))
    }

    fn fresh(&mut self, shape: &Shape, indices: &mut [u64]) -> bool {
        let Some(i) = self.position(shape) else {
            return false;
        };
        let choice = shape.choices[i];
        if let Some((form, plan)) = float_at(shape, i) {
            // A float is redrawn whole, form and payload, with the float heuristics.
            let (new_form, payload) = plan(&mut self.rng);
            indices[form] = new_form;
            indices[form + 1] = payload;
            return true;
        }
        indices[i] = match shape.ints.get(i) {
            Some(draw) => {
                match u64::try_from(heuristics::int_index(
                    &mut self.rng,
                    &draw.domain,
                    draw.bits,
                    draw.signed,
                )) {
                    Ok(index) => index,
                    Err(_) => return false,
                }
            }
            None if self.rng.percent(50) => self.rng.at_most(choice.max.min(16)),
            None => self.rng.at_most(choice.max),
        };
        true
    }

    fn interesting(&mut self, shape: &Shape, indices: &mut [u64]) -> bool {
        let Some(i) = self.position(shape) else {
            return false;
        };
        let choice = shape.choices[i];
        let Some(draw) = shape.ints.get(i) else {
            let picks = [0, 1, choice.max, choice.max.saturating_sub(1)];
            indices[i] = *self.rng.pick(&picks);
            return true;
        };
        let value = match self.literal_number() {
            Some(number) => number,
            None => {
                let bits = draw.bits.min(64);
                let mut values: Vec<u64> =
                    vec![0, 1, u64::MAX, 1 << (bits - 1), (1 << (bits - 1)) - 1];
                // Two's complement, as the value bits of a draw are.
                values.extend(heuristics::AFL_INTERESTING.iter().map(|&v| v as u64));
                *self.rng.pick(&values)
            }
        };
        match draw.index_of(value) {
            Some(index) => {
                indices[i] = index;
                true
            }
            None => false,
        }
    }

    /// A quarter of the time, when the crates under test spell integer
    /// literals: one of them, or its negation (two's complement, as a
    /// draw's value bits are). A gate like `x % 65521 == 40503` compiles to
    /// a multiply-and-compare whose operands no longer hold `40503`, so
    /// input-to-state has nothing to copy; the source still spells it.
    fn literal_number(&mut self) -> Option<u64> {
        let numbers = self.numbers.get_or_init(|| {
            self.literals
                .iter()
                .filter_map(|token| std::str::from_utf8(token).ok()?.parse::<u64>().ok())
                .collect()
        });
        if numbers.is_empty() || !self.rng.percent(25) {
            return None;
        }
        let number = numbers[self.rng.index(numbers.len())];
        Some(if self.rng.percent(50) {
            number
        } else {
            number.wrapping_neg()
        })
    }

    fn bit_flip(&mut self, shape: &Shape, indices: &mut [u64]) -> bool {
        let Some(i) = self.position(shape) else {
            return false;
        };
        let choice = shape.choices[i];
        match shape.ints.get(i) {
            Some(draw) => {
                let Some(value) = draw.value_bits(indices[i]) else {
                    return false;
                };
                let bit = self.rng.at_most(u64::from(draw.bits.min(64)) - 1);
                match draw.index_of(value ^ (1 << bit)) {
                    Some(index) => indices[i] = index,
                    None => return false,
                }
            }
            None => {
                let width = 64 - choice.max.leading_zeros();
                if width == 0 {
                    return false;
                }
                let flipped = indices[i] ^ (1 << self.rng.at_most(u64::from(width) - 1));
                indices[i] = flipped.min(choice.max);
            }
        }
        true
    }

    fn arith(&mut self, shape: &Shape, indices: &mut [u64]) -> bool {
        let Some(i) = self.position(shape) else {
            return false;
        };
        let is_f64_bits = shape.choices[i].kind == ChoiceKind::FloatBits
            && float_at(shape, i).is_some()
            && indices[i - 1] == 1
            && shape.choices[i].max == u64::MAX;
        if is_f64_bits {
            // Arithmetic on the value of an f64 given as bits: halve, double, ±1, ±½, negate.
            let x = f64::from_bits(indices[i]);
            let changed = match self.rng.at_most(6) {
                0 => x / 2.0,
                1 => x * 2.0,
                2 => x + 1.0,
                3 => x - 1.0,
                4 => x + 0.5,
                5 => x - 0.5,
                _ => -x,
            };
            indices[i] = changed.to_bits();
            return true;
        }
        let delta = 1 + self.rng.at_most(34);
        let up = self.rng.percent(50);
        match shape.ints.get(i) {
            Some(draw) => {
                let Some(value) = draw.value_bits(indices[i]) else {
                    return false;
                };
                let changed = if up {
                    value.wrapping_add(delta)
                } else {
                    value.wrapping_sub(delta)
                };
                match draw.index_of(changed) {
                    Some(index) => indices[i] = index,
                    None => return false,
                }
            }
            None => {
                let max = shape.choices[i].max;
                indices[i] = if up {
                    indices[i].saturating_add(delta).min(max)
                } else {
                    indices[i].saturating_sub(delta)
                };
            }
        }
        true
    }
}

/// How a float's form and payload are drawn ([`heuristics::f64_plan`]).
type FloatPlan = fn(&mut Rng) -> (u64, u64);

/// When choice `i` belongs to a float (its form or its payload): the
/// position of the form and the plan that redraws the float.
fn float_at(shape: &Shape, i: usize) -> Option<(usize, FloatPlan)> {
    let form = match shape.choices.get(i)?.kind {
        ChoiceKind::FloatForm => i,
        ChoiceKind::FloatBits if i > 0 && shape.choices[i - 1].kind == ChoiceKind::FloatForm => {
            i - 1
        }
        _ => return None,
    };
    let payload = shape.choices.get(form + 1)?;
    // The payload's domain tells the width: f32 bit patterns fit in 32 bits.
    let plan = if payload.max == u64::from(u32::MAX) || payload.max == (1 << 25) - 1 {
        heuristics::f32_plan
    } else {
        heuristics::f64_plan
    };
    Some((form, plan))
}
