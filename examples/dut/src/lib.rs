//! The device under test from "Combining AFL and QuickCheck" (seed 002).
//!
//! `dut` must never return zero, but it does when the slice has exactly four
//! elements whose low 16 bits are all ones: uniformly random inputs hit that
//! once in about 2^64 tries. covcheck's value heuristics (`-1`, `i64::MAX`,
//! `2^k - 1` come up often) make it reachable by plain random testing within a
//! few million cases; coverage guidance (`cargo covcheck`) finds it in
//! thousands.

/// True when the low 16 bits of `x` are all set, checked one bit at a time so
/// that every bit is its own branch for coverage guidance to climb.
pub fn some_filter(mut x: i64) -> bool {
    for _ in 0..16 {
        if x & 1 != 1 {
            return false;
        }
        x >>= 1;
    }
    true
}

/// Returns a non-zero value for every input... except one family.
pub fn dut(a: &[i64]) -> i64 {
    if a.len() != 4 {
        return 1;
    }
    if some_filter(a[0]) {
        if some_filter(a[1]) {
            if some_filter(a[2]) {
                if some_filter(a[3]) {
                    return 0; // The bug: we failed to return non-zero.
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
    fn dut_never_returns_zero(a: Vec<i64>) {
        assert_ne!(dut(&a), 0);
    }
}
