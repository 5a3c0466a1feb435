//! The commands of `cargo covcheck`, one module each: what they do, in
//! order. They build and discover through [`build_and_discover`], run
//! workers through [`crate::supervise`], and leave how things look to
//! [`crate::report`].

pub mod list;
pub mod minimize;
pub mod replay;
pub mod run;

use crate::cli::BuildArgs;
use crate::compile::{self, Build, Plan};
use crate::discover::{self, Filter, Property};
use crate::error::Error;
use crate::supervise;

/// Builds the tests of the selected packages and lists the properties that
/// `filter` keeps.
pub fn build_and_discover(
    build: &BuildArgs,
    filter: Filter<'_>,
    kind: Build,
) -> Result<(Plan, Vec<Property>), Error> {
    let plan = compile::plan(build)?;
    supervise::remove_finished_work_dirs(&plan.covcheck_dir);
    let binaries = compile::build(&plan, build, kind)?;
    let mut properties = discover::discover(&binaries, filter)?;
    for property in &mut properties {
        property.manifest_path.clone_from(&build.manifest_path);
    }
    if properties.is_empty() {
        let note = filter
            .text
            .map(|f| format!(" match `{f}`; `cargo covcheck list` shows them all"))
            .unwrap_or_default();
        eprintln!("no #[covcheck] properties{note}");
    }
    Ok((plan, properties))
}
