//! The engine's integration tests, as one test binary with a module per topic: one link
//! instead of one per file (a release link with LTO is most of a test file's build).
//! Loads go to loopback only, each bounded in count or time.
//!
//! `tests/allocations.rs` stays a binary of its own: it counts every allocation of the
//! threads that start while its load runs, so no other test may start a thread then.

mod device_load;
mod h2_servers;
mod hpack_allocations;
mod misbehaving_servers;
mod open_loop;
mod polling;
mod sharding;
mod thread_allocations;
mod tls_loads;
mod tls_preflight;
mod tls_test_kit;
mod varying;
mod websocket;
