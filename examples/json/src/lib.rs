//! A small JSON parser and printer (RFC 8259, with a nesting limit), the
//! example of `cargo covcheck minimize`: its input is a string, but what
//! matters is its structure, and every kind of value, escape and error is a
//! branch of its own. A campaign's corpus grows into thousands of inputs;
//! the covering seed suite that keeps all their coverage is a few dozen.
//!
//! The property: whatever parses prints to text that parses back to the
//! same value, compactly and pretty-printed alike.

use std::fmt::{self, Write as _};

/// A JSON value. Objects keep their members in order, duplicates included.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(test, derive(covcheck_rt::Generate))]
pub enum Value {
    Null,
    Bool(bool),
    /// A number without fraction or exponent that fits an `i64`.
    Int(i64),
    Float(f64),
    String(String),
    Array(Vec<Value>),
    Object(Vec<(String, Value)>),
}

/// Why a text is not JSON, and the byte offset where that was noticed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    pub offset: usize,
    pub reason: &'static str,
}

/// Deeper nesting is refused rather than overflowing the stack.
pub const MAX_DEPTH: usize = 64;

pub fn parse(text: &str) -> Result<Value, Error> {
    let mut parser = Parser {
        bytes: text.as_bytes(),
        at: 0,
    };
    parser.whitespace();
    let value = parser.value(0)?;
    parser.whitespace();
    if parser.at != parser.bytes.len() {
        return Err(parser.error("trailing characters"));
    }
    Ok(value)
}

