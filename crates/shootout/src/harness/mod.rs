//! The harness: contestants as their manifests declare them, set up, started, verified.

pub mod experiment;
pub mod group_cpu;
pub mod group_guard;
pub mod launch;
pub mod layout;
pub mod monitor;
pub mod open_file_limit;
pub mod process;
pub mod run;
pub mod started_servers;
pub mod verdict;
