//! A calculator: integer expressions with `+ - * / %`, unary minus,
//! parentheses, `0x` literals and `min`, `max`, `abs` and `pow` calls,
//! evaluated with checked arithmetic.

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EvalError {
    Syntax(usize),
    Overflow,
    DivisionByZero,
    UnknownFunction,
    TooDeep,
}

/// Deeper nesting is refused rather than overflowing the stack.
pub const MAX_DEPTH: usize = 48;

pub fn eval(text: &str) -> Result<i64, EvalError> {
    let mut parser = Parser {
        bytes: text.as_bytes(),
        at: 0,
    };
    let value = parser.sum(0)?;
    parser.space();
    if parser.at != parser.bytes.len() {
        return Err(EvalError::Syntax(parser.at));
    }
    Ok(value)
}

struct Parser<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Parser<'_> {
    fn space(&mut self) {
        while let Some(b' ' | b'\t') = self.bytes.get(self.at) {
            self.at += 1;
        }
    }

    /// Skips spaces and takes `byte` if it comes next.
    fn eat(&mut self, byte: u8) -> bool {
        self.space();
        if self.bytes.get(self.at) == Some(&byte) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    fn syntax(&self) -> EvalError {
        EvalError::Syntax(self.at)
    }

    fn sum(&mut self, depth: usize) -> Result<i64, EvalError> {
        let mut value = self.product(depth)?;
        loop {
            if self.eat(b'+') {
                let rhs = self.product(depth)?;
                value = value.checked_add(rhs).ok_or(EvalError::Overflow)?;
            } else if self.eat(b'-') {
                let rhs = self.product(depth)?;
                value = value.checked_sub(rhs).ok_or(EvalError::Overflow)?;
            } else {
                return Ok(value);
            }
        }
    }

    fn product(&mut self, depth: usize) -> Result<i64, EvalError> {
        let mut value = self.unary(depth)?;
        loop {
            let op = if self.eat(b'*') {
                b'*'
            } else if self.eat(b'/') {
                b'/'
            } else if self.eat(b'%') {
                b'%'
            } else {
                return Ok(value);
            };
            let rhs = self.unary(depth)?;
            value = match op {
                b'*' => value.checked_mul(rhs).ok_or(EvalError::Overflow)?,
                _ if rhs == 0 => return Err(EvalError::DivisionByZero),
                b'/' => value.checked_div(rhs).ok_or(EvalError::Overflow)?,
                _ => value.checked_rem(rhs).ok_or(EvalError::Overflow)?,
            };
        }
    }

    fn unary(&mut self, depth: usize) -> Result<i64, EvalError> {
        if depth > MAX_DEPTH {
            return Err(EvalError::TooDeep);
        }
        if self.eat(b'-') {
            // `-9223372036854775808` is the negation of a literal that does
            // not fit, so negate a magnitude read as unsigned.
            self.space();
            if self.bytes.get(self.at).is_some_and(u8::is_ascii_digit) {
                let magnitude = self.literal()?;
                return 0i64
                    .checked_sub_unsigned(magnitude)
                    .ok_or(EvalError::Overflow);
            }
            let value = self.unary(depth + 1)?;
            return value.checked_neg().ok_or(EvalError::Overflow);
        }
        self.atom(depth)
    }

    fn atom(&mut self, depth: usize) -> Result<i64, EvalError> {
        self.space();
        match self.bytes.get(self.at) {
            Some(b'(') => {
                self.at += 1;
                let value = self.sum(depth + 1)?;
                if !self.eat(b')') {
                    return Err(self.syntax());
                }
                Ok(value)
            }
            Some(b'0'..=b'9') => {
                let magnitude = self.literal()?;
                i64::try_from(magnitude).map_err(|_| EvalError::Overflow)
            }
            Some(b'a'..=b'z') => self.call(depth),
            _ => Err(self.syntax()),
        }
    }

    /// A decimal or `0x` literal's magnitude.
    fn literal(&mut self) -> Result<u64, EvalError> {
        let (radix, start) = match self.bytes.get(self.at..self.at + 2) {
            Some(b"0x" | b"0X") => (16, self.at + 2),
            _ => (10, self.at),
        };
        let mut end = start;
        while self
            .bytes
            .get(end)
            .is_some_and(|&b| char::from(b).is_digit(radix))
        {
            end += 1;
        }
        if end == start {
            return Err(EvalError::Syntax(end));
        }
        let digits = std::str::from_utf8(&self.bytes[start..end]).expect("ASCII digits");
        self.at = end;
        u64::from_str_radix(digits, radix).map_err(|_| EvalError::Overflow)
    }

    fn call(&mut self, depth: usize) -> Result<i64, EvalError> {
        let start = self.at;
        while self.bytes.get(self.at).is_some_and(u8::is_ascii_lowercase) {
            self.at += 1;
        }
        let name = &self.bytes[start..self.at];
        if !self.eat(b'(') {
            return Err(self.syntax());
        }
        let mut args = vec![self.sum(depth + 1)?];
        while self.eat(b',') {
            args.push(self.sum(depth + 1)?);
        }
        if !self.eat(b')') {
            return Err(self.syntax());
        }
        match (name, args.as_slice()) {
            (b"min", [first, rest @ ..]) => Ok(rest.iter().fold(*first, |m, &x| m.min(x))),
            (b"max", [first, rest @ ..]) => Ok(rest.iter().fold(*first, |m, &x| m.max(x))),
            (b"abs", [x]) => x.checked_abs().ok_or(EvalError::Overflow),
            (b"pow", [base, exp]) => {
                let exp = u32::try_from(*exp).map_err(|_| EvalError::Overflow)?;
                base.checked_pow(exp).ok_or(EvalError::Overflow)
            }
            (b"min" | b"max" | b"abs" | b"pow", _) => Err(EvalError::Syntax(self.at)),
            _ => Err(EvalError::UnknownFunction),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use covcheck_rt::covcheck;

    #[covcheck]
    fn adding_zero_keeps_the_value(text: String) {
        if let Ok(value) = eval(&text) {
            assert_eq!(eval(&format!("{text} + 0")), Ok(value));
            // `*` binds tighter than `+`: this multiplies the last term.
            assert_eq!(eval(&format!("{text}*1")), Ok(value));
        }
    }
}
