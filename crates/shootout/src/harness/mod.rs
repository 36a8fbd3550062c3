//! The harness: contestants as their manifests declare them, set up, started, verified.

pub mod experiment;
pub mod layout;
pub mod run;
pub mod verdict;
