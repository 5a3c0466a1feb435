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
//! | interesting / fresh | redraws one choice with the value heuristics (AFL's interesting values for its width, extremes, small values) |
//! | bit flip, arithmetic | flips a bit of, or adds ±1..35 to, the *value* of an integer draw |
//! | delete / duplicate / swap spans | collections grow and shrink coherently |
//! | repeat a span | 3 to 512 copies of a span at once: long operation sequences, long runs of one element |
//! | overwrite a run | a stretch of a string or byte vector becomes one repeated byte |
//! | splice | replaces a span by a span of the same type from another corpus entry |
//! | input-to-state | replaces a draw by the operand it was compared against (integers by value or by low bytes, strings and byte vectors by `memcmp` operands, collection lengths) |
//! | token insertion | inserts a compared byte string into a string or byte vector |

use std::collections::{BTreeMap, HashMap};
use std::rc::Rc;

use crate::choice::{Choice, ChoiceKind, Span, char_from_index, char_index};
use crate::engine::sancov::{Comparisons, IntCmp, Tracing};
use crate::heuristics;
use crate::property::{PropertyFn, execute, generate_only};
use crate::rng::Rng;
use crate::source::{IntDraw, Limits, Source};

/// What one run of an input revealed about it.
#[derive(Debug, Default)]
pub struct Shape {
    pub choices: Vec<Choice>,
    pub spans: Vec<Span>,
    /// Integer draws by position (ordered, so that a campaign with a fixed
    /// RNG seed picks the same draw in every run).
    pub ints: BTreeMap<usize, IntDraw>,
    pub comparisons: Comparisons,
}

impl Shape {
    /// Learns the shape of `indices` by generating its arguments (without the
    /// body), then, when `trace` is set, running it once with comparison
    /// tracing on.
    pub fn learn(property: &PropertyFn<'_>, indices: &[u64], limits: Limits, trace: bool) -> Shape {
        let mut src = Source::replay(indices.to_vec(), limits);
        src.record_int_draws();
        let mut src = generate_only(property, src);
        let ints = src
            .take_int_draws()
            .into_iter()
            .map(|d| (d.position, d))
            .collect();
        let (choices, spans) = src.into_record();
        let comparisons = if trace {
            let tracing = Tracing::start();
            let _ = execute(property, Source::replay(indices.to_vec(), limits), false);
            tracing.finish()
        } else {
            Comparisons::default()
        };
        if std::env::var_os("COVCHECK_DEBUG_SHAPES").is_some() {
            eprintln!("shape of {indices:?}: comparisons {comparisons:?}");
        }
        Shape {
            choices,
            spans,
            ints,
            comparisons,
        }
    }
}

/// The most choices one [`ChoiceMutator::repeat_span`] adds.
const MAX_REPEATED_CHOICES: usize = 8192;

/// One element of a string or byte vector: the position of its "more" flag
/// and of its value choice.
#[derive(Clone, Copy, Debug)]
struct Element {
    value: usize,
    byte: u8,
}

/// Runs of string/byte-vector elements whose values are single bytes.
fn byte_runs(shape: &Shape, indices: &[u64]) -> Vec<Vec<Element>> {
    let mut runs = Vec::new();
    let mut current = Vec::new();
    let mut i = 0;
    let choices = &shape.choices;
    while i < choices.len() {
        let element = (choices[i].kind == ChoiceKind::More && index_at(indices, i) == 1)
            .then(|| byte_at(shape, indices, i + 1))
            .flatten();
        match element {
            Some(byte) => {
                current.push(Element { value: i + 1, byte });
                i += 2;
            }
            None => {
                if !current.is_empty() {
                    runs.push(std::mem::take(&mut current));
                }
                i += 1;
            }
        }
    }
    if !current.is_empty() {
        runs.push(current);
    }
    runs
}

fn index_at(indices: &[u64], i: usize) -> u64 {
    indices.get(i).copied().unwrap_or(0)
}

