//! Where a load comes from: the harness's own process (the default), several local
//! processes, hosts over SSH, or a Kubernetes Indexed Job. Every generator but the first
//! runs shards: ordinary `shootout load --shard I/N --start-at T --json` processes whose
//! results come back and merge exactly (`engine::merge`).

mod launcher;
mod spec;
pub mod ssh;

pub use launcher::Launcher;
pub use spec::{Generators, GeneratorsError, SshHost};
