//! Project chores: `cargo xtask ci` runs what CI runs, in the same order.

use std::process::{Command, ExitCode};

const USAGE: &str = "usage: cargo xtask <chore>

chores:
  ci      cargo fmt --check, cargo clippy -D warnings, cargo test --workspace (what .ci/run runs)
  help    this text";

fn main() -> ExitCode {
    let chore = std::env::args().nth(1).unwrap_or_default();
    match chore.as_str() {
        "ci" => ci(),
        "help" | "--help" | "-h" => {
            println!("{USAGE}");
            ExitCode::SUCCESS
        }
        other => {
            eprintln!("xtask: unknown chore `{other}`\n\n{USAGE}");
            ExitCode::from(2)
        }
    }
}

fn ci() -> ExitCode {
    let steps: [&[&str]; 3] = [
        &["fmt", "--all", "--", "--check"],
        &[
            "clippy",
            "--workspace",
            "--all-targets",
            "--",
            "-D",
            "warnings",
        ],
        &["test", "--workspace"],
    ];
    for args in steps {
        eprintln!("xtask: cargo {}", args.join(" "));
        let status = Command::new(env!("CARGO")).args(args).status();
        match status {
            Ok(status) if status.success() => {}
            Ok(_) => {
                eprintln!("xtask: `cargo {}` failed", args.join(" "));
                return ExitCode::FAILURE;
            }
            Err(e) => {
                eprintln!("xtask: could not run cargo: {e}");
                return ExitCode::FAILURE;
            }
        }
    }
    ExitCode::SUCCESS
}
