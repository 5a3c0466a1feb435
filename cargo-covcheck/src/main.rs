//! The `cargo-covcheck` executable: parses the command line, runs the
//! command the library implements, and exits with its status. When cargo
//! runs it as the rustc wrapper of the instrumented build, it is that
//! wrapper instead.

use clap::Parser;

use cargo_covcheck::cli::{Cargo, Command};
use cargo_covcheck::{cmd, wrapper};

fn main() {
    if std::env::var_os(wrapper::WRAPPER_ENV).is_some() {
        wrapper::run(std::env::args_os().skip(1).collect());
    }
    let Cargo::Covcheck(args) = Cargo::parse();
    let result = match args.command {
        Some(Command::List(list)) => cmd::list::run(&list),
        Some(Command::Run(run)) => cmd::run::run(&run),
        Some(Command::Minimize(args)) => cmd::minimize::run(&args),
        Some(Command::Replay(args)) => cmd::replay::run(&args),
        None => cmd::run::run(&args.run),
    };
    let code = match result {
        Ok(outcome) => outcome.code(),
        Err(error) => {
            eprintln!("error: {error}");
            error.exit_code()
        }
    };
    std::process::exit(code);
}
