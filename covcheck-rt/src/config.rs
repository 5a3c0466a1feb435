//! Configuration of a property run: attribute arguments, then environment
//! variables, then defaults.
//!
//! An environment variable overrides the attribute: the attribute states what
//! a property normally needs, the environment what this particular run asks
//! for (a nightly job with `COVCHECK_CASES=100000`, a rerun with the seed a
//! failure printed).

use std::time::Duration;

use crate::shrink::ShrinkBudget;
use crate::source::Limits;

/// Default number of random cases per property under `cargo test`.
pub const DEFAULT_CASES: usize = 256;

/// Options given as `#[covcheck(cases = 1000, size = 20, seed = 42, depth = 5)]`,
/// and the property's dictionary (`dict = ["GET "], dict_file = "fuzz/http.dict"`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Attributes {
    /// Random cases per `cargo test` run.
    pub cases: Option<usize>,
    /// The longest open-ended collection or string.
    pub size: Option<usize>,
    /// A fixed RNG seed for the random cases.
    pub seed: Option<u64>,
    /// The nesting depth past which recursive values take a leaf.
    pub depth: Option<u32>,
    /// Tokens for the campaign's mutator, in the order given.
    pub dict: &'static [&'static [u8]],
    /// A dictionary file in libFuzzer's format, relative to the crate root.
    pub dict_file: Option<&'static str>,
    /// `#[covcheck(perf)]`: `cargo covcheck` runs this property in
    /// performance mode without being asked to (`--perf`).
    pub perf: bool,
    /// `#[covcheck(max_cost = N)]`: an execution that runs more than `N`
    /// edges of instrumented code fails (checked where edges are counted:
    /// performance campaigns and `cargo covcheck replay --perf`).
    pub max_cost: Option<u64>,
}

/// Everything a run needs to know.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Config {
    /// Random cases to run after the seeds.
    pub cases: usize,
    /// RNG seed of the random cases; `None` picks a fresh one per run.
    pub seed: Option<u64>,
    pub limits: Limits,
    pub shrink: ShrinkBudget,
    /// Replay saved seeds and save new failures (`COVCHECK_SEEDS=off` turns
    /// both off, for benchmarks that must start from nothing).
    pub seeds: bool,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            cases: DEFAULT_CASES,
            seed: None,
            limits: Limits::default(),
            shrink: ShrinkBudget::default(),
            seeds: true,
        }
    }
}

impl Config {
    /// The configuration for a property with these attributes, reading
    /// `COVCHECK_CASES`, `COVCHECK_SEED`, `COVCHECK_SIZE`, `COVCHECK_DEPTH` and
    /// `COVCHECK_SHRINK_SECS` and `COVCHECK_SEEDS`. A malformed variable is an
    /// error naming it.
    pub fn resolve(attributes: &Attributes) -> Result<Config, String> {
        Self::resolve_with(attributes, |name| std::env::var(name).ok())
    }

    /// [`Config::resolve`] with the environment given as a lookup function.
    pub fn resolve_with(
        attributes: &Attributes,
        env: impl Fn(&str) -> Option<String>,
    ) -> Result<Config, String> {
        let mut config = Config::default();
        let var = |name: &str| -> Result<Option<u64>, String> {
            env(name).map(|text| parse_number(&text).ok_or_else(|| {
                format!("environment variable {name}={text:?} is not a number (decimal, or hex with 0x); unset it or fix it")
            })).transpose()
        };
        config.cases = var("COVCHECK_CASES")?
            .map(|n| n as usize)
            .or(attributes.cases)
            .unwrap_or(config.cases);
        config.seed = var("COVCHECK_SEED")?.or(attributes.seed);
        if let Some(size) = var("COVCHECK_SIZE")?
            .map(|n| n as usize)
            .or(attributes.size)
        {
            config.limits.max_len = size;
        }
        if let Some(depth) = var("COVCHECK_DEPTH")?
            .map(|n| n as u32)
            .or(attributes.depth)
        {
            config.limits.max_depth = depth;
        }
        if let Some(secs) = var("COVCHECK_SHRINK_SECS")? {
            config.shrink.max_time = Duration::from_secs(secs);
        }
        match env("COVCHECK_SEEDS").as_deref() {
            None | Some("on") => {}
            Some("off") => config.seeds = false,
            Some(other) => {
                return Err(format!(
                    "environment variable COVCHECK_SEEDS={other:?} must be `on` or `off`"
                ));
            }
        }
        Ok(config)
    }
}

/// Parses `123` or `0x7b`.
pub fn parse_number(text: &str) -> Option<u64> {
    let text = text.trim().replace('_', "");
    match text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16).ok(),
        None => text.parse().ok(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn environment_overrides_attributes_which_override_defaults() {
        let attrs = Attributes {
            cases: Some(10),
            seed: Some(5),
            ..Attributes::default()
        };
        let config = Config::resolve_with(&attrs, |_| None).unwrap();
        assert_eq!((config.cases, config.seed), (10, Some(5)));
        let env = |name: &str| (name == "COVCHECK_SEED").then(|| "0xff".to_string());
        let config = Config::resolve_with(&attrs, env).unwrap();
        assert_eq!((config.cases, config.seed), (10, Some(255)));
        assert_eq!(
            Config::resolve_with(&Attributes::default(), |_| None)
                .unwrap()
                .cases,
            DEFAULT_CASES
        );
    }

    #[test]
    fn malformed_variables_are_named() {
        let env = |name: &str| (name == "COVCHECK_CASES").then(|| "lots".to_string());
        let err = Config::resolve_with(&Attributes::default(), env).unwrap_err();
        assert!(err.contains("COVCHECK_CASES"), "{err}");
    }

    #[test]
    fn seeds_can_be_turned_off_for_benchmarks() {
        let none = Config::resolve_with(&Attributes::default(), |_| None).unwrap();
        assert!(none.seeds);
        let off = |name: &str| (name == "COVCHECK_SEEDS").then(|| "off".to_string());
        assert!(
            !Config::resolve_with(&Attributes::default(), off)
                .unwrap()
                .seeds
        );
        let bad = |name: &str| (name == "COVCHECK_SEEDS").then(|| "no".to_string());
        let err = Config::resolve_with(&Attributes::default(), bad).unwrap_err();
        assert!(err.contains("COVCHECK_SEEDS"), "{err}");
    }
}
