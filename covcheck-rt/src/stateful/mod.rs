//! Stateful properties: a system driven by a sequence of commands, checked
//! against a simple model after every step.
//!
//! Most of what is worth testing holds state: a cache, a store, a queue, a
//! connection. A stateful property describes it in two parts:
//!
//! - a [`Model`]: the reference, as simple as can be (a `BTreeMap` for a
//!   store, a number for a counter). It says which commands exist, which
//!   may run in a given state (preconditions), and what each returns;
//! - a [`System`]: the code under test, which runs the same commands.
//!
//! A property takes [`Commands`] as its argument and runs them: after each
//! command the system's result must equal the model's, and
//! [`System::check`] may assert invariants against the model's state.
//!
//! ```
//! use std::collections::BTreeMap;
//! use covcheck_rt::stateful::{Commands, Model, System};
//! use covcheck_rt::{Source, covcheck};
//!
//! /// What a user can do to the store.
//! #[derive(Clone, Debug)]
//! enum Op {
//!     Put { key: u8, value: u32 },
//!     Get { key: u8 },
//!     Delete { key: u8 },
//! }
//!
//! /// The model: a map.
//! struct MapModel;
//!
//! impl Model for MapModel {
//!     type State = BTreeMap<u8, u32>;
//!     type Command = Op;
//!     type Output = Option<u32>;
//!
//!     fn init() -> Self::State {
//!         BTreeMap::new()
//!     }
//!
//!     fn command(state: &Self::State, src: &mut Source) -> Op {
//!         // Keys the store holds are the interesting ones to read and delete.
//!         let keys: Vec<u8> = state.keys().copied().collect();
//!         let key = |src: &mut Source| match keys.len() {
//!             0 => src.draw_int(0, 7),
//!             n => keys[src.draw_int(0, n - 1)],
//!         };
//!         match src.draw_variant(3, 3) {
//!             0 => Op::Put { key: src.draw_int(0, 7), value: src.draw_int(0, 99) },
//!             1 => Op::Get { key: key(src) },
//!             _ => Op::Delete { key: key(src) },
//!         }
//!     }
//!
//!     fn precondition(state: &Self::State, op: &Op) -> bool {
//!         // Deleting a missing key is not an operation this store supports.
//!         !matches!(op, Op::Delete { key } if !state.contains_key(key))
//!     }
//!
//!     fn apply(state: &mut Self::State, op: &Op) -> Option<u32> {
//!         match *op {
//!             Op::Put { key, value } => state.insert(key, value),
//!             Op::Get { key } => state.get(&key).copied(),
//!             Op::Delete { key } => state.remove(&key),
//!         }
//!     }
//! }
//!
//! /// The system under test: here, a vector of pairs.
//! #[derive(Default)]
//! struct PairStore(Vec<(u8, u32)>);
//!
//! impl System for PairStore {
//!     type Model = MapModel;
//!
//!     fn new() -> Self {
//!         PairStore::default()
//!     }
//!
//!     fn run(&mut self, op: &Op) -> Option<u32> {
//!         let at = |key: u8| self.0.iter().position(|(k, _)| *k == key);
//!         match *op {
//!             Op::Put { key, value } => match at(key) {
//!                 Some(i) => Some(std::mem::replace(&mut self.0[i].1, value)),
//!                 None => {
//!                     self.0.push((key, value));
//!                     None
//!                 }
//!             },
//!             Op::Get { key } => at(key).map(|i| self.0[i].1),
//!             Op::Delete { key } => at(key).map(|i| self.0.remove(i).1),
//!         }
//!     }
//!
//!     fn check(&self, state: &BTreeMap<u8, u32>) {
//!         assert_eq!(self.0.len(), state.len());
//!     }
//! }
//!
//! #[covcheck]
//! fn the_store_behaves_like_a_map(commands: Commands<PairStore>) {
//!     commands.run();
//! }
//! # fn main() {}
//! ```
//!
//! Commands are generated from the model's state as it evolves, so a
//! command can depend on it (delete a key that exists). A command whose
//! precondition fails is drawn again, a few times, and then left out: every
//! sequence that generation, a campaign's mutations or the shrinker produce
//! satisfies the preconditions at every step, by construction. Everything
//! else is the choice sequence every property uses: campaigns mutate it
//! (inserting, deleting, duplicating, moving and swapping commands, and
//! swarm testing over the command kinds when `command` draws the kind
//! first), seeds store it, `cargo test` replays it.
//!
//! A failure is reported with the step it happened at, and the shrunk
//! sequence printed as a `#[test]` to paste beside the property.
//!
//! For races, [`ParallelCommands`] runs a sequential prefix, then two or
//! three sequences of commands on threads against one [`ConcurrentSystem`],
//! and checks that what they returned is *linearizable*: that some order of
//! the commands, consistent with what each thread saw and with real time,
//! gives the same results in the model.

mod commands;
mod linearizable;
mod parallel;
mod reproduce;
mod step;

pub use commands::Commands;
pub use parallel::{ConcurrentSystem, ParallelCommands};

use std::fmt::Debug;

use crate::Source;

/// The reference a stateful property checks a system against: its state,
/// the commands it accepts, and what each returns.
///
/// The functions must be deterministic (the same state and command give the
/// same result): they run again for every replay and every shrink step.
pub trait Model {
    /// The model's state, as simple as it can be: a `BTreeMap` for a store,
    /// an integer for a counter.
    type State: Clone + Debug;
    /// One operation on the system, usually an enum. Its `Debug` form is how
    /// a failing sequence is printed as Rust, so a derived `Debug` of an
    /// enum of integers, booleans and unit variants reads back as code.
    type Command: Clone + Debug;
    /// What a command returns: the model's prediction and the system's
    /// result must be equal.
    type Output: PartialEq + Debug;

    /// The state before the first command.
    fn init() -> Self::State;

    /// A command to run next in `state`, from the draws of `src` (see
    /// [`Source`]): a key that exists, a size the store can take. Drawing the
    /// command's kind first, with [`Source::draw_variant`] or a derived
    /// [`crate::Generate`], lets campaigns swarm over the kinds.
    fn command(state: &Self::State, src: &mut Source) -> Self::Command;

    /// Whether `command` may run in `state`. Generation draws a command
    /// again when it does not; running a sequence whose precondition fails
    /// (a hand-written one) is reported as an invalid sequence.
    fn precondition(state: &Self::State, command: &Self::Command) -> bool {
        let _ = (state, command);
        true
    }

    /// Runs `command` on the model: updates `state` and returns what the
    /// system should return.
    fn apply(state: &mut Self::State, command: &Self::Command) -> Self::Output;
}

/// The code under test, driven by [`Commands`] of its [`Model`].
///
/// Implement it on your own type, or, in an integration test where the type
/// is another crate's, on a wrapper around it.
pub trait System: Sized {
    /// The model it is checked against.
    type Model: Model;

    /// A fresh system, in the state of [`Model::init`].
    fn new() -> Self;

    /// Runs one command and returns its result, to be compared with the
    /// model's.
    fn run(&mut self, command: &CommandOf<Self::Model>) -> OutputOf<Self::Model>;

    /// Checks invariants after each command, with the model's state: panic
    /// (`assert!`) when one does not hold. Nothing by default.
    fn check(&self, state: &StateOf<Self::Model>) {
        let _ = state;
    }
}

/// The command type of a model.
pub type CommandOf<M> = <M as Model>::Command;
/// The output type of a model.
pub type OutputOf<M> = <M as Model>::Output;
/// The state type of a model.
pub type StateOf<M> = <M as Model>::State;
