//! The gates of the benchmark targets `mod_gates` and `arith_gates`, in a
//! dependency of the suite rather than the suite itself: the code under test often sits in a
//! dependency, whose literals a campaign reads from the dependency's source.
//! LLVM compiles `x % C == K` into a multiply and a compare whose operands
//! no longer hold `K`, so comparison tracing has nothing to copy.

/// Opens when four elements pass four modular gates, each one nested in the last.
pub fn gate(a: &[u32]) -> bool {
    a.len() >= 4
        && a[0] % 65521 == 40503
        && a[1] % 7919 == 3571
        && a[2] % 65521 == 22222
        && a[3] % 1000003 == 777777
}

/// Opens when four elements pass four arithmetic gates, each one nested in
/// the last, as unit conversions and bucketing compute them: a product with
/// an even factor (LLVM folds an odd one into the constant, not an even
/// one), a quotient (compiled into the range check `x - 777_000 < 1000`), a
/// quotient by a power of two (`x & !15 == 1_599_984`) and one by a small
/// divisor. No compared value is an element, and no constant the answer.
pub fn arith_gate(a: &[u32]) -> bool {
    a.len() >= 4
        && u64::from(a[0]) * 12 == 7_200_000
        && a[1] / 1000 == 777
        && a[2] / 16 == 99_999
        && a[3] / 7 == 5_555
}
