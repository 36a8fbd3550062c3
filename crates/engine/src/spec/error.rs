//! Why a load spec is not one: each message names the setting and quotes its text.

use crate::config::ConfigError;

/// A setting of a load that cannot be sent, found before any request is.
#[derive(Debug, thiserror::Error)]
pub enum SpecError {
    #[error("URL {url:?}: {reason}")]
    Url { url: String, reason: String },
    #[error("method {0:?} is not a valid HTTP method token")]
    Method(String),
    #[error("header {0:?} has no ':' (expected \"Name: value\")")]
    HeaderWithoutColon(String),
    #[error("header {text:?} is not a valid HTTP header: {reason}")]
    Header { text: String, reason: String },
    #[error("the warm-up is as long as the stages: nothing would be measured")]
    WarmupCoversStages,
    #[error("TLS version {0:?} is not one (expected 1.2, 1.3 or a range 1.2-1.3)")]
    TlsVersion(String),
    #[error("TLS versions {min}-{max}: the minimum is above the maximum")]
    TlsVersionOrder {
        min: &'static str,
        max: &'static str,
    },
    #[error("ALPN protocol {0:?} is not one (1 to 255 bytes)")]
    Alpn(String),
    #[error("SNI name {0:?} is neither a DNS name nor an IP address")]
    Sni(String),
    #[error("the URL's host {0:?} cannot be checked against a certificate: give --sni NAME")]
    ServerName(String),
    #[error("cipher suite {name:?} is not one this build offers (it has {known})")]
    CipherSuite { name: String, known: String },
    #[error("key exchange group {name:?} is not one this build offers (it has {known})")]
    KxGroup { name: String, known: String },
    #[error("{setting}: {reason}")]
    Pem { setting: String, reason: String },
    #[error("cipher suites: none given")]
    NoCipherSuites,
    #[error("key exchange groups: none given")]
    NoKxGroups,
    #[error("cipher suites: none is for TLS {versions} (TLS 1.3 suites are named TLS13_*)")]
    NoSuiteForVersions { versions: String },
    #[error("cacert: certificate {index} cannot be trusted as a CA: {reason}")]
    CaCert { index: usize, reason: String },
    #[error(
        "no CA certificates found on this system ({reason}): give --cacert FILE, or \
         --insecure to skip verification"
    )]
    NoSystemRoots { reason: String },
    #[error("cert and key: the key is not the certificate's (their public keys differ)")]
    ClientKeyMismatch,
    #[error("cert and key: {0}")]
    ClientIdentity(rustls::Error),
    #[error("TLS settings: {0}")]
    Tls(rustls::Error),
    #[error("cacert: {0}")]
    Verifier(rustls::client::VerifierBuilderError),
    #[error("ALPN {0:?} for an HTTP/2 load: it must offer h2 (--alpn h2, or leave it out)")]
    Http2Alpn(String),
    #[error("WebSocket settings (message size, binary, in flight) need a ws:// or wss:// URL")]
    WebSocketWithoutWs,
    #[error("TLS setting {0} given for an http:// URL: TLS needs https://")]
    TlsWithoutHttps(&'static str),
    /// Not a source: its text is the message (a chain would say it twice).
    #[error("varying requests: {0}")]
    Vary(crate::vary::VaryError),
    /// The resolved load did not check out (a host that does not resolve).
    #[error(transparent)]
    Config(#[from] ConfigError),
}

impl From<crate::vary::VaryError> for SpecError {
    fn from(e: crate::vary::VaryError) -> SpecError {
        SpecError::Vary(e)
    }
}
