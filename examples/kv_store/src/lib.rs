//! An in-memory key-value store: open addressing with linear probing, and
//! deletion by backward shifting (no tombstones), as in Rust's own
//! `hashbrown` before SwissTable or in Robin Hood tables.
//!
//! The planted bug: the mask that the backward shift uses to find an
//! entry's home slot is cached when the store is made and not updated when
//! the table grows. Until the first resize it is right. After it, a delete
//! can shift an entry in front of its home slot, or leave a hole in front
//! of it, and the entry is lost to lookups. Reaching it takes at least four
//! operations: three puts (the third grows the table) and a delete of one of
//! their keys next to a probe chain. Keys are any `u16`, so that delete
//! needs a key drawn twice: random sequences of uniform keys seldom have
//! one, covcheck's generators (which reuse earlier values) and campaigns
//! (which copy compared values into the input) often do.

/// The slots a new store starts with.
const INITIAL_SLOTS: usize = 4;

/// The most keys a store holds.
pub const CAPACITY: usize = 32;

/// A map from `u16` keys to `u32` values, of at most [`CAPACITY`] keys.
pub struct KvStore {
    slots: Vec<Option<(u16, u32)>>,
    len: usize,
    /// `slots.len() - 1`, cached for the backward shift (the bug: stale
    /// after a resize).
    shift_mask: usize,
}

impl Default for KvStore {
    fn default() -> Self {
        Self::new()
    }
}

impl KvStore {
    /// An empty store.
    pub fn new() -> Self {
        KvStore {
            slots: vec![None; INITIAL_SLOTS],
            len: 0,
            shift_mask: INITIAL_SLOTS - 1,
        }
    }

    /// How many keys it holds.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether it holds no key.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The value of `key`.
    pub fn get(&self, key: u16) -> Option<u32> {
        self.find(key)
            .and_then(|slot| self.slots[slot].map(|(_, v)| v))
    }

    /// Sets `key` to `value`; returns the value it replaced.
    ///
    /// # Panics
    /// When `key` is new and the store holds [`CAPACITY`] keys already.
    pub fn insert(&mut self, key: u16, value: u32) -> Option<u32> {
        if let Some(slot) = self.find(key) {
            let old = self.slots[slot].replace((key, value));
            return old.map(|(_, v)| v);
        }
        assert!(self.len < CAPACITY, "the store is full");
        if (self.len + 1) * 2 > self.slots.len() {
            self.grow();
        }
        self.place(key, value);
        self.len += 1;
        None
    }

    /// Removes `key`; returns its value.
    pub fn remove(&mut self, key: u16) -> Option<u32> {
        let slot = self.find(key)?;
        let (_, value) = self.slots[slot].take()?;
        self.len -= 1;
        self.shift_back(slot);
        Some(value)
    }

    /// Closes the hole at `hole`: each later entry of the probe chain whose
    /// home is not between the hole and itself moves into it.
    fn shift_back(&mut self, mut hole: usize) {
        let mask = self.slots.len() - 1;
        let mut next = (hole + 1) & mask;
        while let Some((key, value)) = self.slots[next] {
            let home = home(key, self.shift_mask);
            let from_home = next.wrapping_sub(home) & mask;
            let from_hole = next.wrapping_sub(hole) & mask;
            if from_home >= from_hole {
                self.slots[hole] = Some((key, value));
                self.slots[next] = None;
                hole = next;
            }
            next = (next + 1) & mask;
        }
    }

    fn find(&self, key: u16) -> Option<usize> {
        let mask = self.slots.len() - 1;
        let mut slot = home(key, mask);
        loop {
            match self.slots[slot] {
                None => return None,
                Some((k, _)) if k == key => return Some(slot),
                Some(_) => slot = (slot + 1) & mask,
            }
        }
    }

    fn place(&mut self, key: u16, value: u32) {
        let mask = self.slots.len() - 1;
        let mut slot = home(key, mask);
        while self.slots[slot].is_some() {
            slot = (slot + 1) & mask;
        }
        self.slots[slot] = Some((key, value));
    }

    fn grow(&mut self) {
        let bigger = vec![None; self.slots.len() * 2];
        let old = std::mem::replace(&mut self.slots, bigger);
        for (key, value) in old.into_iter().flatten() {
            self.place(key, value);
        }
    }
}

/// The home slot of `key` in a table of `mask + 1` slots (a multiplicative
/// hash, so neighbouring keys land apart).
fn home(key: u16, mask: usize) -> usize {
    (usize::from(key).wrapping_mul(0x9E37_79B9) >> 7) & mask
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use covcheck_rt::stateful::{Commands, Model, System};
    use covcheck_rt::{Source, covcheck};

    use super::{CAPACITY, KvStore};

    // ANCHOR: model
    /// What a user can do to the store.
    #[derive(Clone, Debug)]
    pub enum Op {
        Put { key: u16, value: u32 },
        Get { key: u16 },
        Delete { key: u16 },
    }

    /// The reference: a `BTreeMap`.
    pub struct MapModel;

    impl Model for MapModel {
        type State = BTreeMap<u16, u32>;
        type Command = Op;
        type Output = Option<u32>;

        fn init() -> Self::State {
            BTreeMap::new()
        }

        fn command(_: &Self::State, src: &mut Source) -> Op {
            // Any key, as a user would write it: a read or a delete meets
            // a key the store holds only when the same key is drawn again.
            match src.draw_variant(3, 3) {
                0 => Op::Put {
                    key: src.draw_int(0, u16::MAX),
                    value: src.draw_int(0, 1000),
                },
                1 => Op::Get {
                    key: src.draw_int(0, u16::MAX),
                },
                _ => Op::Delete {
                    key: src.draw_int(0, u16::MAX),
                },
            }
        }

        fn precondition(state: &Self::State, op: &Op) -> bool {
            // The store holds at most CAPACITY keys: a put of a new key
            // past that is not an operation it supports.
            match op {
                Op::Put { key, .. } => state.len() < CAPACITY || state.contains_key(key),
                Op::Get { .. } | Op::Delete { .. } => true,
            }
        }

        fn apply(state: &mut Self::State, op: &Op) -> Option<u32> {
            match *op {
                Op::Put { key, value } => state.insert(key, value),
                Op::Get { key } => state.get(&key).copied(),
                Op::Delete { key } => state.remove(&key),
            }
        }
    }

    // ANCHOR_END: model

    // ANCHOR: system
    impl System for KvStore {
        type Model = MapModel;

        fn new() -> Self {
            KvStore::new()
        }

        fn run(&mut self, op: &Op) -> Option<u32> {
            match *op {
                Op::Put { key, value } => self.insert(key, value),
                Op::Get { key } => self.get(key),
                Op::Delete { key } => self.remove(key),
            }
        }

        fn check(&self, model: &BTreeMap<u16, u32>) {
            assert_eq!(self.len(), model.len(), "the store's length");
            for (&key, &value) in model {
                assert_eq!(self.get(key), Some(value), "key {key} is lost");
            }
        }
    }

    // ANCHOR_END: system

    // ANCHOR: property
    #[covcheck]
    fn the_store_behaves_like_a_map(commands: Commands<KvStore>) {
        commands.run();
    }
    // ANCHOR_END: property
}
