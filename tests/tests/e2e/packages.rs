//! Every crate builds from its own package: no source of one crate reaches
//! into another by path (`#[path = ".."]`, `include!`, `include_str!`,
//! `include_bytes!`, a manifest target's `path`). Such a reference works in
//! the repository and breaks the moment the crate is packaged or installed
//! from the registry, where only its own directory travels; `cargo package
//! --workspace` finds it only after minutes of building, this test at once.

use std::path::{Component, Path, PathBuf};
use std::process::Command;

/// The macros and attribute whose string argument is a path relative to
/// the file they are in.
const PATH_TAKERS: [&str; 4] = [
    "include!(\"",
    "include_str!(\"",
    "include_bytes!(\"",
    "#[path = \"",
];

/// A reference from `file` to `target`, outside the package.
#[derive(Debug, PartialEq)]
struct Outside {
    file: PathBuf,
    target: PathBuf,
}

/// The references in the `.rs` files under `package` (not in `target`
/// directories, nor in packages nested in it) that resolve outside it.
fn references_outside(package: &Path) -> Vec<Outside> {
    let mut found = Vec::new();
    let mut dirs = vec![package.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                let nested = path.join("Cargo.toml").exists();
                if !nested && path.file_name() != Some("target".as_ref()) {
                    dirs.push(path);
                }
            } else if path.extension() == Some("rs".as_ref()) {
                let text = std::fs::read_to_string(&path).unwrap();
                for target in referenced_paths(&text) {
                    let resolved = normalize(&path.parent().unwrap().join(&target));
                    if !resolved.starts_with(package) {
                        found.push(Outside {
                            file: path.clone(),
                            target: resolved,
                        });
                    }
                }
            }
        }
    }
    found
}

/// The string literals given to [`PATH_TAKERS`] in `text`.
fn referenced_paths(text: &str) -> Vec<String> {
    let mut paths = Vec::new();
    for taker in PATH_TAKERS {
        let mut rest = text;
        while let Some(at) = rest.find(taker) {
            rest = &rest[at + taker.len()..];
            if let Some(end) = rest.find('"') {
                paths.push(rest[..end].to_string());
            }
        }
    }
    paths
}

/// `path` with its `.` and `..` components resolved, without touching the
/// file system (the target may not exist).
fn normalize(path: &Path) -> PathBuf {
    let mut normal = PathBuf::new();
    for component in path.components() {
        match component {
            Component::ParentDir => {
                normal.pop();
            }
            Component::CurDir => {}
            other => normal.push(other),
        }
    }
    normal
}

/// The workspace's packages, as cargo sees them: `(name, manifest dir,
/// the source paths of its targets)`.
fn packages() -> Vec<(String, PathBuf, Vec<PathBuf>)> {
    let output = Command::new(env!("CARGO"))
        .args(["metadata", "--format-version", "1", "--no-deps"])
        .current_dir(covcheck_e2e::workspace_root())
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let metadata: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let path = |value: &serde_json::Value| PathBuf::from(value.as_str().unwrap());
    metadata["packages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|package| {
            let manifest = path(&package["manifest_path"]);
            let sources = package["targets"]
                .as_array()
                .unwrap()
                .iter()
                .map(|target| path(&target["src_path"]))
                .collect();
            (
                package["name"].as_str().unwrap().to_string(),
                manifest.parent().unwrap().to_path_buf(),
                sources,
            )
        })
        .collect()
}

#[test]
fn no_crate_reaches_into_another_by_path() {
    let packages = packages();
    assert!(packages.len() >= 5, "{packages:?}");
    for (name, dir, sources) in packages {
        for source in sources {
            assert!(
                normalize(&source).starts_with(&dir),
                "{name}'s manifest names a target outside the package: {}",
                source.display()
            );
        }
        let outside = references_outside(&dir);
        assert!(
            outside.is_empty(),
            "{name} reaches outside its package, which breaks it once packaged: {outside:#?}"
        );
    }
}

#[test]
fn a_reference_into_another_crate_is_found() {
    let root = tempfile::tempdir().unwrap();
    let package = root.path().join("one");
    std::fs::create_dir_all(package.join("src/engine")).unwrap();
    // Written in pieces, so that this file itself holds no reference.
    let reference = |taker: &str, path: &str| format!("{taker}{path}\")");
    let source = [
        reference("#[path = \"", "../../../other/src/abi.rs"),
        "mod abi;".to_string(),
        reference("const A: &str = include_str!(\"", "../own.txt"),
        reference(
            "const B: &[u8] = include_bytes!(\"",
            "../../../other/data.bin",
        ),
        reference("include!(\"", "../../../other/src/catalog.rs"),
    ]
    .join("\n");
    std::fs::write(package.join("src/engine/mod.rs"), source).unwrap();
    let found = references_outside(&package);
    let targets: Vec<&Path> = found.iter().map(|o| o.target.as_path()).collect();
    assert_eq!(
        targets,
        [
            root.path().join("other/src/catalog.rs"),
            root.path().join("other/data.bin"),
            root.path().join("other/src/abi.rs"),
        ]
        .iter()
        .map(PathBuf::as_path)
        .collect::<Vec<_>>()
    );
}
