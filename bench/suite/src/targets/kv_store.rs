//! A stateful target: the key-value store of `examples/kv_store`, open
//! addressing with linear probing and deletion by backward shifting, checked
//! against a `BTreeMap` over a sequence of commands, as a state machine.
//!
//! The bug (`kv_store_stale_shift_mask`): the mask the backward shift uses
//! to find an entry's home slot is the one cached when the store was made,
//! not the table's current one. It is right until the first resize; after
//! it, a delete can shift an entry in front of its home slot, or leave a hole
//! in front of it, and the entry is lost to lookups. The shortest failing
//! sequence has four commands: three puts (the third grows the table from 4
//! to 8 slots) and a delete of one of their keys next to a probe chain.
//! Keys are any `u16`, so a delete meets a key the store holds only when a
//! key is drawn twice: what a tool's generator does with a key it already
//! drew decides how soon it gets there.
//!
//! Each harness drives it through its tool's state-machine runner (covcheck's
//! `Commands`, proptest-state-machine's `ReferenceStateMachine`), which draws
//! the commands from the model's state as it goes. The pieces here are shared
//! by them, so that the model is the same for every tool: [`precondition`]
//! and [`apply`] (the model), [`run`] (the store under test) and
//! [`invariant`] (every key of the model is still found). [`check`] runs a
//! whole sequence with them. The size of a counterexample is its number of
//! commands.

use std::collections::BTreeMap;

use crate::bug;

/// The bug's name, for `BENCH_BUG`.
pub const BUG: &str = "kv_store_stale_shift_mask";

/// The slots a new store starts with.
const INITIAL_SLOTS: usize = 4;

/// The most keys a store holds.
pub const CAPACITY: usize = 32;

/// A command of the state machine.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    Put { key: u16, value: u32 },
    Get { key: u16 },
    Delete { key: u16 },
}

/// The model's state.
pub type Map = BTreeMap<u16, u32>;

/// A map from `u16` keys to `u32` values, of at most [`CAPACITY`] keys.
pub struct KvStore {
    slots: Vec<Option<(u16, u32)>>,
    len: usize,
    /// `slots.len() - 1` when the store was made: what the backward shift
    /// uses with the bug on.
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
        let home_mask = if bug::on(BUG) { self.shift_mask } else { mask };
        let mut next = (hole + 1) & mask;
        while let Some((key, value)) = self.slots[next] {
            let home = home(key, home_mask);
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

/// Whether `op` may run in the model's state: a put of a new key only
/// while the store has room ([`CAPACITY`]).
pub fn precondition(map: &Map, op: &Op) -> bool {
    match op {
        Op::Put { key, .. } => map.len() < CAPACITY || map.contains_key(key),
        Op::Get { .. } | Op::Delete { .. } => true,
    }
}

/// Runs `op` on the model; returns what the store should return.
pub fn apply(map: &mut Map, op: &Op) -> Option<u32> {
    match *op {
        Op::Put { key, value } => map.insert(key, value),
        Op::Get { key } => map.get(&key).copied(),
        Op::Delete { key } => map.remove(&key),
    }
}

/// Runs `op` on the store.
pub fn run(store: &mut KvStore, op: &Op) -> Option<u32> {
    match *op {
        Op::Put { key, value } => store.insert(key, value),
        Op::Get { key } => store.get(key),
        Op::Delete { key } => store.remove(key),
    }
}

/// What must hold after every command: the store holds as many keys as the
/// model, and finds each with its value.
pub fn invariant(store: &KvStore, map: &Map) -> Result<(), String> {
    if store.len() != map.len() {
        return Err(format!(
            "the store holds {} keys, the model {}",
            store.len(),
            map.len()
        ));
    }
    for (&key, &value) in map {
        let found = store.get(key);
        if found != Some(value) {
            return Err(format!("key {key} is lost: {found:?} for {value}"));
        }
    }
    Ok(())
}

/// Runs `ops` on a new store and on the model, comparing each result and
/// checking [`invariant`] after each command. A command whose precondition
/// does not hold is left out, as the tools' generators leave it out.
pub fn check(ops: &[Op]) -> Result<(), String> {
    let mut store = KvStore::new();
    let mut map = Map::new();
    for (n, op) in ops.iter().enumerate() {
        if !precondition(&map, op) {
            continue;
        }
        let expected = apply(&mut map, op);
        let actual = run(&mut store, op);
        if actual != expected {
            return Err(format!(
                "command {n} ({op:?}): the store returned {actual:?}, the model {expected:?}"
            ));
        }
        invariant(&store, &map).map_err(|e| format!("after command {n} ({op:?}): {e}"))?;
    }
    Ok(())
}

/// The size of a counterexample: its number of commands.
pub fn size(ops: &[Op]) -> usize {
    ops.len()
}
