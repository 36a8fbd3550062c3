//! The labels of every object `shootout k8s job` prints, which select them together
//! (`kubectl delete -l app.kubernetes.io/instance=NAME`).

use super::name::ObjectName;
use std::collections::BTreeMap;

/// The labels every object of the Job carries, beside `app.kubernetes.io/instance`
/// (the Job's name).
pub const APP_LABELS: [(&str, &str); 2] = [
    ("app.kubernetes.io/name", "shootout"),
    ("app.kubernetes.io/component", "load-generator"),
];

/// The labels of every object `shootout k8s job` prints for the Job `name`.
pub fn labels(name: &ObjectName) -> BTreeMap<String, String> {
    let mut labels: BTreeMap<String, String> = APP_LABELS
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    labels.insert("app.kubernetes.io/instance".into(), name.to_string());
    labels
}
