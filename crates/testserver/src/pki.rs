//! Certificates for TLS tests, made when a test starts and never written to disk: a CA and
//! a leaf it signed for `localhost` and 127.0.0.1, both ECDSA P-256 (what most servers
//! are given today), and on request leaves a client refuses (expired, another name). The
//! server side and a client side that trusts the CA come from the same [`TestPki`].

use std::sync::Arc;

use rcgen::{BasicConstraints, CertificateParams, DnType, IsCa, Issuer, KeyPair};
use rustls::crypto::aws_lc_rs;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer, ServerName};
use rustls::{ClientConfig, RootCertStore, ServerConfig, SupportedProtocolVersion};

/// The name the leaf is issued to and a client asks for.
pub const SERVER_NAME: &str = "localhost";

/// The name a [`Leaf::WrongName`] certificate is issued to instead.
pub const OTHER_NAME: &str = "elsewhere.test";

/// A test CA (with its key, to sign more leaves) and the leaf it signed.
pub struct TestPki {
    ca: CertificateDer<'static>,
    issuer: Issuer<'static, KeyPair>,
    leaf: CertificateDer<'static>,
    leaf_key: PrivatePkcs8KeyDer<'static>,
}

/// Which certificate a server shows; each is signed by the test CA.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Leaf {
    /// For `localhost` and 127.0.0.1, valid now: what a client of the test CA accepts.
    Good,
    /// For the same names, valid only in 2019.
    Expired,
    /// Valid now, for [`OTHER_NAME`] only.
    WrongName,
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
        let ca_key = KeyPair::generate_for(&rcgen::PKCS_ECDSA_P256_SHA256).map_err(fail)?;
        let mut ca_params = CertificateParams::new(Vec::<String>::new()).map_err(fail)?;
        ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        ca_params
            .distinguished_name
            .push(DnType::CommonName, "shootout test CA");
        let ca = ca_params.self_signed(&ca_key).map_err(fail)?;
        let issuer = Issuer::new(ca_params, ca_key);
        let (leaf, leaf_key) = issue(&issuer, Leaf::Good)?;
        Ok(TestPki {
            ca: ca.der().clone(),
            issuer,
            leaf,
            leaf_key,
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
        server_config(self.leaf.clone(), key)
    }

    /// [`TestPki::server_config`], showing `leaf` (a new one, but for [`Leaf::Good`]),
    /// with a ticket key and session cache of its own: a client resumes none of another
    /// configuration's sessions, so it sees this certificate.
    pub fn server_config_for(&self, leaf: Leaf) -> Result<Arc<ServerConfig>, PkiError> {
        if leaf == Leaf::Good {
            return self.server_config();
        }
        let (cert, key) = issue(&self.issuer, leaf)?;
        server_config(cert, PrivateKeyDer::Pkcs8(key))
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

/// A new leaf of kind `leaf` signed by `issuer`, and its key.
fn issue(
    issuer: &Issuer<'static, KeyPair>,
    leaf: Leaf,
) -> Result<(CertificateDer<'static>, PrivatePkcs8KeyDer<'static>), PkiError> {
    let key = KeyPair::generate_for(&rcgen::PKCS_ECDSA_P256_SHA256).map_err(fail)?;
    let names = match leaf {
        Leaf::Good | Leaf::Expired => vec![SERVER_NAME.to_string(), "127.0.0.1".to_string()],
        Leaf::WrongName => vec![OTHER_NAME.to_string()],
    };
    let mut params = CertificateParams::new(names).map_err(fail)?;
    if leaf == Leaf::Expired {
        params.not_before = rcgen::date_time_ymd(2019, 1, 1);
        params.not_after = rcgen::date_time_ymd(2020, 1, 1);
    }
    let cert = params.signed_by(&key, issuer).map_err(fail)?;
    Ok((
        cert.der().clone(),
        PrivatePkcs8KeyDer::from(key.serialize_der()),
    ))
}

/// A server showing `cert`, with a ticket key of its own (see [`TestPki::server_config`]).
fn server_config(
    cert: CertificateDer<'static>,
    key: PrivateKeyDer<'static>,
) -> Result<Arc<ServerConfig>, PkiError> {
    let mut config = ServerConfig::builder_with_provider(Arc::new(aws_lc_rs::default_provider()))
        .with_safe_default_protocol_versions()
        .and_then(|b| b.with_no_client_auth().with_single_cert(vec![cert], key))
        .map_err(|e| PkiError(e.to_string()))?;
    config.ticketer = aws_lc_rs::Ticketer::new().map_err(|e| PkiError(e.to_string()))?;
    Ok(Arc::new(config))
}

/// rcgen's error, as a [`PkiError`].
fn fail(e: rcgen::Error) -> PkiError {
    PkiError(e.to_string())
}
