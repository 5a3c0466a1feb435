//! The property's own dictionary: the tokens of
//! `#[covcheck(dict = ["GET ", "\r\n"], dict_file = "fuzz/http.dict")]`,
//! for the campaign's mutator.
//!
//! A campaign writes them into strings and byte vectors ahead of the
//! package's literal dictionary. Plain `cargo test` reads the file too, only
//! to check it: a dictionary that is missing or malformed fails the test
//! with the same message a campaign reports, so CI catches it even where no
//! campaign runs.

use std::path::Path;

use crate::info::PropertyInfo;

/// The property's tokens: those of `dict`, then those of `dict_file` that
/// `dict` does not already hold, without repeats. An error names the file,
/// the line and the way out (the caller names the property).
pub(crate) fn property_tokens(info: &PropertyInfo) -> Result<Vec<Vec<u8>>, String> {
    let mut tokens: Vec<Vec<u8>> = Vec::new();
    let mut add = |token: Vec<u8>| {
        if !tokens.contains(&token) {
            tokens.push(token);
        }
    };
    for token in info.attributes.dict {
        add(token.to_vec());
    }
    if let Some(file) = info.attributes.dict_file {
        for token in read_dict_file(info, file)? {
            add(token);
        }
    }
    Ok(tokens)
}

/// The tokens of `file` (relative to the crate root), in libFuzzer's format.
fn read_dict_file(info: &PropertyInfo, file: &str) -> Result<Vec<Vec<u8>>, String> {
    let path = Path::new(info.crate_root).join(file);
    let fix = format!("fix the file or the path in `#[covcheck(dict_file = {file:?})]`");
    let text = std::fs::read_to_string(&path).map_err(|e| {
        format!(
            "cannot read the dictionary {} ({e}); `dict_file` is relative to the crate root, \
             {}; {fix}",
            path.display(),
            info.crate_root,
        )
    })?;
    covcheck_protocol::dictionary::parse(&text)
        .map_err(|e| format!("dictionary {}, {e}; {fix}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Attributes;
    use crate::info::Target;

    fn info(crate_root: &'static str, attributes: Attributes) -> PropertyInfo {
        PropertyInfo {
            name: "p",
            module_path: "demo::tests",
            crate_root,
            package: "demo",
            target: Target::Lib,
            attributes,
        }
    }

    fn leak(text: String) -> &'static str {
        Box::leak(text.into_boxed_str())
    }

    #[test]
    fn the_attribute_s_tokens_come_first_then_the_file_s_without_repeats() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("fuzz")).unwrap();
        std::fs::write(
            dir.path().join("fuzz/http.dict"),
            "# HTTP\n\"\\x0d\\x0a\"\nget=\"GET \"\n\"HTTP/1.1\"\n",
        )
        .unwrap();
        let attributes = Attributes {
            dict: &[b"GET ", b"\r\n", b"GET "],
            dict_file: Some("fuzz/http.dict"),
            ..Attributes::default()
        };
        let root = leak(dir.path().display().to_string());
        assert_eq!(
            property_tokens(&info(root, attributes)).unwrap(),
            [b"GET ".to_vec(), b"\r\n".to_vec(), b"HTTP/1.1".to_vec()]
        );
        assert!(
            property_tokens(&info(root, Attributes::default()))
                .unwrap()
                .is_empty()
        );
    }

    #[test]
    fn a_missing_or_malformed_file_is_named_with_its_line() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("bad.dict"), "\"ok\"\nGET\n").unwrap();
        let root = leak(dir.path().display().to_string());
        let with_file = |file| Attributes {
            dict_file: Some(file),
            ..Attributes::default()
        };
        let error = property_tokens(&info(root, with_file("bad.dict"))).unwrap_err();
        let path = dir.path().join("bad.dict");
        assert!(
            error.contains(&format!("dictionary {}, line 2:", path.display())),
            "{error}"
        );
        let error = property_tokens(&info(root, with_file("missing.dict"))).unwrap_err();
        assert!(
            error.contains(&dir.path().join("missing.dict").display().to_string()),
            "{error}"
        );
        assert!(error.contains("dict_file = \"missing.dict\""), "{error}");
    }
}
