//! `cargo covcheck`: coverage-guided campaigns for `#[covcheck]` properties.
//!
//! This binary will own the instrumented build, discovery, supervision and
//! reporting (see DESIGN.md). Today only the plain `cargo test` mode of
//! `covcheck-rt` exists; the campaign commands answer with what to use instead
//! and exit with status 2, so scripts never mistake them for a passing run.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(bin_name = "cargo")]
enum Cargo {
    /// Coverage-guided property testing for #[covcheck] properties.
    Covcheck(Args),
}

#[derive(clap::Args)]
#[command(
    version,
    about = "Coverage-guided campaigns for #[covcheck] properties",
    after_help = "Today, run your properties with plain `cargo test`: it replays saved seeds, \
                  then runs a burst of heuristic cases (COVCHECK_CASES sets how many)."
)]
struct Args {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Run a coverage-guided campaign per property (not available yet).
    Run,
    /// List the properties of the crate (not available yet).
    List,
}

fn main() -> ExitCode {
    let Cargo::Covcheck(args) = Cargo::parse();
    let command = match args.command {
        Some(Command::List) => "list",
        Some(Command::Run) | None => "run",
    };
    eprintln!(
        "cargo covcheck {command}: coverage-guided campaigns are not implemented in this version.\n\
         Run your properties with `cargo test` (seeds are replayed, then heuristic cases run);\n\
         raise the number of cases with COVCHECK_CASES, e.g. `COVCHECK_CASES=1000000 cargo test --release`."
    );
    ExitCode::from(2)
}
