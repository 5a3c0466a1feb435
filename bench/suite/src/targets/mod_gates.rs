//! Four modular arithmetic gates over `Vec<u32>`, nested one in another, in
//! the path dependency `covcheck-bench-gates` (`bench/suite/gates`): the
//! check fails when all four open. Each gate is `x % C == K`, which LLVM
//! compiles into a multiply and a compare whose operands no longer hold
//! `K`, so comparison tracing sees nothing to copy into the input; the
//! constants are in the dependency's source only.

pub fn check(a: &[u32]) -> Result<(), String> {
    if covcheck_bench_gates::gate(a) {
        return Err(format!("the four gates opened on {:?}", &a[..4]));
    }
    Ok(())
}

pub fn size(a: &[u32]) -> usize {
    a.len()
}
