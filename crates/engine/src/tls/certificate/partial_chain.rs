//! webpki's certificate check, with what OpenSSL accepts besides: a server certificate
//! that is itself one of the trusted certificates.
//!
//! curl (since 7.68) sets OpenSSL's `X509_V_FLAG_PARTIAL_CHAIN`, so a certificate given to
//! `--cacert` is trusted as it is when a server presents it, whatever its issuer and
//! whether or not it says `CA:TRUE` (which `openssl req -x509` writes into every
//! self-signed certificate it makes). webpki refuses such a certificate
//! (`CaUsedAsEndEntity`, or `UnknownIssuer`); this check then accepts it when its bytes
//! are exactly those of a trusted certificate and it is valid now, for a server and for
//! the name asked, as OpenSSL checks it. A refusal that stands says which certificate:
//! its subject when self-signed, else its issuer ([`CertificateRefusal`]).

use super::leaf::Leaf;
use super::CertificateRefusal;
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::client::{VerifierBuilderError, WebPkiServerVerifier};
use rustls::crypto::CryptoProvider;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::server::ParsedCertificate;
use rustls::{CertificateError, DigitallySignedStruct, DistinguishedName, OtherError};
use rustls::{Error, RootCertStore, SignatureScheme};
use std::sync::Arc;

/// webpki's check, and a presented certificate that is one of `trusted` accepted as
/// OpenSSL accepts it.
#[derive(Debug)]
pub struct PartialChain {
    webpki: Arc<WebPkiServerVerifier>,
    /// The trusted certificates, as given: compared whole, as OpenSSL compares them.
    trusted: Vec<CertificateDer<'static>>,
}

impl PartialChain {
    /// The check that trusts `trusted`, the certificates `roots` was made of (each a CA,
    /// or a certificate trusted as it is), with `provider`'s algorithms.
    pub fn new(
        roots: RootCertStore,
        trusted: Vec<CertificateDer<'static>>,
        provider: &Arc<CryptoProvider>,
    ) -> Result<PartialChain, VerifierBuilderError> {
        let webpki = WebPkiServerVerifier::builder_with_provider(Arc::new(roots), provider.clone())
            .build()?;
        Ok(PartialChain { webpki, trusted })
    }

    fn is_trusted(&self, cert: &CertificateDer<'_>) -> bool {
        self.trusted.iter().any(|t| t.as_ref() == cert.as_ref())
    }
}

impl ServerCertVerifier for PartialChain {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp_response: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, Error> {
        let refused = match (self.webpki).verify_server_cert(
            end_entity,
            intermediates,
            server_name,
            ocsp_response,
            now,
        ) {
            Ok(verified) => return Ok(verified),
            Err(refused) => refused,
        };
        let Some(leaf) = Leaf::read(end_entity) else {
            return Err(refused);
        };
        if self.is_trusted(end_entity) {
            leaf.check_alone(now)?;
            let parsed = ParsedCertificate::try_from(end_entity)?;
            rustls::client::verify_server_name(&parsed, server_name)?;
            return Ok(ServerCertVerified::assertion());
        }
        Err(explained(refused, &leaf))
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, Error> {
        self.webpki.verify_tls12_signature(message, cert, dss)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, Error> {
        self.webpki.verify_tls13_signature(message, cert, dss)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.webpki.supported_verify_schemes()
    }

    fn root_hint_subjects(&self) -> Option<&[DistinguishedName]> {
        self.webpki.root_hint_subjects()
    }
}

/// webpki's refusal, with the certificate's own words when no trusted CA signed it:
/// self-signed, or whose CA. A trusted CA of the same name but another key (Debian's
/// `ssl-cert-snakeoil` is `CN=localhost`) makes webpki report a signature that does not
/// verify: OpenSSL, which matches issuers by key too, says unknown issuer; so does this.
fn explained(refused: Error, leaf: &Leaf) -> Error {
    let Error::InvalidCertificate(problem) = &refused else {
        return refused;
    };
    let refusal = match CertificateRefusal::from(problem) {
        CertificateRefusal::UnknownIssuer { .. }
        | CertificateRefusal::CaAsServer { .. }
        | CertificateRefusal::BadSignature
        | CertificateRefusal::UnsupportedAlgorithm
            if leaf.self_issued =>
        {
            CertificateRefusal::SelfSigned {
                subject: leaf.subject.clone(),
            }
        }
        CertificateRefusal::CaAsServer { .. } => CertificateRefusal::CaAsServer {
            subject: leaf.subject.clone(),
        },
        CertificateRefusal::UnknownIssuer { .. }
        | CertificateRefusal::BadSignature
        | CertificateRefusal::UnsupportedAlgorithm => CertificateRefusal::UnknownIssuer {
            issuer: leaf.issuer.clone(),
        },
        _ => return refused,
    };
    Error::InvalidCertificate(CertificateError::Other(OtherError(Arc::new(refusal))))
}
