//! A load with a client certificate (mTLS) carries the client's private key in its spec.
//! In the Job's environment it would be shown to anyone who may read Jobs or Pods
//! (`kubectl get job -o yaml`, `kubectl describe pod`); the spec goes in a Secret
//! instead, printed before the Job in the same YAML, and the pods' `SHOOTOUT_SPEC` is read
//! from it: Secrets have their own permissions and may be encrypted at rest. A load
//! without a key keeps its spec in the Job, where a reader sees the whole load.

use super::labels::labels;
use super::manifest_error::ManifestError;
use super::plan::JobPlan;
use k8s_openapi::api::core::v1::Secret;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use std::collections::BTreeMap;

/// The Secret's entry that holds the spec.
pub const SPEC_KEY: &str = "spec.json";

/// Whether the plan's spec carries a private key, and so travels in a Secret.
pub fn holds_key(plan: &JobPlan) -> bool {
    plan.spec.tls.client.is_some()
}

/// The Secret named as the Job that holds its spec, when the spec carries a key.
pub fn spec_secret(plan: &JobPlan) -> Result<Option<Secret>, ManifestError> {
    if !holds_key(plan) {
        return Ok(None);
    }
    let spec = serde_json::to_string(&plan.spec).map_err(ManifestError::Spec)?;
    Ok(Some(Secret {
        metadata: ObjectMeta {
            name: Some(plan.name.to_string()),
            namespace: plan.namespace.as_ref().map(ToString::to_string),
            labels: Some(labels(&plan.name)),
            ..ObjectMeta::default()
        },
        type_: Some("Opaque".into()),
        string_data: Some(BTreeMap::from([(SPEC_KEY.to_string(), spec)])),
        ..Secret::default()
    }))
}
