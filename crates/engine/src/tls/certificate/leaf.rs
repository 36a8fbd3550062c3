//! What a server's certificate says of itself (names, dates, usage, who issued it), read
//! with x509-parser: webpki keeps those to itself, and partial_chain needs them to check
//! a certificate webpki refused and to say why one was refused.

use rustls::pki_types::{CertificateDer, UnixTime};
use rustls::CertificateError;
use std::time::Duration;
use x509_parser::certificate::X509Certificate;
use x509_parser::prelude::FromDer;
use x509_parser::x509::X509Name;

/// A server's certificate, read.
pub(super) struct Leaf {
    /// `CN=localhost`, when the name reads as text.
    pub subject: Option<String>,
    pub issuer: Option<String>,
    /// Issued by the name it has: what a self-signed certificate is.
    pub self_issued: bool,
    not_before: UnixTime,
    not_after: UnixTime,
    /// No extendedKeyUsage, or one with serverAuth or anyExtendedKeyUsage.
    for_servers: bool,
}

impl Leaf {
    /// None when x509-parser cannot read it (webpki's refusal then stands as it is).
    pub fn read(der: &CertificateDer<'_>) -> Option<Leaf> {
        let (_, cert) = X509Certificate::from_der(der.as_ref()).ok()?;
        let for_servers = match cert.extended_key_usage().ok()? {
            None => true,
            Some(eku) => eku.value.server_auth || eku.value.any,
        };
        let validity = cert.validity();
        Some(Leaf {
            subject: text(cert.subject()),
            issuer: text(cert.issuer()),
            self_issued: cert.subject().as_raw() == cert.issuer().as_raw(),
            not_before: unix(validity.not_before.timestamp()),
            not_after: unix(validity.not_after.timestamp()),
            for_servers,
        })
    }

    /// Its dates and its usage, as OpenSSL checks those of a certificate it trusts as it
    /// is; its name is rustls's to check.
    pub fn check_alone(&self, now: UnixTime) -> Result<(), CertificateError> {
        if now < self.not_before {
            return Err(CertificateError::NotValidYetContext {
                time: now,
                not_before: self.not_before,
            });
        }
        if now > self.not_after {
            return Err(CertificateError::ExpiredContext {
                time: now,
                not_after: self.not_after,
            });
        }
        match self.for_servers {
            true => Ok(()),
            false => Err(CertificateError::InvalidPurpose),
        }
    }
}

fn text(name: &X509Name<'_>) -> Option<String> {
    let registry = x509_parser::objects::oid_registry();
    name.to_string_with_registry(registry)
        .ok()
        .filter(|s| !s.is_empty())
}

/// Seconds since 1970 (a date before it, which no server certificate has, reads as 1970).
fn unix(seconds: i64) -> UnixTime {
    UnixTime::since_unix_epoch(Duration::from_secs(seconds.max(0) as u64))
}
