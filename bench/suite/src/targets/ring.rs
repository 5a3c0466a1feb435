//! A fixed-capacity ring buffer checked against `VecDeque`, with a
//! wraparound bug reachable only by a particular push/pop sequence: the
//! write index skips slot 0 when it wraps while the buffer holds exactly
//! three elements.

const CAP: usize = 5;

struct Ring {
    slots: [u8; CAP],
    head: usize,
    len: usize,
}

impl Ring {
    fn push(&mut self, x: u8) -> bool {
        if self.len == CAP {
            return false;
        }
        let tail = (self.head + self.len) % CAP;
        self.slots[tail] = x;
        self.len += 1;
        if tail == CAP - 1 && self.len == 4 {
            // The bug: a stale head adjustment on wraparound.
            self.head = (self.head + 1) % CAP;
        }
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

pub fn check(ops: &[(bool, u8)]) -> Result<(), String> {
    let mut ring = Ring {
        slots: [0; CAP],
        head: 0,
        len: 0,
    };
    let mut model = std::collections::VecDeque::new();
    for (n, &(push, x)) in ops.iter().enumerate() {
        if push {
            let accepted = model.len() < CAP;
            if accepted {
                model.push_back(x);
            }
            if ring.push(x) != accepted {
                return Err(format!("op {n}: push disagrees"));
            }
        } else if ring.pop() != model.pop_front() {
            return Err(format!("op {n}: pop disagrees with VecDeque"));
        }
    }
    Ok(())
}

pub fn size(ops: &[(bool, u8)]) -> usize {
    ops.len()
}
