//! Generators as a Kubernetes Indexed Job, for fleets: `shootout k8s job` prints one
//! (built from the typed objects of `k8s-openapi`, printed as YAML for `kubectl apply`),
//! whose pod number I runs shard I+1 of the load (its spec in the pod's environment) on a
//! shared start time and prints its
//! JSON result, which a second step collects for `shootout merge` (see [`collect`]).
//! shootout never talks to a cluster itself: the manifest and the steps are the product.

pub mod collect;
mod deadline;
mod job;
mod manifest;
mod memory;
mod name;
mod shard_command;
mod shares;

pub use deadline::deadline;
pub use job::{job, JobPlan, APP_LABELS};
pub use manifest::{from_yaml, to_yaml, ManifestError};
pub use memory::{Memory, MemoryError};
pub use name::{ObjectName, ObjectNameError};
pub use shard_command::{shard_script, INDEX_VAR, SHELL, SPEC_VAR, STDERR_PATH};
pub use shares::{check_shares, ShareError};
