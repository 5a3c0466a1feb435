//! A number parser from crates.io: `rust_decimal` 1.37.1's `Decimal::from_str`.
//! A number below one whose digits run past the 28 that a `Decimal` keeps,
//! with a `_` separator where it rounds (`0.1234567890123456789012345678_9`),
//! reaches a scale of 29 and panics ("Scale exceeds maximum supported
//! scale") instead of rounding: paupino/rust-decimal#715, fixed in 1.37.2
//! (#731). Every other string parses or is rejected with an error.

use std::str::FromStr;

use rust_decimal::Decimal;

use crate::unwind::caught;

pub fn check(text: &str) -> Result<(), String> {
    caught(|| Decimal::from_str(text)).map(|_| ())
}

pub fn size(text: &str) -> usize {
    text.len()
}
