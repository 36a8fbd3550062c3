//! Processes and threads, at the level of the operating system: pinning a thread to
//! CPUs, and children that die with the harness. The harness's servers and the
//! generators' shards both start here.

pub mod child_death;
pub mod pinned;

pub use child_death::die_with_harness;
pub use pinned::{PinError, Pinned};
