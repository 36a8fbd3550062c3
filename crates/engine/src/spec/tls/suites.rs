//! Cipher suites by name: rustls's names (`TLS13_AES_128_GCM_SHA256`,
//! `TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256`, the IANA names of TLS 1.2 suites) and the
//! IANA names of TLS 1.3 suites (`TLS_AES_128_GCM_SHA256`), any case.

use super::versions::TlsVersion;
use crate::spec::SpecError;
use rustls::crypto::aws_lc_rs::ALL_CIPHER_SUITES;
use rustls::SupportedCipherSuite;
use serde::{Deserialize, Serialize};

/// A cipher suite the provider (aws-lc-rs) implements.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct CipherSuite(SupportedCipherSuite);

impl CipherSuite {
    pub fn parse(name: &str) -> Result<CipherSuite, SpecError> {
        let wanted = name.trim().to_ascii_uppercase();
        let tls13_iana = wanted.replacen("TLS_", "TLS13_", 1);
        ALL_CIPHER_SUITES
            .iter()
            .find(|s| {
                let known = suite_name(**s).to_ascii_uppercase();
                known == wanted || known == tls13_iana
            })
            .map(|s| CipherSuite(*s))
            .ok_or_else(|| SpecError::CipherSuite {
                name: name.to_string(),
                known: known(),
            })
    }

    /// A comma-separated list, in the order offered.
    pub fn parse_list(text: &str) -> Result<Vec<CipherSuite>, SpecError> {
        text.split(',').map(CipherSuite::parse).collect()
    }

    /// The suites browsers offer, in their order (Chrome's and Firefox's ClientHello):
    /// TLS 1.3 first; within a version AES-128-GCM, then AES-256-GCM, then ChaCha20. The
    /// provider's own order puts AES-256-GCM-SHA384 first, whose SHA-384 runs on generic
    /// code on AMD hosts (docs/tls.md); a server that honours the client's order (nginx,
    /// OpenSSL's default) answers a browser with AES-128-GCM, and so it answers the load.
    pub(crate) fn browser_order() -> Vec<CipherSuite> {
        use rustls::crypto::aws_lc_rs::cipher_suite::*;
        [
            TLS13_AES_128_GCM_SHA256,
            TLS13_AES_256_GCM_SHA384,
            TLS13_CHACHA20_POLY1305_SHA256,
            TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,
            TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,
            TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384,
            TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384,
            TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256,
            TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256,
        ]
        .into_iter()
        .map(CipherSuite)
        .collect()
    }

    /// rustls's name, e.g. `TLS13_AES_128_GCM_SHA256`.
    pub fn name(self) -> &'static str {
        suite_name(self.0)
    }

    pub fn version(self) -> Option<TlsVersion> {
        TlsVersion::of(self.0.version().version)
    }

    pub(crate) fn rustls(self) -> SupportedCipherSuite {
        self.0
    }
}

fn suite_name(suite: SupportedCipherSuite) -> &'static str {
    suite.suite().as_str().unwrap_or("unnamed")
}

/// Every name accepted, for the error that refuses another.
fn known() -> String {
    let names: Vec<&str> = ALL_CIPHER_SUITES.iter().map(|s| suite_name(*s)).collect();
    names.join(", ")
}

impl From<CipherSuite> for String {
    fn from(suite: CipherSuite) -> String {
        suite.name().to_string()
    }
}

impl TryFrom<String> for CipherSuite {
    type Error = SpecError;

    fn try_from(name: String) -> Result<CipherSuite, SpecError> {
        CipherSuite::parse(&name)
    }
}
