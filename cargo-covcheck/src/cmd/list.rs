//! `cargo covcheck list`: the properties of the selected packages and how
//! many seeds each has.

use crate::cli::ListArgs;
use crate::compile::Build;
use crate::discover::Filter;
use crate::error::Error;
use crate::exit::Outcome;

pub fn run(args: &ListArgs) -> Result<Outcome, Error> {
    let filter = Filter {
        text: args.filter.as_deref(),
        exact: false,
    };
    let (_, properties) = super::build_and_discover(&args.build, filter, Build::Instrumented)?;
    for property in &properties {
        let (seeds, unreadable) = property.seed_store().load_valid();
        println!("{}  ({} seeds)", property.listing.full_path, seeds.len());
        for error in unreadable {
            eprintln!("warning: {error}");
        }
    }
    Ok(Outcome::Passed)
}
