//! Project chores: `cargo xtask ci` runs what CI runs, in the same order.

mod bench;
mod campaigns;
mod engine;
mod flag_worth;
mod llvm_cov;
mod measure;
mod options;
mod perf;
mod report_bench;
mod scale;
mod stateful;
mod stats;
mod suite;
mod target;

use std::process::{Command, ExitCode};

const USAGE: &str = "usage: cargo xtask <chore>

chores:
  ci         cargo fmt --check, cargo clippy -D warnings, cargo test --workspace, the
             same for covcheck-rt's campaign worker, the engine library
             (cargo-covcheck/engine), covcheck-rt's arbitrary/proptest generators and
             its tokio executor,
             clippy of covcheck-rt and cargo-covcheck for Windows and macOS
             (rustup target add), and bench --quick (what .ci/run runs)
  engine     cargo on the campaign engine's sources (cargo-covcheck/engine, which
             ships inside cargo-covcheck's package, its manifest as Cargo.toml.in):
             cargo xtask engine <cargo command> [args], e.g. `engine clippy --locked`
  campaigns  executions and time for `cargo covcheck` to find the example bugs over
             several RNG seeds, and exec/s against the plain `cargo test` burst
             [--seeds N (10)] [--runs N (5000000)] [--ablation SECS: dut_magic with --no-cmp]
  dict       what a property's dictionary is worth: examples/hashed_keyword (a keyword no
             comparison reveals) with its `dict` and with --no-dict, same budget
             [--seeds N (5)] [--runs N (1000000)]
  value-profile
             what --value-profile is worth: examples/hashed_tag (a rolling hash compared
             with a constant) with and without it, same budget
             [--seeds N (5)] [--runs N (1000000)]
  target     what `target()` is worth: examples/targeted (a quantity no coverage counter
             measures) steered by its target and with --no-target, same budget: the
             median best value of each
             [--seeds N (5)] [--runs N (200000)]
  perf       what performance mode finds on examples/run_length (linear except on long
             runs, where it is quadratic): the costliest input against the median random
             input of its size, and the growth fitted, per seed
             [--seeds N (5)] [--time SECS (60)]
  scale      what more workers on one property are worth: executions in the same time
             (examples/json, examples/throughput) and the median time to the bug
             (examples/dut_magic64, the suite's puzzle) with -j 1 and -j N
             [--jobs N (2)] [--seeds N (10)] [--time SECS (10)] [--budget SECS (30)]
  bench      covcheck (plain and campaign), proptest, quickcheck and libFuzzer on the
             bugs of bench/suite: a Markdown table per target, raw results in CSV
             [--quick] [--budget SECS (60)] [--seeds N (5)] [--csv FILE]
             [--only TARGET[,TARGET..]] [--tools TOOL[,TOOL..]: of covcheck,
             covcheck-campaign, proptest, quickcheck, libfuzzer]
  throughput executions per second of the campaign and of libFuzzer on inputs of one length
             (bench/suite's fixed-length targets: a trivial one and the three real-crate
             parsers), side by side, and the trivial target with and without rust_decimal,
             der and upon instrumented [--rounds N (3)] [--time SECS (10)]
  suite      what one budget for a suite is worth: examples/suite under --time-total
             against an even split of the same budget (bugs found, time to the last one),
             and a generated 20-property repository whose last commit adds a bug, the same
             budget with and without --since HEAD~1 (time to the bug)
             [--seeds N (5)] [--time SECS (60)] [--jobs N (2)] [--only-shared | --only-since]
  stateful   what stateful properties find: examples/kv_store (executions to the bug, length
             of the shrunk sequence) and examples/counter_race (the parallel property's time to
             the race, the sequential one's reports, which must be none), per seed
             [--seeds N (5)] [--runs N (200000)] [--time SECS (60)]
  report-bench
             time of `cargo covcheck report` on a generated crate with 20 properties
             and 10,000 corpus entries
  report-vs-llvm-cov
             how far `cargo covcheck report`'s lines agree with LLVM's source-based
             coverage (-Cinstrument-coverage, llvm-cov) on the same replayed corpus of
             one property: a campaign, then both reports, compared line by line
             [--example DIR (examples/json)] [--property FILTER (the first)]
             [--time SECS (60) | --runs N] [--seed S (1)]; LLVM_COV and LLVM_PROFDATA,
             else the toolchain's llvm-tools (rustup component add llvm-tools)
  help       this text";

fn main() -> ExitCode {
    let chore = std::env::args().nth(1).unwrap_or_default();
    match chore.as_str() {
        "ci" => ci(),
        "throughput" => match bench::throughput::main(
            &std::env::args().skip(2).collect::<Vec<_>>(),
            workspace_root(),
        ) {
            Ok(()) => ExitCode::SUCCESS,
            Err(message) => {
                eprintln!("xtask: {message}");
                ExitCode::FAILURE
            }
        },
        "bench" => {
            match bench::main(
                &std::env::args().skip(2).collect::<Vec<_>>(),
                workspace_root(),
            ) {
                Ok(()) => ExitCode::SUCCESS,
                Err(message) => {
                    eprintln!("xtask: {message}");
                    ExitCode::FAILURE
                }
            }
        }
        "engine" => report(engine::main(
            &std::env::args().skip(2).collect::<Vec<_>>(),
            workspace_root(),
        )),
        "campaigns" => report(campaigns::main(
            &std::env::args().skip(2).collect::<Vec<_>>(),
        )),
        "dict" => report(flag_worth::dict(
            &std::env::args().skip(2).collect::<Vec<_>>(),
        )),
        "value-profile" => report(flag_worth::value_profile(
            &std::env::args().skip(2).collect::<Vec<_>>(),
        )),
        "target" => report(target::main(&std::env::args().skip(2).collect::<Vec<_>>())),
        "perf" => report(perf::main(&std::env::args().skip(2).collect::<Vec<_>>())),
        "scale" => report(scale::main(&std::env::args().skip(2).collect::<Vec<_>>())),
        "report-bench" => report(report_bench::main()),
        "suite" => report(suite::main(&std::env::args().skip(2).collect::<Vec<_>>())),
        "stateful" => report(stateful::main(
            &std::env::args().skip(2).collect::<Vec<_>>(),
        )),
        "report-vs-llvm-cov" => report(llvm_cov::main(
            &std::env::args().skip(2).collect::<Vec<_>>(),
            workspace_root(),
        )),
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

/// The targets besides Linux that `ci` lints covcheck-rt and cargo-covcheck
/// for.
const OTHER_PLATFORMS: [&str; 2] = ["x86_64-pc-windows-gnu", "x86_64-apple-darwin"];

/// Runs one step of `ci` from the workspace root; whether it succeeded,
/// its failure printed.
fn step(program: &str, args: &[&str], root: &std::path::Path) -> bool {
    let name = if program == env!("CARGO") {
        "cargo"
    } else {
        program
    };
    eprintln!("xtask: {name} {}", args.join(" "));
    match Command::new(program).args(args).current_dir(root).status() {
        Ok(status) if status.success() => true,
        Ok(_) => {
            eprintln!("xtask: `{name} {}` failed", args.join(" "));
            false
        }
        Err(e) => {
            eprintln!("xtask: could not run {name}: {e}");
            false
        }
    }
}

/// The exit status of a chore, its error printed.
fn report(result: Result<(), String>) -> ExitCode {
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("xtask: {message}");
            ExitCode::FAILURE
        }
    }
}

/// The workspace's root directory.
fn workspace_root() -> &'static std::path::Path {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("workspace root")
}

/// What CI runs (`.ci/run` calls this), in order, stopping at the first
/// failure. `cargo test --workspace`, the README's test command, is timed.
fn ci() -> ExitCode {
    let root = workspace_root();
    let clippy = ["--all-targets", "--", "-D", "warnings"];
    let workspace: [&[&str]; 3] = [
        &["fmt", "--all", "--", "--check"],
        &[&["clippy", "--workspace"][..], &clippy].concat(),
        // The docs are read by tools' authors (covcheck-protocol) and by
        // newcomers: a broken intra-doc link fails like a lint.
        &[
            "doc",
            "--no-deps",
            "--workspace",
            "--config",
            "build.rustdocflags=[\"-D\", \"warnings\"]",
        ],
    ];
    for args in workspace {
        if !step(env!("CARGO"), args, root) {
            return ExitCode::FAILURE;
        }
    }
    let started = std::time::Instant::now();
    if !step(env!("CARGO"), &["test", "--workspace"], root) {
        return ExitCode::FAILURE;
    }
    eprintln!(
        "xtask: cargo test --workspace took {} s",
        started.elapsed().as_secs()
    );
    // The campaign side of the runtime is behind covcheck-rt's `campaign`
    // feature, which plain `cargo test` never enables; the bridges to
    // arbitrary and proptest are optional features too, and so is running
    // async properties on tokio.
    let features: [&[&str]; 5] = [
        &[
            &["clippy", "-p", "covcheck-rt", "--features", "campaign"][..],
            &clippy,
        ]
        .concat(),
        &[
            "test",
            "-p",
            "covcheck-rt",
            "--features",
            "campaign",
            "--lib",
            "engine",
        ],
        &[
            &[
                "clippy",
                "-p",
                "covcheck-rt",
                "--features",
                "arbitrary,proptest,tokio",
            ][..],
            &clippy,
        ]
        .concat(),
        &[
            "test",
            "-p",
            "covcheck-rt",
            "--features",
            "arbitrary,proptest",
            "--lib",
            "generators",
        ],
        &[
            "test",
            "-p",
            "covcheck-rt",
            "--features",
            "tokio",
            "--lib",
            "block_on",
        ],
    ];
    for args in features {
        if !step(env!("CARGO"), args, root) {
            return ExitCode::FAILURE;
        }
    }
    // The engine library (LibAFL behind a C ABI) is a workspace of its own,
    // with its own lock file: `cargo covcheck` builds it apart from the
    // user's graph.
    let manifest = match engine::prepare(root) {
        Ok(manifest) => manifest,
        Err(message) => {
            eprintln!("xtask: {message}");
            return ExitCode::FAILURE;
        }
    };
    let manifest = manifest.to_str().expect("a UTF-8 target directory");
    let engine: [&[&str]; 3] = [
        &["fmt", "--manifest-path", manifest, "--", "--check"],
        &[
            &["clippy", "--manifest-path", manifest, "--locked"][..],
            &clippy,
        ]
        .concat(),
        &["test", "--manifest-path", manifest, "--locked", "--lib"],
    ];
    for args in engine {
        if !step(env!("CARGO"), args, root) {
            return ExitCode::FAILURE;
        }
    }
    // Plain `cargo test` with covcheck-rt must build wherever Rust does:
    // Windows (not Unix) and macOS (a Unix that is not Linux); cargo-covcheck
    // builds there too, but refuses to run.
    for target in OTHER_PLATFORMS {
        let runtime = [
            "clippy",
            "-p",
            "covcheck-rt",
            "-p",
            "covcheck-protocol",
            "--target",
            target,
            "--all-targets",
            "--features",
            "covcheck-rt/arbitrary,covcheck-rt/proptest",
            "--",
            "-D",
            "warnings",
        ];
        let command = [
            "clippy",
            "-p",
            "cargo-covcheck",
            "--target",
            target,
            "--all-targets",
            "--",
            "-D",
            "warnings",
        ];
        if !step("rustup", &["target", "add", target], root)
            || !step(env!("CARGO"), &runtime, root)
            || !step(env!("CARGO"), &command, root)
        {
            return ExitCode::FAILURE;
        }
    }
    eprintln!("xtask: cargo xtask bench --quick");
    if let Err(message) = bench::main(&["--quick".to_string()], root) {
        eprintln!("xtask: bench --quick failed: {message}");
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}
