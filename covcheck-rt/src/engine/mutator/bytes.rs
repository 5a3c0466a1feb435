//! Mutations of the content of strings and byte vectors: the elements whose
//! value is one byte (an ASCII `char` or an 8-bit integer), edited choice by
//! choice so that the structure around them never changes.

use super::{ChoiceMutator, Shape};
use crate::choice::{ChoiceKind, char_from_index, char_index};

/// One element of a string or byte vector: the position of its "more" flag
/// and of its value choice.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Element {
    pub(super) value: usize,
    pub(super) byte: u8,
}

/// Runs of string/byte-vector elements whose values are single bytes.
pub(super) fn byte_runs(shape: &Shape, indices: &[u64]) -> Vec<Vec<Element>> {
    let mut runs = Vec::new();
    byte_runs_into(shape, indices, &mut runs);
    runs
}

/// [`byte_runs`] into `runs`, reusing its vectors: the input a mutation
/// reads is most often a mutant of the one read before, with as many runs.
pub(super) fn byte_runs_into(shape: &Shape, indices: &[u64], runs: &mut Vec<Vec<Element>>) {
    let mut count = 0;
    let mut open = false;
    let mut i = 0;
    let choices = &shape.choices;
    while i < choices.len() {
        let element = (choices[i].kind == ChoiceKind::More && index_at(indices, i) == 1)
            .then(|| byte_at(shape, indices, i + 1))
            .flatten();
        match element {
            Some(byte) => {
                if !open {
                    if count == runs.len() {
                        runs.push(Vec::new());
                    }
                    runs[count].clear();
                    open = true;
                }
                runs[count].push(Element { value: i + 1, byte });
                i += 2;
            }
            None => {
                count += usize::from(open);
                open = false;
                i += 1;
            }
        }
    }
    runs.truncate(count + usize::from(open));
}

pub(super) fn index_at(indices: &[u64], i: usize) -> u64 {
    indices.get(i).copied().unwrap_or(0)
}

/// The byte a choice stands for, if it is an ASCII `char` or an 8-bit integer.
pub(super) fn byte_at(shape: &Shape, indices: &[u64], i: usize) -> Option<u8> {
    let choice = shape.choices.get(i)?;
    let index = index_at(indices, i);
    match choice.kind {
        ChoiceKind::Char => {
            let c = char_from_index(index.min(choice.max));
            c.is_ascii().then_some(c as u8)
        }
        ChoiceKind::Int { .. } => {
            let draw = shape.ints.get(i)?;
            (draw.bits == 8).then(|| draw.value_bits(index).map(|b| b as u8))?
        }
        _ => None,
    }
}

/// The index that makes element choice `i` (a char or 8-bit integer) stand for `byte`.
pub(super) fn index_for_byte(shape: &Shape, i: usize, byte: u8) -> Option<u64> {
    match shape.choices.get(i)?.kind {
        ChoiceKind::Char => byte.is_ascii().then(|| char_index(byte as char)),
        ChoiceKind::Int { .. } => shape.ints.get(i)?.index_of(u64::from(byte)),
        _ => None,
    }
}

impl ChoiceMutator {
    /// Makes a stretch of a string or byte vector one repeated byte: the
    /// input an encoder of runs, a counter of equal neighbours or a
    /// run-length limit is waiting for.
    pub(super) fn overwrite_run(&mut self, shape: &Shape, indices: &mut [u64]) -> bool {
        let runs = self.take_runs(shape, indices);
        let changed = self.overwrite_run_in(&runs, indices);
        self.runs = runs;
        changed
    }

