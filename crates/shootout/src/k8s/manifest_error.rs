//! Why `shootout k8s job` printed no manifest, or a text is not one.

/// A manifest that could not be written as YAML, or a text that is not one.
#[derive(Debug, thiserror::Error)]
pub enum ManifestError {
    #[error("writing the Job as YAML: {0}")]
    Write(#[from] serde_saphyr::SerializeError),
    #[error("reading a Job from YAML: {0}")]
    Read(#[from] serde_saphyr::Error),
    #[error("reading a Job from YAML: {0} documents, not a Job after at most one Secret")]
    Documents(usize),
    #[error("writing the load's spec as JSON: {0}")]
    Spec(serde_json::Error),
}
