//! `--tls [--certificate ecdsa|rsa]` of `verify` and `start`: serve a contestant over TLS
//! with its `[tls]` command and one of the test certificates setup makes.

use anyhow::Context;
use clap::{Args, ValueEnum};
use shootout::contestant::certificates::{self, CertificateFiles, KeyKind};
use shootout::contestant::manifest::Contestant;
use shootout::process::launch::{launch, launch_over_tls, LaunchSpec};
use shootout::process::server::Server;

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

/// Starts `c` as `spec` says: in clear text, or over TLS serving the test certificate of
/// `over_tls` (made if missing), which it returns with the server.
pub fn launch_serving(
    c: &Contestant,
    spec: &LaunchSpec,
    over_tls: Option<KeyKind>,
) -> anyhow::Result<(Server, Option<CertificateFiles>)> {
    let Some(kind) = over_tls else {
        return Ok((launch(c, spec)?, None));
    };
    let files = certificates::ensure(c.builds(), kind).context("certificate")?;
    Ok((launch_over_tls(c, spec, &files)?, Some(files)))
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
