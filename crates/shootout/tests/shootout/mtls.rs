//! What the tests of loads that present a client certificate (mTLS) share: a server that
//! requires one, and the check that a text holds no private key. Each test file uses part
//! of it.

use crate::tls_test_kit::Ca;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use rustls::server::WebPkiClientVerifier;
use rustls::{RootCertStore, ServerConfig};
use std::path::Path;
use std::sync::Arc;
use testserver::{Behavior, TestServer, Tls};

/// What an mTLS load needs, made for one test: a test CA, a server for `localhost` that
/// requires a client certificate it signed, and the CA, the client's certificate and its
/// key written as files into the test's folder (what `--cacert`, `--cert`, `--key` read).
pub struct Setup {
    /// Serves while the setup lives.
    _server: TestServer,
    /// `https://localhost:PORT/hello`.
    pub url: String,
    pub ca_file: String,
    pub cert_file: String,
    pub key_file: String,
    /// The client's certificate and key, as PEM text.
    pub client_cert: String,
    pub client_key: String,
}

impl Setup {
    /// Made in `dir`, which the test removes.
    pub fn new(dir: &Path) -> Setup {
        let ca = Ca::new("test CA");
        let (client, served) = (ca.issue(&["client.test"]), ca.issue(&["localhost"]));
        let server = self::server(&served.cert, &served.key, &ca.pem);
        let file = |name: &str, text: &str| {
            let path = dir.join(name);
            std::fs::write(&path, text).unwrap();
            path.display().to_string()
        };
        Setup {
            url: format!("https://localhost:{}/hello", server.addr().port()),
            _server: server,
            ca_file: file("ca.pem", &ca.pem),
            cert_file: file("client.pem", &client.cert),
            key_file: file("client.key", &client.key),
            client_cert: client.cert,
            client_key: client.key,
        }
    }

    /// `--cacert CA --cert CERT --key KEY`.
    pub fn flags(&self) -> [&str; 6] {
        let (ca, cert, key) = (&self.ca_file, &self.cert_file, &self.key_file);
        ["--cacert", ca, "--cert", cert, "--key", key]
    }
}

/// A `Hello World` server on 127.0.0.1 serving `cert` with `key` (PEM) that requires a
/// client certificate signed by the CA `client_ca` (PEM).
pub fn server(cert: &str, key: &str, client_ca: &str) -> TestServer {
    let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
    let mut roots = RootCertStore::empty();
    roots.add(der(client_ca)).unwrap();
    let clients = WebPkiClientVerifier::builder_with_provider(roots.into(), provider.clone())
        .build()
        .unwrap();
    let key = PrivateKeyDer::from_pem_slice(key.as_bytes()).unwrap();
    let config = ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_client_cert_verifier(clients)
        .with_single_cert(vec![der(cert)], key)
        .unwrap();
    TestServer::start_tls(Behavior::Hello, Tls::new(Arc::new(config))).unwrap()
}

/// The first certificate of `pem`.
pub fn der(pem: &str) -> CertificateDer<'static> {
    CertificateDer::from_pem_slice(pem.as_bytes()).unwrap()
}

/// Asserts `text` holds neither a private key's PEM label nor a line of `key`'s base64;
/// `what` names the text in the failure.
pub fn holds_no_key(text: &str, key: &str, what: &str) {
    assert!(!text.contains("PRIVATE KEY"), "a key's PEM label in {what}");
    for line in key.lines().filter(|l| !l.starts_with("-----")) {
        assert!(!text.contains(line), "a line of the key in {what}: {line}");
    }
}
