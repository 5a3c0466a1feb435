//! Text made safe to put in the report's markup. Everything the report
//! shows comes from the code under test (source text, panic messages, Debug
//! renderings of failing values, names), so none of it may be read as
//! markup: one escape serves HTML text, attribute values and the inline
//! SVG (XML), which all read the same five characters specially.

/// `text` as HTML/XML character data or a quoted attribute value.
///
/// Control characters other than tab, newline and carriage return are
/// parse errors in HTML and not allowed at all in XML, so they are shown as
/// their Unicode control pictures (`␀`, `␛`, ...) rather than dropped: a
/// message that holds one still says so.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            '\t' | '\n' | '\r' => out.push(c),
            c if c.is_control() => out.push(control_picture(c)),
            c => out.push(c),
        }
    }
    out
}

/// U+2400..U+241F picture the C0 controls and U+2421 DEL; the C1 controls
/// have no pictures and get the replacement character.
fn control_picture(c: char) -> char {
    match c as u32 {
        code @ 0..=0x1f => char::from_u32(0x2400 + code).unwrap_or('\u{fffd}'),
        0x7f => '\u{2421}',
        _ => '\u{fffd}',
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_characters_are_escaped() {
        assert_eq!(
            escape(r#"<script>alert("x" & 'y')</script>"#),
            "&lt;script&gt;alert(&quot;x&quot; &amp; &#39;y&#39;)&lt;/script&gt;"
        );
    }

    #[test]
    fn control_characters_are_shown_as_pictures() {
        assert_eq!(escape("a\0b\x1bc\x7f\u{85}\td\n"), "a␀b␛c␡\u{fffd}\td\n");
    }
}
