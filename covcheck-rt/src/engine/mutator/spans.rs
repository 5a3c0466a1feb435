//! Mutations of spans: the choices that made one value (a collection
//! element, a struct, an enum), so that collections grow, shrink and are
//! rearranged coherently.

use super::{ChoiceMutator, MAX_REPEATED_CHOICES, Shape};
use std::collections::BTreeMap;

use crate::choice::{ChoiceKind, Span};

impl ChoiceMutator {
    pub(super) fn random_span(&mut self, shape: &Shape) -> Option<Span> {
        (!shape.spans.is_empty()).then(|| shape.spans[self.rng.index(shape.spans.len())])
    }

    pub(super) fn delete_span(&mut self, shape: &Shape, indices: &mut Vec<u64>) -> bool {
        let Some(span) = self.random_span(shape) else {
            return false;
        };
        indices.drain(span.start..span.end);
        true
    }

    pub(super) fn duplicate_span(&mut self, shape: &Shape, indices: &mut Vec<u64>) -> bool {
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
    pub(super) fn repeat_span(&mut self, shape: &Shape, indices: &mut Vec<u64>) -> bool {
        const COPIES: [usize; 9] = [3, 4, 8, 16, 32, 64, 128, 256, 512];
        let Some(span) = self.random_span(shape) else {
            return false;
        };
        let copies = (*self.rng.pick(&COPIES)).min(MAX_REPEATED_CHOICES / span.len().max(1));
        if copies < 2 {
            return false;
        }
        let repeated: Vec<u64> = indices[span.start..span.end].repeat(copies);
        indices.splice(span.end..span.end, repeated);
        true
    }

    /// Rearranges the values of one type: swaps two spans of the same
    /// label, or moves one (half the time a copy of it) to just before
    /// another. Spans of the same label at the same depth are the same kind
    /// of value (two elements of a collection, two commands of a stateful
    /// sequence, from one thread's sequence to another's), so they may
    /// differ in length; at different depths only equal lengths are swapped,
    /// as before.
    pub(super) fn rearrange_spans(&mut self, shape: &Shape, indices: &mut Vec<u64>) -> bool {
        let Some(a) = self.random_span(shape) else {
            return false;
        };
        let partners: Vec<&Span> = shape
            .spans
            .iter()
            .filter(|b| {
                b.label == a.label
                    && (b.start >= a.end || b.end <= a.start)
                    && (b.depth == a.depth || b.len() == a.len())
            })
            .collect();
        if partners.is_empty() {
            return false;
        }
        let b = *partners[self.rng.index(partners.len())];
        if b.len() == a.len() || self.rng.percent(50) {
            swap_disjoint(indices, a, b);
        } else {
            let keep_original = self.rng.percent(50);
            move_before(indices, a, b, keep_original);
        }
        true
    }

    pub(super) fn splice(
        &mut self,
        shape: &Shape,
        indices: &mut Vec<u64>,
        donor: (&Shape, &[u64]),
    ) -> bool {
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

    /// Swarm testing on the choices: picks one enum type of the input and
    /// makes its values use only some variants — one variant (chosen by how
    /// often it occurs in entries that found new coverage) or a random
    /// subset. Each value of another variant is replaced whole by a copy of
    /// a value of an enabled one, fields included, so the structure stays in
    /// step. "32 more pushes than pops" is then one step from any long
    /// operation sequence.
    pub(super) fn swarm(&mut self, shape: &Shape, indices: &mut Vec<u64>) -> bool {
        let values = enum_values(shape);
        let Some(&pick) = (!values.is_empty()).then(|| &values[self.rng.index(values.len())])
        else {
            return false;
        };
        let label = pick.label;
        // Outermost values of that type, in order, and one example of each variant.
        let mut sites: Vec<Span> = Vec::new();
        for span in values.iter().filter(|s| s.label == label) {
            if sites.last().is_none_or(|last| span.start >= last.end) {
                sites.push(*span);
            }
        }
        let mut examples: BTreeMap<u64, Vec<u64>> = BTreeMap::new();
        for site in &sites {
            examples
                .entry(indices[site.start])
                .or_insert_with(|| indices[site.start..site.end].to_vec());
        }
        if examples.len() < 2 {
            return false;
        }
        let variants: Vec<u64> = examples.keys().copied().collect();
        let enabled = self.enabled_variants(label, &variants);
        let mut changed = false;
        for site in sites.iter().rev() {
            if enabled.contains(&indices[site.start]) {
                continue;
            }
            let with = &examples[&enabled[self.rng.index(enabled.len())]];
            indices.splice(site.start..site.end, with.iter().copied());
            changed = true;
        }
        changed
    }

    /// The variants a swarm step keeps: half the time one, weighted by use
    /// in entries that found new coverage; otherwise a random proper subset.
    fn enabled_variants(&mut self, label: u64, variants: &[u64]) -> Vec<u64> {
        if self.rng.percent(50) {
            let weight =
                |v: &u64| 1 + u64::from(self.variant_uses.get(&(label, *v)).copied().unwrap_or(0));
            let total: u64 = variants.iter().map(weight).sum();
            let mut ticket = self.rng.at_most(total - 1);
            for v in variants {
                if ticket < weight(v) {
                    return vec![*v];
                }
                ticket -= weight(v);
            }
        }
        loop {
            let subset: Vec<u64> = variants
                .iter()
                .copied()
                .filter(|_| self.rng.percent(50))
                .collect();
            if !subset.is_empty() && subset.len() < variants.len() {
                return subset;
            }
        }
    }

    /// Counts the enum variants of an entry that found new coverage, for
    /// [`Self::swarm`]'s weights.
    pub fn learn_variants(&mut self, shape: &Shape, indices: &[u64]) {
        for span in enum_values(shape) {
            let variant = indices.get(span.start).copied().unwrap_or(0);
            *self.variant_uses.entry((span.label, variant)).or_default() += 1;
        }
    }
}

/// The spans of enum values: those whose first choice picks a variant
/// (derived generators draw the variant first, inside the value's span),
/// in input order, an enclosing value before the values inside it.
pub(super) fn enum_values(shape: &Shape) -> Vec<Span> {
    let mut values: Vec<Span> = shape
        .spans
        .iter()
        .filter(|s| {
            shape
                .choices
                .get(s.start)
                .is_some_and(|c| c.kind == ChoiceKind::Variant)
        })
        .copied()
        .collect();
    values.sort_by_key(|s| (s.start, std::cmp::Reverse(s.end)));
    values
}

/// Swaps the choices of two disjoint spans, of any lengths.
fn swap_disjoint(indices: &mut Vec<u64>, a: Span, b: Span) {
    let (first, second) = if a.start < b.start { (a, b) } else { (b, a) };
    if first.len() == second.len() {
        for k in 0..first.len() {
            indices.swap(first.start + k, second.start + k);
        }
        return;
    }
    let mut out = Vec::with_capacity(indices.len());
    out.extend_from_slice(&indices[..first.start]);
    out.extend_from_slice(&indices[second.start..second.end]);
    out.extend_from_slice(&indices[first.end..second.start]);
    out.extend_from_slice(&indices[first.start..first.end]);
    out.extend_from_slice(&indices[second.end..]);
    *indices = out;
}

/// Moves span `a` to just before span `b` (disjoint), or copies it there
/// when `keep_original`.
fn move_before(indices: &mut Vec<u64>, a: Span, b: Span, keep_original: bool) {
    let copy: Vec<u64> = indices[a.start..a.end].to_vec();
    if b.start >= a.end {
        indices.splice(b.start..b.start, copy);
        if !keep_original {
            indices.drain(a.start..a.end);
        }
    } else {
        if !keep_original {
            indices.drain(a.start..a.end);
        }
        indices.splice(b.start..b.start, copy);
    }
}
