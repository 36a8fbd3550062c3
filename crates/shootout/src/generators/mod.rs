//! Where a load comes from: the harness's own process (the default), several local
//! processes, hosts over SSH, or a Kubernetes Indexed Job. Every generator but the first
//! runs shards: ordinary `shootout load --shard I/N --start-at T --json` processes whose
//! results come back and merge exactly (`engine::merge`).

mod choose;
pub mod fleet;
mod launcher;
mod local;
mod shard_args;
mod spec;
pub mod ssh;

pub use choose::{launcher, ChooseError};
pub use fleet::{FleetError, ShardFailure};
pub use launcher::Launcher;
pub use local::LocalLauncher;
pub use shard_args::{shard_args, ShardArgsError};
pub use spec::{Generators, GeneratorsError, SshHost};
