//! The `--seeds N --runs N` options of the chores that compare campaigns
//! seed by seed under one execution budget (`dict`, `target`).

pub struct Options {
    pub seeds: u64,
    pub runs: u64,
}

impl Options {
    /// Five seeds and `runs` executions unless `args` say otherwise.
    pub fn parse(args: &[String], runs: u64) -> Result<Options, String> {
        let mut options = Options { seeds: 5, runs };
        let mut args = args.iter();
        while let Some(arg) = args.next() {
            let mut value = |name: &str| -> Result<u64, String> {
                args.next()
                    .and_then(|v| v.parse().ok())
                    .filter(|&n| n > 0)
                    .ok_or(format!("{name} needs a positive number"))
            };
            match arg.as_str() {
                "--seeds" => options.seeds = value("--seeds")?,
                "--runs" => options.runs = value("--runs")?,
                other => {
                    return Err(format!(
                        "unknown option `{other}`; options: --seeds N, --runs N"
                    ));
                }
            }
        }
        Ok(options)
    }
}
