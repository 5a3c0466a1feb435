//! [`PropertyInfo`]: what `#[covcheck]` knows about a property at compile
//! time (its name, module, crate, cargo target and attribute options), and
//! what follows from it: the test's name, where its seeds live, the command
//! that reruns it and its line in a listing for `cargo covcheck`.
//!
//! Plain `cargo test`, the worker and campaigns all start from it.

use std::path::{Path, PathBuf};

use crate::config::Attributes;
use covcheck_protocol::seeds::SeedStore;
use covcheck_protocol::worker::ListedProperty;

/// Which cargo target a property was compiled into; decides the rerun command.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// The library's unit tests.
    Lib,
    /// A binary's unit tests (`src/main.rs`, `src/bin/<name>.rs`).
    Bin(&'static str),
    /// An example's unit tests (`examples/<name>.rs` with `test = true`).
    Example(&'static str),
    /// An integration test (`tests/<name>.rs`).
    Test(&'static str),
}

impl Target {
    /// Detects the target from cargo's compile-time environment:
    /// `CARGO_TARGET_TMPDIR` is set only for integration tests and benches,
    /// `CARGO_BIN_NAME` only for binaries and examples. An example is told
    /// from a binary by where it runs from ([`built_as_example`]).
    pub fn detect(
        target_tmpdir: Option<&'static str>,
        bin_name: Option<&'static str>,
        crate_name: &'static str,
    ) -> Target {
        match (target_tmpdir, bin_name) {
            (Some(_), _) => Target::Test(crate_name),
            (None, Some(bin)) => match std::env::current_exe() {
                Ok(exe) if built_as_example(&exe) => Target::Example(bin),
                _ => Target::Bin(bin),
            },
            (None, None) => Target::Lib,
        }
    }
}

/// Whether the test binary at `exe` is an example's: cargo builds those,
/// and no other, into `<target>/<profile>/examples/` (binaries' tests go to
/// `deps/`). No variable of cargo's tells them apart at compile time.
fn built_as_example(exe: &Path) -> bool {
    exe.parent()
        .and_then(Path::file_name)
        .is_some_and(|dir| dir == "examples")
}

/// The `--manifest-path` a command given in `invoked_from` needs to reach
/// the package at `crate_root`: none from the package's own directory
/// (where `-p` alone finds it), a relative path from a directory above it,
/// the absolute path from anywhere else or when the directory is unknown.
/// Without it, `-p <package>` fails from a directory whose workspace does
/// not have the package.
fn manifest_path_from(crate_root: &Path, invoked_from: Option<&Path>) -> Option<PathBuf> {
    let manifest = crate_root.join("Cargo.toml");
    let Some(invoked_from) = invoked_from else {
        return Some(manifest);
    };
    let (root, from) = match (crate_root.canonicalize(), invoked_from.canonicalize()) {
        (Ok(root), Ok(from)) => (root, from),
        _ => (crate_root.to_path_buf(), invoked_from.to_path_buf()),
    };
    if root == from {
        return None;
    }
    match root.strip_prefix(&from) {
        Ok(relative) => Some(relative.join("Cargo.toml")),
        Err(_) => Some(manifest),
    }
}

/// What the macro knows about a property at compile time.
#[derive(Clone, Copy, Debug)]
pub struct PropertyInfo {
    /// The function's name.
    pub name: &'static str,
    /// `module_path!()` where it is defined.
    pub module_path: &'static str,
    /// `CARGO_MANIFEST_DIR`: where its seeds live.
    pub crate_root: &'static str,
    /// `CARGO_PKG_NAME`, for the rerun command.
    pub package: &'static str,
    /// The cargo target the property was compiled into.
    pub target: Target,
    /// The options given to `#[covcheck(...)]`.
    pub attributes: Attributes,
}

impl PropertyInfo {
    /// `crate::module::name`.
    pub fn full_path(&self) -> String {
        format!("{}::{}", self.module_path, self.name)
    }

    /// The name libtest knows the test by: the module path without the crate.
    pub fn test_name(&self) -> String {
        match self.module_path.split_once("::") {
            Some((_, rest)) => format!("{rest}::{}", self.name),
            None => self.name.to_string(),
        }
    }

    /// The `cargo test` arguments that select this property's test binary.
    pub fn target_args(&self) -> Vec<String> {
        match self.target {
            Target::Lib => vec!["--lib".to_string()],
            Target::Bin(name) => vec!["--bin".to_string(), name.to_string()],
            Target::Example(name) => vec!["--example".to_string(), name.to_string()],
            Target::Test(name) => vec!["--test".to_string(), name.to_string()],
        }
    }

    /// The command that runs just this property, from the directory
    /// `cargo test` was run in: cargo runs test binaries in their package's
    /// directory but passes the shell's `PWD` on unchanged.
    pub fn rerun_command(&self) -> String {
        let invoked_from = std::env::var_os("PWD").map(PathBuf::from);
        self.rerun_command_from(invoked_from.as_deref())
    }

    /// The command that runs just this property, from `invoked_from`.
    fn rerun_command_from(&self, invoked_from: Option<&Path>) -> String {
        let manifest = manifest_path_from(Path::new(self.crate_root), invoked_from);
        self.listing().rerun_command(manifest.as_deref())
    }

    /// How the test binary describes this property to `cargo covcheck`.
    pub fn listing(&self) -> ListedProperty {
        ListedProperty {
            test_name: self.test_name(),
            full_path: self.full_path(),
            package: self.package.to_string(),
            seed_dir: self.seed_store().dir().to_path_buf(),
            crate_root: self.crate_root.into(),
            target_args: self.target_args(),
            perf: self.attributes.perf,
        }
    }

    /// Where the property's seeds are saved.
    pub fn seed_store(&self) -> SeedStore {
        SeedStore::new(Path::new(self.crate_root), self.module_path, self.name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info(module_path: &'static str, target: Target) -> PropertyInfo {
        PropertyInfo {
            name: "p",
            module_path,
            crate_root: "/tmp/demo",
            package: "demo",
            target,
            attributes: Attributes::default(),
        }
    }

    /// From the package's own directory.
    fn home() -> Option<&'static Path> {
        Some(Path::new("/tmp/demo"))
    }

    #[test]
    fn rerun_commands_name_the_target_and_exact_test() {
        assert_eq!(
            info("demo::tests", Target::Lib).rerun_command_from(home()),
            "cargo test -p demo --lib -- tests::p --exact"
        );
        assert_eq!(
            info("props", Target::Test("props")).rerun_command_from(home()),
            "cargo test -p demo --test props -- p --exact"
        );
        assert_eq!(
            info("tool", Target::Bin("tool")).rerun_command_from(home()),
            "cargo test -p demo --bin tool -- p --exact"
        );
        assert_eq!(
            info("demo", Target::Example("demo")).rerun_command_from(home()),
            "cargo test -p demo --example demo -- p --exact"
        );
    }

    #[test]
    fn rerun_commands_reach_the_package_from_where_cargo_test_ran() {
        let lib = info("demo::tests", Target::Lib);
        let above = lib.rerun_command_from(Some(Path::new("/tmp")));
        assert_eq!(
            above,
            "cargo test --manifest-path demo/Cargo.toml -p demo --lib -- tests::p --exact"
        );
        let elsewhere = lib.rerun_command_from(Some(Path::new("/somewhere/else")));
        assert!(
            elsewhere.starts_with("cargo test --manifest-path /tmp/demo/Cargo.toml -p demo"),
            "{elsewhere}"
        );
        let unknown = lib.rerun_command_from(None);
        assert!(
            unknown.contains("--manifest-path /tmp/demo/Cargo.toml"),
            "{unknown}"
        );
    }

    #[test]
    fn examples_are_told_from_binaries_by_their_directory() {
        assert!(built_as_example(Path::new(
            "/ws/target/debug/examples/demo-0123456789abcdef"
        )));
        assert!(!built_as_example(Path::new(
            "/ws/target/debug/deps/tool-0123456789abcdef"
        )));
        // A package of the workspace under `examples/` is no example.
        assert!(!built_as_example(Path::new(
            "/ws/examples/target/debug/deps/demo-0123456789abcdef"
        )));
    }
}
