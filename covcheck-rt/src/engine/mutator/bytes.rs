//! Mutations of the content of strings and byte vectors: the elements whose
//! value is one byte (an ASCII `char` or an 8-bit integer), edited choice by
//! choice so that the structure around them never changes.

use super::{ChoiceMutator, Shape};
use crate::choice::{ChoiceKind, char_from_index, char_index};

/// One element of a string or byte vector: the position of its "more" flag
/// and of its value choice.
#[derive(Clone, Copy, Debug)]
pub(super) struct Element {
    pub(super) value: usize,
    pub(super) byte: u8,
}

/// Runs of string/byte-vector elements whose values are single bytes.
pub(super) fn byte_runs(shape: &Shape, indices: &[u64]) -> Vec<Vec<Element>> {
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
            let draw = shape.ints.get(&i)?;
            (draw.bits == 8).then(|| draw.value_bits(index).map(|b| b as u8))?
        }
        _ => None,
    }
}

/// The index that makes element choice `i` (a char or 8-bit integer) stand for `byte`.
pub(super) fn index_for_byte(shape: &Shape, i: usize, byte: u8) -> Option<u64> {
    match shape.choices.get(i)?.kind {
        ChoiceKind::Char => byte.is_ascii().then(|| char_index(byte as char)),
        ChoiceKind::Int { .. } => shape.ints.get(&i)?.index_of(u64::from(byte)),
        _ => None,
    }
}

impl ChoiceMutator {
    /// Makes a stretch of a string or byte vector one repeated byte: the
    /// input an encoder of runs, a counter of equal neighbours or a
    /// run-length limit is waiting for.
    pub(super) fn overwrite_run(&mut self, shape: &Shape, indices: &mut [u64]) -> bool {
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

    /// Inserts a dictionary token into a string or byte vector.
    pub(super) fn insert_token(&mut self, shape: &Shape, indices: &mut Vec<u64>) -> bool {
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
