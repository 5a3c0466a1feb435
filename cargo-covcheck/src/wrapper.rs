//! The `RUSTC_WRAPPER` side of this binary: cargo runs
//! `cargo-covcheck <rustc> <args>` for every crate of the instrumented
//! build, and we add the SanitizerCoverage flags to the crates of the
//! instrumentation set ([`crate::instrument`]), which cargo names to rustc
//! through `CARGO_PKG_NAME` and `CARGO_PKG_VERSION`.
//!
//! Why a wrapper and not `RUSTFLAGS`: `RUSTFLAGS` would instrument
//! covcheck-rt (whose callbacks would then recurse into themselves) and the
//! campaign engine. Build scripts and proc-macros are left alone (an
//! instrumented proc-macro fails to load with a misleading E0463), but they
//! may link instrumented dependencies, so everything that links gets the
//! weak no-op callbacks.

use std::ffi::OsString;

use cargo_util::ProcessBuilder;

use crate::instrument::{INSTRUMENT_ENV, InstrumentSet};

/// Set by `cargo covcheck` for the cargo it runs: this process is the wrapper.
pub const WRAPPER_ENV: &str = "COVCHECK_RUSTC_WRAPPER";
/// Path of the weak-callback archive to link into instrumented executables.
pub const STUBS_ENV: &str = "COVCHECK_SANCOV_STUBS";
/// Set for the coverage report's build (a profile of its own): keep
/// functions no test calls, so that the report shows them as not reached
/// rather than not at all.
pub const KEEP_DEAD_CODE_ENV: &str = "COVCHECK_KEEP_DEAD_CODE";
/// The flag that gives the report's build a counter on every block.
pub const REPORT_EVERY_BLOCK_FLAG: &str = "-Cllvm-args=-sanitizer-coverage-prune-blocks=0";
/// Set for performance mode's build (a profile of its own): every edge
/// also calls `__sanitizer_cov_trace_pc`, which covcheck-rt counts as the
/// execution's cost. Only there: the call on every edge would slow every
/// other campaign.
pub const COUNT_EDGES_ENV: &str = "COVCHECK_COUNT_EDGES";
/// The flag that makes every edge call `__sanitizer_cov_trace_pc`.
pub const COUNT_EDGES_FLAG: &str = "-Cllvm-args=-sanitizer-coverage-trace-pc";

/// The flags that instrument a crate. `-Cpasses=sancov-module` is what makes
/// the `-sanitizer-coverage-*` options take effect on stable.
pub const SANCOV_FLAGS: [&str; 6] = [
    "-Cpasses=sancov-module",
    "-Cllvm-args=-sanitizer-coverage-level=3",
    "-Cllvm-args=-sanitizer-coverage-inline-8bit-counters",
    "-Cllvm-args=-sanitizer-coverage-pc-table",
    "-Cllvm-args=-sanitizer-coverage-trace-compares",
    // Keep `memcmp` calls as calls (rather than inline loads) so that the
    // runtime's `memcmp`/`bcmp` see byte-string comparisons.
    "-Cllvm-args=-max-loads-per-memcmp=0",
];

/// Runs rustc with `args` (the first is rustc itself), instrumenting when
/// due. Rustc replaces this process (`exec_replace`, execvp(2) on Unix):
/// cargo sees rustc's own exit status, a signal that killed it included,
/// and no wrapper waits beside each rustc. Only when rustc cannot be
/// started does the wrapper say so, with the command line.
pub fn run(args: Vec<OsString>) -> ! {
    let Some((rustc, rest)) = args.split_first() else {
        eprintln!("covcheck: the rustc wrapper was called without a compiler");
        std::process::exit(2)
    };
    let mut command = ProcessBuilder::new(rustc);
    command.args(rest);
    let instrumented = should_instrument(rest);
    if instrumented {
        command.args(&SANCOV_FLAGS);
        if std::env::var_os(COUNT_EDGES_ENV).is_some() {
            command.arg(COUNT_EDGES_FLAG);
        }
    }
    if (instrumented || links(rest)) && std::env::var_os(KEEP_DEAD_CODE_ENV).is_some() {
        command.arg("-Clink-dead-code");
    }
    if instrumented && std::env::var_os(KEEP_DEAD_CODE_ENV).is_some() {
        // A counter on every block: SanitizerCoverage leaves out blocks
        // another block's counter implies, which is all a campaign needs,
        // but then a line whose code is all in such a block (a loop's
        // header, the statement after a call) shows never reached.
        command.arg(REPORT_EVERY_BLOCK_FLAG);
    }
    if links(rest)
        && let Some(stubs) = std::env::var_os(STUBS_ENV)
    {
        let mut arg = OsString::from("-Clink-arg=");
        arg.push(stubs);
        command.arg(arg);
    }
    match command.exec_replace() {
        Ok(()) => std::process::exit(0), // only where exec waits (Windows)
        Err(error) => {
            eprintln!("covcheck: {error:#}");
            std::process::exit(2)
        }
    }
}

