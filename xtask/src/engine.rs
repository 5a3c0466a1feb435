//! `cargo xtask engine <cargo command>`: cargo on the campaign engine's
//! sources, in place.
//!
//! The engine (LibAFL behind the C ABI) ships inside cargo-covcheck's
//! package, in `cargo-covcheck/engine/`, with its manifest kept as
//! `Cargo.toml.in`: cargo leaves out of a package any directory that holds a
//! `Cargo.toml`. `cargo covcheck` writes those files out as a crate to build
//! it; this chore makes the same crate for covcheck's developers out of
//! symbolic links (`<target dir>/xtask/engine`), so that cargo's and
//! rustfmt's edits and diagnostics land on the files in the repository.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The links of the engine's crate: `(name in the crate, path in the
/// repository)`. The ABI crate sits beside the engine's sources, where the
/// engine's manifest expects it (`path = "covcheck-engine-abi"`), as
/// cargo-covcheck lays them out.
const LINKS: [(&str, &str); 4] = [
    ("Cargo.toml", "cargo-covcheck/engine/Cargo.toml.in"),
    ("Cargo.lock", "cargo-covcheck/engine/Cargo.lock"),
    ("src", "cargo-covcheck/engine/src"),
    ("covcheck-engine-abi", "covcheck-engine-abi"),
];

/// Runs `cargo <args[0]> --manifest-path <the engine's> <args[1..]>`.
pub fn main(args: &[String], root: &Path) -> Result<(), String> {
    let Some((subcommand, rest)) = args.split_first() else {
        return Err("usage: cargo xtask engine <cargo command> [args], e.g. \
                    `cargo xtask engine clippy --locked --all-targets`"
            .to_string());
    };
    let manifest = prepare(root)?;
    let status = Command::new(env!("CARGO"))
        .arg(subcommand)
        .arg("--manifest-path")
        .arg(&manifest)
        .args(rest)
        .status()
        .map_err(|e| format!("could not run cargo: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("`cargo {}` on the engine failed", args.join(" ")))
    }
}

/// Makes (or repairs) the engine's crate of links; its manifest's path.
pub fn prepare(root: &Path) -> Result<PathBuf, String> {
    let dir = target_dir(root)?.join("xtask").join("engine");
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    for (name, original) in LINKS {
        let link = dir.join(name);
        let original = root.join(original);
        if std::fs::read_link(&link).ok().as_deref() == Some(original.as_path()) {
            continue;
        }
        // Whatever is there (a stale link, a file from an older layout)
        // gives way; it is ours, under the target directory.
        let _ = std::fs::remove_file(&link).or_else(|_| std::fs::remove_dir_all(&link));
        std::os::unix::fs::symlink(&original, &link).map_err(|e| {
            format!(
                "cannot link {} to {}: {e}",
                link.display(),
                original.display()
            )
        })?;
    }
    Ok(dir.join("Cargo.toml"))
}

/// The workspace's target directory, as cargo resolves it (environment,
/// configuration or `<root>/target`).
fn target_dir(root: &Path) -> Result<PathBuf, String> {
    let output = Command::new(env!("CARGO"))
        .args(["metadata", "--format-version", "1", "--no-deps"])
        .current_dir(root)
        .output()
        .map_err(|e| format!("could not run cargo metadata: {e}"))?;
    if !output.status.success() {
        return Err(format!(
            "cargo metadata failed: {}",
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    let metadata: serde_json::Value = serde_json::from_slice(&output.stdout)
        .map_err(|e| format!("cargo metadata printed no JSON: {e}"))?;
    metadata["target_directory"]
        .as_str()
        .map(PathBuf::from)
        .ok_or_else(|| "cargo metadata names no target directory".to_string())
}
