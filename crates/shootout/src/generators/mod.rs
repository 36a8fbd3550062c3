//! Where a load comes from: the harness's own process (the default), several local
//! processes, hosts over SSH, or a Kubernetes Indexed Job. Every generator but the first
//! runs shards: ordinary `shootout load --spec - --shard I/N --start-at T --json`
//! processes, the load's `engine::LoadSpec` as JSON on their input, whose results come
//! back and merge exactly (`engine::merge`).

mod choose;
pub mod fleet;
mod launcher;
mod local;
mod spec;
pub mod ssh;

pub use choose::{launcher, ChooseError};
pub use fleet::{FleetError, ShardFailure};
pub use launcher::{Launcher, ShardCommand};
pub use local::LocalLauncher;
pub use spec::{Generators, GeneratorsError, SshHost};
