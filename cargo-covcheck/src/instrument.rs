//! Which crates the campaign build instruments: the code a property
//! exercises, wherever it lives. That is every package of the workspace and
//! every crate they depend on (registry, git or path) as cargo builds it
//! for them, found in cargo's resolved dependency graph, except
//!
//! - covcheck's own runtime and macros, and what only they bring in: the
//!   graph is read without the runtime's `campaign` feature and never
//!   followed through the runtime, so LibAFL and its dependencies are out,
//!   while a crate the user's code also depends on (`serde`, say) is in;
//! - proc-macros and build scripts (they run in the compiler, not in the
//!   property), and the dependencies only they use; but a proc-macro
//!   package under test is in the set for its own tests' sake (its
//!   properties run its code in the test binary): the wrapper instruments
//!   its test targets and never the proc-macro the compiler loads;
//! - std, which cargo does not rebuild;
//! - an optional dependency that no enabled feature turns on, which the
//!   resolved graph lists all the same when a feature names it weakly
//!   (`builds`).
//!
//! Instrumenting only the crate under test left a campaign blind whenever
//! the code under test sat in a dependency's parser.
//!
//! The choice must be part of what cargo fingerprints, or a library built
//! uninstrumented for one command is reused by the next. Each instrumented
//! package gets a profile override of its own (line tables, which the
//! coverage report needs anyway), so flipping a package in or out of the
//! set changes its fingerprint and cargo rebuilds it.

use std::collections::{BTreeSet, HashSet, VecDeque};

use cargo_metadata::{DependencyKind, FeatureName, Metadata, Package, PackageId};

use crate::error::BuildError;

/// Set by `cargo covcheck` for the rustc wrapper: the packages to
/// instrument, one `name version` per line.
pub const INSTRUMENT_ENV: &str = "COVCHECK_INSTRUMENT";

/// Packages never instrumented: the runtime's callbacks would recurse into
/// themselves, and the macros run in the compiler.
const RUNTIME: [&str; 2] = ["covcheck-rt", "covcheck-macros"];

/// The instrumented packages, by name and version.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct InstrumentSet {
    pub packages: BTreeSet<(String, String)>,
}

/// What the user asked for on the command line.
#[derive(Clone, Debug, Default)]
pub struct Narrowing<'a> {
    /// `--instrument`: only these crates besides the selected packages.
    pub only: &'a [String],
    /// `--no-instrument`: leave these out.
    pub without: &'a [String],
}

impl InstrumentSet {
    /// The set for the workspace in `metadata`; `selected` are the packages
    /// under test (always instrumented).
    pub fn choose(
        metadata: &Metadata,
        selected: &[PackageId],
        narrowing: &Narrowing<'_>,
    ) -> Result<InstrumentSet, BuildError> {
        let mut reachable = reachable_from_workspace(metadata);
        reachable.extend(
            metadata
                .packages
                .iter()
                .filter(|p| selected.contains(&p.id) && is_proc_macro(p))
                .filter(|p| !RUNTIME.contains(&p.name.as_str())),
        );
        for name in narrowing.only.iter().chain(narrowing.without) {
            if !reachable.iter().any(|p| p.name.as_str() == name) {
                return Err(BuildError::UnknownCrate(name.clone()));
            }
        }
        let packages = reachable
            .into_iter()
            .filter(|p| {
                let name = p.name.as_str();
                let wanted = narrowing.only.is_empty()
                    || selected.contains(&p.id)
                    || narrowing.only.iter().any(|n| n == name);
                wanted && !narrowing.without.iter().any(|n| n == name)
            })
            .map(|p| (p.name.to_string(), p.version.to_string()))
            .collect();
        Ok(InstrumentSet { packages })
    }

    /// The set as [`INSTRUMENT_ENV`] carries it.
    pub fn to_env(&self) -> String {
        self.packages
            .iter()
            .map(|(name, version)| format!("{name} {version}\n"))
            .collect()
    }

    /// Whether the wrapper should instrument package `name` at `version`,
    /// given the value of [`INSTRUMENT_ENV`].
    pub fn env_contains(env: &str, name: &str, version: &str) -> bool {
        env.lines()
            .any(|line| line.split_once(' ') == Some((name, version)))
    }

    /// The `--config` arguments that give each instrumented package of
    /// `built` (the packages this build compiles: cargo warns about a
    /// profile override that matches none) a profile of its own, so that the
    /// set is part of cargo's fingerprint.
    pub fn profile_overrides(&self, profile: &str, built: &HashSet<&str>) -> Vec<String> {
        let names: BTreeSet<&str> = self
            .packages
            .iter()
            .map(|(n, _)| n.as_str())
            .filter(|n| built.contains(n))
            .collect();
        names
            .into_iter()
            .flat_map(|name| {
                [
                    "--config".to_string(),
                    format!("profile.{profile}.package.\"{name}\".debug=\"line-tables-only\""),
                ]
            })
            .collect()
    }
}

/// The packages reachable from the workspace members through normal
/// dependencies (and the members' dev-dependencies), not through the
/// runtime, proc-macros or build scripts.
fn reachable_from_workspace(metadata: &Metadata) -> Vec<&Package> {
    let Some(resolve) = &metadata.resolve else {
        return Vec::new();
    };
    let package = |id: &PackageId| metadata.packages.iter().find(|p| &p.id == id);
    let members: HashSet<&PackageId> = metadata.workspace_members.iter().collect();
    let mut seen: HashSet<&PackageId> = HashSet::new();
    let mut queue: VecDeque<&PackageId> = metadata.workspace_members.iter().collect();
    let mut reachable = Vec::new();
    while let Some(id) = queue.pop_front() {
        if !seen.insert(id) {
            continue;
        }
        let Some(pkg) = package(id) else { continue };
        if RUNTIME.contains(&pkg.name.as_str()) || is_proc_macro(pkg) {
            continue;
        }
        reachable.push(pkg);
        let Some(node) = resolve.nodes.iter().find(|n| &n.id == id) else {
            continue;
        };
        for dep in &node.deps {
            let used_by_code = dep.dep_kinds.iter().any(|k| match k.kind {
                DependencyKind::Normal => true,
                DependencyKind::Development => members.contains(id),
                _ => false,
            });
            let member = members.contains(id);
            if used_by_code
                && package(&dep.pkg).is_some_and(|to| builds(pkg, member, &node.features, to))
            {
                queue.push_back(&dep.pkg);
            }
        }
    }
    reachable
}

