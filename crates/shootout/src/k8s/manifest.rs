//! The Job as the YAML kubectl applies, and back (to test what was printed).

use k8s_openapi::api::batch::v1::Job;

/// A Job that could not be written as YAML, or a text that is not one.
#[derive(Debug, thiserror::Error)]
#[error("Job manifest: {0}")]
pub struct ManifestError(#[from] serde_yaml_ng::Error);

/// One YAML document, `apiVersion: batch/v1` and `kind: Job` first.
pub fn to_yaml(job: &Job) -> Result<String, ManifestError> {
    Ok(serde_yaml_ng::to_string(job)?)
}

/// The typed Job a YAML document describes.
pub fn from_yaml(text: &str) -> Result<Job, ManifestError> {
    Ok(serde_yaml_ng::from_str(text)?)
}
