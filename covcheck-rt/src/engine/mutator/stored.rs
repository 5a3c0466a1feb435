//! What an input stores, read once for a search that looks at it many
//! times: the value of each integer draw, and each string or byte vector's
//! elements and bytes.
//!
//! Input-to-state tries up to 16 comparisons per mutation, and each try
//! looks for its operand in every draw and every run. Reading the input
//! anew for each try, as the solvers did, made input-to-state half of a
//! campaign's time on an input of 64 bytes; a failed try changes nothing,
//! so one reading serves them all.

use super::Shape;
use super::bytes::{Element, byte_runs_into, index_at};
use super::shape::ShapeId;
use super::text::{Text, wide_texts};

/// An integer draw of at most 64 bits, with the value it holds.
#[derive(Clone, Copy, Debug)]
pub(super) struct StoredDraw {
    pub(super) position: usize,
    pub(super) bits: u32,
    /// The value's bit pattern ([`crate::source::IntDraw::value_bits`]).
    pub(super) value: u64,
}

/// An input's integer draws and byte runs, as they were when read: valid
/// until the input changes.
#[derive(Default)]
pub(super) struct Stored {
    /// The draws before the end of the input, by position.
    pub(super) draws: Vec<StoredDraw>,
    /// The runs of string and byte-vector elements ([`byte_runs`]).
    pub(super) runs: Vec<Vec<Element>>,
    /// The bytes of each run.
    pub(super) bytes: Vec<Vec<u8>>,
    /// The strings that hold a character wider than a byte, as UTF-8.
    pub(super) texts: Vec<Text>,
    /// The input this was read from: its shape and its choices. Stages
    /// mutate copies of one corpus entry, so an input to mutate is often
    /// the one read last.
    read_from: (Option<ShapeId>, Vec<u64>),
}

impl Stored {
    pub(super) fn read(shape: &Shape, indices: &[u64]) -> Stored {
        let mut stored = Stored::default();
        stored.reread(shape, indices);
        stored
    }

    /// Reads `indices` (of `shape`) unless this holds them already;
    /// returns whether anything changed. A mutant of the input read last
    /// differs from it in a few choices: only the draws at those are read
    /// again (a draw's value takes the 128-bit arithmetic of its domain).
    pub(super) fn update(&mut self, shape: &Shape, indices: &[u64]) -> bool {
        let (read_shape, read) = &self.read_from;
        if *read_shape == Some(shape.id) && read.len() == indices.len() {
            if read == indices {
                return false;
            }
            for draw in &mut self.draws {
                let index = indices[draw.position];
                if index != read[draw.position] {
                    let int = shape.ints.get(draw.position).expect("a stored draw");
                    draw.value = int.value_bits(index).expect("a draw of 64 bits");
                }
            }
            self.read_runs(shape, indices);
        } else {
            self.reread(shape, indices);
        }
        self.read_from.0 = Some(shape.id);
        self.read_from.1.clear();
        self.read_from.1.extend_from_slice(indices);
        true
    }

    /// Reads `indices` into this one, reusing its buffer for the draws.
    fn reread(&mut self, shape: &Shape, indices: &[u64]) {
        self.draws.clear();
        self.draws.extend(
            (shape.ints.before(indices.len()).iter()).filter_map(|draw| {
                Some(StoredDraw {
                    position: draw.position,
                    bits: draw.bits,
                    value: draw.value_bits(index_at(indices, draw.position))?,
                })
            }),
        );
        self.read_runs(shape, indices);
    }

    /// Reads the runs and texts, reusing the buffers of the last reading.
    fn read_runs(&mut self, shape: &Shape, indices: &[u64]) {
        byte_runs_into(shape, indices, &mut self.runs);
        self.bytes.resize_with(self.runs.len(), Vec::new);
        for (bytes, run) in self.bytes.iter_mut().zip(&self.runs) {
            bytes.clear();
            bytes.extend(run.iter().map(|e| e.byte));
        }
        self.texts = wide_texts(shape, indices);
    }
}
