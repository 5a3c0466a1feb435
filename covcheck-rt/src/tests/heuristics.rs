//! AFL's value heuristics must find classic edge cases within the default
//! burst, for nearly every RNG seed (issue: "Heuristics are visible").

use crate::config::Config;
use crate::runner::{BurstOutcome, Runner};
use crate::{Generate, Source};

/// In how many of 20 fixed RNG seeds the default burst finds a failure.
fn seeds_that_find(property: &dyn Fn(&mut Source) -> Result<(), String>) -> usize {
    let runner = Runner::new(property, Config::default());
    (0..20)
        .filter(|&seed| matches!(runner.burst(seed), BurstOutcome::Failed { .. }))
        .count()
}

#[test]
fn finds_i64_min() {
    let found = seeds_that_find(&|src| {
        assert!(i64::generate(src) != i64::MIN);
        Ok(())
    });
    assert!(found >= 19, "found in {found} of 20 seeds");
}

#[test]
fn finds_the_empty_vector() {
    let found = seeds_that_find(&|src| {
        assert!(!Vec::<u8>::generate(src).is_empty());
        Ok(())
    });
    assert!(found >= 19, "found in {found} of 20 seeds");
}

#[test]
fn finds_nan() {
    let found = seeds_that_find(&|src| {
        assert!(!f64::generate(src).is_nan());
        Ok(())
    });
    assert!(found >= 19, "found in {found} of 20 seeds");
}

#[test]
fn finds_boundary_lengths_and_nasty_strings() {
    let long = seeds_that_find(&|src| {
        assert!(Vec::<u8>::generate(src).len() != 64);
        Ok(())
    });
    let nul = seeds_that_find(&|src| {
        assert!(!String::generate(src).contains('\0'));
        Ok(())
    });
    assert!(
        long >= 19 && nul >= 19,
        "length 64 in {long}/20, NUL in {nul}/20"
    );
}
