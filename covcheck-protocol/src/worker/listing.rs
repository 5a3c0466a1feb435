//! Discovery: each `#[covcheck]` property registered in a test binary run
//! with [`LIST_ENV`] set prints one [`LIST_PREFIX`] line describing itself.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// Set (to anything) to make each registered property print its
/// [`ListedProperty`] line; run the binary with `--list` so no test runs.
pub const LIST_ENV: &str = "COVCHECK_LIST";
/// What starts a listing line.
pub const LIST_PREFIX: &str = "covcheck-property ";

/// One property, as its test binary describes it.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct ListedProperty {
    /// The libtest name (`module::name`), what `--exact` and `cargo test` take.
    pub test_name: String,
    /// `crate::module::name`, as reports show it.
    pub full_path: String,
    pub package: String,
    /// Directory holding this property's seeds.
    pub seed_dir: PathBuf,
    /// The package directory (where the test binary is run from).
    pub crate_root: PathBuf,
    /// `cargo test` arguments that select this binary (`--lib`, `--test x`).
    pub target_args: Vec<String>,
    /// `#[covcheck(perf)]`: campaigns run it in performance mode.
    #[serde(default, skip_serializing_if = "is_false")]
    pub perf: bool,
}

fn is_false(value: &bool) -> bool {
    !value
}

impl ListedProperty {
    /// The command that runs just this property, from the directory
    /// `cargo covcheck` was run in when `manifest_path` (as the user gave
    /// it) is set, from the package's directory otherwise.
    pub fn rerun_command(&self, manifest_path: Option<&std::path::Path>) -> String {
        let manifest = manifest_path
            .map(|path| format!(" --manifest-path {}", shell_word(&path.to_string_lossy())))
            .unwrap_or_default();
        format!(
            "cargo test{manifest} -p {} {} -- {} --exact",
            self.package,
            self.target_args.join(" "),
            self.test_name
        )
    }
}

/// `word` as a shell reads it: unchanged when it is plain, single-quoted
/// otherwise.
fn shell_word(word: &str) -> String {
    let plain = word
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "/._-+:=@,".contains(c));
    if plain && !word.is_empty() {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

/// Parses a listing line; `None` for lines that are not listings.
pub fn parse_listing(line: &str) -> Option<Result<ListedProperty, String>> {
    let json = line.strip_prefix(LIST_PREFIX)?;
    Some(serde_json::from_str(json).map_err(|e| format!("{e} in {json:?}")))
}
