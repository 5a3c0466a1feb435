//! What a bench run measures: its options (`--quick`, `--budget`, `--seeds`,
//! `--csv`, `--only`, `--tools`) and the targets and tools they select.

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::catalog;

/// The tools of the matrix.
pub const TOOLS: [&str; 5] = [
    "covcheck",
    "covcheck-campaign",
    "proptest",
    "quickcheck",
    "libfuzzer",
];

pub struct Options {
    pub quick: bool,
    pub budget: Duration,
    pub seeds: u64,
    pub csv: PathBuf,
    pub only: Option<String>,
    /// `--tools`: the tools to run (all of [`TOOLS`] by default).
    pub tools: Vec<&'static str>,
}

impl Options {
    /// The options `args` give; the CSV file goes under `root` by default.
    pub fn parse(args: &[String], root: &Path) -> Result<Options, String> {
        let mut options = Options {
            quick: false,
            budget: Duration::from_secs(60),
            seeds: 5,
            csv: root.join("target/bench/results.csv"),
            only: None,
            tools: TOOLS.to_vec(),
        };
        let mut args = args.iter();
        while let Some(arg) = args.next() {
            let mut value =
                |name: &str| args.next().cloned().ok_or(format!("{name} needs a value"));
            match arg.as_str() {
                "--quick" => options.quick = true,
                "--budget" => {
                    let secs: f64 = value("--budget")?
                        .parse()
                        .map_err(|_| "--budget takes seconds")?;
                    options.budget = Duration::from_secs_f64(secs);
                }
                "--seeds" => {
                    options.seeds = value("--seeds")?
                        .parse()
                        .map_err(|_| "--seeds takes a number")?
                }
                "--csv" => options.csv = PathBuf::from(value("--csv")?),
                "--only" => options.only = Some(value("--only")?),
                "--tools" => options.tools = tools(&value("--tools")?)?,
                other => {
                    return Err(format!(
                        "unknown option `{other}`; options: --quick, --budget SECS (60), --seeds N (5), \
                         --csv FILE (target/bench/results.csv), --only TARGET[,TARGET..], --tools TOOL[,TOOL..]"
                    ));
                }
            }
        }
        if options.quick {
            options.budget = Duration::from_secs(2);
            options.seeds = 1;
        }
        Ok(options)
    }

    /// The targets to run, as (target, bug) pairs of the catalogue: those
    /// `--only` names, or a few with `--quick`, or all of them.
    pub fn targets(&self) -> Result<Vec<(&'static str, &'static str)>, String> {
        // `--only` names targets or bugs, separated by commas.
        let only: Option<Vec<&str>> = self.only.as_deref().map(|only| {
            only.split(',')
                .map(str::trim)
                .filter(|name| !name.is_empty())
                .collect()
        });
        if let Some(names) = &only
            && let Some(unknown) = names.iter().find(|name| {
                !catalog::ALL
                    .iter()
                    .any(|(t, bug)| t == *name || bug == *name)
            })
        {
            return Err(format!("--only: no target or bug is named `{unknown}`"));
        }
        Ok(catalog::ALL
            .iter()
            .copied()
            .filter(|(t, bug)| match (&only, self.quick) {
                (Some(names), _) => names.iter().any(|name| t == name || bug == name),
                (None, true) => {
                    matches!(*t, "dut" | "dut_magic" | "reverse")
                        || *bug == "bst_insert_keeps_old_value"
                }
                (None, false) => true,
            })
            .collect())
    }
}

/// Whether `tool` runs `target` (see [`catalog::TOOLS_OF`]).
pub fn runs(target: &str, tool: &str) -> bool {
    catalog::TOOLS_OF
        .iter()
        .find(|(t, _)| *t == target)
        .is_none_or(|(_, tools)| tools.contains(&tool))
}

/// The tools `--tools` names, separated by commas.
fn tools(names: &str) -> Result<Vec<&'static str>, String> {
    let mut tools = Vec::new();
    for name in names.split(',').map(str::trim) {
        let Some(tool) = TOOLS.iter().find(|t| **t == name) else {
            return Err(format!(
                "--tools: no tool `{name}`; tools: {}",
                TOOLS.join(", ")
            ));
        };
        tools.push(*tool);
    }
    Ok(tools)
}
