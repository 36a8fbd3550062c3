//! Processes and threads, at the level of the operating system: pinning a thread to
//! CPUs, and children that die with the harness. The harness's servers and the
//! generators' shards both start here. A contestant's server: launched (`launch`) in
//! its own process group (`server`, `group_guard`), recorded while it runs
//! (`started_servers`), its CPU and memory watched (`group_cpu`, `monitor`), and the other processes' beside it
//! (`foreign_cpu`), and the
//! open files it may hold (`open_file_limit`).

pub mod child_death;
pub mod foreign_cpu;
pub mod group_cpu;
pub mod group_guard;
pub mod launch;
pub mod monitor;
pub mod open_file_limit;
pub mod pinned;
pub mod server;
pub mod started_servers;

pub use child_death::die_with_harness;
pub use pinned::{PinError, Pinned};
