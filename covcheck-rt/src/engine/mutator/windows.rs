//! Places in an input that hold an integer of some width: an integer draw
//! of that width, or as many bytes of a string or byte vector, in either
//! order. The solvers that compute a value for the input to hold, rather
//! than copy one from a comparison (an XOR-form checksum, a length plus a
//! constant), read and write them.

use super::Shape;
use super::bytes::Element;
use super::compare::write_site;
use super::stored::Stored;

/// A place in an input that holds a value of some width: an integer draw of
/// that width, or as many bytes of a string or byte vector, in either order.
pub(super) enum Window {
    Draw(usize),
    Bytes {
        elements: Vec<Element>,
        big_endian: bool,
    },
}

impl Window {
    /// Writes `value` into the window; true when the input changed.
    pub(super) fn write(&self, shape: &Shape, indices: &mut [u64], value: u64) -> bool {
        match self {
            Window::Draw(position) => {
                match shape.ints.get(*position).and_then(|d| d.index_of(value)) {
                    Some(index) if indices[*position] != index => {
                        indices[*position] = index;
                        true
                    }
                    _ => false,
                }
            }
            Window::Bytes {
                elements,
                big_endian,
            } => {
                let size = elements.len();
                let bytes = if *big_endian {
                    value.to_be_bytes()[8 - size..].to_vec()
                } else {
                    value.to_le_bytes()[..size].to_vec()
                };
                write_site(shape, indices, elements, &bytes)
            }
        }
    }
}

/// The windows of `size` bytes in an input (`indices`, of `shape`) whose
/// value `keep` accepts, with their value. Only those are built: an input
/// of n bytes has about 2n windows.
pub(super) fn find_windows(
    shape: &Shape,
    indices: &[u64],
    size: u8,
    keep: impl FnMut(u64) -> bool,
) -> Vec<(Window, u64)> {
    find_windows_in(&Stored::read(shape, indices), size, keep)
}

/// [`find_windows`] in an input already read.
pub(super) fn find_windows_in(
    stored: &Stored,
    size: u8,
    mut keep: impl FnMut(u64) -> bool,
) -> Vec<(Window, u64)> {
    let width = usize::from(size);
    let mut out = Vec::new();
    for draw in &stored.draws {
        if draw.bits == 8 * u32::from(size) && keep(draw.value) {
            out.push((Window::Draw(draw.position), draw.value));
        }
    }
    for run in &stored.runs {
        for window in run.windows(width) {
            for big_endian in [true, false] {
                let value = decode(window, big_endian);
                if keep(value) {
                    let elements = window.to_vec();
                    out.push((
                        Window::Bytes {
                            elements,
                            big_endian,
                        },
                        value,
                    ));
                }
            }
        }
    }
    out
}

/// One window of `size` bytes of an input, picked uniformly, with its value.
pub(super) fn random_window(
    shape: &Shape,
    indices: &[u64],
    size: u8,
    rng: &mut crate::rng::Rng,
) -> Option<(Window, u64)> {
    let mut count = 0usize;
    find_windows(shape, indices, size, |_| {
        count += 1;
        false
    });
    if count == 0 {
        return None;
    }
    let mut left = rng.index(count);
    find_windows(shape, indices, size, |_| {
        let this = left == 0;
        left = left.wrapping_sub(1);
        this
    })
    .pop()
}

fn decode(elements: &[Element], big_endian: bool) -> u64 {
    let fold = |v: u64, e: &Element| (v << 8) | u64::from(e.byte);
    if big_endian {
        elements.iter().fold(0, fold)
    } else {
        elements.iter().rev().fold(0, fold)
    }
}

/// The low `size` bytes of a value.
pub(super) fn mask(size: u8) -> u64 {
    if size >= 8 {
        u64::MAX
    } else {
        (1u64 << (8 * u32::from(size))) - 1
    }
}
