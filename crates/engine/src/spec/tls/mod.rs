//! The TLS settings of a load (`LoadSpec.tls`): versions, ALPN, SNI, whom to trust,
//! suites, groups, a client certificate and resumption. Each is checked where it enters;
//! `tls::config` makes them one rustls configuration for an `https://` load.
//!
//! In JSON every field may be left out and takes its default ([`crate::defaults`]);
//! certificates and keys are PEM text:
//!
//! ```json
//! {"version": "1.3", "alpn": ["http/1.1"], "sni": "localhost",
//!  "cacert": "-----BEGIN CERTIFICATE-----\n...", "ciphers": ["TLS13_AES_128_GCM_SHA256"],
//!  "groups": ["X25519"], "client": {"cert": "...", "key": "..."}, "resume": "off"}
//! ```

mod alpn;
mod groups;
mod pem;
pub(crate) mod sni;
mod suites;
mod versions;

pub use alpn::Alpn;
pub use groups::KxGroup;
pub use pem::{Certificates, PrivateKey};
pub use sni::parse_sni;
pub use suites::CipherSuite;
pub use versions::{TlsVersion, TlsVersions};

use super::defaults;
use crate::tls::Resume;
use rustls::pki_types::ServerName;
use serde::{Deserialize, Serialize};

/// How an `https://` load speaks TLS. An `http://` load must leave it at its default.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TlsSpec {
    /// The versions offered, e.g. `1.2-1.3`.
    #[serde(default = "defaults::tls_versions")]
    pub version: TlsVersions,
    /// Protocols offered by ALPN, in order; empty: no ALPN extension.
    #[serde(default = "defaults::alpn")]
    pub alpn: Vec<Alpn>,
    /// Sent as SNI and checked against the certificate; None: the URL's host.
    #[serde(default, with = "sni", skip_serializing_if = "Option::is_none")]
    pub sni: Option<ServerName<'static>>,
    /// The CAs trusted; None: the system's.
    #[serde(
        default,
        deserialize_with = "pem::cacert",
        skip_serializing_if = "Option::is_none"
    )]
    pub cacert: Option<Certificates>,
    /// Accept any server certificate (the handshake's signatures are still checked).
    #[serde(default)]
    pub insecure: bool,
    /// Cipher suites offered, in order.
    #[serde(default = "defaults::cipher_suites")]
    pub ciphers: Vec<CipherSuite>,
    /// Key exchange groups offered, in order; the first is the key share sent.
    #[serde(default = "defaults::tls_groups")]
    pub groups: Vec<KxGroup>,
    /// A client certificate, for servers that ask for one (mTLS).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client: Option<ClientIdentity>,
    /// How a new connection resumes an earlier session.
    #[serde(default = "defaults::tls_resume")]
    pub resume: Resume,
}

/// A client certificate chain and its private key.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClientIdentity {
    /// The client's certificate first, then any intermediates.
    #[serde(deserialize_with = "pem::cert")]
    pub cert: Certificates,
    #[serde(deserialize_with = "pem::key")]
    pub key: PrivateKey,
}

impl Default for TlsSpec {
    fn default() -> TlsSpec {
        TlsSpec {
            version: defaults::tls_versions(),
            alpn: defaults::alpn(),
            sni: None,
            cacert: None,
            insecure: false,
            ciphers: defaults::cipher_suites(),
            groups: defaults::tls_groups(),
            client: None,
            resume: defaults::tls_resume(),
        }
    }
}

impl TlsSpec {
    pub fn is_default(&self) -> bool {
        *self == TlsSpec::default()
    }

    /// The first setting away from its default, as the spec and the flag name it
    /// (`tls.cacert (--cacert)`): what an `http://` load must not have.
    pub fn first_set(&self) -> Option<&'static str> {
        let d = TlsSpec::default();
        [
            (self.version != d.version, "tls.version (--tls-version)"),
            (self.alpn != d.alpn, "tls.alpn (--alpn)"),
            (self.sni.is_some(), "tls.sni (--sni)"),
            (self.cacert.is_some(), "tls.cacert (--cacert)"),
            (self.insecure, "tls.insecure (--insecure)"),
            (self.ciphers != d.ciphers, "tls.ciphers (--ciphers)"),
            (self.groups != d.groups, "tls.groups (--tls-groups)"),
            (self.client.is_some(), "tls.client (--cert, --key)"),
            (self.resume != d.resume, "tls.resume (--tls-resume)"),
        ]
        .into_iter()
        .find_map(|(set, name)| set.then_some(name))
    }
}

#[cfg(test)]
mod tests;
