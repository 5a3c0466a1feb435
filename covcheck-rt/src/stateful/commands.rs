//! [`Commands`]: a sequence of commands, generated from the model, run on
//! the system.

use std::fmt;
use std::marker::PhantomData;

use super::step::{draw_sequence, run_beside_model};
use super::{CommandOf, Model, System, reproduce};
use crate::{Generate, Source};

/// A sequence of commands for the system `S`, each drawn from the state
/// its [`Model`] is in after the ones before it, and each satisfying its
/// precondition there. Take it as a property's argument and call
/// [`Commands::run`]; see [the module](super) for a whole example.
pub struct Commands<S: System> {
    commands: Vec<CommandOf<S::Model>>,
    system: PhantomData<fn() -> S>,
}

impl<S: System> Commands<S> {
    /// The sequence `commands`, as a failure report prints it: what a
    /// reproduction pasted into a test builds.
    pub fn new(commands: Vec<CommandOf<S::Model>>) -> Self {
        Commands {
            commands,
            system: PhantomData,
        }
    }

    /// The commands, in order.
    pub fn commands(&self) -> &[CommandOf<S::Model>] {
        &self.commands
    }

    /// Runs the commands on a new system ([`System::new`]) and on the
    /// model side by side. Panics, naming the step, when the system returns
    /// something else than the model, when [`System::check`] or the system
    /// panics, or when a precondition does not hold (a hand-written
    /// sequence). The panic's message ends with the sequence as a
    /// `#[test]`.
    #[track_caller]
    pub fn run(&self) {
        let mut system = S::new();
        let mut state = <S::Model as Model>::init();
        run_beside_model::<S::Model, S>(
            &mut system,
            &mut state,
            &self.commands,
            &|step| self.step_name(step),
            &|| self.reproduction(),
            S::run,
            S::check,
        );
    }

    /// "step 3 of 5, `Get { key: 1 }`".
    fn step_name(&self, step: usize) -> String {
        format!(
            "step {} of {}, `{:?}`",
            step + 1,
            self.commands.len(),
            self.commands[step]
        )
    }

    fn reproduction(&self) -> String {
        reproduce::sequential::<S, _>(&self.commands)
    }
}

impl<S: System> Generate for Commands<S> {
    fn generate(src: &mut Source) -> Self {
        let mut state = <S::Model as Model>::init();
        Commands::new(draw_sequence::<S::Model>(src, &mut state, 0, usize::MAX))
    }
}

impl<S: System> Clone for Commands<S> {
    fn clone(&self) -> Self {
        Commands::new(self.commands.clone())
    }
}

impl<S: System> fmt::Debug for Commands<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(&self.commands).finish()
    }
}
