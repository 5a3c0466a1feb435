//! libFuzzer's harness for the benchmark suite, with `arbitrary` building
//! each target's input from the fuzzer's bytes (`arbitrary_take_rest`, as
//! `fuzz_target!(|input: T| ..)` does). One binary serves every target: the
//! target is named by `BENCH_TARGET`, the bug by `BENCH_BUG`.
//!
//! `cargo xtask bench` builds it on nightly with cargo-fuzz's flags
//! (SanitizerCoverage without AddressSanitizer, like `cargo fuzz -s none`).

#![no_main]

use arbitrary::{Arbitrary, Unstructured};
use covcheck_bench_suite::{fixed, probe};
use covcheck_bench_suite::targets::*;
use libfuzzer_sys::fuzz_target;

fn run(outcome: Result<(), String>, size: usize) {
    if let Err(message) = probe::check(|| outcome, || size) {
        panic!("{message}");
    }
}

/// Runs `check` on the input `T` decoded from `data`.
fn with<'a, T: Arbitrary<'a>>(data: &'a [u8], check: impl FnOnce(T)) {
    if let Ok(input) = T::arbitrary_take_rest(Unstructured::new(data)) {
        check(input);
    }
}

/// `ring32`'s operations, with `arbitrary`'s derived generator.
#[derive(Arbitrary, Clone, Copy, Debug)]
enum Op {
    Push(u8),
    Pop,
}

impl From<Op> for ring32::Op {
    fn from(op: Op) -> Self {
        match op {
            Op::Push(x) => ring32::Op::Push(x),
            Op::Pop => ring32::Op::Pop,
        }
    }
}

fn target() -> &'static str {
    static TARGET: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    TARGET.get_or_init(|| std::env::var("BENCH_TARGET").expect("set BENCH_TARGET"))
}

fuzz_target!(|data: &[u8]| {
    match target() {
        "dut" => with(data, |a: Vec<i64>| run(dut::check_dut(&a), dut::size(&a))),
        "dut_magic" => with(data, |a: Vec<i64>| {
            run(dut::check_dut_magic(&a), dut::size(&a))
        }),
        "bst" => with(data, |ops: Vec<(u8, u8, u8)>| {
            run(bst::check(&ops), bst::size(&ops))
        }),
        "rbt" => with(data, |ins: Vec<(u8, u8)>| {
            run(rbt::check(&ins), rbt::size(&ins))
        }),
        "puzzle" => with(data, |items: Vec<(u8, u8)>| {
            run(puzzle::check(&items), puzzle::size(&items))
        }),
        "checksum" => with(data, |p: Vec<u8>| {
            run(checksum::check(&p), checksum::size(&p))
        }),
        "rle" => with(data, |s: Vec<(u8, u16)>| run(rle::check(&s), rle::size(&s))),
        "ring" => with(data, |ops: Vec<(bool, u8)>| {
            run(ring::check(&ops), ring::size(&ops))
        }),
        "bsearch" => with(data, |(len, t): (u64, u64)| run(bsearch::check(len, t), 1)),
        "float_window" => with(data, |(x, y): (f64, f64)| run(float_window::check(x, y), 1)),
        "num_parse" => with(data, |s: String| {
            run(num_parse::check(&s), num_parse::size(&s))
        }),
        "length_prefixed" => with(data, |r: Vec<u8>| {
            run(length_prefixed::check(&r), length_prefixed::size(&r))
        }),
        "format_string" => with(data, |t: String| {
            run(format_string::check(&t), format_string::size(&t))
        }),
        "long_run" => with(data, |d: Vec<u8>| {
            run(long_run::check(&d), long_run::size(&d))
        }),
        "ring32" => with(data, |ops: Vec<Op>| {
            run(ring32::check(&ops), ring32::size(&ops))
        }),
        "keyword" => with(data, |s: String| run(keyword::check(&s), keyword::size(&s))),
        "adler_frame" => with(data, |f: Vec<u8>| {
            run(adler_frame::check(&f), adler_frame::size(&f))
        }),
        "crc_chunks" => with(data, |s: Vec<u8>| {
            run(crc_chunks::check(&s), crc_chunks::size(&s))
        }),
        "mod_gates" => with(data, |a: Vec<u32>| {
            run(mod_gates::check(&a), mod_gates::size(&a))
        }),
        "arith_gates" => with(data, |a: Vec<u32>| {
            run(arith_gates::check(&a), arith_gates::size(&a))
        }),
        "png_palette" => with(data, |i: Vec<u8>| {
            run(png_palette::check(&i), png_palette::size(&i))
        }),
        "bound5" => with(data, |l: [Vec<i16>; 5]| {
            run(shrinking::check_bound5(&l), shrinking::size_bound5(&l))
        }),
        "reverse" => with(data, |xs: Vec<i32>| {
            run(shrinking::check_reverse(&xs), shrinking::size_reverse(&xs))
        }),
        "large_union_list" => with(data, |l: Vec<Vec<i32>>| {
            run(
                shrinking::check_large_union_list(&l),
                shrinking::size_large_union_list(&l),
            )
        }),
        "difference" => with(data, |(x, y): (i32, i32)| {
            run(
                shrinking::check_difference(x, y),
                shrinking::size_difference(x, y),
            )
        }),
        "calculator" => with(data, |p: Vec<(u8, i8)>| {
            run(
                shrinking::check_calculator(&p),
                shrinking::size_calculator(&p),
            )
        }),
        name if fixed::run(name, &fixed::padded(data)) => {}
        other => panic!("unknown BENCH_TARGET {other}"),
    }
});
