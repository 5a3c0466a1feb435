//! `dut` with a full 64-bit magic constant per element, a different one each:
//! uniformly random testing would need 2^256 tries. Coverage guidance alone
//! gains nothing from a failed 64-bit equality; comparison tracing sees the
//! constant and input-to-state mutation writes it into the element.

/// The value each of the four elements must have.
pub const MAGIC: [i64; 4] = [
    0x1234_5678_9abc_def0,
    0xdead_beef_cafe_babe_u64 as i64,
    0x0123_4567_89ab_cdef,
    0x7f7f_0000_ffff_1234,
];

/// Returns a non-zero value for every input... except one.
pub fn dut(a: &[i64]) -> i64 {
    if a.len() != 4 {
        return 1;
    }
    if a[0] == MAGIC[0] {
        if a[1] == MAGIC[1] {
            if a[2] == MAGIC[2] {
                if a[3] == MAGIC[3] {
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
    fn dut_magic64_never_returns_zero(a: Vec<i64>) {
        assert_ne!(dut(&a), 0);
    }
}