/// Whether `pkg` (a workspace member when `member`), with its features
/// `enabled`, builds its dependency on `dep` for its code. cargo's resolve also lists an optional dependency that only a
/// weak feature (`dep?/feature`) names, which cargo leaves out:
/// `rust_decimal`'s `std` names `serde_json?/std`, and the bench suite had
/// `serde_json`, `itoa` and the others only covcheck-rt uses instrumented,
/// so that the runtime's own event output lit counters between executions,
/// which the next execution was credited with.
fn builds(pkg: &Package, member: bool, enabled: &[FeatureName], dep: &Package) -> bool {
    // As the code uses it: a crate may also be an optional dependency and a
    // dev-dependency that only its own tests build (rust_decimal's serde_json).
    let declared: Vec<_> = (pkg.dependencies.iter())
        .filter(|d| d.name == dep.name.as_str())
        .filter(|d| match d.kind {
            DependencyKind::Normal => true,
            DependencyKind::Development => member,
            _ => false,
        })
        .collect();
    if declared.is_empty() || declared.iter().any(|d| !d.optional) {
        return true;
    }
    declared.iter().any(|d| {
        let key = d.rename.as_deref().unwrap_or(&d.name);
        let activates = |value: &String| {
            value.strip_prefix("dep:") == Some(key)
                || value.split_once('/').is_some_and(|(name, _)| name == key)
        };
        enabled.iter().any(|feature| {
            feature.as_str() == key
                || (pkg.features.get(feature.as_str())).is_some_and(|v| v.iter().any(activates))
        })
    })
}

fn is_proc_macro(package: &Package) -> bool {
    package.targets.iter().any(|t| t.is_proc_macro())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_wrapper_matches_name_and_version() {
        let set = InstrumentSet {
            packages: [("nom".to_string(), "7.1.3".to_string())].into(),
        };
        let env = set.to_env();
        assert!(InstrumentSet::env_contains(&env, "nom", "7.1.3"));
        assert!(!InstrumentSet::env_contains(&env, "nom", "8.0.0"));
        assert!(!InstrumentSet::env_contains(&env, "no", "7.1.3"));
        assert_eq!(
            set.profile_overrides("covcheck", &["nom", "other"].into()),
            [
                "--config",
                "profile.covcheck.package.\"nom\".debug=\"line-tables-only\""
            ]
        );
        assert!(
            set.profile_overrides("covcheck", &HashSet::new())
                .is_empty()
        );
    }

    /// The benchmark suite's `rust_decimal` declares `serde_json` as an
    /// optional dependency that its `std` feature names only weakly
    /// (`serde_json?/std`), and as a dev-dependency: cargo builds neither
    /// for the suite, and covcheck-rt's own `serde_json` stays
    /// uninstrumented.
    #[test]
    fn optional_dependencies_no_feature_turns_on_are_left_out() {
        let metadata = cargo_metadata::MetadataCommand::new()
            .manifest_path(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/../bench/suite/Cargo.toml"
            ))
            .exec()
            .unwrap();
        let set = InstrumentSet::choose(&metadata, &[], &Narrowing::default()).unwrap();
        let has = |name: &str| set.packages.iter().any(|(n, _)| n == name);
        assert!(has("rust_decimal") && has("arrayvec"), "{set:?}");
        for left_out in ["serde_json", "serde", "itoa", "rkyv", "borsh"] {
            assert!(!has(left_out), "{left_out}: {set:?}");
        }
    }

    /// This workspace: cargo-covcheck's dependencies are instrumented,
    /// the runtime, the macros (and syn, theirs only) are not.
    #[test]
    fn the_workspace_and_its_dependencies_less_the_runtime() {
        let metadata = cargo_metadata::MetadataCommand::new()
            .manifest_path(concat!(env!("CARGO_MANIFEST_DIR"), "/../Cargo.toml"))
            .exec()
            .unwrap();
        let set = InstrumentSet::choose(&metadata, &[], &Narrowing::default()).unwrap();
        let has = |name: &str| set.packages.iter().any(|(n, _)| n == name);
        assert!(has("cargo-covcheck") && has("xtask"), "{set:?}");
        assert!(
            has("clap") && has("cargo_metadata"),
            "dependencies: {set:?}"
        );
        assert!(!has("covcheck-rt") && !has("covcheck-macros"), "{set:?}");
        assert!(!has("libafl"), "the engine is never instrumented: {set:?}");
        assert!(!has("clap_derive"), "nor proc-macros: {set:?}");

        let without = ["clap".to_string()];
        let narrowed = Narrowing {
            only: &[],
            without: &without,
        };
        let set = InstrumentSet::choose(&metadata, &[], &narrowed).unwrap();
        assert!(!set.packages.iter().any(|(n, _)| n == "clap"));
        let unknown = ["no-such-crate".to_string()];
        let narrowed = Narrowing {
            only: &unknown,
            without: &[],
        };
        let error = InstrumentSet::choose(&metadata, &[], &narrowed).unwrap_err();
        assert!(error.to_string().contains("`no-such-crate`"), "{error}");
    }
}
