//! The benchmark's peer harnesses are in `tests/`; this crate has no library code.
