//! What a Job is made of, checked: the plan `shootout k8s job` reads from its flags.

use super::memory::Memory;
use super::name::ObjectName;
use engine::LoadSpec;
use std::num::NonZeroU32;
use std::time::Duration;

/// Everything a Job is made of, checked: what `shootout k8s job` read from its flags.
#[derive(Debug, Clone)]
pub struct JobPlan {
    pub name: ObjectName,
    /// None: kubectl's current namespace.
    pub namespace: Option<ObjectName>,
    /// An image with `shootout` on its PATH and `/bin/sh` (deploy/Containerfile).
    pub image: String,
    /// Pods, all at once: one shard each.
    pub shards: NonZeroU32,
    /// The shared start, Unix milliseconds (each pod reads its node's clock).
    pub start_at_unix_ms: u64,
    /// Whole cores per pod, requested and limited alike (the load's event loops).
    pub cpus: NonZeroU32,
    pub memory: Memory,
    /// The whole load, every pod's (each runs its own shard of it).
    pub spec: LoadSpec,
    /// When the Job gives up (see [`super::deadline`]); None: never.
    pub deadline: Option<Duration>,
}
