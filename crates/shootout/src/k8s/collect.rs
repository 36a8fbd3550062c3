//! The second step: once the Job is complete, each pod's log (its stdout: the shard's
//! JSON result, nothing else) into a file per shard, and `shootout merge` over them.
//! Printed by `shootout k8s job` with the Job's own name, namespace and shard count.

use super::plan::JobPlan;
use super::secret::holds_key;
use std::fmt::Write;

/// The shell commands that apply the Job, wait for it, collect each shard's result and
/// merge them, e.g. for a Job `load` of 3 shards:
///
/// ```text
/// kubectl apply -f load.yaml
/// kubectl wait --for=condition=complete --timeout=395s job/load
/// for i in $(seq 0 2); do kubectl logs --tail=-1 -l batch.kubernetes.io/job-name=load,batch.kubernetes.io/job-completion-index=$i > load-$((i + 1)).json; done
/// shootout merge load-*.json
/// kubectl delete job/load
/// ```
///
/// `--tail=-1`: with a label selector kubectl prints only the last 10 lines unless told.
/// A load whose spec is in a Secret (a client's key) deletes `secret/load` with the Job.
pub fn steps(plan: &JobPlan) -> String {
    let name = &plan.name;
    let ns = match &plan.namespace {
        Some(ns) => format!(" -n {ns}"),
        None => String::new(),
    };
    let timeout = match plan.deadline {
        Some(d) => format!(" --timeout={}s", d.as_secs()),
        None => " --timeout=-1s".into(),
    };
    let last = plan.shards.get() - 1;
    let selector =
        format!("batch.kubernetes.io/job-name={name},batch.kubernetes.io/job-completion-index=$i");
    let mut text = String::new();
    let _ = writeln!(text, "kubectl{ns} apply -f {name}.yaml");
    let _ = writeln!(
        text,
        "kubectl{ns} wait --for=condition=complete{timeout} job/{name}"
    );
    let _ = writeln!(
        text,
        "for i in $(seq 0 {last}); do kubectl{ns} logs --tail=-1 -l {selector} > {name}-$((i + 1)).json; done"
    );
    let _ = writeln!(text, "shootout merge {name}-*.json");
    let secret = match holds_key(plan) {
        true => format!(" secret/{name}"),
        false => String::new(),
    };
    let _ = writeln!(text, "kubectl{ns} delete job/{name}{secret}");
    text
}