fn value_of(args: &[OsString], flag: &str) -> Option<String> {
    let position = args.iter().position(|a| a == flag)?;
    args.get(position + 1)
        .map(|v| v.to_string_lossy().into_owned())
}

/// The crate types rustc is asked for: cargo gives one `--crate-type` per
/// type a target declares (`crate-type = ["rlib", "cdylib"]`), and rustc
/// also reads `--crate-type=a,b`.
fn crate_types(args: &[OsString]) -> Vec<String> {
    let mut types = Vec::new();
    let mut args = args.iter().map(|a| a.to_string_lossy());
    while let Some(arg) = args.next() {
        let value = match arg.strip_prefix("--crate-type") {
            Some("") => args.next().map(|v| v.into_owned()),
            Some(rest) => rest.strip_prefix('=').map(str::to_string),
            None => None,
        };
        types.extend(value.iter().flat_map(|v| v.split(',')).map(str::to_string));
    }
    types
}

/// Whether rustc links an executable or a shared object: any of them may
/// hold instrumented code and then needs the callbacks, whatever other
/// types the crate is built as besides (a `cdylib` beside its `rlib`). A
/// crate compiled without `--crate-type` nor `--test` is an executable too
/// (rustc's default): cargo builds a `[[test]]` or `[[bench]]` with
/// `harness = false` that way, as it does every datatest, libtest-mimic or
/// custom runner test.
fn links(args: &[OsString]) -> bool {
    let queries = args
        .iter()
        .any(|a| a.to_string_lossy().starts_with("--print"));
    let types = crate_types(args);
    args.iter().any(|a| a == "--test")
        || types
            .iter()
            .any(|kind| matches!(kind.as_str(), "bin" | "proc-macro" | "cdylib" | "dylib"))
        || (types.is_empty() && value_of(args, "--crate-name").is_some() && !queries)
}

fn should_instrument(args: &[OsString]) -> bool {
    let Some(name) = value_of(args, "--crate-name") else {
        return false; // `rustc -vV`, `--print` and other queries
    };
    let (Ok(package), Ok(version), Ok(set)) = (
        std::env::var("CARGO_PKG_NAME"),
        std::env::var("CARGO_PKG_VERSION"),
        std::env::var(INSTRUMENT_ENV),
    ) else {
        return false;
    };
    InstrumentSet::env_contains(&set, &package, &version)
        && !name.starts_with("build_script_")
        && name != "covcheck_rt"
        && !crate_types(args).iter().any(|kind| kind == "proc-macro")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Vec<OsString> {
        list.iter().map(OsString::from).collect()
    }

    #[test]
    fn instruments_the_set_less_build_scripts_and_proc_macros() {
        // SAFETY (of the test): no other test of this binary reads these variables.
        unsafe {
            std::env::set_var(INSTRUMENT_ENV, "dut 0.1.0\nnom 7.1.3\n");
            std::env::set_var("CARGO_PKG_NAME", "dut");
            std::env::set_var("CARGO_PKG_VERSION", "0.1.0");
        }
        assert!(should_instrument(&args(&[
            "--crate-name",
            "dut",
            "--crate-type",
            "lib"
        ])));
        assert!(should_instrument(&args(&["--crate-name", "dut", "--test"])));
        assert!(!should_instrument(&args(&[
            "--crate-name",
            "build_script_build"
        ])));
        assert!(!should_instrument(&args(&[
            "--crate-name",
            "m",
            "--crate-type",
            "proc-macro"
        ])));
        assert!(!should_instrument(&args(&["-vV"])));
        // SAFETY: as above.
        unsafe { std::env::set_var("CARGO_PKG_VERSION", "0.2.0") };
        assert!(!should_instrument(&args(&[
            "--crate-name",
            "dut",
            "--test"
        ])));
        assert!(links(&args(&[
            "--crate-name",
            "build_script_build",
            "--crate-type",
            "bin"
        ])));
        assert!(links(&args(&[
            "--crate-name",
            "m",
            "--crate-type",
            "proc-macro"
        ])));
        assert!(!links(&args(&["--crate-name", "m", "--crate-type", "lib"])));
        // A cdylib declared after its rlib: `crate-type = ["rlib", "cdylib"]`.
        assert!(links(&args(&[
            "--crate-name",
            "plugin",
            "--crate-type",
            "rlib",
            "--crate-type",
            "cdylib"
        ])));
        assert!(links(&args(&[
            "--crate-name",
            "plugin",
            "--crate-type=rlib,cdylib"
        ])));
        assert!(!links(&args(&[
            "--crate-name",
            "m",
            "--crate-type",
            "rlib",
            "--crate-type",
            "staticlib"
        ])));
        // A `harness = false` test: neither `--crate-type` nor `--test`.
        assert!(links(&args(&[
            "--crate-name",
            "datatest",
            "--edition=2021"
        ])));
        assert!(!links(&args(&["-vV"])));
        assert!(!links(&args(&[
            "-",
            "--crate-name",
            "___",
            "--print=file-names"
        ])));
    }
}
