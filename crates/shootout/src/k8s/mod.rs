//! Generators as a Kubernetes Indexed Job, for fleets: `shootout k8s job` prints one
//! (built from the typed objects of `k8s-openapi`, printed as YAML for `kubectl apply`),
//! whose pod number I runs shard I+1 of the load (its spec in the pod's environment, from
//! a Secret printed before the Job when it carries a client's private key) on a shared
//! start time and prints its
//! JSON result, which a second step collects for `shootout merge` (see [`collect`]).
//! shootout never talks to a cluster itself: the manifest and the steps are the product.

pub mod collect;
mod deadline;
mod job;
mod labels;
mod manifest;
mod manifest_error;
mod memory;
mod name;
mod plan;
mod secret;
mod shard_command;
mod shares;

pub use deadline::deadline;
pub use job::job;
pub use labels::APP_LABELS;
pub use manifest::{from_yaml, manifest, to_yaml, Manifest};
pub use manifest_error::ManifestError;
pub use memory::{Memory, MemoryError};
pub use name::{ObjectName, ObjectNameError};
pub use plan::JobPlan;
pub use secret::SPEC_KEY;
pub use shard_command::{shard_script, INDEX_VAR, SHELL, SPEC_VAR, STDERR_PATH};
pub use shares::{check_shares, ShareError};
