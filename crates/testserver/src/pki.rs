//! Certificates for TLS tests, made when a test starts and never written to disk: a CA and
//! a leaf it signed for `localhost` and 127.0.0.1, both ECDSA P-256 (what most servers
//! are given today). The server side and a client side that trusts the CA come from the
//! same [`TestPki`].

use std::sync::Arc;

use rcgen::{BasicConstraints, CertificateParams, DnType, IsCa, Issuer, KeyPair};
use rustls::crypto::aws_lc_rs;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer, ServerName};
use rustls::{ClientConfig, RootCertStore, ServerConfig, SupportedProtocolVersion};

/// The name the leaf is issued to and a client asks for.
pub const SERVER_NAME: &str = "localhost";

/// A test CA and the leaf it signed.
pub struct TestPki {
    ca: CertificateDer<'static>,
    leaf: CertificateDer<'static>,
    leaf_key: PrivatePkcs8KeyDer<'static>,
}

/// Why certificates could not be made (rcgen's error, as text: tests only print it).
#[derive(Debug)]
pub struct PkiError(pub String);

impl std::fmt::Display for PkiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "test certificates: {}", self.0)
    }
}

impl std::error::Error for PkiError {}

impl TestPki {
    /// A new CA and leaf (a few hundred microseconds of key generation).
    pub fn new() -> Result<TestPki, PkiError> {
        let fail = |e: rcgen::Error| PkiError(e.to_string());
        let ca_key = KeyPair::generate_for(&rcgen::PKCS_ECDSA_P256_SHA256).map_err(fail)?;
        let mut ca_params = CertificateParams::new(Vec::<String>::new()).map_err(fail)?;
        ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        ca_params
            .distinguished_name
            .push(DnType::CommonName, "shootout test CA");
        let ca = ca_params.self_signed(&ca_key).map_err(fail)?;
        let issuer = Issuer::new(ca_params, ca_key);
        let leaf_key = KeyPair::generate_for(&rcgen::PKCS_ECDSA_P256_SHA256).map_err(fail)?;
        let names = vec![SERVER_NAME.to_string(), "127.0.0.1".to_string()];
        let leaf_params = CertificateParams::new(names).map_err(fail)?;
        let leaf = leaf_params.signed_by(&leaf_key, &issuer).map_err(fail)?;
        Ok(TestPki {
            ca: ca.der().clone(),
            leaf: leaf.der().clone(),
            leaf_key: PrivatePkcs8KeyDer::from(leaf_key.serialize_der()),
        })
    }

    /// The CA certificate, for a client's roots.
    pub fn ca(&self) -> &CertificateDer<'static> {
        &self.ca
    }

    /// A server with the leaf: TLS 1.2 and 1.3, rustls's session cache (TLS 1.2 session
    /// ids) and stateless tickets (TLS 1.3, and TLS 1.2 when the client asks for them),
    /// so a client can resume whichever way it is told to.
    pub fn server_config(&self) -> Result<Arc<ServerConfig>, PkiError> {
        let key = PrivateKeyDer::Pkcs8(self.leaf_key.clone_key());
        let mut config =
            ServerConfig::builder_with_provider(Arc::new(aws_lc_rs::default_provider()))
                .with_safe_default_protocol_versions()
                .and_then(|b| {
                    b.with_no_client_auth()
                        .with_single_cert(vec![self.leaf.clone()], key)
                })
                .map_err(|e| PkiError(e.to_string()))?;
        config.ticketer = aws_lc_rs::Ticketer::new().map_err(|e| PkiError(e.to_string()))?;
        Ok(Arc::new(config))
    }

    /// A client trusting only the CA, with the key exchange groups wrk and h2load offer
    /// (X25519, then P-256; no post-quantum hybrid), TLS 1.2 and 1.3.
    pub fn client_config(&self) -> Result<Arc<ClientConfig>, PkiError> {
        self.client_config_for(rustls::DEFAULT_VERSIONS)
    }

    /// [`TestPki::client_config`], offering only `versions`.
    pub fn client_config_for(
        &self,
        versions: &[&'static SupportedProtocolVersion],
    ) -> Result<Arc<ClientConfig>, PkiError> {
        let mut provider = aws_lc_rs::default_provider();
        provider.kx_groups = vec![aws_lc_rs::kx_group::X25519, aws_lc_rs::kx_group::SECP256R1];
        let mut roots = RootCertStore::empty();
        roots
            .add(self.ca.clone())
            .map_err(|e| PkiError(e.to_string()))?;
        let config = ClientConfig::builder_with_provider(Arc::new(provider))
            .with_protocol_versions(versions)
            .map_err(|e| PkiError(e.to_string()))?
            .with_root_certificates(roots)
            .with_no_client_auth();
        Ok(Arc::new(config))
    }

    /// The name to ask the server for.
    pub fn server_name() -> ServerName<'static> {
        ServerName::try_from(SERVER_NAME).expect("\"localhost\" is a valid DNS name")
    }
}
