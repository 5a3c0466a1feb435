//! What the mutator knows about an input: its shape, learned by running it
//! once, and a cache of the shapes of corpus entries.

use std::collections::HashMap;
use std::rc::Rc;

use super::bytes::byte_runs;
use super::spans::enum_values;
use super::sums::{InputValues, Sum, stored_sums};
use super::xor_sums::{Miss, misses};
use crate::choice::{Choice, ChoiceKind, Span};
use crate::engine::sancov::{Comparisons, Tracing};
use crate::property::{PropertyFn, Status, execute, generate_only};
use crate::rng::Rng;
use crate::source::{IntDraw, Limits, Source};

/// What one run of an input revealed about it.
#[derive(Debug, Default)]
pub struct Shape {
    pub choices: Vec<Choice>,
    pub spans: Vec<Span>,
    /// Integer draws by position.
    pub ints: IntDraws,
    pub comparisons: Comparisons,
    /// Comparisons that held between a value stored in the input and one
    /// the code computed, candidates for a checksum or a length: see
    /// [`super::ChoiceMutator::repair_sums`].
    pub sums: Vec<Sum>,
    /// Comparisons with a constant that failed: magic numbers missed, and
    /// maybe checksums in XOR form ([`super::ChoiceMutator::sweep_miss`],
    /// [`super::ChoiceMutator::xor_solve`]).
    pub misses: Vec<Miss>,
    /// Whether the traced run failed.
    pub failed: bool,
    /// What kinds of content the input has, for picking only the mutations
    /// that apply to it.
    pub(super) has: Contents,
    /// Tells this shape from every other: what the mutator read off an
    /// input of this shape holds until either changes.
    pub(super) id: ShapeId,
}

/// A number no other shape in the process has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct ShapeId(u64);

impl Default for ShapeId {
    fn default() -> Self {
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
        ShapeId(NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed))
    }
}

/// Which kinds of content an input has.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Contents {
    /// Strings or byte vectors with at least one element.
    pub(super) bytes: bool,
    pub(super) chars: bool,
    pub(super) enums: bool,
}

impl Shape {
    /// Learns the shape of `indices` by generating its arguments (without the
    /// body), then, when `trace` is set, running it once with comparison
    /// tracing on and reading the sums and misses off the log.
    pub fn learn(property: &PropertyFn<'_>, indices: &[u64], limits: Limits, trace: bool) -> Shape {
        let mut shape = Shape::run(property, indices, limits, trace);
        if trace {
            let values = InputValues::read(&shape, indices);
            shape.sums = stored_sums(&shape, &values);
            shape.misses = misses(&shape, &values);
        }
        shape.has = Contents {
            bytes: !byte_runs(&shape, indices).is_empty(),
            chars: shape.choices.iter().any(|c| c.kind == ChoiceKind::Char),
            enums: !enum_values(&shape).is_empty(),
        };
        shape
    }

    /// The shape of `indices` from one traced run, without the sums,
    /// misses and contents [`Shape::learn`] reads off it: a repair's runs
    /// read only the comparisons and the choices, and there is one such
    /// run for each repaired mutant.
    pub fn traced(property: &PropertyFn<'_>, indices: &[u64], limits: Limits) -> Shape {
        Shape::run(property, indices, limits, true)
    }

    /// Generates `indices`' arguments, recording the choices, spans and
    /// integer draws, then, when `trace` is set, runs the body traced.
    fn run(property: &PropertyFn<'_>, indices: &[u64], limits: Limits, trace: bool) -> Shape {
        let mut src = Source::replay(indices.to_vec(), limits);
        src.record_int_draws();
        let mut src = generate_only(property, src);
        let ints = IntDraws::new(src.take_int_draws());
        let (choices, spans) = src.into_record();
        let (comparisons, failed) = if trace {
            let tracing = Tracing::start();
            let case = execute(property, Source::replay(indices.to_vec(), limits), false);
            let failed = matches!(case.status, Status::Failed(_));
            (tracing.finish(), failed)
        } else {
            (Comparisons::default(), false)
        };
        if std::env::var_os("COVCHECK_DEBUG_SHAPES").is_some() {
            eprintln!("shape of {indices:?}: comparisons {comparisons:?}");
        }
        Shape {
            choices,
            spans,
            ints,
            comparisons,
            sums: Vec::new(),
            misses: Vec::new(),
            failed,
            has: Contents::default(),
            id: ShapeId::default(),
        }
    }
}

/// An input's integer draws, in order of position (so that a campaign with
/// a fixed RNG seed picks the same draw in every run), found by binary
/// search. A shape never changes once learned, and the mutators look draws
/// up and walk them on every mutation: in a `BTreeMap`, as they were, the
/// walks and lookups were a tenth of a trivial property's campaign.
#[derive(Debug, Default)]
pub struct IntDraws(Vec<IntDraw>);

impl IntDraws {
    pub fn new(mut draws: Vec<IntDraw>) -> IntDraws {
        draws.sort_by_key(|d| d.position);
        draws.dedup_by_key(|d| d.position);
        IntDraws(draws)
    }

    /// The draw at choice `position`, if an integer was drawn there.
    pub fn get(&self, position: usize) -> Option<&IntDraw> {
        let at = self
            .0
            .binary_search_by_key(&position, |d| d.position)
            .ok()?;
        Some(&self.0[at])
    }

    /// Every draw, by position.
    pub fn iter(&self) -> std::slice::Iter<'_, IntDraw> {
        self.0.iter()
    }

    /// The draws at positions before `end`.
    pub fn before(&self, end: usize) -> &[IntDraw] {
        &self.0[..self.0.partition_point(|d| d.position < end)]
    }
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
