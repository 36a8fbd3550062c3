//! The certificate check of a load, done once per chain rather than once per handshake.
//!
//! A load with full handshakes meets the same server chain thousands of times a second;
//! checking it each time (path building, one ECDSA or RSA verification per link, the
//! name, the dates) cost about 30 µs of a 220 µs handshake on the machine of record
//! (docs/tls.md). A browser keeps the result of a chain it checked (Chromium's
//! CertVerifier cache); so does this: a chain that passed is not checked again for
//! [`RECHECK_AFTER`], then it is checked afresh, so an expired or replaced certificate is
//! seen within that time. A chain that failed is never remembered. The handshake's own
//! signature, which proves the server holds the key, is verified every time.

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{DigitallySignedStruct, DistinguishedName, SignatureScheme};
use std::sync::{Arc, Mutex};

/// How long a chain that passed stays trusted without a new check.
pub const RECHECK_AFTER: u64 = 1;

/// A verifier that remembers the last chain `inner` accepted, for [`RECHECK_AFTER`] seconds.
#[derive(Debug)]
pub(super) struct RememberedChain {
    inner: Arc<dyn ServerCertVerifier>,
    /// One chain: a load talks to one server. Shared by the loops of a load; taken once
    /// per full handshake, never per request.
    last: Mutex<Option<Passed>>,
}

/// A chain that passed, exactly as it was presented, and when.
#[derive(Debug)]
struct Passed {
    end_entity: Vec<u8>,
    intermediates: Vec<Vec<u8>>,
    server_name: ServerName<'static>,
    ocsp_response: Vec<u8>,
    at: UnixTime,
}

impl Passed {
    fn matches(&self, chain: &Chain, now: UnixTime) -> bool {
        let fresh = now.as_secs().saturating_sub(self.at.as_secs()) < RECHECK_AFTER;
        fresh
            && self.end_entity == chain.end_entity.as_ref()
            && self.server_name == *chain.server_name
            && self.ocsp_response == chain.ocsp_response
            && self.intermediates.len() == chain.intermediates.len()
            && (self.intermediates.iter())
                .zip(chain.intermediates)
                .all(|(kept, given)| kept.as_slice() == given.as_ref())
    }
}

/// What a server presented in one handshake.
struct Chain<'a> {
    end_entity: &'a CertificateDer<'a>,
    intermediates: &'a [CertificateDer<'a>],
    server_name: &'a ServerName<'a>,
    ocsp_response: &'a [u8],
}

impl Chain<'_> {
    fn passed(&self, at: UnixTime) -> Passed {
        Passed {
            end_entity: self.end_entity.to_vec(),
            intermediates: self.intermediates.iter().map(|c| c.to_vec()).collect(),
            server_name: self.server_name.to_owned(),
            ocsp_response: self.ocsp_response.to_vec(),
            at,
        }
    }
}

impl RememberedChain {
    pub(super) fn new(inner: Arc<dyn ServerCertVerifier>) -> RememberedChain {
        RememberedChain {
            inner,
            last: Mutex::new(None),
        }
    }

    fn remembers(&self, chain: &Chain, now: UnixTime) -> bool {
        let last = self
            .last
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        last.as_ref()
            .is_some_and(|passed| passed.matches(chain, now))
    }

    fn remember(&self, chain: &Chain, now: UnixTime) {
        let mut last = self
            .last
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        *last = Some(chain.passed(now));
    }
}

impl ServerCertVerifier for RememberedChain {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp_response: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        let chain = Chain {
            end_entity,
            intermediates,
            server_name,
            ocsp_response,
        };
        if self.remembers(&chain, now) {
            return Ok(ServerCertVerified::assertion());
        }
        let verified = (self.inner).verify_server_cert(
            end_entity,
            intermediates,
            server_name,
            ocsp_response,
            now,
        )?;
        self.remember(&chain, now);
        Ok(verified)
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.inner.verify_tls12_signature(message, cert, dss)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.inner.verify_tls13_signature(message, cert, dss)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.inner.supported_verify_schemes()
    }

    fn root_hint_subjects(&self) -> Option<&[DistinguishedName]> {
        self.inner.root_hint_subjects()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// Accepts the chain whose end entity is `[1]`, refuses any other; counts its checks.
    #[derive(Debug, Default)]
    struct Counting {
        checks: AtomicUsize,
    }

    impl ServerCertVerifier for Counting {
        fn verify_server_cert(
            &self,
            end_entity: &CertificateDer<'_>,
            _: &[CertificateDer<'_>],
            _: &ServerName<'_>,
            _: &[u8],
            _: UnixTime,
        ) -> Result<ServerCertVerified, rustls::Error> {
            self.checks.fetch_add(1, Ordering::Relaxed);
            match end_entity.as_ref() {
                [1] => Ok(ServerCertVerified::assertion()),
                _ => Err(rustls::Error::InvalidCertificate(
                    rustls::CertificateError::Expired,
                )),
            }
        }
        fn verify_tls12_signature(
            &self,
            _: &[u8],
            _: &CertificateDer<'_>,
            _: &DigitallySignedStruct,
        ) -> Result<HandshakeSignatureValid, rustls::Error> {
            Ok(HandshakeSignatureValid::assertion())
        }
        fn verify_tls13_signature(
            &self,
            _: &[u8],
            _: &CertificateDer<'_>,
            _: &DigitallySignedStruct,
        ) -> Result<HandshakeSignatureValid, rustls::Error> {
            Ok(HandshakeSignatureValid::assertion())
        }
        fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
            Vec::new()
        }
    }

    fn check(v: &RememberedChain, cert: u8, name: &str, at: u64) -> bool {
        let name = ServerName::try_from(name.to_string()).unwrap();
        let cert = CertificateDer::from(vec![cert]);
        let now = UnixTime::since_unix_epoch(std::time::Duration::from_secs(at));
        v.verify_server_cert(&cert, &[], &name, &[], now).is_ok()
    }

    #[test]
    fn a_chain_that_passed_is_checked_again_only_after_a_while() {
        let inner = Arc::new(Counting::default());
        let v = RememberedChain::new(inner.clone());
        let checks = || inner.checks.load(Ordering::Relaxed);
        assert!(check(&v, 1, "localhost", 100));
        assert!(check(&v, 1, "localhost", 100));
        assert_eq!(
            checks(),
            1,
            "the same chain in the same second is not checked twice"
        );
        assert!(check(&v, 1, "localhost", 100 + RECHECK_AFTER));
        assert_eq!(checks(), 2, "checked afresh after RECHECK_AFTER");
        assert!(check(&v, 1, "example.com", 100 + RECHECK_AFTER));
        assert_eq!(checks(), 3, "another name is another check");
    }

    #[test]
    fn a_chain_that_failed_or_changed_is_always_checked() {
        let inner = Arc::new(Counting::default());
        let v = RememberedChain::new(inner.clone());
        assert!(check(&v, 1, "localhost", 100));
        assert!(
            !check(&v, 2, "localhost", 100),
            "a new certificate is checked"
        );
        assert!(
            !check(&v, 2, "localhost", 100),
            "a failed one is not remembered"
        );
        assert_eq!(inner.checks.load(Ordering::Relaxed), 3);
    }
}
