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
        match self.is_trusted(end_entity) {
            true => trusted_as_it_is(&leaf, end_entity, server_name, now),
            false => Err(explained(refused, &leaf)),
        }
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

/// A certificate that is itself trusted, checked as OpenSSL checks it: its dates, its
/// usage, and the name asked (by webpki, which reads the names whatever the rest says).
fn trusted_as_it_is(
    leaf: &Leaf,
    end_entity: &CertificateDer<'_>,
    server_name: &ServerName<'_>,
    now: UnixTime,
) -> Result<ServerCertVerified, Error> {
    leaf.check_alone(now)?;
    let parsed = ParsedCertificate::try_from(end_entity)?;
    rustls::client::verify_server_name(&parsed, server_name)?;
    Ok(ServerCertVerified::assertion())
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

#[cfg(test)]
mod tests {
    use super::*;
    use rcgen::{BasicConstraints, CertificateParams, IsCa, KeyPair};
    use std::time::Duration;

    /// A self-signed certificate for localhost that says CA:TRUE, as `openssl req -x509`
    /// makes one, valid in 2030.
    fn self_signed_ca_true() -> CertificateDer<'static> {
        let mut params = CertificateParams::new(vec!["localhost".to_string()]).unwrap();
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        params.not_before = rcgen::date_time_ymd(2030, 1, 1);
        params.not_after = rcgen::date_time_ymd(2030, 12, 31);
        let key = KeyPair::generate().unwrap();
        params.self_signed(&key).unwrap().der().clone()
    }

    fn check(
        trusted: &[CertificateDer<'static>],
        cert: &CertificateDer,
        name: &str,
        at: u64,
    ) -> Result<(), CertificateRefusal> {
        let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
        let mut roots = RootCertStore::empty();
        let (added, _) = roots.add_parsable_certificates(trusted.iter().cloned());
        assert_eq!(added, trusted.len());
        let chain = PartialChain::new(roots, trusted.to_vec(), &provider).unwrap();
        let name = ServerName::try_from(name.to_string()).unwrap();
        let now = UnixTime::since_unix_epoch(Duration::from_secs(at));
        match chain.verify_server_cert(cert, &[], &name, &[], now) {
            Ok(_) => Ok(()),
            Err(e) => Err(CertificateRefusal::of(&e).expect("a certificate refusal")),
        }
    }

    /// 2030-06-01, when the certificate is valid.
    const IN_2030: u64 = 1_906_502_400;

    #[test]
    fn a_ca_true_certificate_trusted_itself_passes_for_its_name_while_valid() {
        let cert = self_signed_ca_true();
        let trusted = [cert.clone()];
        assert_eq!(check(&trusted, &cert, "localhost", IN_2030), Ok(()));
        let wrong = check(&trusted, &cert, "example.com", IN_2030).unwrap_err();
        assert!(
            matches!(wrong, CertificateRefusal::WrongName { .. }),
            "{wrong}"
        );
        let later = check(&trusted, &cert, "localhost", IN_2030 + 365 * 86_400).unwrap_err();
        assert!(
            matches!(later, CertificateRefusal::Expired { not_after: Some(_) }),
            "{later}"
        );
        let sooner = check(&trusted, &cert, "localhost", IN_2030 - 365 * 86_400).unwrap_err();
        assert!(
            matches!(sooner, CertificateRefusal::NotValidYet { .. }),
            "{sooner}"
        );
    }

    #[test]
    fn a_self_signed_certificate_not_trusted_is_named_self_signed() {
        let cert = self_signed_ca_true();
        let other = self_signed_ca_true();
        let refusal = check(&[other], &cert, "localhost", IN_2030).unwrap_err();
        assert_eq!(
            refusal,
            CertificateRefusal::SelfSigned {
                subject: Some("CN=rcgen self signed cert".into())
            }
        );
    }
}