/// The byte a choice stands for, if it is an ASCII `char` or an 8-bit integer.
fn byte_at(shape: &Shape, indices: &[u64], i: usize) -> Option<u8> {
    let choice = shape.choices.get(i)?;
    let index = index_at(indices, i);
    match choice.kind {
        ChoiceKind::Char => {
            let c = char_from_index(index.min(choice.max));
            c.is_ascii().then_some(c as u8)
        }
        ChoiceKind::Int { .. } => {
            let draw = shape.ints.get(&i)?;
            (draw.bits == 8).then(|| draw.value_bits(index).map(|b| b as u8))?
        }
        _ => None,
    }
}

/// The index that makes element choice `i` (a char or 8-bit integer) stand for `byte`.
fn index_for_byte(shape: &Shape, i: usize, byte: u8) -> Option<u64> {
    match shape.choices.get(i)?.kind {
        ChoiceKind::Char => byte.is_ascii().then(|| char_index(byte as char)),
        ChoiceKind::Int { .. } => shape.ints.get(&i)?.index_of(u64::from(byte)),
        _ => None,
    }
}

/// The mutator LibAFL's mutational stage calls; see the module docs.
pub struct ChoiceMutator {
    pub rng: Rng,
    /// Input-to-state and token mutations (off for the ablation).
    pub cmp_mutations: bool,
    /// Byte strings seen in comparisons of any corpus entry (the dictionary).
    pub tokens: Vec<Vec<u8>>,
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
    SwapSpans,
    Splice,
    InputToState,
    InsertToken,
    OverwriteRun,
}

const OPS: [Op; 12] = [
    Op::Fresh,
    Op::Interesting,
    Op::BitFlip,
    Op::Arith,
    Op::DeleteSpan,
    Op::DuplicateSpan,
    Op::RepeatSpan,
    Op::OverwriteRun,
    Op::SwapSpans,
    Op::Splice,
    Op::InputToState,
    Op::InsertToken,
];

