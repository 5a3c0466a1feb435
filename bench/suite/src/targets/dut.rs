//! Seed 002's `dut` (low 16 bits all ones, one bit per branch) and
//! `dut_magic` (low 16 bits equal to 0xBEEF): four elements each.

fn all_four(a: &[i64], filter: impl Fn(i64) -> bool) -> bool {
    a.len() == 4 && a.iter().all(|&x| filter(x))
}

fn bit_filter(mut x: i64) -> bool {
    for _ in 0..16 {
        if x & 1 != 1 {
            return false;
        }
        x >>= 1;
    }
    true
}

pub fn check_dut(a: &[i64]) -> Result<(), String> {
    if all_four(a, bit_filter) {
        Err("dut returned zero".into())
    } else {
        Ok(())
    }
}

pub fn check_dut_magic(a: &[i64]) -> Result<(), String> {
    if all_four(a, |x| x & 0xFFFF == 0xBEEF) {
        Err("dut_magic returned zero".into())
    } else {
        Ok(())
    }
}

pub fn size(a: &[i64]) -> usize {
    a.len()
}
