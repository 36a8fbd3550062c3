//! `--tls [--certificate ecdsa|rsa]` of `verify` and `start`: serve a contestant over TLS
//! with its `[tls]` command and one of the test certificates setup makes.

use clap::{Args, ValueEnum};
use shootout::contestant::certificates::KeyKind;

/// How a contestant is served: in clear text, or over TLS with a test certificate.
#[derive(Debug, Args)]
pub struct ServeTls {
    /// Over TLS: start with the contestant's [tls] command, serving a test certificate
    /// (made once, kept with the builds). verify checks the chain and what is negotiated
    /// (version, suite, group, ALPN, resumption) before the HTTP checks; verify --all
    /// takes the contestants that serve TLS
    #[arg(long, help_heading = "TLS")]
    pub tls: bool,
    /// Which test certificate the server serves over TLS [default: ecdsa]
    #[arg(
        long,
        value_enum,
        value_name = "KIND",
        requires = "tls",
        help_heading = "TLS"
    )]
    certificate: Option<CertificateKind>,
}

impl ServeTls {
    /// The certificate to serve, or None in clear text.
    pub fn over_tls(&self) -> Option<KeyKind> {
        (self.tls).then(|| self.certificate.map_or(KeyKind::default(), KeyKind::from))
    }
}

/// `--certificate`: the kind of the test certificate (and so of the handshake's
/// signature). Named for what the server serves, not `--key`: `load --key` is a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum CertificateKind {
    /// ECDSA P-256
    Ecdsa,
    /// RSA 2048
    Rsa,
}

impl From<CertificateKind> for KeyKind {
    fn from(kind: CertificateKind) -> KeyKind {
        match kind {
            CertificateKind::Ecdsa => KeyKind::Ecdsa,
            CertificateKind::Rsa => KeyKind::Rsa,
        }
    }
}
