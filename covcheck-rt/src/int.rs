//! [`Int`]: the integer types covcheck draws, each seen as an *ordinal* in
//! `u128` ([`Ordinal`]).
//!
//! Ordinals preserve order across all widths and signedness (signed values
//! are offset by 2^127), so one [`crate::choice::IntDomain`] implementation
//! serves `u8` through `i128`, and ranges of any of them.

/// A primitive integer type: `u8`, `u16`, `u32`, `u64`, `u128`, `usize`,
/// `i8`, `i16`, `i32`, `i64`, `i128` or `isize`. What
/// [`Source::draw_int`](crate::Source::draw_int) and
/// [`generators::range`](crate::generators::range) take.
///
/// It cannot be implemented outside covcheck, and has no methods of its own:
/// how covcheck maps integers to choices is not part of its API.
pub trait Int: Ordinal {}

impl<T: Ordinal> Int for T {}

/// An integer type as an ordinal in `u128`: the runtime's side of [`Int`].
/// Public in name only (this module is private), which seals [`Int`].
pub trait Ordinal: Copy + Ord + std::fmt::Debug + 'static {
    const BITS: u32;
    const SIGNED: bool;
    const MIN: Self;
    const MAX: Self;
    const ZERO: Self;
    /// An order-preserving map into `u128`.
    fn to_ordinal(self) -> u128;
    /// Inverse of [`Ordinal::to_ordinal`] (only called on ordinals of this type).
    fn from_ordinal(ordinal: u128) -> Self;
}

macro_rules! int_impls {
    (signed: $($s:ty),*; unsigned: $($u:ty),*) => {
        $(impl Ordinal for $s {
            const BITS: u32 = <$s>::BITS;
            const SIGNED: bool = true;
            const MIN: Self = <$s>::MIN;
            const MAX: Self = <$s>::MAX;
            const ZERO: Self = 0;
            fn to_ordinal(self) -> u128 {
                (self as i128 as u128) ^ (1 << 127)
            }
            fn from_ordinal(ordinal: u128) -> Self {
                (ordinal ^ (1 << 127)) as i128 as $s
            }
        })*
        $(impl Ordinal for $u {
            const BITS: u32 = <$u>::BITS;
            const SIGNED: bool = false;
            const MIN: Self = <$u>::MIN;
            const MAX: Self = <$u>::MAX;
            const ZERO: Self = 0;
            fn to_ordinal(self) -> u128 {
                self as u128
            }
            fn from_ordinal(ordinal: u128) -> Self {
                ordinal as $u
            }
        })*
    };
}

int_impls!(signed: i8, i16, i32, i64, i128, isize; unsigned: u8, u16, u32, u64, u128, usize);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ordinals_preserve_order_and_round_trip() {
        let values = [i64::MIN, -2, -1, 0, 1, i64::MAX];
        for pair in values.windows(2) {
            assert!(pair[0].to_ordinal() < pair[1].to_ordinal());
        }
        for v in values {
            assert_eq!(i64::from_ordinal(v.to_ordinal()), v);
        }
        assert_eq!(u128::from_ordinal(u128::MAX.to_ordinal()), u128::MAX);
        assert_eq!(i8::from_ordinal((-128i8).to_ordinal()), -128);
    }
}
