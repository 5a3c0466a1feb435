//! covcheck's harness: one property per target, with covcheck's default
//! generators. `cargo xtask bench` runs it under plain `cargo test`
//! (`COVCHECK_CASES`, `COVCHECK_SEED`) and under `cargo covcheck`.

use covcheck_bench_suite::targets::*;
use covcheck_bench_suite::{probe, unwind};
use covcheck_rt::stateful::{Commands, Model, System};
use covcheck_rt::{Generate, Source, covcheck};

fn run(outcome: Result<(), String>, size: usize) {
    if let Err(message) = probe::check(|| outcome, || size) {
        panic!("{message}");
    }
}

#[covcheck]
fn dut(a: Vec<i64>) {
    run(dut::check_dut(&a), dut::size(&a));
}

#[covcheck]
fn dut_magic(a: Vec<i64>) {
    run(dut::check_dut_magic(&a), dut::size(&a));
}

#[covcheck]
fn bst(ops: Vec<(u8, u8, u8)>) {
    run(bst::check(&ops), bst::size(&ops));
}

#[covcheck]
fn rbt(inserts: Vec<(u8, u8)>) {
    run(rbt::check(&inserts), rbt::size(&inserts));
}

#[covcheck]
fn puzzle(items: Vec<(u8, u8)>) {
    run(puzzle::check(&items), puzzle::size(&items));
}

#[covcheck]
fn checksum(packet: Vec<u8>) {
    run(checksum::check(&packet), checksum::size(&packet));
}

#[covcheck]
fn rle(segments: Vec<(u8, u16)>) {
    run(rle::check(&segments), rle::size(&segments));
}

#[covcheck]
fn ring(ops: Vec<(bool, u8)>) {
    run(ring::check(&ops), ring::size(&ops));
}

#[covcheck]
fn bsearch(len: u64, target: u64) {
    run(bsearch::check(len, target), 1);
}

#[covcheck]
fn float_window(x: f64, y: f64) {
    run(float_window::check(x, y), 1);
}

#[covcheck]
fn num_parse(text: String) {
    run(num_parse::check(&text), num_parse::size(&text));
}

#[covcheck]
fn length_prefixed(record: Vec<u8>) {
    run(
        length_prefixed::check(&record),
        length_prefixed::size(&record),
    );
}

#[covcheck]
fn format_string(template: String) {
    run(
        format_string::check(&template),
        format_string::size(&template),
    );
}

#[covcheck]
fn long_run(data: Vec<u8>) {
    run(long_run::check(&data), long_run::size(&data));
}

/// `ring32`'s operations, with covcheck's derived generator.
#[derive(Clone, Copy, Debug, Generate)]
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

#[covcheck]
fn ring32(ops: Vec<Op>) {
    run(ring32::check(&ops), ring32::size(&ops));
}

#[covcheck]
fn keyword(text: String) {
    run(keyword::check(&text), keyword::size(&text));
}

#[covcheck]
fn adler_frame(frame: Vec<u8>) {
    run(adler_frame::check(&frame), adler_frame::size(&frame));
}

#[covcheck]
fn crc_chunks(stream: Vec<u8>) {
    run(crc_chunks::check(&stream), crc_chunks::size(&stream));
}

#[covcheck]
fn mod_gates(a: Vec<u32>) {
    run(mod_gates::check(&a), mod_gates::size(&a));
}

#[covcheck]
fn arith_gates(a: Vec<u32>) {
    run(arith_gates::check(&a), arith_gates::size(&a));
}

#[covcheck]
fn png_palette(image: Vec<u8>) {
    run(png_palette::check(&image), png_palette::size(&image));
}

/// `kv_store`'s model, as in `examples/kv_store`: a `BTreeMap`; puts,
/// gets and deletes equally likely, of any `u16` key, with values 0-1000.
struct KvModel;

impl Model for KvModel {
    type State = kv_store::Map;
    type Command = kv_store::Op;
    type Output = Option<u32>;

    fn init() -> kv_store::Map {
        kv_store::Map::new()
    }

    fn command(_: &kv_store::Map, src: &mut Source) -> kv_store::Op {
        match src.draw_variant(3, 3) {
            0 => kv_store::Op::Put {
                key: src.draw_int(0, u16::MAX),
                value: src.draw_int(0, 1000),
            },
            1 => kv_store::Op::Get {
                key: src.draw_int(0, u16::MAX),
            },
            _ => kv_store::Op::Delete {
                key: src.draw_int(0, u16::MAX),
            },
        }
    }

    fn precondition(state: &kv_store::Map, op: &kv_store::Op) -> bool {
        kv_store::precondition(state, op)
    }

    fn apply(state: &mut kv_store::Map, op: &kv_store::Op) -> Option<u32> {
        kv_store::apply(state, op)
    }
}

/// The store under test, driven by [`KvModel`]'s commands.
struct KvSystem(kv_store::KvStore);

impl System for KvSystem {
    type Model = KvModel;

    fn new() -> Self {
        KvSystem(kv_store::KvStore::new())
    }

    fn run(&mut self, op: &kv_store::Op) -> Option<u32> {
        kv_store::run(&mut self.0, op)
    }

    fn check(&self, state: &kv_store::Map) {
        if let Err(message) = kv_store::invariant(&self.0, state) {
            panic!("{message}");
        }
    }
}

/// The sequence's panic (a result unlike the model's, or a lost key) is
/// caught and handed to the probe as the check's failure; its size is the
/// number of commands.
#[covcheck]
fn kv_store(commands: Commands<KvSystem>) {
    run(
        unwind::caught(|| commands.run()),
        kv_store::size(commands.commands()),
    );
}

#[covcheck]
fn bound5(lists: [Vec<i16>; 5]) {
    run(
        shrinking::check_bound5(&lists),
        shrinking::size_bound5(&lists),
    );
}

#[covcheck]
fn reverse(xs: Vec<i32>) {
    run(shrinking::check_reverse(&xs), shrinking::size_reverse(&xs));
}

#[covcheck]
fn large_union_list(lists: Vec<Vec<i32>>) {
    run(
        shrinking::check_large_union_list(&lists),
        shrinking::size_large_union_list(&lists),
    );
}

#[covcheck]
fn difference(x: i32, y: i32) {
    run(
        shrinking::check_difference(x, y),
        shrinking::size_difference(x, y),
    );
}

#[covcheck]
fn calculator(program: Vec<(u8, i8)>) {
    run(
        shrinking::check_calculator(&program),
        shrinking::size_calculator(&program),
    );
}

/// Not a target: a property that does nothing, for the costs table.
#[covcheck(seed = 1)]
fn trivial(x: u64) {
    std::hint::black_box(x);
}

// Not targets: fixed-length inputs for `cargo xtask throughput` (see
// `covcheck_bench_suite::fixed`). Each property's name is the target it runs.

use covcheck_bench_suite::fixed;

#[covcheck]
fn fixed_trivial(bytes: [u8; fixed::LEN]) {
    fixed::trivial(&bytes);
}

#[covcheck]
fn fixed_num_parse(bytes: [u8; fixed::LEN]) {
    fixed::num_parse(&bytes);
}

#[covcheck]
fn fixed_length_prefixed(bytes: [u8; fixed::LEN]) {
    fixed::length_prefixed(&bytes);
}

#[covcheck]
fn fixed_format_string(bytes: [u8; fixed::LEN]) {
    fixed::format_string(&bytes);
}