impl ChoiceMutator {
    pub fn new(seed: u64, cmp_mutations: bool) -> Self {
        ChoiceMutator {
            rng: Rng::new(seed),
            cmp_mutations,
            tokens: Vec::new(),
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
        indices.resize(shape.choices.len().max(indices.len()), 0);
        let original = indices.clone();
        let stack = 1 + self.rng.at_most(3) as usize;
        let mut spans_valid = true;
        for _ in 0..stack {
            for _attempt in 0..8 {
                let op = *self.rng.pick(&OPS);
                let applied = match op {
                    Op::Fresh => self.fresh(shape, indices),
                    Op::Interesting => self.interesting(shape, indices),
                    Op::BitFlip => self.bit_flip(shape, indices),
                    Op::Arith => self.arith(shape, indices),
                    Op::DeleteSpan if spans_valid => self.delete_span(shape, indices),
                    Op::DuplicateSpan if spans_valid => self.duplicate_span(shape, indices),
                    Op::RepeatSpan if spans_valid => self.repeat_span(shape, indices),
                    Op::OverwriteRun => self.overwrite_run(shape, indices),
                    Op::SwapSpans if spans_valid => self.swap_spans(shape, indices),
                    Op::Splice if spans_valid => {
                        donor.is_some_and(|d| self.splice(shape, indices, d))
                    }
                    Op::InputToState if self.cmp_mutations && spans_valid => {
                        self.input_to_state(shape, indices)
                    }
                    Op::InsertToken if self.cmp_mutations && spans_valid => {
                        self.insert_token(shape, indices)
                    }
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
        *indices != original
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
        indices[i] = match shape.ints.get(&i) {
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
        let Some(draw) = shape.ints.get(&i) else {
            let picks = [0, 1, choice.max, choice.max.saturating_sub(1)];
            indices[i] = *self.rng.pick(&picks);
            return true;
        };
        let bits = draw.bits.min(64);
        let mut values: Vec<u64> = vec![0, 1, u64::MAX, 1 << (bits - 1), (1 << (bits - 1)) - 1];
        // Two's complement, as the value bits of a draw are.
        values.extend(heuristics::AFL_INTERESTING.iter().map(|&v| v as u64));
        let value = *self.rng.pick(&values);
        match draw.index_of(value) {
            Some(index) => {
                indices[i] = index;
                true
            }
            None => false,
        }
    }

    fn bit_flip(&mut self, shape: &Shape, indices: &mut [u64]) -> bool {
        let Some(i) = self.position(shape) else {
            return false;
        };
        let choice = shape.choices[i];
        match shape.ints.get(&i) {
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
        match shape.ints.get(&i) {
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

    fn random_span(&mut self, shape: &Shape) -> Option<Span> {
        (!shape.spans.is_empty()).then(|| shape.spans[self.rng.index(shape.spans.len())])
    }

    fn delete_span(&mut self, shape: &Shape, indices: &mut Vec<u64>) -> bool {
        let Some(span) = self.random_span(shape) else {
            return false;
        };
        indices.drain(span.start..span.end);
        true
    }

    fn duplicate_span(&mut self, shape: &Shape, indices: &mut Vec<u64>) -> bool {
        let Some(span) = self.random_span(shape) else {
            return false;
        };
        let copy: Vec<u64> = indices[span.start..span.end].to_vec();
        indices.splice(span.end..span.end, copy);
        true
    }

    /// Inserts many copies of a span after it: an operation pushed 32 times
    /// in a row, an element repeated past a length or count limit. One copy
    /// at a time ([`Self::duplicate_span`]) would take dozens of lucky steps.
    fn repeat_span(&mut self, shape: &Shape, indices: &mut Vec<u64>) -> bool {
        const COPIES: [usize; 9] = [3, 4, 8, 16, 32, 64, 128, 256, 512];
        let Some(span) = self.random_span(shape) else {
            return false;
        };
        let copies = (*self.rng.pick(&COPIES)).min(MAX_REPEATED_CHOICES / span.len().max(1));
        if copies < 2 {
            return false;
        }
        let copy: Vec<u64> = indices[span.start..span.end].to_vec();
        let repeated: Vec<u64> = std::iter::repeat_n(copy, copies).flatten().collect();
        indices.splice(span.end..span.end, repeated);
        true
    }

    /// Makes a stretch of a string or byte vector one repeated byte: the
    /// input an encoder of runs, a counter of equal neighbours or a
    /// run-length limit is waiting for.
    fn overwrite_run(&mut self, shape: &Shape, indices: &mut [u64]) -> bool {
        let runs: Vec<Vec<Element>> = byte_runs(shape, indices)
            .into_iter()
            .filter(|r| r.len() >= 2)
            .collect();
        if runs.is_empty() {
            return false;
        }
        let run = &runs[self.rng.index(runs.len())];
        let start = self.rng.index(run.len() - 1);
        let len = 2 + self.rng.index(run.len() - start - 1);
        let value = indices[run[start].value];
        let mut changed = false;
        for element in &run[start + 1..start + len] {
            changed |= indices[element.value] != value;
            indices[element.value] = value;
        }
        changed
    }

    fn swap_spans(&mut self, shape: &Shape, indices: &mut [u64]) -> bool {
        let Some(a) = self.random_span(shape) else {
            return false;
        };
        let same: Vec<&Span> = shape
            .spans
            .iter()
            .filter(|b| {
                b.label == a.label && b.len() == a.len() && (b.start >= a.end || b.end <= a.start)
            })
            .collect();
        if same.is_empty() {
            return false;
        }
        let b = *same[self.rng.index(same.len())];
        for k in 0..a.len() {
            indices.swap(a.start + k, b.start + k);
        }
        true
    }

    fn splice(&mut self, shape: &Shape, indices: &mut Vec<u64>, donor: (&Shape, &[u64])) -> bool {
        let Some(target) = self.random_span(shape) else {
            return false;
        };
        let (donor_shape, donor_indices) = donor;
        let candidates: Vec<&Span> = donor_shape
            .spans
            .iter()
            .filter(|s| s.label == target.label && s.end <= donor_indices.len())
            .collect();
        if candidates.is_empty() {
            return false;
        }
        let from = *candidates[self.rng.index(candidates.len())];
        indices.splice(
            target.start..target.end,
            donor_indices[from.start..from.end].iter().copied(),
        );
        true
    }

    /// Replaces a draw by the other operand of a comparison it took part in.
    fn input_to_state(&mut self, shape: &Shape, indices: &mut Vec<u64>) -> bool {
        let cmps = &shape.comparisons;
        let total = cmps.ints.len() + cmps.bytes.len();
        if total == 0 {
            return false;
        }
        // A few tries: a random comparison may not involve any draw.
        for _ in 0..16 {
            let pick = self.rng.index(total);
            let applied = if pick < cmps.ints.len() {
                let cmp = cmps.ints[pick];
                let (from, to) = if self.rng.percent(50) {
                    (cmp.a, cmp.b)
                } else {
                    (cmp.b, cmp.a)
                };
                self.replace_int(
                    shape,
                    indices,
                    IntCmp {
                        a: from,
                        b: to,
                        size: cmp.size,
                    },
                ) || self.resize_run(shape, indices, from, to)
                    || self.replace_bytes(
                        shape,
                        indices,
                        &from.to_le_bytes()[..cmp.size as usize],
                        &to.to_le_bytes()[..cmp.size as usize],
                    )
            } else {
                let (a, b) = &cmps.bytes[pick - cmps.ints.len()];
                let (from, to) = if self.rng.percent(50) { (a, b) } else { (b, a) };
                self.replace_bytes(shape, indices, from, to)
            };
            if applied {
                return true;
            }
        }
        false
    }

    /// Integer draws whose value equals `cmp.a` get `cmp.b`. The match is also
    /// tried on the value's low 1, 2 and 4 bytes when both operands fit in
    /// them, which is how `x & 0xFFFF == 0xBEEF` or a truncating cast is
    /// solved: the high bytes are kept and the low ones replaced.
    fn replace_int(&mut self, shape: &Shape, indices: &mut [u64], cmp: IntCmp) -> bool {
        let mut matches: Vec<(usize, u64)> = Vec::new();
        for (&position, draw) in &shape.ints {
            let Some(value) = draw.value_bits(index_at(indices, position)) else {
                continue;
            };
            for bytes in [8u32, 4, 2, 1] {
                let mask = if bytes == 8 {
                    u64::MAX
                } else {
                    (1u64 << (8 * bytes)) - 1
                };
                let fits = bytes == 8 || (cmp.a & !mask == 0 && cmp.b & !mask == 0);
                if !fits || value & mask != cmp.a {
                    continue;
                }
                if let Some(index) = draw.index_of((value & !mask) | cmp.b) {
                    matches.push((position, index));
                }
                break;
            }
        }
        if matches.is_empty() {
            return false;
        }
        let (position, index) = matches[self.rng.index(matches.len())];
        indices[position] = index;
        true
    }

    /// Where a byte run occurs in a string or byte vector, writes `to` over it.
    fn replace_bytes(
        &mut self,
        shape: &Shape,
        indices: &mut [u64],
        from: &[u8],
        to: &[u8],
    ) -> bool {
        if from.len() != to.len() || from.is_empty() {
            return false;
        }
        let mut sites = Vec::new();
        for run in byte_runs(shape, indices) {
            let bytes: Vec<u8> = run.iter().map(|e| e.byte).collect();
            for start in 0..bytes.len().saturating_sub(from.len() - 1) {
                if bytes[start..start + from.len()] == *from {
                    sites.push(run[start..start + from.len()].to_vec());
                }
            }
        }
        if sites.is_empty() {
            return false;
        }
        let site = &sites[self.rng.index(sites.len())];
        let mut changed = false;
        for (element, &byte) in site.iter().zip(to) {
            if let Some(index) = index_for_byte(shape, element.value, byte) {
                changed |= indices[element.value] != index;
                indices[element.value] = index;
            }
        }
        changed
    }

    /// A string or byte vector whose length was compared with another number
    /// is resized to it (so that a later `memcmp` can see a candidate).
    fn resize_run(&mut self, shape: &Shape, indices: &mut Vec<u64>, from: u64, to: u64) -> bool {
        if to > 256 || from == to {
            return false;
        }
        let runs: Vec<Vec<Element>> = byte_runs(shape, indices)
            .into_iter()
            .filter(|run| run.len() as u64 == from)
            .collect();
        if runs.is_empty() {
            return false;
        }
        let run = &runs[self.rng.index(runs.len())];
        let last = run[run.len() - 1].value;
        let to = to as usize;
        if to < run.len() {
            // Drop the trailing elements (flag and value each).
            let cut = run[to].value - 1;
            indices.drain(cut..=last);
        } else {
            let element = [1, indices[last]];
            let extra: Vec<u64> = element
                .iter()
                .copied()
                .cycle()
                .take(2 * (to - run.len()))
                .collect();
            indices.splice(last + 1..last + 1, extra);
        }
        true
    }

    /// Inserts a dictionary token into a string or byte vector.
    fn insert_token(&mut self, shape: &Shape, indices: &mut Vec<u64>) -> bool {
        if self.tokens.is_empty() {
            return false;
        }
        let runs = byte_runs(shape, indices);
        if runs.is_empty() {
            return false;
        }
        let run = &runs[self.rng.index(runs.len())];
        let token = self.tokens[self.rng.index(self.tokens.len())].clone();
        let at = self.rng.index(run.len() + 1);
        let template = run[0].value;
        let mut extra = Vec::with_capacity(2 * token.len());
        for &byte in &token {
            let Some(index) = index_for_byte(shape, template, byte) else {
                return false;
            };
            extra.extend([1, index]);
        }
        let insert_at = if at == run.len() {
            run[at - 1].value + 1
        } else {
            run[at].value - 1
        };
        indices.splice(insert_at..insert_at, extra);
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

/// Shapes of corpus entries, learned once per entry (the traced run is the
/// expensive part: only new entries pay it).
#[derive(Default)]
pub struct ShapeCache {
    shapes: HashMap<usize, Rc<(Shape, Vec<u64>)>>,
    ids: Vec<usize>,
}

impl ShapeCache {
    pub fn get_or_learn(
        &mut self,
        id: usize,
        learn: impl FnOnce() -> (Shape, Vec<u64>),
    ) -> (Rc<(Shape, Vec<u64>)>, bool) {
        if let Some(shape) = self.shapes.get(&id) {
            return (shape.clone(), false);
        }
        let shape = Rc::new(learn());
        self.shapes.insert(id, shape.clone());
        self.ids.push(id);
        (shape, true)
    }

    /// Another cached entry, for splicing.
    pub fn other(&self, rng: &mut Rng, not: usize) -> Option<Rc<(Shape, Vec<u64>)>> {
        if self.ids.len() < 2 {
            return None;
        }
        let id = self.ids[rng.index(self.ids.len())];
        (id != not).then(|| self.shapes[&id].clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::Generate;

    /// The shape of the input that generates `value`, learned without tracing.
    fn shape_of<T: Generate + 'static>(indices: &[u64]) -> Shape {
        let property = |src: &mut Source| {
            let _ = T::generate(src);
            Ok(())
        };
        Shape::learn(&property, indices, Limits::default(), false)
    }

    fn value_of<T: Generate>(indices: &[u64]) -> T {
        T::generate(&mut Source::replay(indices.to_vec(), Limits::default()))
    }

    #[test]
    fn input_to_state_replaces_the_low_bytes_of_a_masked_comparison() {
        use crate::int::Int;
        // The program computed `x & 0xFFFF` (0x4242) and compared it with 0xBEEF.
        let value: i64 = 0x1234_5678_0000_4242;
        let draw = IntDraw {
            position: 0,
            domain: crate::choice::IntDomain::new(
                i64::MIN.to_ordinal(),
                i64::MAX.to_ordinal(),
                0i64.to_ordinal(),
            ),
            bits: 64,
            signed: true,
        };
        let mut indices = vec![draw.index_of(value as u64).unwrap()];
        assert_eq!(value_of::<i64>(&indices), value);
        let mut shape = shape_of::<i64>(&indices);
        shape.comparisons.ints = vec![IntCmp {
            a: 0x4242,
            b: 0xBEEF,
            size: 8,
        }];
        let mut mutator = ChoiceMutator::new(1, true);
        let mut tries = 0;
        while value_of::<i64>(&indices) != 0x1234_5678_0000_BEEF {
            tries += 1;
            assert!(
                tries < 50,
                "never replaced: {:#x}",
                value_of::<i64>(&indices)
            );
            mutator.input_to_state(&shape, &mut indices);
        }
    }

    #[test]
    fn input_to_state_writes_a_compared_byte_string_into_a_string() {
        // "abcdef": a more-flag and a char per element.
        let mut indices = Vec::new();
        for c in "abcdef".chars() {
            indices.extend([1, char_index(c)]);
        }
        let mut shape = shape_of::<String>(&indices);
        shape.comparisons.bytes = vec![(b"cde".to_vec(), b"XYZ".to_vec())];
        let mut mutator = ChoiceMutator::new(1, true);
        let mut tries = 0;
        while value_of::<String>(&indices) != "abXYZf" {
            tries += 1;
            assert!(
                tries < 50,
                "never replaced: {:?}",
                value_of::<String>(&indices)
            );
            mutator.input_to_state(&shape, &mut indices);
        }
    }

    /// A campaign's limits: room for long runs.
    fn long() -> Limits {
        Limits {
            max_len: 4096,
            ..Limits::default()
        }
    }

    #[test]
    fn a_span_repeated_many_times_makes_a_long_run() {
        // [7]: a more-flag and a byte.
        let mut indices = vec![1, 7];
        let property = |src: &mut Source| {
            let _ = Vec::<u8>::generate(src);
            Ok(())
        };
        let shape = Shape::learn(&property, &indices, long(), false);
        let mut mutator = ChoiceMutator::new(3, false);
        let longest = (0..40)
            .map(|_| {
                let mut copy = indices.clone();
                mutator.repeat_span(&shape, &mut copy);
                Vec::<u8>::generate(&mut Source::replay(copy, long())).len()
            })
            .max()
            .unwrap();
        assert!(longest >= 256, "a run past 255 within 40 tries: {longest}");
        // Every copy is the same element.
        assert!(mutator.repeat_span(&shape, &mut indices));
        let value = Vec::<u8>::generate(&mut Source::replay(indices, long()));
        assert!(
            value.len() >= 4 && value.iter().all(|&b| b == 7),
            "{value:?}"
        );
    }

    #[test]
    fn a_stretch_of_bytes_is_overwritten_with_one_byte() {
        let mut indices = Vec::new();
        for b in [1u8, 2, 3, 4, 5, 6] {
            indices.extend([1, u64::from(b)]);
        }
        let property = |src: &mut Source| {
            let _ = Vec::<u8>::generate(src);
            Ok(())
        };
        let shape = Shape::learn(&property, &indices, long(), false);
        let mut mutator = ChoiceMutator::new(1, false);
        assert!(mutator.overwrite_run(&shape, &mut indices));
        let value = Vec::<u8>::generate(&mut Source::replay(indices, long()));
        assert_eq!(value.len(), 6);
        let longest_run = value
            .chunk_by(|a, b| a == b)
            .map(<[u8]>::len)
            .max()
            .unwrap();
        assert!(longest_run >= 2, "{value:?}");
    }

    #[test]
    fn a_compared_length_resizes_a_string() {
        let mut indices = Vec::new();
        for c in "abc".chars() {
            indices.extend([1, char_index(c)]);
        }
        let shape = shape_of::<String>(&indices);
        let mut mutator = ChoiceMutator::new(1, true);
        assert!(mutator.resize_run(&shape, &mut indices, 3, 7));
        assert_eq!(value_of::<String>(&indices), "abccccc");
        let shape = shape_of::<String>(&indices);
        assert!(mutator.resize_run(&shape, &mut indices, 7, 2));
        assert_eq!(value_of::<String>(&indices), "ab");
    }

    #[test]
    fn tokens_are_inserted_into_strings() {
        let mut indices = Vec::new();
        for c in "ab".chars() {
            indices.extend([1, char_index(c)]);
        }
        let shape = shape_of::<String>(&indices);
        let mut mutator = ChoiceMutator::new(1, true);
        mutator.tokens.push(b"GET ".to_vec());
        assert!(mutator.insert_token(&shape, &mut indices));
        let value = value_of::<String>(&indices);
        assert!(value.contains("GET "), "{value}");
        assert_eq!(value.len(), 6);
    }

    #[test]
    fn mutants_always_generate_a_value() {
        let mut indices = Vec::new();
        for n in 0..5u64 {
            indices.extend([1, n * 7]);
        }
        let shape = shape_of::<Vec<(u8, bool)>>(&indices);
        let mut mutator = ChoiceMutator::new(9, true);
        for _ in 0..2000 {
            let mut mutant = indices.clone();
            mutator.mutate(&shape, &mut mutant, Some((&shape, &indices)));
            let _: Vec<(u8, bool)> = value_of(&mutant);
        }
    }
}
