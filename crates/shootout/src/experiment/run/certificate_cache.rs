//! The certificates an experiment's TLS loads serve: each kind made (or found still good)
//! once, at its first run, and its CA read once as the loads trust it. Every later run of
//! that kind reuses them, or their failure.

use crate::contestant::certificates::{self, CertificateError, CertificateFiles, KeyKind};
use engine::{Certificates, SpecError};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A kind's certificates, ready for runs: the files a server is given, and the CA a
/// load trusts (its only root, so the chain is checked).
#[derive(Debug, Clone)]
pub(super) struct Issued {
    pub files: CertificateFiles,
    pub ca: Certificates,
}

/// Why a kind's certificates are not ready: one line naming the file or the step.
#[derive(Debug, thiserror::Error)]
pub enum IssueError {
    #[error(transparent)]
    Make(#[from] CertificateError),
    #[error("{}: {source}", path.display())]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(transparent)]
    Ca(#[from] SpecError),
}

/// Each kind's certificates under each builds folder, found at its first run.
#[derive(Default)]
pub(super) struct CertificateCache {
    issued: HashMap<(PathBuf, KeyKind), Result<Issued, Arc<IssueError>>>,
}

impl CertificateCache {
    /// The certificates of `kind` under `builds`: made or checked the first time they
    /// are asked for, then the same (or the same failure) at every later run.
    pub(super) fn issue(
        &mut self,
        builds: &Path,
        kind: KeyKind,
    ) -> Result<Issued, Arc<IssueError>> {
        (self.issued.entry((builds.to_path_buf(), kind)))
            .or_insert_with(|| issue(builds, kind).map_err(Arc::new))
            .clone()
    }
}

fn issue(builds: &Path, kind: KeyKind) -> Result<Issued, IssueError> {
    let files = certificates::ensure(builds, kind)?;
    let pem = std::fs::read(&files.ca).map_err(|source| IssueError::Read {
        path: files.ca.clone(),
        source,
    })?;
    let ca = Certificates::from_pem(&pem, &files.ca.display().to_string())?;
    Ok(Issued { files, ca })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_is_issued_once_and_its_ca_is_what_the_server_chains_to() {
        let builds = tempfile::tempdir().unwrap();
        let mut cache = CertificateCache::default();
        let first = cache.issue(builds.path(), KeyKind::Ecdsa).unwrap();
        assert_eq!(first.files.kind, KeyKind::Ecdsa);
        let modified = || {
            std::fs::metadata(&first.files.cert)
                .unwrap()
                .modified()
                .unwrap()
        };
        let made_at = modified();
        let again = cache.issue(builds.path(), KeyKind::Ecdsa).unwrap();
        assert_eq!(again.files, first.files);
        assert_eq!(modified(), made_at, "not made again");
        let pem = std::fs::read(&first.files.ca).unwrap();
        assert_eq!(
            first.ca,
            Certificates::from_pem(&pem, "ca").unwrap(),
            "the load trusts the CA that signed the server's leaf"
        );
        let rsa = cache.issue(builds.path(), KeyKind::Rsa).unwrap();
        assert_ne!(rsa.files.ca, first.files.ca);
    }
}
