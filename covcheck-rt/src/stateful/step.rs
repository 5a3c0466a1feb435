//! One step of a stateful property, shared by the sequential and the
//! parallel runner: drawing a command whose precondition holds, and running
//! a command on the system beside the model.

use std::marker::PhantomData;
use std::panic::{self, AssertUnwindSafe};

use super::Model;
use crate::source::{Source, label_of, nested};

/// How many times a step draws a command whose precondition fails before
/// it leaves the step out.
const TRIES: usize = 8;

/// The label of one step's span (its `More` flag and its tries), apart
/// from the command's own span inside it: the mutator moves and swaps
/// steps only with steps, from any sequence of the input (the prefix or a
/// thread's), and never with a bare command.
struct Step<C>(PhantomData<C>);

/// Draws a sequence of at most `max` commands (and at least `min`, as far
/// as the preconditions allow) from `state`, applying each to it.
pub(super) fn draw_sequence<M: Model>(
    src: &mut Source,
    state: &mut M::State,
    min: usize,
    max: usize,
) -> Vec<M::Command> {
    let mut commands = Vec::new();
    src.collection(min, max, None, label_of::<Step<M::Command>>(), |src, _| {
        if let Some(command) = draw_command::<M>(state, src) {
            M::apply(state, &command);
            commands.push(command);
        }
    });
    commands
}

/// A command whose precondition holds in `state`, within [`TRIES`] draws.
fn draw_command<M: Model>(state: &M::State, src: &mut Source) -> Option<M::Command> {
    (0..TRIES).find_map(|_| {
        let command = nested(src, label_of::<M::Command>(), |src| M::command(state, src));
        M::precondition(state, &command).then_some(command)
    })
}

/// Runs `commands` on `system` (with `run`) and on the model from `state`,
/// side by side, and `check` after each. Panics at the first command whose
/// precondition does not hold (a hand-written sequence), whose result
/// differs from the model's, or at which the system or `check` panics; the
/// message names the command (`step_name` of its index) and ends with
/// `reproduction`.
#[track_caller]
pub(super) fn run_beside_model<M: Model, T>(
    system: &mut T,
    state: &mut M::State,
    commands: &[M::Command],
    step_name: &dyn Fn(usize) -> String,
    reproduction: &dyn Fn() -> String,
    run: impl Fn(&mut T, &M::Command) -> M::Output,
    check: impl Fn(&T, &M::State),
) {
    for (step, command) in commands.iter().enumerate() {
        if !M::precondition(state, command) {
            panic!(
                "{}: its precondition does not hold in the model's state {state:?}, \
                 so the model does not allow these commands{}",
                step_name(step),
                reproduction()
            );
        }
        let expected = M::apply(state, command);
        let context = || format!("\n\nat {}{}", step_name(step), reproduction());
        let actual = guarded(context, || run(system, command));
        if actual != expected {
            panic!(
                "{}: the system returned {actual:?} where the model returns {expected:?}{}",
                step_name(step),
                reproduction()
            );
        }
        guarded(context, || check(system, state));
    }
}

/// Runs `call` on the system; a panic goes on unwinding with `context`
/// added to its message.
pub(super) fn guarded<R>(context: impl FnOnce() -> String, call: impl FnOnce() -> R) -> R {
    match panic::catch_unwind(AssertUnwindSafe(call)) {
        Ok(result) => result,
        Err(payload) => crate::property::resume_with_context(payload, &context()),
    }
}
