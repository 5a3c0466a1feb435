//! Why a build failed, in covcheck's words: the crate and target the
//! compiler stopped on, what it said first, and, for the instrumented
//! build, what to do about it. Read from cargo's JSON messages as they
//! come ([`Diagnosis`]); cargo's and the compiler's own messages still go
//! to the terminal above it.

use std::collections::HashSet;
use std::fmt;

use cargo_metadata::diagnostic::DiagnosticLevel;
use cargo_metadata::{CompilerMessage, PackageId, Target, TargetKind};

/// One target the compiler failed on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FailedTarget {
    pub package: String,
    /// The target, in words: "library", "test `props`", "build script"...
    pub target: String,
    /// The compiler's first error on it.
    pub error: String,
    pub cause: Cause,
    /// Whether covcheck instrumented it: `--no-instrument` then builds it
    /// without.
    pub instrumented: bool,
    /// Whether its package is under test: `--exclude` then leaves it out.
    pub under_test: bool,
}

/// What the compiler's messages on a target say of covcheck's part in it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Cause {
    /// The link found this SanitizerCoverage callback defined twice: the
    /// target links one of its own (a fuzzer's runtime has them), and
    /// covcheck's runtime defines them in campaigns.
    CallbacksClash(String),
    /// The link found this callback missing: instrumented code was linked
    /// without covcheck's callbacks, a bug of covcheck's.
    CallbacksMissing(String),
    /// Anything else.
    Compiler,
}

impl Cause {
    /// The cause the linker's words in `rendered` (GNU ld's, lld's or
    /// ld64's) point to.
    pub fn of(rendered: &str) -> Cause {
        for line in rendered.lines() {
            let Some(at) = line.find("__sanitizer_cov") else {
                continue;
            };
            let symbol: String = line[at..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            if line.contains("duplicate symbol") || line.contains("multiple definition") {
                return Cause::CallbacksClash(symbol);
            }
            if line.contains("undefined symbol")
                || line.contains("undefined reference")
                || line.contains("Undefined symbols")
            {
                return Cause::CallbacksMissing(symbol);
            }
        }
        Cause::Compiler
    }
}

/// What covcheck knows of the package a message is about.
pub struct PackageFacts {
    pub name: String,
    pub instrumented: bool,
    pub under_test: bool,
}

/// Gathers what went wrong from cargo's messages, as they come.
#[derive(Default)]
pub struct Diagnosis {
    targets: Vec<FailedTarget>,
    /// The package and target of each of them.
    failed: HashSet<(PackageId, String)>,
    /// The packages whose build script was compiled, and their names.
    scripts_built: Vec<(PackageId, String)>,
    /// The packages whose build script ran to its end.
    scripts_run: HashSet<PackageId>,
}

impl Diagnosis {
    /// A compiler message on a target of `package`: its first error is the
    /// target's failure.
    pub fn compiler_message(&mut self, message: &CompilerMessage, package: PackageFacts) {
        let level = &message.message.level;
        if !matches!(level, DiagnosticLevel::Error | DiagnosticLevel::Ice) {
            return;
        }
        let mut target = describe(&message.target);
        let key = (message.package_id.clone(), target.clone());
        if !self.failed.insert(key) {
            return;
        }
        // A library does not link, its tests do (cargo's JSON does not say
        // which of the two a message is about).
        let links = message.message.message.starts_with("linking with");
        if links && target == "library" {
            target = "tests of the library".to_string();
        }
        let rendered = message.message.rendered.as_deref().unwrap_or_default();
        // Build scripts are never instrumented; of a proc-macro package, only
        // one under test is, in its tests.
        let script = message.target.kind.contains(&TargetKind::CustomBuild);
        self.targets.push(FailedTarget {
            target,
            error: message.message.message.clone(),
            cause: Cause::of(rendered),
            instrumented: package.instrumented && !script,
            under_test: package.under_test,
            package: package.name,
        });
    }

    /// A compiled build script of package `id` named `name`.
    pub fn build_script_compiled(&mut self, id: &PackageId, name: &str) {
        self.scripts_built.push((id.clone(), name.to_string()));
    }

    /// Package `id`'s build script ran to its end.
    pub fn build_script_ran(&mut self, id: &PackageId) {
        self.scripts_run.insert(id.clone());
    }

