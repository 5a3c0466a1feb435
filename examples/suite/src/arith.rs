//! Integer helpers: a floor square root, a greatest common divisor and a
//! percentage that cannot overflow.

/// The largest `r` with `r * r <= n`.
pub fn isqrt(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    // Newton's iteration from above, on a first guess that is never too small.
    let mut x = 1u64 << (64 - n.leading_zeros()).div_ceil(2);
    loop {
        let y = (x + n / x) / 2;
        if y >= x {
            return x;
        }
        x = y;
    }
}

/// Euclid's algorithm; `gcd(0, 0)` is 0.
pub fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// `percent` percent of `value`, rounded down, computed in 64 bits so that
/// the product cannot overflow. Saturates above `u32::MAX`.
pub fn percent_of(value: u32, percent: u16) -> u32 {
    let wide = u64::from(value) * u64::from(percent) / 100;
    u32::try_from(wide).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;
    use covcheck_rt::covcheck;

    #[covcheck]
    fn isqrt_is_the_floor_square_root(n: u64) {
        let r = u128::from(isqrt(n));
        assert!(r * r <= u128::from(n));
        assert!((r + 1) * (r + 1) > u128::from(n));
    }

    #[covcheck]
    fn gcd_divides_both_arguments(a: u64, b: u64) {
        let g = gcd(a, b);
        if g == 0 {
            assert_eq!((a, b), (0, 0));
        } else {
            assert_eq!(a % g, 0);
            assert_eq!(b % g, 0);
            assert_eq!(gcd(a / g, b / g), 1);
        }
    }

    #[covcheck]
    fn percent_of_value_is_at_most_value(value: u32, percent: u16) {
        let part = percent_of(value, percent);
        if percent <= 100 {
            assert!(part <= value);
        } else {
            assert!(part >= value);
        }
    }
}
