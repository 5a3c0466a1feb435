//! `dut` with a magic value instead of a bit pattern (seed 002's harder
//! variant): the bug needs four elements whose low 16 bits all equal
//! `0xBEEF`. One comparison per element gives coverage nothing to climb, so
//! random testing and plain coverage guidance need about 2^16 tries per
//! element; covcheck's input-to-state mutation copies the constant from the
//! comparison into the draw.

/// True when the low 16 bits of `x` are `0xBEEF`.
pub fn magic_filter(x: i64) -> bool {
    x & 0xFFFF == 0xBEEF
}

/// Returns a non-zero value for every input... except one family.
pub fn dut(a: &[i64]) -> i64 {
    if a.len() != 4 {
        return 1;
    }
    if magic_filter(a[0]) {
        if magic_filter(a[1]) {
            if magic_filter(a[2]) {
                if magic_filter(a[3]) {
                    return 0; // The bug.
                }
                return 2;
            }
            return 3;
        }
        return 4;
    }
    5
}

#[cfg(test)]
mod tests {
    use super::dut;
    use covcheck_rt::covcheck;

    #[covcheck]
    fn dut_magic_never_returns_zero(a: Vec<i64>) {
        assert_ne!(dut(&a), 0);
    }
}
