//! The system's trusted CAs, read by rustls-native-certs from where OpenSSL reads them
//! (`SSL_CERT_FILE`, `SSL_CERT_DIR`, /etc/ssl/certs): the CAs that curl, wrk and h2load
//! trust here. A test CA installed on the machine (update-ca-certificates, mkcert
//! -install) is trusted without a flag, which a built-in list (webpki-roots) would not do.

use crate::spec::SpecError;
use rustls::pki_types::CertificateDer;
use rustls::RootCertStore;

/// Whom a load trusts: the CAs, and the same certificates as they were given, which a
/// server may present as its own (certificate::PartialChain).
pub(super) struct Trusted {
    pub roots: RootCertStore,
    pub certificates: Vec<CertificateDer<'static>>,
}

/// Every CA the system trusts that rustls can use; none at all is an error that says how
/// to go on (a container image without ca-certificates has none).
pub(super) fn system() -> Result<Trusted, SpecError> {
    let found = rustls_native_certs::load_native_certs();
    let mut roots = RootCertStore::empty();
    let certificates: Vec<CertificateDer<'static>> = (found.certs.into_iter())
        .filter(|cert| roots.add(cert.clone()).is_ok())
        .collect();
    if !certificates.is_empty() {
        return Ok(Trusted {
            roots,
            certificates,
        });
    }
    let reason = match found.errors.first() {
        Some(e) => e.to_string(),
        None => "none in SSL_CERT_FILE, SSL_CERT_DIR or /etc/ssl/certs".to_string(),
    };
    Err(SpecError::NoSystemRoots { reason })
}
