//! # covcheck-protocol
//!
//! What covcheck's programs say to each other and to other tools, as typed
//! serde structs, so that no two of them can drift apart (the role
//! `nextest-metadata` plays for cargo-nextest):
//!
//! - `worker` (hidden from these docs): between `cargo covcheck` and a test
//!   binary — the listing of `#[covcheck]` properties, the request that
//!   turns a property's test into a campaign worker, and the events the
//!   worker prints back.
//! - [`inflight`]: the file in which a worker keeps the input it is running,
//!   so that the supervisor can recover it when the worker dies.
//! - [`seeds`]: the seed files beside a crate's source and the store that
//!   reads and writes them (`cargo test`, `cargo covcheck` and any tool).
//! - [`messages`]: what `cargo covcheck --message-format json` prints, one
//!   JSON object per line, for CI systems, editors and scripts.
//! - [`failure`]: how a property failed, as seed files and messages name it.
//! - [`dictionary`]: token dictionaries in libFuzzer's format.
//! - [`limits`]: the resource limits both sides measure alike.
//! - [`hash`]: the stable hash that names seed files.
//!
//! ## Stability
//!
//! The crate has two levels:
//!
//! - **Stable**: the seed-file format, which carries its own version
//!   ([`seeds::FORMAT_VERSION`]), and the JSON messages, versioned by this
//!   crate's version: a field is only added in a minor release, and
//!   removed or changed in a major one. Their types ([`seeds`],
//!   [`messages`], [`failure`]) are their own and name no wire type.
//! - **Version-locked**: the worker wire format (`worker`) is private to
//!   one covcheck version (the CLI and the runtime it builds into test
//!   binaries come from the same release), may change in any release, and
//!   is hidden from these docs. It converts its types into the messages'
//!   where they are shown to tools.

pub mod dictionary;
pub mod failure;
pub mod hash;
pub mod inflight;
pub mod limits;
pub mod messages;
pub mod seeds;
// Public for cargo-covcheck and covcheck-rt of the same release only: a
// tool that used it would break on any release.
#[doc(hidden)]
pub mod worker;
