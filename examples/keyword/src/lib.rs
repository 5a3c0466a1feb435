//! A command parser whose bug hides behind two keywords and a number.
//!
//! `strip_prefix` and `==` on `str` end in `memcmp`/`bcmp`, which
//! SanitizerCoverage's comparison tracing does not see: libFuzzer misses such
//! bugs unless it is given a dictionary. covcheck intercepts those calls, so
//! input-to-state mutation writes `covcheck:` and `explode` into the string,
//! and the integer comparison `n > 1000` is solved the same way.

/// Parses `covcheck:<command>[,<argument>]`.
pub fn parse(input: &str) -> Option<u32> {
    let rest = input.strip_prefix("covcheck:")?;
    let mut parts = rest.split(',');
    let command = parts.next()?;
    if command == "explode" {
        let n: u32 = parts.next()?.parse().ok()?;
        if n > 1000 {
            panic!("boom {n}"); // The bug.
        }
        return Some(n);
    }
    Some(0)
}

#[cfg(test)]
mod tests {
    use covcheck_rt::covcheck;

    #[covcheck]
    fn parse_never_panics(s: String) {
        let _ = super::parse(&s);
    }
}
