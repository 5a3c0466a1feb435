//! End-to-end: `cargo covcheck` on a crate outside this workspace whose
//! properties fail in every way a worker can die, plus one that passes.
//!
//! One invocation, two jobs, a fixed RNG seed and an execution budget (no
//! wall-clock): every failure is reported with its kind and saved as a seed,
//! the other properties still complete, the passing property writes nothing,
//! and plain `cargo test` then fails on the saved panic seed.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

const PROPERTIES: &str = r#"
#[cfg(test)]
mod tests {
    use covcheck_rt::covcheck;
    use std::hint::black_box;

    #[covcheck]
    fn panics(x: u32) {
        assert!(x != 0xC0FFEE, "found the coffee");
    }

    #[covcheck]
    fn aborts(x: u32) {
        if x == 0xAB0A7 {
            std::process::abort();
        }
    }

    fn forever(n: u64) -> u64 {
        black_box(n) + forever(black_box(n + 1)) + 1
    }

    #[covcheck]
    fn overflows_the_stack(x: u32) {
        if x == 0x57AC4 {
            black_box(forever(u64::from(x)));
        }
    }

    #[covcheck]
    fn hangs(x: u32) {
        if x == 0x4A46 {
            loop {
                black_box(x);
            }
        }
    }

    #[covcheck]
    fn always_passes(x: u64) {
        black_box(x);
    }
}
"#;

fn cargo_covcheck() -> PathBuf {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let status = Command::new(cargo)
        .args(["build", "--quiet", "-p", "cargo-covcheck"])
        .current_dir(workspace_root())
        .status()
        .unwrap();
    assert!(status.success(), "cargo-covcheck builds");
    workspace_root().join("target/debug/cargo-covcheck")
}

#[test]
fn every_crash_kind_is_reported_and_saved_and_the_rest_completes() {
    let dir = tempfile::tempdir().unwrap();
    let rt = workspace_root().join("covcheck-rt");
    fs::write(
        dir.path().join("Cargo.toml"),
        format!(
            "[package]\nname = \"crashes\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n\
             [dev-dependencies]\ncovcheck-rt = {{ path = {:?} }}\n\n[workspace]\n",
            rt.display().to_string()
        ),
    )
    .unwrap();
    fs::copy(
        workspace_root().join("Cargo.lock"),
        dir.path().join("Cargo.lock"),
    )
    .unwrap();
    fs::create_dir(dir.path().join("src")).unwrap();
    fs::write(dir.path().join("src/lib.rs"), PROPERTIES).unwrap();
    let target = workspace_root().join("target/e2e");

    let output = Command::new(cargo_covcheck())
        .args(["covcheck", "--manifest-path"])
        .arg(dir.path().join("Cargo.toml"))
        .arg("--target-dir")
        .arg(&target)
        .args(["--runs", "200000", "--seed", "7", "-j", "2"])
        .args(["--timeout", "300ms", "--message-format", "json"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(
        output.status.code(),
        Some(1),
        "failures exit with 1:\n{stdout}\n{stderr}"
    );
    let events: Vec<Value> = stdout
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    let finding = |property: &str| -> &Value {
        events
            .iter()
            .find(|e| {
                e["event"] == "finding" && e["property"] == format!("crashes::tests::{property}")
            })
            .unwrap_or_else(|| panic!("no finding for {property}:\n{stdout}\n{stderr}"))
    };
    for (property, kind) in [
        ("panics", "panic"),
        ("aborts", "abort"),
        ("overflows_the_stack", "stack-overflow"),
        ("hangs", "timeout"),
    ] {
        let event = finding(property);
        assert_eq!(event["finding"]["kind"], kind, "{property}: {event}");
        let seed = PathBuf::from(event["seed"].as_str().expect("saved"));
        let text = fs::read_to_string(&seed).unwrap();
        assert!(text.contains("kind = \"failure\""), "{text}");
        assert!(
            seed.starts_with(
                dir.path()
                    .join("covcheck-seeds/crashes/tests")
                    .join(property)
            ),
            "{}",
            seed.display()
        );
        assert!(
            event["rerun"]
                .as_str()
                .unwrap()
                .contains(&format!("-- tests::{property} --exact")),
            "{event}"
        );
    }
    let coffee = &finding("panics")["finding"];
    assert_eq!(
        coffee["args"][0][1], "12648430",
        "shrunk to the value: {coffee}"
    );
    assert!(
        coffee["message"]
            .as_str()
            .unwrap()
            .contains("found the coffee")
    );

    let finished = events
        .iter()
        .find(|e| e["event"] == "finished" && e["property"] == "crashes::tests::always_passes")
        .expect("the passing property completes");
    assert_eq!(finished["findings"], 0);
    assert!(finished["execs"].as_u64().unwrap() >= 200_000, "{finished}");
    assert!(
        !dir.path()
            .join("covcheck-seeds/crashes/tests/always_passes")
            .exists()
    );

    // Plain `cargo test` replays the saved panic seed and fails on it.
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let replay = Command::new(cargo)
        .args(["test", "--", "tests::panics", "--exact"])
        .current_dir(dir.path())
        .env("CARGO_TARGET_DIR", &target)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&replay.stdout);
    assert!(!replay.status.success(), "{text}");
    assert!(text.contains("failed on a saved seed"), "{text}");
    assert!(text.contains("found the coffee"), "{text}");
}
