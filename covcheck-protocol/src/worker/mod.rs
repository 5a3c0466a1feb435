//! What `cargo covcheck` and a test binary say to each other: the worker
//! wire format.
//!
//! The CLI never parses Rust to find properties: it runs each built test
//! binary with [`LIST_ENV`] set, and every `#[covcheck]` property registered
//! in it prints one [`LIST_PREFIX`] line ([`listing`]). To run a campaign
//! it starts the binary on one property (`<binary> --exact <test name>`)
//! with [`WORKER_ENV`] naming a [`WorkerConfig`] file ([`request`]); the
//! property's test function then becomes a campaign worker and reports
//! [`Event`]s as [`EVENT_PREFIX`] lines on stdout ([`event`]), its
//! [`Progress`] among them ([`progress`]). Anything else the property
//! prints is left alone.
//!
//! These types are shared by both sides so they cannot drift apart. They
//! are version-locked: `cargo-covcheck` talks only to test binaries built
//! with the `covcheck-rt` of its own release, so this format may change in
//! any release, and it is hidden from the documentation. Tools read
//! [`crate::messages`] and [`crate::seeds`] instead, whose types are their
//! own; the conversions from these types to the messages' live here, so
//! that the stable side never names a wire type.

pub mod event;
pub mod listing;
pub mod progress;
pub mod request;

pub use event::{
    CoveringInput, EVENT_PREFIX, Event, FailureKind, Finding, MinimizeReport, ReachReport,
    ReachedCounter, SeedResult, SuiteStats, emit, parse_event,
};
pub use listing::{LIST_ENV, LIST_PREFIX, ListedProperty, parse_listing};
pub use progress::{
    CostPoint, CostProfile, CostliestInput, FailureHits, Progress, TOP_TOKENS, TargetBest,
    TokenUse, top_tokens,
};
pub use request::{
    CAMPAIGN_MAX_LEN, EXIT_OUT_OF_MEMORY, EXIT_TIMEOUT, WORKER_ENV, WorkerConfig, WorkerMode,
};
