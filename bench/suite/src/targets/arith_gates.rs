//! Four arithmetic gates over `Vec<u32>`, nested one in another, in the
//! path dependency `covcheck-bench-gates` (`bench/suite/gates`): the check
//! fails when all four open. A product and three quotients, each compiled
//! into a comparison whose operands hold neither the element nor the
//! answer: input-to-state has nothing to copy, and must solve.

pub fn check(a: &[u32]) -> Result<(), String> {
    if covcheck_bench_gates::arith_gate(a) {
        return Err(format!("the four gates opened on {:?}", &a[..4]));
    }
    Ok(())
}

pub fn size(a: &[u32]) -> usize {
    a.len()
}
