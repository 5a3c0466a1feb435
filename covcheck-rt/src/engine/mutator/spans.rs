//! Mutations of spans: the choices that made one value (a collection
//! element, a struct, an enum), so that collections grow, shrink and are
//! rearranged coherently.

use super::{ChoiceMutator, MAX_REPEATED_CHOICES, Shape};
use crate::choice::Span;

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
        let copy: Vec<u64> = indices[span.start..span.end].to_vec();
        let repeated: Vec<u64> = std::iter::repeat_n(copy, copies).flatten().collect();
        indices.splice(span.end..span.end, repeated);
        true
    }

    pub(super) fn swap_spans(&mut self, shape: &Shape, indices: &mut [u64]) -> bool {
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
}
