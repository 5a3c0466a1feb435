//! The benchmark targets. Each has a `check` that returns `Err` only on its
//! bug, and a `size` used to score shrinking. Some are old releases of real
//! crates with a published panic (`num_parse`, `length_prefixed`,
//! `format_string`, `png_palette`), whose `check` turns the panic into its `Err` with
//! [`crate::unwind::caught`].

pub mod adler_frame;
pub mod arith_gates;
pub mod bsearch;
pub mod bst;
pub mod checksum;
pub mod crc_chunks;
pub mod dut;
pub mod float_window;
pub mod format_string;
pub mod keyword;
pub mod kv_store;
pub mod length_prefixed;
pub mod long_run;
pub mod mod_gates;
pub mod num_parse;
pub mod png_palette;
pub mod puzzle;
pub mod rbt;
pub mod ring;
pub mod ring32;
pub mod rle;
pub mod shrinking;

// The catalog lives in xtask, which reads it too: xtask is a package of the
// workspace and must build from its own files; this suite is never packaged.
include!("../../../../xtask/src/bench/catalog.rs");
