//! The `--seeds N` option and one budget option (`--runs N`, `--time
//! SECS`) of the chores that compare campaigns seed by seed under one
//! budget (`dict`, `target`, `perf`).

pub struct Options {
    pub seeds: u64,
    pub runs: u64,
}

impl Options {
    /// Five seeds and `runs` executions unless `args` say otherwise.
    pub fn parse(args: &[String], runs: u64) -> Result<Options, String> {
        let (seeds, runs) = seeds_and(args, "--runs", runs)?;
        Ok(Options { seeds, runs })
    }
}

/// `--seeds N` (5 unless given) and the budget option `flag` (`default`
/// unless given), both positive numbers.
pub fn seeds_and(args: &[String], flag: &str, default: u64) -> Result<(u64, u64), String> {
    let (mut seeds, mut budget) = (5, default);
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        let mut value = |name: &str| -> Result<u64, String> {
            args.next()
                .and_then(|v| v.parse().ok())
                .filter(|&n| n > 0)
                .ok_or(format!("{name} needs a positive number"))
        };
        match arg.as_str() {
            "--seeds" => seeds = value("--seeds")?,
            name if name == flag => budget = value(flag)?,
            other => {
                return Err(format!(
                    "unknown option `{other}`; options: --seeds N, {flag} N"
                ));
            }
        }
    }
    Ok((seeds, budget))
}
