//! Dictionaries of tokens for the campaign's mutator, in libFuzzer's
//! dictionary format (also AFL++'s `-x`): one token per line, in double
//! quotes, optionally named (`kw="GET "`), with `\\`, `\"` and `\xNN`
//! escapes; blank lines and `#` comments are ignored.
//!
//! `cargo covcheck` writes one per package from the literals of the crates
//! under test; the worker reads it, and a property's own `dict_file`
//! (`#[covcheck(dict_file = "fuzz/http.dict")]`). The same format lets a
//! user's dictionary from cargo-fuzz or AFL++ be used as it is.

/// Parses a dictionary. An error names the line (1-based) and what is wrong.
pub fn parse(text: &str) -> Result<Vec<Vec<u8>>, String> {
    let mut tokens = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let quoted = match line.find('"') {
            Some(start) if line.ends_with('"') && line.len() > start + 1 => {
                &line[start + 1..line.len() - 1]
            }
            _ => {
                return Err(format!(
                    "line {}: expected a token in double quotes, like \"GET \" or kw=\"\\x00\\xff\"",
                    n + 1
                ));
            }
        };
        tokens.push(unescape(quoted).map_err(|e| format!("line {}: {e}", n + 1))?);
    }
    Ok(tokens)
}

fn unescape(quoted: &str) -> Result<Vec<u8>, String> {
    let bytes = quoted.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => match bytes.get(i + 1) {
                Some(b'\\') | Some(b'"') => {
                    out.push(bytes[i + 1]);
                    i += 2;
                }
                Some(b'x') => {
                    let hex = quoted
                        .get(i + 2..i + 4)
                        .and_then(|h| u8::from_str_radix(h, 16).ok())
                        .ok_or("`\\x` must be followed by two hex digits")?;
                    out.push(hex);
                    i += 4;
                }
                _ => return Err("a backslash must start `\\\\`, `\\\"` or `\\xNN`".to_string()),
            },
            b'"' => return Err("a double quote inside a token must be written `\\\"`".to_string()),
            byte => {
                out.push(byte);
                i += 1;
            }
        }
    }
    Ok(out)
}

/// Renders tokens as a dictionary that [`parse`] reads back, one
/// [`escape`]d token a line.
pub fn render(tokens: &[Vec<u8>]) -> String {
    let mut out = String::new();
    for token in tokens {
        out.push('"');
        out.push_str(&escape(token));
        out.push_str("\"\n");
    }
    out
}

/// A token as a dictionary spells it between its quotes: printable ASCII
/// as it is, `\\` and `\"` escaped, every other byte as `\xNN`.
pub fn escape(token: &[u8]) -> String {
    let mut out = String::new();
    for &byte in token {
        match byte {
            b'\\' => out.push_str("\\\\"),
            b'"' => out.push_str("\\\""),
            b' '..=b'~' => out.push(byte as char),
            _ => out.push_str(&format!("\\x{byte:02x}")),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn libfuzzer_dictionaries_are_read() {
        let text = "# HTTP\nkw1=\"GET \"\n\"\\x00\\xffA\"\n\n  \"a\\\"b\\\\\"\n";
        assert_eq!(
            parse(text).unwrap(),
            vec![b"GET ".to_vec(), vec![0, 0xff, b'A'], b"a\"b\\".to_vec()]
        );
    }

    #[test]
    fn rendered_tokens_read_back() {
        let tokens = vec![b"GET ".to_vec(), vec![0, 10, 0xff], b"\"\\".to_vec()];
        assert_eq!(parse(&render(&tokens)).unwrap(), tokens);
    }

    #[test]
    fn a_bad_line_is_named() {
        let error = parse("\"ok\"\nnot quoted\n").unwrap_err();
        assert!(error.starts_with("line 2:"), "{error}");
        let error = parse("\"\\x4\"").unwrap_err();
        assert!(error.contains("hex digits"), "{error}");
    }
}
