//! The environment variables `cargo test` gives a test binary at run time:
//! the package's `CARGO_PKG_*`, `CARGO_MANIFEST_DIR`, `CARGO_CRATE_NAME`
//! and `CARGO`. Workers and listings run the test binaries themselves, so
//! a property (or code it calls, e.g. a data-driven test reading files
//! from `std::env::var("CARGO_MANIFEST_DIR")`) must see the same values
//! there, or it fails under `cargo covcheck` where `cargo test` passes.

use cargo_metadata::Package;

/// The variables cargo sets for `package`'s test binary of the crate
/// named `crate_name` (the target's name, `-` made `_`), as name-value
/// pairs.
pub fn package_env(package: &Package, crate_name: &str) -> Vec<(String, String)> {
    let manifest = package.manifest_path.as_std_path();
    let dir = manifest.parent().unwrap_or(manifest);
    let version = &package.version;
    let text = |value: &Option<String>| value.clone().unwrap_or_default();
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let pairs = [
        ("CARGO", cargo),
        ("CARGO_MANIFEST_DIR", dir.display().to_string()),
        ("CARGO_MANIFEST_PATH", manifest.display().to_string()),
        ("CARGO_CRATE_NAME", crate_name.replace('-', "_")),
        ("CARGO_PKG_NAME", package.name.to_string()),
        ("CARGO_PKG_VERSION", version.to_string()),
        ("CARGO_PKG_VERSION_MAJOR", version.major.to_string()),
        ("CARGO_PKG_VERSION_MINOR", version.minor.to_string()),
        ("CARGO_PKG_VERSION_PATCH", version.patch.to_string()),
        ("CARGO_PKG_VERSION_PRE", version.pre.to_string()),
        ("CARGO_PKG_AUTHORS", package.authors.join(":")),
        ("CARGO_PKG_DESCRIPTION", text(&package.description)),
        ("CARGO_PKG_HOMEPAGE", text(&package.homepage)),
        ("CARGO_PKG_REPOSITORY", text(&package.repository)),
        ("CARGO_PKG_LICENSE", text(&package.license)),
        (
            "CARGO_PKG_LICENSE_FILE",
            (package.license_file.as_ref()).map_or_else(String::new, ToString::to_string),
        ),
        // As cargo metadata gives it: `1.80.0` for a manifest's `1.80`.
        (
            "CARGO_PKG_RUST_VERSION",
            (package.rust_version.as_ref()).map_or_else(String::new, ToString::to_string),
        ),
        (
            "CARGO_PKG_README",
            (package.readme.as_ref()).map_or_else(String::new, ToString::to_string),
        ),
    ];
    pairs
        .into_iter()
        .map(|(name, value)| (name.to_string(), value))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn package() -> Package {
        let json = r#"{
            "name": "demo-pkg", "version": "1.2.3-beta.1", "id": "demo-pkg 1.2.3-beta.1",
            "license": "MIT", "license_file": null, "description": "A demo",
            "source": null, "dependencies": [], "targets": [], "features": {},
            "manifest_path": "/ws/demo/Cargo.toml", "metadata": null, "publish": null,
            "authors": ["A <a@x>", "B"], "categories": [], "keywords": [], "readme": null,
            "repository": null, "homepage": null, "documentation": null,
            "edition": "2021", "links": null, "default_run": null, "rust_version": "1.80"
        }"#;
        serde_json::from_str(json).unwrap()
    }

    #[test]
    fn a_test_binary_gets_what_cargo_test_gives_it() {
        let env = package_env(&package(), "demo-pkg");
        let get = |name: &str| {
            let pair = env.iter().find(|(n, _)| n == name);
            pair.map(|(_, value)| value.as_str()).unwrap()
        };
        assert_eq!(get("CARGO_MANIFEST_DIR"), "/ws/demo");
        assert_eq!(get("CARGO_MANIFEST_PATH"), "/ws/demo/Cargo.toml");
        assert_eq!(get("CARGO_CRATE_NAME"), "demo_pkg");
        assert_eq!(get("CARGO_PKG_NAME"), "demo-pkg");
        assert_eq!(get("CARGO_PKG_VERSION"), "1.2.3-beta.1");
        assert_eq!(get("CARGO_PKG_VERSION_PRE"), "beta.1");
        assert_eq!(get("CARGO_PKG_AUTHORS"), "A <a@x>:B");
        // cargo metadata gives a full version where the manifest may say
        // less (cargo itself would set "1.80").
        assert_eq!(get("CARGO_PKG_RUST_VERSION"), "1.80.0");
        assert_eq!(get("CARGO_PKG_HOMEPAGE"), "");
    }
}
