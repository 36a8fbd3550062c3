//! The contestants: the servers shootout measures, as their manifests declare them
//! (`contestant.toml`), found in a catalog, installed and built, and checked for HTTP.
//! A contestant already running elsewhere is given by its URL (`running`).

pub mod alpn;
pub mod catalog;
pub mod certificates;
pub mod locations;
pub mod manifest;
pub mod running;
pub mod setup;
pub mod setup_all;
#[cfg(test)]
mod setup_fixture;
pub mod setup_plan;
pub mod toolchain;
pub mod verify;
