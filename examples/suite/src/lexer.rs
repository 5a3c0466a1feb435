//! A lossless tokenizer for a C-like language: every byte of the input is in
//! exactly one token, errors included, so that an editor can highlight text
//! that does not parse.

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TokenKind {
    Whitespace,
    LineComment,
    /// `/* ... */`, nesting; unterminated ones run to the end.
    BlockComment {
        terminated: bool,
    },
    Ident,
    Keyword,
    /// Decimal, `0x` hex or `0b` binary, with `_` separators.
    Int,
    /// Digits with a fraction or an exponent.
    Float,
    /// `"..."` with backslash escapes; unterminated ones end at the line.
    Str {
        terminated: bool,
    },
    Char,
    Punct,
    /// A byte that starts no token.
    Unknown,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Token {
    pub kind: TokenKind,
    pub start: usize,
    pub end: usize,
}

const KEYWORDS: [&str; 10] = [
    "fn", "let", "if", "else", "while", "return", "struct", "true", "false", "match",
];

/// Two- and three-character operators, longest first.
const OPERATORS: [&str; 16] = [
    "<<=", ">>=", "...", "==", "!=", "<=", ">=", "&&", "||", "->", "=>", "::", "<<", ">>", "+=",
    "-=",
];

pub fn tokenize(text: &str) -> Vec<Token> {
    let mut lexer = Lexer {
        text,
        bytes: text.as_bytes(),
        at: 0,
    };
    let mut tokens = Vec::new();
    while lexer.at < lexer.bytes.len() {
        let start = lexer.at;
        let kind = lexer.token();
        debug_assert!(lexer.at > start);
        tokens.push(Token {
            kind,
            start,
            end: lexer.at,
        });
    }
    tokens
}

struct Lexer<'a> {
    text: &'a str,
    bytes: &'a [u8],
    at: usize,
}

impl Lexer<'_> {
    fn peek(&self, ahead: usize) -> Option<u8> {
        self.bytes.get(self.at + ahead).copied()
    }

    fn eat_while(&mut self, mut keep: impl FnMut(u8) -> bool) {
        while let Some(b) = self.peek(0) {
            if !keep(b) {
                break;
            }
            self.at += 1;
        }
    }

    /// Moves past one whole `char`, so that no token splits one.
    fn bump_char(&mut self) {
        let c = self.text[self.at..].chars().next().expect("not at the end");
        self.at += c.len_utf8();
    }

    fn token(&mut self) -> TokenKind {
        let b = self.bytes[self.at];
        match b {
            b' ' | b'\t' | b'\n' | b'\r' => {
                self.eat_while(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r'));
                TokenKind::Whitespace
            }
            b'/' if self.peek(1) == Some(b'/') => {
                self.eat_while(|b| b != b'\n');
                TokenKind::LineComment
            }
            b'/' if self.peek(1) == Some(b'*') => self.block_comment(),
            b'a'..=b'z' | b'A'..=b'Z' | b'_' => {
                let start = self.at;
                self.eat_while(|b| b.is_ascii_alphanumeric() || b == b'_');
                if KEYWORDS.contains(&&self.text[start..self.at]) {
                    TokenKind::Keyword
                } else {
                    TokenKind::Ident
                }
            }
            b'0'..=b'9' => self.number(),
            b'"' => self.string(),
            b'\'' => self.char_literal(),
            _ if b.is_ascii_punctuation() => {
                let rest = &self.text[self.at..];
                let len = OPERATORS
                    .iter()
                    .find(|op| rest.starts_with(**op))
                    .map_or(1, |op| op.len());
                self.at += len;
                TokenKind::Punct
            }
            _ => {
                self.bump_char();
                TokenKind::Unknown
            }
        }
    }

    fn block_comment(&mut self) -> TokenKind {
        self.at += 2;
        let mut depth = 1;
        while depth > 0 {
            match (self.peek(0), self.peek(1)) {
                (None, _) => return TokenKind::BlockComment { terminated: false },
                (Some(b'/'), Some(b'*')) => {
                    depth += 1;
                    self.at += 2;
                }
                (Some(b'*'), Some(b'/')) => {
                    depth -= 1;
                    self.at += 2;
                }
                _ => self.bump_char(),
            }
        }
        TokenKind::BlockComment { terminated: true }
    }

    fn number(&mut self) -> TokenKind {
        let radix_digit: Option<fn(u8) -> bool> = match (self.peek(0), self.peek(1)) {
            (Some(b'0'), Some(b'x' | b'X')) => Some(|b| b.is_ascii_hexdigit() || b == b'_'),
            (Some(b'0'), Some(b'b' | b'B')) => Some(|b| matches!(b, b'0' | b'1' | b'_')),
            _ => None,
        };
        if let Some(digit) = radix_digit {
            self.at += 2;
            self.eat_while(digit);
            return TokenKind::Int;
        }
        self.eat_while(|b| b.is_ascii_digit() || b == b'_');
        let mut kind = TokenKind::Int;
        if self.peek(0) == Some(b'.') && self.peek(1).is_some_and(|b| b.is_ascii_digit()) {
            self.at += 1;
            self.eat_while(|b| b.is_ascii_digit() || b == b'_');
            kind = TokenKind::Float;
        }
        if let Some(b'e' | b'E') = self.peek(0) {
            let sign = usize::from(matches!(self.peek(1), Some(b'+' | b'-')));
            if self.peek(1 + sign).is_some_and(|b| b.is_ascii_digit()) {
                self.at += 1 + sign;
                self.eat_while(|b| b.is_ascii_digit());
                kind = TokenKind::Float;
            }
        }
        kind
    }

    fn string(&mut self) -> TokenKind {
        self.at += 1;
        loop {
            match self.peek(0) {
                None | Some(b'\n') => return TokenKind::Str { terminated: false },
                Some(b'"') => {
                    self.at += 1;
                    return TokenKind::Str { terminated: true };
                }
                Some(b'\\') => {
                    self.at += 1;
                    if self.at < self.bytes.len() {
                        self.bump_char();
                    }
                }
                Some(_) => self.bump_char(),
            }
        }
    }

    fn char_literal(&mut self) -> TokenKind {
        // `'x'` or `'\n'`; a lone quote is punctuation.
        let rest = &self.text[self.at + 1..];
        let mut chars = rest.chars();
        let body = match chars.next() {
            Some('\\') => chars.next().map(|c| 1 + c.len_utf8()),
            Some('\'') | Some('\n') | None => None,
            Some(c) => Some(c.len_utf8()),
        };
        match body {
            Some(len) if rest[len..].starts_with('\'') => {
                self.at += len + 2;
                TokenKind::Char
            }
            _ => {
                self.at += 1;
                TokenKind::Punct
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use covcheck_rt::covcheck;

    #[covcheck]
    fn tokens_tile_the_input(text: String) {
        let tokens = tokenize(&text);
        let mut at = 0;
        for token in &tokens {
            assert_eq!(token.start, at);
            assert!(token.end > token.start);
            assert!(text.is_char_boundary(token.end));
            at = token.end;
        }
        assert_eq!(at, text.len());
    }

    #[covcheck]
    fn tokens_lex_alone_as_themselves(text: String) {
        let tokens = tokenize(&text);
        // A token ends where its kind decides, never by looking further, so
        // its text alone is the same token.
        for token in &tokens {
            let piece = &text[token.start..token.end];
            let alone = tokenize(piece);
            assert_eq!(alone.len(), 1, "{piece:?}");
            assert_eq!(alone[0].kind, token.kind, "{piece:?}");
        }
    }
}