    /// The failure, for a build of `under_test` packages.
    pub fn conclude(self, build: FailedBuild, under_test: usize) -> BuildFailure {
        // Without a compiler error, a build script that was built and did
        // not report its end is what stopped cargo.
        let build_scripts = if self.targets.is_empty() {
            self.scripts_built
                .into_iter()
                .filter(|(id, _)| !self.scripts_run.contains(id))
                .map(|(_, name)| name)
                .collect()
        } else {
            Vec::new()
        };
        BuildFailure {
            build,
            targets: self.targets,
            build_scripts,
            under_test,
        }
    }
}

/// A target, in words.
fn describe(target: &Target) -> String {
    let name = &target.name;
    let kind = |k: &TargetKind| target.kind.contains(k);
    if kind(&TargetKind::CustomBuild) {
        "build script".to_string()
    } else if kind(&TargetKind::Test) {
        format!("test `{name}`")
    } else if kind(&TargetKind::Bench) {
        format!("bench `{name}`")
    } else if kind(&TargetKind::Example) {
        format!("example `{name}`")
    } else if kind(&TargetKind::Bin) {
        format!("binary `{name}`")
    } else if kind(&TargetKind::ProcMacro) {
        "proc-macro".to_string()
    } else if kind(&TargetKind::CDyLib) || kind(&TargetKind::DyLib) {
        "shared library".to_string()
    } else {
        "library".to_string()
    }
}

/// Which build failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FailedBuild {
    /// What `cargo test` builds.
    Plain,
    /// The campaigns' build; `release` when `--release` chose the release
    /// profile as is.
    Instrumented { release: bool },
}

/// Why the build failed, as far as cargo's messages tell.
#[derive(Debug)]
pub struct BuildFailure {
    pub build: FailedBuild,
    /// The targets the compiler failed on.
    pub targets: Vec<FailedTarget>,
    /// Without them, the packages whose build script did not finish.
    pub build_scripts: Vec<String>,
    /// How many packages are under test: `--exclude` helps only when
    /// others remain.
    pub under_test: usize,
}

impl fmt::Display for BuildFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let FailedBuild::Instrumented { release } = self.build else {
            write!(f, "the build failed")?;
            for (i, target) in self.targets.iter().enumerate() {
                let separator = if i == 0 { " " } else { "; " };
                write!(
                    f,
                    "{separator}in `{}` ({}): {}",
                    target.package, target.target, target.error
                )?;
            }
            return write!(f, " (cargo's messages are above)");
        };
        let profile = if release {
            "the release profile"
        } else {
            "a release profile with debug assertions and overflow checks"
        };
        if self.targets.is_empty() && self.build_scripts.is_empty() {
            return write!(
                f,
                "the instrumented build failed before a compiler said why (cargo's messages \
                 are above)"
            );
        }
        for (i, target) in self.targets.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(
                f,
                "the instrumented build failed in `{}` ({}): {} (cargo's messages are above).\n  ",
                target.package, target.target, target.error
            )?;
            self.explain(f, target, profile)?;
        }
        for script in &self.build_scripts {
            write!(
                f,
                "the instrumented build failed: the build script of `{script}` did not finish \
                 (its output is above). covcheck runs it as `cargo test --release` would; if \
                 that builds, please report it"
            )?;
        }
        Ok(())
    }
}