struct Parser<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Parser<'_> {
    fn error(&self, reason: &'static str) -> Error {
        Error {
            offset: self.at,
            reason,
        }
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    fn whitespace(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.peek() {
            self.at += 1;
        }
    }

    fn expect(&mut self, byte: u8, reason: &'static str) -> Result<(), Error> {
        if self.peek() == Some(byte) {
            self.at += 1;
            Ok(())
        } else {
            Err(self.error(reason))
        }
    }

    fn literal(&mut self, word: &'static str, value: Value) -> Result<Value, Error> {
        if self.bytes[self.at..].starts_with(word.as_bytes()) {
            self.at += word.len();
            Ok(value)
        } else {
            Err(self.error("unknown literal"))
        }
    }

    fn value(&mut self, depth: usize) -> Result<Value, Error> {
        if depth > MAX_DEPTH {
            return Err(self.error("nested too deeply"));
        }
        match self.peek() {
            None => Err(self.error("unexpected end")),
            Some(b'n') => self.literal("null", Value::Null),
            Some(b't') => self.literal("true", Value::Bool(true)),
            Some(b'f') => self.literal("false", Value::Bool(false)),
            Some(b'"') => self.string().map(Value::String),
            Some(b'[') => self.array(depth),
            Some(b'{') => self.object(depth),
            Some(b'-' | b'0'..=b'9') => self.number(),
            Some(_) => Err(self.error("expected a value")),
        }
    }

    fn array(&mut self, depth: usize) -> Result<Value, Error> {
        self.at += 1;
        let mut items = Vec::new();
        self.whitespace();
        if self.peek() == Some(b']') {
            self.at += 1;
            return Ok(Value::Array(items));
        }
        loop {
            self.whitespace();
            items.push(self.value(depth + 1)?);
            self.whitespace();
            match self.peek() {
                Some(b',') => self.at += 1,
                Some(b']') => {
                    self.at += 1;
                    return Ok(Value::Array(items));
                }
                _ => return Err(self.error("expected `,` or `]`")),
            }
        }
    }

    fn object(&mut self, depth: usize) -> Result<Value, Error> {
        self.at += 1;
        let mut members = Vec::new();
        self.whitespace();
        if self.peek() == Some(b'}') {
            self.at += 1;
            return Ok(Value::Object(members));
        }
        loop {
            self.whitespace();
            if self.peek() != Some(b'"') {
                return Err(self.error("expected a member name"));
            }
            let name = self.string()?;
            self.whitespace();
            self.expect(b':', "expected `:`")?;
            self.whitespace();
            members.push((name, self.value(depth + 1)?));
            self.whitespace();
            match self.peek() {
                Some(b',') => self.at += 1,
                Some(b'}') => {
                    self.at += 1;
                    return Ok(Value::Object(members));
                }
                _ => return Err(self.error("expected `,` or `}`")),
            }
        }
    }

    fn hex4(&mut self) -> Result<u32, Error> {
        let digits = self
            .bytes
            .get(self.at..self.at + 4)
            .ok_or_else(|| self.error("short \\u escape"))?;
        let mut code = 0;
        for &d in digits {
            let digit = match d {
                b'0'..=b'9' => d - b'0',
                b'a'..=b'f' => d - b'a' + 10,
                b'A'..=b'F' => d - b'A' + 10,
                _ => return Err(self.error("bad hex digit in \\u escape")),
            };
            code = code * 16 + u32::from(digit);
        }
        self.at += 4;
        Ok(code)
    }

    fn string(&mut self) -> Result<String, Error> {
        self.at += 1;
        let mut out = String::new();
        loop {
            let start = self.at;
            while let Some(b) = self.peek() {
                if b == b'"' || b == b'\\' || b < 0x20 {
                    break;
                }
                self.at += 1;
            }
            // The input is a `str` and we stopped at ASCII bytes: a boundary.
            out.push_str(std::str::from_utf8(&self.bytes[start..self.at]).expect("str slice"));
            match self.peek() {
                None => return Err(self.error("unterminated string")),
                Some(b'"') => {
                    self.at += 1;
                    return Ok(out);
                }
                Some(b'\\') => {
                    self.at += 1;
                    let escape = self
                        .peek()
                        .ok_or_else(|| self.error("unterminated escape"))?;
                    self.at += 1;
                    match escape {
                        b'"' => out.push('"'),
                        b'\\' => out.push('\\'),
                        b'/' => out.push('/'),
                        b'b' => out.push('\u{8}'),
                        b'f' => out.push('\u{c}'),
                        b'n' => out.push('\n'),
                        b'r' => out.push('\r'),
                        b't' => out.push('\t'),
                        b'u' => out.push(self.unicode_escape()?),
                        _ => return Err(self.error("unknown escape")),
                    }
                }
                Some(_) => return Err(self.error("control character in string")),
            }
        }
    }

    fn unicode_escape(&mut self) -> Result<char, Error> {
        let first = self.hex4()?;
        let code = match first {
            0xD800..=0xDBFF => {
                if !self.bytes[self.at..].starts_with(b"\\u") {
                    return Err(self.error("lone high surrogate"));
                }
                self.at += 2;
                let second = self.hex4()?;
                if !(0xDC00..=0xDFFF).contains(&second) {
                    return Err(self.error("high surrogate without a low one"));
                }
                0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)
            }
            0xDC00..=0xDFFF => return Err(self.error("lone low surrogate")),
            code => code,
        };
        char::from_u32(code).ok_or_else(|| self.error("invalid code point"))
    }

    fn digits(&mut self) -> usize {
        let start = self.at;
        while let Some(b'0'..=b'9') = self.peek() {
            self.at += 1;
        }
        self.at - start
    }

    fn number(&mut self) -> Result<Value, Error> {
        let start = self.at;
        if self.peek() == Some(b'-') {
            self.at += 1;
        }
        match self.peek() {
            Some(b'0') => self.at += 1,
            Some(b'1'..=b'9') => {
                self.digits();
            }
            _ => return Err(self.error("expected a digit")),
        }
        let mut integer = true;
        if self.peek() == Some(b'.') {
            integer = false;
            self.at += 1;
            if self.digits() == 0 {
                return Err(self.error("expected a digit after `.`"));
            }
        }
        if let Some(b'e' | b'E') = self.peek() {
            integer = false;
            self.at += 1;
            if let Some(b'+' | b'-') = self.peek() {
                self.at += 1;
            }
            if self.digits() == 0 {
                return Err(self.error("expected a digit in the exponent"));
            }
        }
        let text = std::str::from_utf8(&self.bytes[start..self.at]).expect("ASCII");
        if integer && let Ok(n) = text.parse::<i64>() {
            return Ok(Value::Int(n));
        }
        let x: f64 = text.parse().map_err(|_| self.error("bad number"))?;
        if !x.is_finite() {
            return Err(self.error("number out of range"));
        }
        Ok(Value::Float(x))
    }
}

fn write_string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

