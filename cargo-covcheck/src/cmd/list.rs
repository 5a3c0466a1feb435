//! `cargo covcheck list`: the properties of the selected packages and how
//! many seeds each has.

use crate::cli::ListArgs;
use crate::compile::Build;
use crate::discover::Filter;
use crate::error::Error;
use crate::exit::Outcome;
use crate::report::{Event, Reporter};

pub fn run(args: &ListArgs, reporter: &mut dyn Reporter) -> Result<Outcome, Error> {
    let filter = Filter {
        text: args.filter.as_deref(),
        exact: false,
    };
    let (_, properties) =
        super::build_and_discover(&args.build, filter, Build::Instrumented, reporter)?;
    for property in &properties {
        let (seeds, unreadable) = property.seed_store().load_valid();
        reporter.report(Event::Listed {
            property,
            seeds: seeds.len(),
            unreadable,
        });
    }
    Ok(Outcome::Passed)
}
