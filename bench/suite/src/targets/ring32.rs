//! A ring buffer of capacity 32 checked against `VecDeque` over a sequence of
//! operations. Pushing onto a full buffer should be refused; the buffer
//! overwrites its oldest element instead, so the bug shows only once it
//! holds 32 elements (32 more pushes than pops, in some prefix).
//!
//! The operations are an enum: each harness derives its tool's generator
//! for an `Op` of its own (covcheck's `Generate`, `arbitrary`'s
//! `Arbitrary`, ...) and converts it into this one.

use std::collections::VecDeque;

const CAP: usize = 32;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    Push(u8),
    Pop,
}

struct Ring {
    slots: [u8; CAP],
    head: usize,
    len: usize,
}

impl Ring {
    /// Appends `x`; false when the buffer is full.
    fn push(&mut self, x: u8) -> bool {
        if self.len == CAP {
            // The bug: overwrites the oldest element instead of refusing.
            self.slots[self.head] = x;
            self.head = (self.head + 1) % CAP;
            return true;
        }
        self.slots[(self.head + self.len) % CAP] = x;
        self.len += 1;
        true
    }

    fn pop(&mut self) -> Option<u8> {
        if self.len == 0 {
            return None;
        }
        let x = self.slots[self.head];
        self.head = (self.head + 1) % CAP;
        self.len -= 1;
        Some(x)
    }
}

pub fn check<T: Copy + Into<Op>>(ops: &[T]) -> Result<(), String> {
    let mut ring = Ring {
        slots: [0; CAP],
        head: 0,
        len: 0,
    };
    let mut model = VecDeque::with_capacity(CAP);
    for (n, op) in ops.iter().enumerate() {
        match (*op).into() {
            Op::Push(x) => {
                let accepted = model.len() < CAP;
                if accepted {
                    model.push_back(x);
                }
                if ring.push(x) != accepted {
                    return Err(format!("op {n}: push onto {} elements", model.len()));
                }
            }
            Op::Pop => {
                if ring.pop() != model.pop_front() {
                    return Err(format!("op {n}: pop disagrees with VecDeque"));
                }
            }
        }
    }
    Ok(())
}

pub fn size<T>(ops: &[T]) -> usize {
    ops.len()
}
