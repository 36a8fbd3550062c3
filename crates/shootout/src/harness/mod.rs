//! The harness: contestants as their manifests declare them, set up, started, verified.

pub mod catalog;
pub mod group_cpu;
pub mod manifest;
pub mod process;
pub mod setup;
pub mod verify;
