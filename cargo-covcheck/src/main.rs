//! The `cargo-covcheck` executable: parses the command line, runs the
//! command the library implements, and exits with its status. When cargo
//! runs it as the rustc wrapper of the instrumented build, it is that
//! wrapper instead. On a host other than Linux it parses the command line
//! (so `--help` and `--version` work) and stops: see
//! `cargo_covcheck::platform`.

use clap::Parser;

use cargo_covcheck::cli::Cargo;
#[cfg(target_os = "linux")]
use cargo_covcheck::cli::{Command, RunArgs};
#[cfg(target_os = "linux")]
use cargo_covcheck::error::Error;
#[cfg(target_os = "linux")]
use cargo_covcheck::exit::Outcome;
#[cfg(target_os = "linux")]
use cargo_covcheck::report;
#[cfg(target_os = "linux")]
use cargo_covcheck::{cmd, wrapper};

#[cfg(not(target_os = "linux"))]
fn main() {
    let Cargo::Covcheck(_) = Cargo::parse();
    eprintln!(
        "error: {}",
        cargo_covcheck::platform::unsupported(std::env::consts::OS)
    );
    std::process::exit(cargo_covcheck::exit::USAGE);
}

#[cfg(target_os = "linux")]
fn main() {
    if std::env::var_os(wrapper::WRAPPER_ENV).is_some() {
        wrapper::run(std::env::args_os().skip(1).collect());
    }
    let Cargo::Covcheck(args) = Cargo::parse();
    let result = match args.command {
        Some(Command::List(args)) => {
            cmd::list::run(&args, report::for_format(args.message_format).as_mut())
        }
        Some(Command::Run(run)) => run_campaigns(&run),
        Some(Command::Minimize(args)) => {
            cmd::minimize::run(&args, report::for_format(args.message_format).as_mut())
        }
        Some(Command::Replay(args)) => {
            cmd::replay::run(&args, report::for_format(args.message_format).as_mut())
        }
        Some(Command::Report(args)) => {
            cmd::report::run(&args, report::for_format(args.message_format).as_mut())
        }
        None => run_campaigns(&args.run),
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

/// The campaigns, shown as `--message-format` says.
#[cfg(target_os = "linux")]
fn run_campaigns(args: &RunArgs) -> Result<Outcome, Error> {
    let mut reporter = report::for_format(args.message_format);
    cmd::run::run(args, reporter.as_mut())
}
