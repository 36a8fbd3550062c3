//! The Job as the YAML kubectl applies, and back (to test what was printed).

use k8s_openapi::api::batch::v1::Job;

/// A Job that could not be written as YAML, or a text that is not one.
#[derive(Debug, thiserror::Error)]
pub enum ManifestError {
    #[error("writing the Job as YAML: {0}")]
    Write(#[from] serde_saphyr::SerializeError),
    #[error("reading a Job from YAML: {0}")]
    Read(#[from] serde_saphyr::Error),
    #[error("writing the load's spec as JSON: {0}")]
    Spec(serde_json::Error),
}

/// One YAML document, `apiVersion: batch/v1` and `kind: Job` first, its strings quoted
/// wherever YAML 1.1 (kubectl's) would read them as another type.
pub fn to_yaml(job: &Job) -> Result<String, ManifestError> {
    Ok(serde_saphyr::to_string(job)?)
}

/// The typed Job a YAML document describes.
pub fn from_yaml(text: &str) -> Result<Job, ManifestError> {
    Ok(serde_saphyr::from_str(text)?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::k8s::{job, JobPlan};

    #[test]
    fn the_printed_job_reads_back_as_the_same_job() {
        let plan = JobPlan {
            name: "load".parse().unwrap(),
            namespace: Some("bench".parse().unwrap()),
            image: "shootout:0.1.0".into(),
            shards: std::num::NonZeroU32::new(40).unwrap(),
            start_at_unix_ms: 1_900_000_000_000,
            cpus: std::num::NonZeroU32::new(4).unwrap(),
            memory: "2Gi".parse().unwrap(),
            spec: engine::LoadSpec::new(engine::parse_url("http://a:80/").unwrap()),
            deadline: None,
        };
        let job = job(&plan).unwrap();
        let yaml = to_yaml(&job).unwrap();
        assert_eq!(from_yaml(&yaml).unwrap(), job);
        assert!(!yaml.contains("activeDeadlineSeconds"), "{yaml}");
    }
}