    /// [`ChoiceMutator::overwrite_run`] in one of `runs` of two elements or more.
    fn overwrite_run_in(&mut self, runs: &[Vec<Element>], indices: &mut [u64]) -> bool {
        let mut long = runs.iter().filter(|r| r.len() >= 2);
        let count = long.clone().count();
        if count == 0 {
            return false;
        }
        let run = long
            .nth(self.rng.index(count))
            .expect("a run of two or more");
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

    /// Inserts a dictionary token into a string or byte vector, or writes it
    /// over the elements there: a byte string the code compared against, or
    /// one of the literals of the crates under test.
    /// Half the dictionary tokens come from the property's own, when it has
    /// some; a dictionary token written is noted in [`ChoiceMutator::written`].
    pub(super) fn write_token(&mut self, shape: &Shape, indices: &mut Vec<u64>) -> bool {
        let from_literals = match (self.tokens.is_empty(), self.literals.is_empty()) {
            (true, true) => return false,
            (false, true) => false,
            (true, false) => true,
            (false, false) => !self.rng.percent(50),
        };
        let source = if from_literals {
            &self.literals
        } else {
            &self.tokens
        };
        let own = if from_literals { self.own_tokens } else { 0 };
        let at = if 0 < own && own < source.len() && self.rng.percent(50) {
            self.rng.index(own)
        } else {
            self.rng.index(source.len())
        };
        let token = source[at].clone();
        let written = self.write_at_random(shape, indices, &token);
        if written && from_literals && !self.written.contains(&at) {
            self.written.push(at);
        }
        written
    }

    /// Writes or inserts text a parser of numbers or words reacts to: ASCII
    /// digits, a number at a width boundary, or printable ASCII.
    pub(super) fn write_text(&mut self, shape: &Shape, indices: &mut Vec<u64>) -> bool {
        let text: Vec<u8> = match self.rng.at_most(2) {
            0 => {
                let len = 1 + self.rng.index(20);
                let mut digits: Vec<u8> =
                    (0..len).map(|_| b'0' + self.rng.at_most(9) as u8).collect();
                if self.rng.percent(25) {
                    digits.insert(0, b'-');
                }
                digits
            }
            1 => self.rng.pick(NUMBERS).as_bytes().to_vec(),
            _ => {
                let len = 1 + self.rng.index(8);
                (0..len)
                    .map(|_| b' ' + self.rng.at_most(94) as u8)
                    .collect()
            }
        };
        self.write_at_random(shape, indices, &text)
    }

    /// Makes one `char` a character of another UTF-8 length: code that
    /// mixes byte and character positions breaks on these.
    pub(super) fn utf8_width(&mut self, shape: &Shape, indices: &mut [u64]) -> bool {
        let chars: Vec<usize> = (0..shape.choices.len())
            .filter(|&i| shape.choices[i].kind == ChoiceKind::Char)
            .collect();
        if chars.is_empty() {
            return false;
        }
        let i = chars[self.rng.index(chars.len())];
        let index = char_index(*self.rng.pick(WIDE_CHARS));
        if index > shape.choices[i].max || indices[i] == index {
            return false;
        }
        indices[i] = index;
        true
    }

    /// Copies a stretch of a string or byte vector elsewhere in it, over
    /// the elements there or inserted: repeated fields, nested copies.
    pub(super) fn copy_within(&mut self, shape: &Shape, indices: &mut Vec<u64>) -> bool {
        let runs = self.take_runs(shape, indices);
        let written = match self.pick_run(&runs) {
            Some(run) => {
                let start = self.rng.index(run.len());
                let len = 1 + self.rng.index((run.len() - start).min(64));
                let bytes: Vec<u8> = run[start..start + len].iter().map(|e| e.byte).collect();
                self.write_into(shape, indices, run, &bytes)
            }
            None => false,
        };
        self.runs = runs;
        written
    }

    /// Copies a stretch of another corpus entry's string or byte vector into
    /// one of this entry's, over its elements or inserted.
    pub(super) fn crossover(
        &mut self,
        shape: &Shape,
        indices: &mut Vec<u64>,
        donor: (&Shape, &[u64]),
    ) -> bool {
        let donor_runs = self.take_runs(donor.0, donor.1);
        let bytes: Option<Vec<u8>> = self.pick_run(&donor_runs).map(|from| {
            let start = self.rng.index(from.len());
            let len = 1 + self.rng.index((from.len() - start).min(256));
            from[start..start + len].iter().map(|e| e.byte).collect()
        });
        self.runs = donor_runs;
        bytes.is_some_and(|bytes| self.write_at_random(shape, indices, &bytes))
    }

    fn pick_run<'r>(&mut self, runs: &'r [Vec<Element>]) -> Option<&'r [Element]> {
        (!runs.is_empty()).then(|| runs[self.rng.index(runs.len())].as_slice())
    }

    /// The byte runs of `indices` ([`byte_runs`]), read into the buffer
    /// the mutator keeps for them (to be put back in `self.runs`): a
    /// mutation of bytes reads them once or twice, and allocating them
    /// anew each time was among the largest costs of a campaign on text.
    fn take_runs(&mut self, shape: &Shape, indices: &[u64]) -> Vec<Vec<Element>> {
        let mut runs = std::mem::take(&mut self.runs);
        byte_runs_into(shape, indices, &mut runs);
        runs
    }

    /// Writes `bytes` into a random string or byte vector of the input.
    fn write_at_random(&mut self, shape: &Shape, indices: &mut Vec<u64>, bytes: &[u8]) -> bool {
        let runs = self.take_runs(shape, indices);
        let written = match self.pick_run(&runs) {
            Some(run) => self.write_into(shape, indices, run, bytes),
            None => false,
        };
        self.runs = runs;
        written
    }

    /// Writes `bytes` at a random place of `run`: inserted there (half the
    /// time), or over the elements there, the run growing where it ends.
    fn write_into(
        &mut self,
        shape: &Shape,
        indices: &mut Vec<u64>,
        run: &[Element],
        bytes: &[u8],
    ) -> bool {
        let at = self.rng.index(run.len() + 1);
        let end = if self.rng.percent(50) {
            at
        } else {
            (at + bytes.len()).min(run.len())
        };
        splice_bytes(shape, indices, run, at..end, bytes)
    }
}

