//! A load's TLS settings made into the one rustls client configuration its connections
//! share: the provider narrowed to the suites and groups asked for, the versions, whom to
//! trust, the client certificate, ALPN and resumption.

use super::certificate::PartialChain;
use super::insecure::AcceptAnyCertificate;
use super::roots::{self, Trusted};
use super::verified_chain::RememberedChain;
use super::{Resume, TlsClient};
use crate::spec::tls::{Alpn, Certificates, ClientIdentity, TlsSpec};
use crate::spec::SpecError;
use rustls::client::danger::ServerCertVerifier;
use rustls::client::{Resumption, Tls12Resumption, WantsClientCert};
use rustls::crypto::CryptoProvider;
use rustls::pki_types::ServerName;
use rustls::{ClientConfig, ConfigBuilder, RootCertStore};
use std::sync::Arc;
use url::{Host, Url};

impl TlsClient {
    /// The TLS client of an `https://` load of `url`, every setting of `spec` checked;
    /// `http2`: the load speaks HTTP/2, so ALPN offers h2 (only h2 unless told otherwise).
    pub fn of(spec: &TlsSpec, url: &Url, http2: bool) -> Result<TlsClient, SpecError> {
        Ok(TlsClient {
            config: Arc::new(client_config(spec, &alpn(spec, http2)?)?),
            server_name: server_name(spec, url)?,
            resume: spec.resume,
            http2,
        })
    }

    /// The ALPN protocol the server must choose, if it chooses one: what the load speaks.
    pub fn expected_alpn(&self) -> &'static str {
        match self.http2 {
            true => Alpn::H2,
            false => Alpn::HTTP_1_1,
        }
    }
}

/// The protocols ALPN offers: the spec's, except that an HTTP/2 load left at the default
/// offers h2, and one that does not offer h2 is a mistake.
fn alpn(spec: &TlsSpec, http2: bool) -> Result<Vec<Alpn>, SpecError> {
    if !http2 {
        return Ok(spec.alpn.clone());
    }
    if spec.alpn == crate::spec::defaults::alpn() {
        return Ok(vec![Alpn::h2()]);
    }
    match spec.alpn.iter().any(|a| a.as_str() == Alpn::H2) {
        true => Ok(spec.alpn.clone()),
        false => {
            let names: Vec<&str> = spec.alpn.iter().map(Alpn::as_str).collect();
            Err(SpecError::Http2Alpn(names.join(",")))
        }
    }
}

fn client_config(spec: &TlsSpec, alpn: &[Alpn]) -> Result<ClientConfig, SpecError> {
    let provider = Arc::new(provider(spec)?);
    let builder = ClientConfig::builder_with_provider(provider.clone())
        .with_protocol_versions(&spec.version.rustls())
        .map_err(SpecError::Tls)?;
    let verifier: Arc<dyn ServerCertVerifier> = match spec.insecure {
        true => Arc::new(AcceptAnyCertificate::new(&provider)),
        false => checking(trusted(spec.cacert.as_ref())?, &provider)?,
    };
    let builder: ConfigBuilder<ClientConfig, WantsClientCert> = builder
        .dangerous()
        .with_custom_certificate_verifier(verifier);
    let mut config = match &spec.client {
        Some(identity) => with_identity(builder, identity)?,
        None => builder.with_no_client_auth(),
    };
    config.alpn_protocols = alpn.iter().map(|p| p.as_str().into()).collect();
    config.resumption = resumption(spec.resume);
    Ok(config)
}

/// aws-lc-rs with only the suites and groups asked for, in the order asked.
fn provider(spec: &TlsSpec) -> Result<CryptoProvider, SpecError> {
    if spec.ciphers.is_empty() {
        return Err(SpecError::NoCipherSuites);
    }
    if spec.groups.is_empty() {
        return Err(SpecError::NoKxGroups);
    }
    let for_versions =
        |s: &&crate::spec::tls::CipherSuite| s.version().is_some_and(|v| spec.version.contains(v));
    if !spec.ciphers.iter().any(|s| for_versions(&s)) {
        return Err(SpecError::NoSuiteForVersions {
            versions: spec.version.to_string(),
        });
    }
    Ok(CryptoProvider {
        cipher_suites: spec.ciphers.iter().map(|s| s.rustls()).collect(),
        kx_groups: spec.groups.iter().map(|g| g.rustls()).collect(),
        ..rustls::crypto::aws_lc_rs::default_provider()
    })
}

/// The certificate check (webpki's, and a trusted certificate as it is:
/// certificate::PartialChain), remembering the chain it last passed.
fn checking(
    trusted: Trusted,
    provider: &Arc<CryptoProvider>,
) -> Result<Arc<dyn ServerCertVerifier>, SpecError> {
    let check = PartialChain::new(trusted.roots, trusted.certificates, provider)
        .map_err(SpecError::Verifier)?;
    Ok(Arc::new(RememberedChain::new(Arc::new(check))))
}

/// The CAs of `--cacert`, or the system's.
fn trusted(cacert: Option<&Certificates>) -> Result<Trusted, SpecError> {
    let Some(cacert) = cacert else {
        return roots::system();
    };
    let mut roots = RootCertStore::empty();
    for (index, cert) in cacert.der().iter().enumerate() {
        roots.add(cert.clone()).map_err(|e| SpecError::CaCert {
            index: index + 1,
            reason: e.to_string(),
        })?;
    }
    Ok(Trusted {
        roots,
        certificates: cacert.der().to_vec(),
    })
}

/// The client certificate and key, checked to belong together.
fn with_identity(
    builder: ConfigBuilder<ClientConfig, WantsClientCert>,
    identity: &ClientIdentity,
) -> Result<ClientConfig, SpecError> {
    let chain = identity.cert.der().to_vec();
    builder
        .with_client_auth_cert(chain, identity.key.der())
        .map_err(|e| match e {
            rustls::Error::InconsistentKeys(rustls::InconsistentKeys::KeyMismatch) => {
                SpecError::ClientKeyMismatch
            }
            e => SpecError::ClientIdentity(e),
        })
}

/// `Tickets` is rustls's default: tickets, else TLS 1.2 session ids.
fn resumption(resume: Resume) -> Resumption {
    match resume {
        Resume::Off => Resumption::disabled(),
        Resume::Tickets => Resumption::default(),
        Resume::Ids => Resumption::default().tls12_resumption(Tls12Resumption::SessionIdOnly),
    }
}

/// `--sni`, else the URL's host: a DNS name is sent as SNI, an IP address only checked
/// against the certificate (rustls sends no SNI for one, as RFC 6066 says).
fn server_name(spec: &TlsSpec, url: &Url) -> Result<ServerName<'static>, SpecError> {
    if let Some(name) = &spec.sni {
        return Ok(name.clone());
    }
    let name = match url.host() {
        Some(Host::Domain(domain)) => ServerName::try_from(domain.to_string()).ok(),
        Some(Host::Ipv4(ip)) => Some(ServerName::from(std::net::IpAddr::V4(ip))),
        Some(Host::Ipv6(ip)) => Some(ServerName::from(std::net::IpAddr::V6(ip))),
        None => None,
    };
    name.ok_or_else(|| SpecError::ServerName(url.host_str().unwrap_or_default().to_string()))
}
