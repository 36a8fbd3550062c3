//! The Indexed Job itself, from a [`JobPlan`]: N pods at once, pod I running shard I+1.

use super::labels::labels;
use super::manifest_error::ManifestError;
use super::name::ObjectName;
use super::plan::JobPlan;
use super::secret::{holds_key, SPEC_KEY};
use super::shard_command::{shard_script, INDEX_VAR, SHELL, SPEC_VAR, STDERR_PATH};
use k8s_openapi::api::batch::v1::{Job, JobSpec};
use k8s_openapi::api::core::v1::{
    Affinity, Capabilities, Container, EnvVar, EnvVarSource, ObjectFieldSelector, PodAffinityTerm,
    PodAntiAffinity, PodSpec, PodTemplateSpec, ResourceRequirements, SecretKeySelector,
    SecurityContext, WeightedPodAffinityTerm,
};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{LabelSelector, ObjectMeta};
use std::collections::BTreeMap;

/// Where the pod's completion index is, for the downward API.
const INDEX_FIELD: &str = "metadata.annotations['batch.kubernetes.io/job-completion-index']";

/// The Job: completion mode Indexed, completions = parallelism = shards, no retries
/// (a retried shard would start after the barrier and be merged as if it had not).
pub fn job(plan: &JobPlan) -> Result<Job, ManifestError> {
    let shards = i32::try_from(plan.shards.get()).unwrap_or(i32::MAX);
    let spec = spec_env(plan)?;
    Ok(Job {
        metadata: ObjectMeta {
            name: Some(plan.name.to_string()),
            namespace: plan.namespace.as_ref().map(ObjectName::to_string),
            labels: Some(labels(&plan.name)),
            ..ObjectMeta::default()
        },
        spec: Some(JobSpec {
            completion_mode: Some("Indexed".into()),
            completions: Some(shards),
            parallelism: Some(shards),
            backoff_limit: Some(0),
            active_deadline_seconds: plan.deadline.map(|d| d.as_secs() as i64),
            template: pod_template(plan, spec),
            ..JobSpec::default()
        }),
        status: None,
    })
}

fn pod_template(plan: &JobPlan, spec: EnvVar) -> PodTemplateSpec {
    PodTemplateSpec {
        metadata: Some(ObjectMeta {
            labels: Some(labels(&plan.name)),
            ..ObjectMeta::default()
        }),
        spec: Some(PodSpec {
            restart_policy: Some("Never".into()),
            affinity: Some(one_pod_per_node(&plan.name)),
            containers: vec![container(plan, spec)],
            ..PodSpec::default()
        }),
    }
}

/// Shards on different nodes where the cluster has room: a generator's point is cores
/// and a network card of its own (the articles' separate load machines).
fn one_pod_per_node(name: &ObjectName) -> Affinity {
    let instance = BTreeMap::from([("app.kubernetes.io/instance".into(), name.to_string())]);
    Affinity {
        pod_anti_affinity: Some(PodAntiAffinity {
            preferred_during_scheduling_ignored_during_execution: Some(vec![
                WeightedPodAffinityTerm {
                    weight: 100,
                    pod_affinity_term: PodAffinityTerm {
                        label_selector: Some(LabelSelector {
                            match_labels: Some(instance),
                            ..LabelSelector::default()
                        }),
                        topology_key: "kubernetes.io/hostname".into(),
                        ..PodAffinityTerm::default()
                    },
                },
            ]),
            ..PodAntiAffinity::default()
        }),
        ..Affinity::default()
    }
}

/// `/bin/sh -c SCRIPT shootout`, the load's spec (JSON) in its environment.
fn container(plan: &JobPlan, spec: EnvVar) -> Container {
    Container {
        name: "shootout".into(),
        image: Some(plan.image.clone()),
        command: Some(vec![
            SHELL.into(),
            "-c".into(),
            shard_script(plan.shards, plan.start_at_unix_ms),
            "shootout".into(),
        ]),
        env: Some(vec![index_env(), spec]),
        resources: Some(resources(plan)),
        termination_message_path: Some(STDERR_PATH.into()),
        security_context: Some(unprivileged()),
        ..Container::default()
    }
}

/// `SHOOTOUT_SPEC`: the spec as JSON, or a reference to the Secret that holds it when it
/// carries a private key (super::secret).
fn spec_env(plan: &JobPlan) -> Result<EnvVar, ManifestError> {
    if holds_key(plan) {
        return Ok(EnvVar {
            name: SPEC_VAR.into(),
            value_from: Some(EnvVarSource {
                secret_key_ref: Some(SecretKeySelector {
                    name: plan.name.to_string(),
                    key: SPEC_KEY.into(),
                    optional: None,
                }),
                ..EnvVarSource::default()
            }),
            ..EnvVar::default()
        });
    }
    Ok(EnvVar {
        name: SPEC_VAR.into(),
        value: Some(serde_json::to_string(&plan.spec).map_err(ManifestError::Spec)?),
        ..EnvVar::default()
    })
}

fn index_env() -> EnvVar {
    EnvVar {
        name: INDEX_VAR.into(),
        value_from: Some(EnvVarSource {
            field_ref: Some(ObjectFieldSelector {
                api_version: None,
                field_path: INDEX_FIELD.into(),
            }),
            ..EnvVarSource::default()
        }),
        ..EnvVar::default()
    }
}

/// Requests equal to limits (the Guaranteed class): a generator throttled or squeezed
/// by its neighbours would measure itself, not the server.
fn resources(plan: &JobPlan) -> ResourceRequirements {
    let amounts = BTreeMap::from([
        ("cpu".to_string(), Quantity(plan.cpus.to_string())),
        ("memory".to_string(), Quantity(plan.memory.to_string())),
    ]);
    ResourceRequirements {
        requests: Some(amounts.clone()),
        limits: Some(amounts),
        ..ResourceRequirements::default()
    }
}

/// A load generator needs no privilege: it raises its open-file limit only up to the
/// hard limit, and writes no file.
fn unprivileged() -> SecurityContext {
    SecurityContext {
        allow_privilege_escalation: Some(false),
        read_only_root_filesystem: Some(true),
        run_as_non_root: Some(true),
        capabilities: Some(Capabilities {
            drop: Some(vec!["ALL".into()]),
            ..Capabilities::default()
        }),
        ..SecurityContext::default()
    }
}
