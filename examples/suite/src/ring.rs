//! A bounded FIFO queue in a fixed ring of slots, for a producer that must
//! not allocate.

#[derive(Clone, Debug)]
pub struct Ring<T> {
    slots: Vec<Option<T>>,
    head: usize,
    len: usize,
}

impl<T> Ring<T> {
    /// A queue of at most `capacity` items (at least one).
    pub fn new(capacity: usize) -> Self {
        Ring {
            slots: (0..capacity.max(1)).map(|_| None).collect(),
            head: 0,
            len: 0,
        }
    }

    pub fn capacity(&self) -> usize {
        self.slots.len()
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn is_full(&self) -> bool {
        // Planted bug (shallow): one more than the capacity counts as full,
        // so a push into a full ring overwrites its oldest item.
        self.len > self.slots.len()
    }

    /// Appends `item`, or hands it back when the queue is full.
    pub fn push(&mut self, item: T) -> Result<(), T> {
        if self.is_full() {
            return Err(item);
        }
        let at = (self.head + self.len) % self.slots.len();
        self.slots[at] = Some(item);
        self.len += 1;
        Ok(())
    }

    /// Takes the oldest item.
    pub fn pop(&mut self) -> Option<T> {
        if self.len == 0 {
            return None;
        }
        let item = self.slots[self.head].take();
        self.head = (self.head + 1) % self.slots.len();
        self.len -= 1;
        item
    }

    /// The oldest item.
    pub fn peek(&self) -> Option<&T> {
        if self.len == 0 {
            return None;
        }
        self.slots[self.head].as_ref()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use covcheck_rt::covcheck;
    use std::collections::VecDeque;

    #[derive(Clone, Debug, covcheck_rt::Generate)]
    enum Op {
        Push(u8),
        Pop,
        Peek,
    }

    #[covcheck]
    fn ring_behaves_like_a_bounded_deque(capacity: u8, ops: Vec<Op>) {
        let capacity = usize::from(capacity % 8) + 1;
        let mut ring = Ring::new(capacity);
        let mut model = VecDeque::new();
        for op in ops {
            match op {
                Op::Push(x) => {
                    let expected = if model.len() == capacity {
                        Err(x)
                    } else {
                        model.push_back(x);
                        Ok(())
                    };
                    assert_eq!(ring.push(x), expected);
                }
                Op::Pop => assert_eq!(ring.pop(), model.pop_front()),
                Op::Peek => assert_eq!(ring.peek(), model.front()),
            }
            assert_eq!(ring.len(), model.len());
        }
    }
}
