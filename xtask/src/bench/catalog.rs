// The targets `cargo xtask bench` runs; bench/suite shares this file through `include!`.

/// Every target and bug: `(target, bug)`. A target with several bugs appears
/// once per bug; the bug name goes to `BENCH_BUG`.
pub const ALL: &[(&str, &str)] = &[
    ("dut", ""),
    ("dut_magic", ""),
    ("bst", "bst_insert_keeps_old_value"),
    ("bst", "bst_delete_two_children_loses_right"),
    ("bst", "bst_insert_wrong_side_when_deep"),
    ("bst", "bst_union_loses_right_subtree"),
    ("bst", "bst_delete_root_ignored"),
    ("rbt", "rbt_root_left_red"),
    ("rbt", "rbt_new_node_black"),
    ("rbt", "rbt_balance_misses_left_left"),
    ("rbt", "rbt_balance_swaps_subtrees"),
    ("rbt", "rbt_insert_keeps_old_value"),
    ("puzzle", ""),
    ("checksum", ""),
    ("rle", ""),
    ("ring", ""),
    ("bsearch", ""),
    ("float_window", ""),
    ("num_parse", ""),
    ("length_prefixed", ""),
    ("format_string", ""),
    ("long_run", ""),
    ("ring32", ""),
    ("keyword", ""),
    ("adler_frame", ""),
    ("crc_chunks", ""),
    ("mod_gates", ""),
    ("arith_gates", ""),
    ("png_palette", ""),
    ("kv_store", "kv_store_stale_shift_mask"),
    ("bound5", ""),
    ("reverse", ""),
    ("large_union_list", ""),
    ("difference", ""),
    ("calculator", ""),
];

/// Targets scored by the size of the final counterexample rather than by
/// the time to find a failure.
pub const SHRINKING: &[&str] = &[
    "bound5",
    "reverse",
    "large_union_list",
    "difference",
    "calculator",
];

/// Targets that only some tools run, with those tools; every other target
/// runs under all of them. `kv_store` is a state machine whose commands are
/// drawn from the model's state as it goes: covcheck (`Commands`) and
/// proptest (proptest-state-machine) have runners for that, quickcheck and
/// libFuzzer do not.
pub const TOOLS_OF: &[(&str, &[&str])] =
    &[("kv_store", &["covcheck", "covcheck-campaign", "proptest"])];

/// Not bugs: the fixed-length targets of `cargo xtask throughput`
/// (`bench/suite/src/fixed.rs`), which measure executions per second on
/// inputs of [`FIXED_LEN`] bytes in every tool.
pub const FIXED: &[&str] = &[
    "fixed_trivial",
    "fixed_num_parse",
    "fixed_length_prefixed",
    "fixed_format_string",
];

/// The length of every input of the [`FIXED`] targets.
pub const FIXED_LEN: usize = 64;