/// Numbers a parser treats specially: type-width boundaries, float limits
/// and forms, and the characters numbers start with.
const NUMBERS: &[&str] = &[
    "0",
    "-0",
    "1",
    "-1",
    "127",
    "128",
    "-129",
    "255",
    "256",
    "32767",
    "32768",
    "65535",
    "65536",
    "2147483647",
    "2147483648",
    "-2147483649",
    "4294967295",
    "4294967296",
    "9223372036854775807",
    "9223372036854775808",
    "-9223372036854775809",
    "18446744073709551615",
    "18446744073709551616",
    "340282366920938463463374607431768211456",
    "1e308",
    "1e309",
    "1e-400",
    "0.1",
    "1.",
    ".5",
    "1e",
    "1e+",
    "0x",
    "0b",
    "0o",
    "NaN",
    "inf",
    "-inf",
    "+",
    "-",
    ".",
    "_",
];

/// Characters of every UTF-8 length, at the boundaries between lengths.
const WIDE_CHARS: &[char] = &[
    '\0',
    '\u{7f}',
    '\u{80}',
    '\u{e9}',
    '\u{7ff}',
    '\u{800}',
    '\u{20ac}',
    '\u{feff}',
    '\u{ffff}',
    '\u{10000}',
    '\u{1f980}',
    '\u{10ffff}',
];

/// Replaces the elements `range` of `run` by elements standing for
/// `bytes` (each a "more" flag and a value). Returns whether the input
/// changed; false, leaving it as it was, when a byte cannot be drawn there
/// (a non-ASCII byte in a string, say).
pub(super) fn splice_bytes(
    shape: &Shape,
    indices: &mut Vec<u64>,
    run: &[Element],
    range: std::ops::Range<usize>,
    bytes: &[u8],
) -> bool {
    let template = run[0].value;
    let mut pairs = Vec::with_capacity(2 * bytes.len());
    for &byte in bytes {
        let Some(index) = index_for_byte(shape, template, byte) else {
            return false;
        };
        pairs.extend([1, index]);
    }
    // The position of element `k`'s "more" flag, or just past the run.
    let flag = |k: usize| match run.get(k) {
        Some(element) => element.value - 1,
        None => run[run.len() - 1].value + 1,
    };
    let (start, end) = (flag(range.start), flag(range.end));
    if indices[start..end] == pairs[..] {
        return false;
    }
    indices.splice(start..end, pairs);
    true
}