impl BuildFailure {
    /// What covcheck did to `target`, and the way out.
    fn explain(
        &self,
        f: &mut fmt::Formatter<'_>,
        target: &FailedTarget,
        profile: &str,
    ) -> fmt::Result {
        let name = &target.package;
        let exclude = target.under_test && self.under_test > 1;
        match &target.cause {
            Cause::CallbacksClash(symbol) => {
                write!(
                    f,
                    "It links a SanitizerCoverage callback of its own, `{symbol}` (as a fuzzer's \
                     runtime does: libFuzzer's, through libfuzzer-sys), which covcheck's runtime \
                     defines in campaigns, so it cannot be built for them; its properties still \
                     run under plain `cargo test`"
                )?;
                if exclude {
                    write!(
                        f,
                        ".\n  `--exclude {name}` runs the campaigns of the other packages without it"
                    )?;
                }
                Ok(())
            }
            Cause::CallbacksMissing(symbol) => {
                write!(
                    f,
                    "Instrumented code was linked without covcheck's callbacks (`{symbol}`): \
                     that is a bug in covcheck, please report it with cargo's messages"
                )?;
                if target.instrumented {
                    write!(
                        f,
                        ".\n  Meanwhile `--no-instrument {name}` builds it without coverage (the \
                         campaigns are then blind to its code)"
                    )?;
                }
                Ok(())
            }
            Cause::Compiler => {
                let how = if target.instrumented {
                    "with SanitizerCoverage,"
                } else {
                    "without SanitizerCoverage, but with"
                };
                write!(
                    f,
                    "covcheck builds it for campaigns {how} covcheck-rt's `campaign` feature and \
                     {profile}. If plain `cargo test --release` builds, one of these is in the way"
                )?;
                if !target.instrumented && !exclude {
                    return write!(f, ": please report it");
                }
                write!(f, ":")?;
                if target.instrumented {
                    write!(
                        f,
                        "\n    --no-instrument {name}   builds it without coverage (the \
                         campaigns are then blind to its code)"
                    )?;
                }
                if exclude {
                    write!(
                        f,
                        "\n    --exclude {name}         runs the campaigns of the other packages \
                         without it"
                    )?;
                }
                Ok(())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A compiler message as cargo prints it, on the target of `kind`.
    fn message(kind: &str, error: &str, rendered: &str) -> CompilerMessage {
        let json = serde_json::json!({
            "reason": "compiler-message",
            "package_id": "path+file:///ws/clash#0.1.0",
            "manifest_path": "/ws/clash/Cargo.toml",
            "target": {
                "kind": [kind], "crate_types": [kind], "name": "clash",
                "src_path": "/ws/clash/src/lib.rs", "edition": "2021",
                "doc": true, "doctest": true, "test": true
            },
            "message": {
                "message": error, "code": null, "level": "error",
                "spans": [], "children": [], "rendered": rendered
            }
        });
        match serde_json::from_value(json).unwrap() {
            cargo_metadata::Message::CompilerMessage(message) => message,
            other => panic!("{other:?}"),
        }
    }

    fn facts(instrumented: bool, under_test: bool) -> PackageFacts {
        PackageFacts {
            name: "clash".to_string(),
            instrumented,
            under_test,
        }
    }

    #[test]
    fn linkers_name_the_callbacks_defined_twice_or_missing() {
        let lld = "  = note: rust-lld: error: duplicate symbol: __sanitizer_cov_trace_cmp4\n";
        assert_eq!(
            Cause::of(lld),
            Cause::CallbacksClash("__sanitizer_cov_trace_cmp4".to_string())
        );
        let ld = "hooks.c:6: multiple definition of `__sanitizer_cov_trace_cmp4'; first defined";
        assert_eq!(
            Cause::of(ld),
            Cause::CallbacksClash("__sanitizer_cov_trace_cmp4".to_string())
        );
        let missing = "rust-lld: error: undefined symbol: __sanitizer_cov_8bit_counters_init";
        assert_eq!(
            Cause::of(missing),
            Cause::CallbacksMissing("__sanitizer_cov_8bit_counters_init".to_string())
        );
        assert_eq!(
            Cause::of("error[E0425]: cannot find value `x`"),
            Cause::Compiler
        );
    }

    #[test]
    fn the_first_error_of_each_target_is_its_failure() {
        let mut diagnosis = Diagnosis::default();
        let link = "rust-lld: error: duplicate symbol: __sanitizer_cov_trace_cmp4";
        let failed = "linking with `cc` failed: exit status: 1";
        diagnosis.compiler_message(&message("lib", failed, link), facts(true, true));
        diagnosis.compiler_message(&message("lib", "later", ""), facts(true, true));
        diagnosis.compiler_message(&message("test", "cannot find `x`", ""), facts(true, true));
        let failure = diagnosis.conclude(FailedBuild::Instrumented { release: false }, 2);
        assert_eq!(failure.targets.len(), 2, "{failure:?}");
        assert_eq!(failure.targets[0].error, failed);
        assert_eq!(failure.targets[1].target, "test `clash`");
        let text = failure.to_string();
        assert!(
            text.starts_with(
                "the instrumented build failed in `clash` (tests of the library): linking with \
                 `cc` failed: exit status: 1 (cargo's messages are above).\n  It links a SanitizerCoverage \
                 callback of its own, `__sanitizer_cov_trace_cmp4`"
            ),
            "{text}"
        );
        assert!(
            text.contains("`--exclude clash` runs the campaigns of the other packages"),
            "{text}"
        );
        assert!(
            text.contains(
                "\nthe instrumented build failed in `clash` (test `clash`): cannot find `x` \
                 (cargo's messages are above).\n  covcheck builds it for campaigns with \
                 SanitizerCoverage, covcheck-rt's `campaign` feature and a release profile with \
                 debug assertions and overflow checks. If plain `cargo test --release` builds, \
                 one of these is in the way:\n    --no-instrument clash   builds it"
            ),
            "{text}"
        );
    }

    #[test]
    fn only_the_ways_out_that_apply_are_offered() {
        // The only package under test: no --exclude; a build script is not
        // instrumented: no --no-instrument.
        let mut diagnosis = Diagnosis::default();
        let error = message("custom-build", "mismatched types", "");
        diagnosis.compiler_message(&error, facts(true, true));
        let text = diagnosis
            .conclude(FailedBuild::Instrumented { release: true }, 1)
            .to_string();
        assert!(
            text.ends_with(
                "covcheck builds it for campaigns without SanitizerCoverage, but with \
                 covcheck-rt's `campaign` feature and the release profile. If plain `cargo test \
                 --release` builds, one of these is in the way: please report it"
            ),
            "{text}"
        );
        let id = PackageId {
            repr: "path+file:///ws/sys#0.1.0".to_string(),
        };
        let mut diagnosis = Diagnosis::default();
        diagnosis.build_script_compiled(&id, "sys");
        let text = diagnosis
            .conclude(FailedBuild::Instrumented { release: false }, 1)
            .to_string();
        assert!(
            text.starts_with(
                "the instrumented build failed: the build script of `sys` did not finish"
            ),
            "{text}"
        );
        let mut diagnosis = Diagnosis::default();
        diagnosis.build_script_compiled(&id, "sys");
        diagnosis.build_script_ran(&id);
        let text = diagnosis.conclude(FailedBuild::Plain, 1).to_string();
        assert_eq!(text, "the build failed (cargo's messages are above)");
    }
}