fn write_float(out: &mut String, x: f64) {
    // `Display` prints the shortest text that reads back to the same `f64`;
    // it needs a fraction so that it does not read back as an integer.
    let text = x.to_string();
    out.push_str(&text);
    if !text.contains(['.', 'e', 'E']) {
        out.push_str(".0");
    }
}

impl Value {
    /// Prints with two-space indentation.
    pub fn pretty(&self) -> String {
        let mut out = String::new();
        self.write(&mut out, Some(0));
        out
    }

    fn write(&self, out: &mut String, indent: Option<usize>) {
        let newline = |out: &mut String, level: usize| {
            if indent.is_some() {
                out.push('\n');
                out.push_str(&"  ".repeat(level));
            }
        };
        let level = indent.unwrap_or(0);
        let inner = indent.map(|l| l + 1);
        match self {
            Value::Null => out.push_str("null"),
            Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Value::Int(n) => {
                let _ = write!(out, "{n}");
            }
            Value::Float(x) => write_float(out, *x),
            Value::String(s) => write_string(out, s),
            Value::Array(items) if items.is_empty() => out.push_str("[]"),
            Value::Array(items) => {
                out.push('[');
                for (n, item) in items.iter().enumerate() {
                    if n > 0 {
                        out.push(',');
                    }
                    newline(out, level + 1);
                    item.write(out, inner);
                }
                newline(out, level);
                out.push(']');
            }
            Value::Object(members) if members.is_empty() => out.push_str("{}"),
            Value::Object(members) => {
                out.push('{');
                for (n, (name, value)) in members.iter().enumerate() {
                    if n > 0 {
                        out.push(',');
                    }
                    newline(out, level + 1);
                    write_string(out, name);
                    out.push_str(if indent.is_some() { ": " } else { ":" });
                    value.write(out, inner);
                }
                newline(out, level);
                out.push('}');
            }
        }
    }
}

/// Compact JSON.
impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut out = String::new();
        self.write(&mut out, None);
        f.write_str(&out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use covcheck_rt::covcheck;

    #[covcheck]
    fn printed_json_parses_back_to_the_same_value(text: String) {
        if let Ok(value) = parse(&text) {
            assert_eq!(parse(&value.to_string()), Ok(value.clone()), "compact");
            assert_eq!(parse(&value.pretty()), Ok(value), "pretty");
        }
    }

    #[covcheck]
    fn every_value_prints_and_parses_back(value: Value) {
        let finite = |x: &f64| x.is_finite();
        fn floats_finite(v: &Value, ok: &dyn Fn(&f64) -> bool) -> bool {
            match v {
                Value::Float(x) => ok(x),
                Value::Array(items) => items.iter().all(|i| floats_finite(i, ok)),
                Value::Object(members) => members.iter().all(|(_, v)| floats_finite(v, ok)),
                _ => true,
            }
        }
        covcheck_rt::assume(floats_finite(&value, &finite));
        assert_eq!(parse(&value.to_string()), Ok(value.clone()), "compact");
        assert_eq!(parse(&value.pretty()), Ok(value), "pretty");
    }

    #[test]
    fn parses_every_kind_of_value() {
        let value = parse(r#" {"a": [1, -2.5e3, true, false, null], "b\u00e9\ud83d\ude00": "x\n\"y\"", "c": {}} "#)
            .unwrap();
        let Value::Object(members) = &value else {
            panic!("{value:?}")
        };
        assert_eq!(
            members[0].1,
            Value::Array(vec![
                Value::Int(1),
                Value::Float(-2500.0),
                Value::Bool(true),
                Value::Bool(false),
                Value::Null,
            ])
        );
        assert_eq!(members[1].0, "bé😀");
        assert_eq!(parse(&value.to_string()), Ok(value.clone()));
        assert_eq!(parse(&value.pretty()), Ok(value));
    }

    #[test]
    fn refuses_what_is_not_json() {
        for bad in [
            "",
            "01x",
            "[1,]",
            "{\"a\" 1}",
            "\"\\ud800\"",
            "1e999",
            "tru",
            "[1] 2",
            "\"a\u{1}\"",
        ] {
            assert!(parse(bad).is_err(), "{bad:?}");
        }
        let deep = "[".repeat(MAX_DEPTH + 2);
        assert_eq!(parse(&deep).unwrap_err().reason, "nested too deeply");
    }
}
