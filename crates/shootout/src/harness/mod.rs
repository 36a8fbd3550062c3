//! The harness: contestants as their manifests declare them, set up, started, verified.

pub mod catalog;
pub mod cores;
pub mod experiment;
pub mod group_cpu;
pub mod group_guard;
pub mod host_noise;
pub mod idle;
pub mod launch;
pub mod layout;
pub mod machine_lock;
pub mod manifest;
pub mod monitor;
pub mod open_file_limit;
pub mod places;
pub mod process;
pub mod process_identity;
pub mod run;
pub mod running;
pub mod setup;
pub mod setup_all;
#[cfg(test)]
mod setup_fixture;
pub mod setup_plan;
pub mod started_servers;
pub mod toolchain;
pub mod verdict;
pub mod verify;
