//! Snapshots of `cargo covcheck --help` and of each subcommand's, rendered
//! by the library's clap command at a fixed width and without colours (as
//! plain text), so that a change to the help, the exit statuses included,
//! shows in review.

use cargo_covcheck::cli::Cargo;
use clap::CommandFactory;

/// What `cargo <args...> --help` prints: clap's own rendering of the help
/// request, as the binary shows it.
fn help(args: &[&str]) -> String {
    let argv = ["cargo"].iter().chain(args).chain(&["--help"]);
    let error = Cargo::command()
        .term_width(100)
        .try_get_matches_from(argv)
        .expect_err("--help stops the parse");
    assert_eq!(error.kind(), clap::error::ErrorKind::DisplayHelp);
    error.render().to_string()
}

#[test]
fn cargo_covcheck() {
    insta::assert_snapshot!(help(&["covcheck"]));
}

#[test]
fn cargo_covcheck_run() {
    insta::assert_snapshot!(help(&["covcheck", "run"]));
}

#[test]
fn cargo_covcheck_list() {
    insta::assert_snapshot!(help(&["covcheck", "list"]));
}

#[test]
fn cargo_covcheck_minimize() {
    insta::assert_snapshot!(help(&["covcheck", "minimize"]));
}

#[test]
fn cargo_covcheck_replay() {
    insta::assert_snapshot!(help(&["covcheck", "replay"]));
}

#[test]
fn cargo_covcheck_report() {
    insta::assert_snapshot!(help(&["covcheck", "report"]));
}
