//! A suite of properties for measuring how a campaign scheduler shares one
//! time budget among many properties.
//!
//! The library is a handful of small, realistic modules (codecs, parsers,
//! a checksum, a bit set, a ring buffer, a calculator), each with its
//! `#[covcheck]` properties beside it: 25 in all. Nineteen hold for every
//! input, some of them tiny (their coverage stops growing after a few
//! hundred executions) and some over a tokenizer or parser whose coverage
//! keeps growing for a while. Six fail, each on one planted bug of a known
//! depth, measured as the executions a campaign
//! (`cargo covcheck <property> --runs 300000 --seed S -j 1 --no-resume`)
//! needs to find it:
//!
//! | property | module | the bug | depth |
//! |---|---|---|---|
//! | `ring_behaves_like_a_bounded_deque` | [`ring`] | a full ring accepts one more push, overwriting its oldest item | shallow |
//! | `complement_holds_the_other_bits` | [`bitset`] | the complement sets the unused bits of the last word | shallow |
//! | `decoded_varints_reencode_no_longer` | [`varint`] | an off-by-one in the length limit lets an eleventh group shift by 70 bits | medium |
//! | `base64_decoding_is_one_to_one` | [`base64`] | more than two `=` of padding underflow the output length | medium |
//! | `loaded_settings_are_consistent` | [`config`] | a `timeout` in seconds past `u32::MAX / 1000` overflows the milliseconds | deep |
//! | `table_frames_account_for_every_byte` | [`packet`] | a record bound that forgets the record header slices past the payload | deep |
//!
//! Shallow is found within a few hundred executions, medium after one to
//! ten thousand, deep after more than ten thousand but within 300,000 on
//! every seed measured. The names of the properties do not tell which ones
//! fail; this table does. Each bug is marked "Planted bug" where it is.
//!
//! `tests/witnesses.rs` shows each bug with an ordinary `#[test]` on an
//! input that triggers it, asserting that the bug is there: those tests
//! pass. They build their inputs from the library's own constants and
//! from arithmetic rather than spelling them out, because `cargo covcheck`
//! reads the literals of every target of the package (`tests/` included)
//! into the campaign's dictionary, and a witness that spelled its input
//! would hand the campaign the answer.
//!
//! Plain `cargo test` runs each property on 256 random cases, so it fails
//! on purpose whenever random testing finds a planted bug: the shallow
//! ones nearly always, the deeper ones essentially never.

pub mod arith;
pub mod base64;
pub mod bitset;
pub mod checksum;
pub mod clock;
pub mod config;
pub mod expr;
pub mod hex;
pub mod lexer;
pub mod packet;
pub mod ring;
pub mod rle;
pub mod varint;
