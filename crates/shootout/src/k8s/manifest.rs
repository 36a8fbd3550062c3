//! What `shootout k8s job` prints, as the YAML kubectl applies, and back (to test what was
//! printed): the Job, and before it the Secret that holds its spec when the spec carries
//! a private key (see [`super::secret`]).

use super::job::job;
use super::manifest_error::ManifestError;
use super::plan::JobPlan;
use super::secret::spec_secret;
use k8s_openapi::api::batch::v1::Job;
use k8s_openapi::api::core::v1::Secret;

/// The objects of one load's Job, in the order they are applied.
#[derive(Debug, Clone, PartialEq)]
pub struct Manifest {
    /// The spec of a load with a client certificate's key: the pods must find it there
    /// when they start, so it comes first.
    pub secret: Option<Secret>,
    pub job: Job,
}

/// One document of the YAML: the kinds it may hold, told apart by `kind`.
#[derive(serde::Deserialize)]
#[serde(untagged)]
enum Document {
    Secret(Box<Secret>),
    Job(Box<Job>),
}

/// The objects the plan's Job needs.
pub fn manifest(plan: &JobPlan) -> Result<Manifest, ManifestError> {
    Ok(Manifest {
        secret: spec_secret(plan)?,
        job: job(plan)?,
    })
}

/// YAML documents (`apiVersion` and `kind` first), separated by `---`, their strings
/// quoted wherever YAML 1.1 (kubectl's) would read them as another type.
pub fn to_yaml(manifest: &Manifest) -> Result<String, ManifestError> {
    let job = serde_saphyr::to_string(&manifest.job)?;
    Ok(match &manifest.secret {
        Some(secret) => format!("{}---\n{job}", serde_saphyr::to_string(secret)?),
        None => job,
    })
}

/// The typed objects a YAML text describes: a Job, after at most one Secret.
pub fn from_yaml(text: &str) -> Result<Manifest, ManifestError> {
    let mut documents = serde_saphyr::from_multiple::<Document>(text)?;
    let count = documents.len();
    let job = match documents.pop() {
        Some(Document::Job(job)) => *job,
        _ => return Err(ManifestError::Documents(count)),
    };
    let secret = match documents.pop() {
        None => None,
        Some(Document::Secret(secret)) if documents.is_empty() => Some(*secret),
        Some(_) => return Err(ManifestError::Documents(count)),
    };
    Ok(Manifest { secret, job })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(spec: engine::LoadSpec) -> JobPlan {
        JobPlan {
            name: "load".parse().unwrap(),
            namespace: Some("bench".parse().unwrap()),
            image: "shootout:0.1.0".into(),
            shards: std::num::NonZeroU32::new(40).unwrap(),
            start_at_unix_ms: 1_900_000_000_000,
            cpus: std::num::NonZeroU32::new(4).unwrap(),
            memory: "2Gi".parse().unwrap(),
            spec,
            deadline: None,
        }
    }

    #[test]
    fn the_printed_job_reads_back_as_the_same_job() {
        let spec = engine::LoadSpec::new(engine::parse_url("http://a:80/").unwrap());
        let manifest = manifest(&plan(spec)).unwrap();
        assert_eq!(manifest.secret, None);
        let yaml = to_yaml(&manifest).unwrap();
        assert_eq!(from_yaml(&yaml).unwrap(), manifest);
        assert!(!yaml.contains("activeDeadlineSeconds"), "{yaml}");
        assert!(!yaml.contains("---"), "one document: {yaml}");
    }

    #[test]
    fn a_spec_with_a_key_is_a_secret_before_the_job_and_reads_back() {
        let key = rcgen::KeyPair::generate().unwrap();
        let cert = rcgen::CertificateParams::new(vec!["c.test".to_string()])
            .unwrap()
            .self_signed(&key)
            .unwrap();
        let spec = serde_json::json!({
            "url": "https://a:443/",
            "tls": {"client": {"cert": cert.pem(), "key": key.serialize_pem()}}
        });
        let manifest = manifest(&plan(serde_json::from_value(spec).unwrap())).unwrap();
        let yaml = to_yaml(&manifest).unwrap();
        assert!(yaml.starts_with("apiVersion: v1\nkind: Secret\n"), "{yaml}");
        let job_text = &yaml[yaml.find("---\n").unwrap()..];
        assert!(job_text.starts_with("---\napiVersion: batch/v1\nkind: Job\n"));
        assert!(!job_text.contains("PRIVATE KEY"), "{job_text}");
        assert_eq!(from_yaml(&yaml).unwrap(), manifest);
        let two_jobs = format!("{job_text}{job_text}");
        assert!(matches!(
            from_yaml(&two_jobs[4..]),
            Err(ManifestError::Documents(2))
        ));
    }
}
