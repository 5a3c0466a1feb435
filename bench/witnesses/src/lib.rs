//! Empty: the witnesses are the tests in `tests/witnesses.rs`.
