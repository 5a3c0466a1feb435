//! The gates of the benchmark target `mod_gates`, in a dependency of the
//! suite rather than the suite itself: the code under test often sits in a
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
