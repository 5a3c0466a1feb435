//! The commands of `cargo covcheck`, one module each: what they do, in
//! order. They build and discover through [`build_and_discover`], run
//! workers through [`crate::supervise`], and say what happened as
//! [`Event`]s to a [`Reporter`], which decides how it looks. None of them
//! prints.

pub mod list;
pub mod minimize;
pub mod replay;
pub mod report;
pub mod run;
pub mod since;

use crate::cli::BuildArgs;
use crate::compile::{self, Build, Plan};
use crate::discover::{self, Filter, Property};
use crate::error::Error;
use crate::report::{Event, Reporter};
use crate::supervise;

/// Builds the tests of the selected packages and lists the properties that
/// `filter` keeps.
pub fn build_and_discover(
    build: &BuildArgs,
    filter: Filter<'_>,
    kind: Build,
    reporter: &mut dyn Reporter,
) -> Result<(Plan, Vec<Property>), Error> {
    let plan = compile::plan(build)?;
    supervise::remove_finished_work_dirs(&plan.covcheck_dir);
    let binaries = compile::build(&plan, build, kind)?;
    let mut properties = discover::discover(&binaries, filter)?;
    for property in &mut properties {
        property.manifest_path.clone_from(&build.manifest_path);
    }
    if properties.is_empty() {
        reporter.report(Event::NothingMatched {
            filter: filter.text,
        });
    }
    Ok((plan, properties))
}
