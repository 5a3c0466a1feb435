//! The end-to-end tests, one module per area, in one test binary: cargo
//! links one executable instead of one per file, and the test harness runs
//! every test in one pool of threads, so that a slow campaign test of one
//! area overlaps the fast tests of the others instead of each file's
//! slowest test holding up the next file. Run one area with
//! `cargo test -p covcheck-e2e --test e2e <module>::`.

mod async_properties;
mod caches;
mod campaigns;
mod checksums;
mod ci_recipe;
mod coverage_report;
mod dependencies;
mod dictionary;
mod foreign_generators;
mod long_inputs;
mod outside_crate;
mod packages;
mod performance;
mod reliability;
mod scaling;
mod seed_suites;
mod shared_memory;
mod since;
mod stateful;
mod targeted;
mod targets;
mod triage;
mod trust;
mod value_profile;
