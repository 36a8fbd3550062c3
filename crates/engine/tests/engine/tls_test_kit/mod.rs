//! Certificates made for a test (rcgen: never committed) and a tiny rustls server that
//! does handshakes and nothing else: what the pre-flight handshake is tested against;
//! and certificates made with the `openssl` command, served by `openssl s_server` (openssl).

pub mod openssl;

use rcgen::{BasicConstraints, CertificateParams, DnType, IsCa, Issuer, KeyPair, KeyUsagePurpose};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use rustls::server::WebPkiClientVerifier;
use rustls::{RootCertStore, ServerConfig, ServerConnection};
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::Arc;
use std::time::Duration;

/// A CA that signs the test's certificates.
pub struct Ca {
    issuer: Issuer<'static, KeyPair>,
    /// Its certificate, as `--cacert` reads it.
    pub pem: String,
}

/// A certificate and its key, as PEM text.
pub struct Identity {
    pub cert: String,
    pub key: String,
}

impl Ca {
    pub fn new(name: &str) -> Ca {
        let mut params = CertificateParams::new(Vec::<String>::new()).unwrap();
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        params.distinguished_name.push(DnType::CommonName, name);
        params.key_usages = vec![
            KeyUsagePurpose::KeyCertSign,
            KeyUsagePurpose::DigitalSignature,
        ];
        let key = KeyPair::generate().unwrap();
        let pem = params.self_signed(&key).unwrap().pem();
        Ca {
            issuer: Issuer::new(params, key),
            pem,
        }
    }

    /// A certificate for `names`, valid now.
    pub fn issue(&self, names: &[&str]) -> Identity {
        self.issue_with(names, |_| {})
    }

    /// A certificate for `names` that expired at the start of 2020.
    pub fn issue_expired(&self, names: &[&str]) -> Identity {
        self.issue_with(names, |p| {
            p.not_before = rcgen::date_time_ymd(2019, 1, 1);
            p.not_after = rcgen::date_time_ymd(2020, 1, 1);
        })
    }

    fn issue_with(&self, names: &[&str], change: impl FnOnce(&mut CertificateParams)) -> Identity {
        let names: Vec<String> = names.iter().map(|n| n.to_string()).collect();
        let mut params = CertificateParams::new(names).unwrap();
        change(&mut params);
        let key = KeyPair::generate().unwrap();
        let cert = params.signed_by(&key, &self.issuer).unwrap();
        Identity {
            cert: cert.pem(),
            key: key.serialize_pem(),
        }
    }
}

/// A certificate for `names` that signs itself (no CA knows it).
pub fn self_signed(names: &[&str]) -> Identity {
    let names: Vec<String> = names.iter().map(|n| n.to_string()).collect();
    let key = KeyPair::generate().unwrap();
    let cert = CertificateParams::new(names)
        .unwrap()
        .self_signed(&key)
        .unwrap();
    Identity {
        cert: cert.pem(),
        key: key.serialize_pem(),
    }
}

/// How the server is set up: its certificate, and what it asks of the client.
pub struct ServerSetup<'a> {
    pub identity: &'a Identity,
    /// Client certificates are required and must be signed by this CA.
    pub client_ca: Option<&'a Ca>,
    /// Protocols it accepts by ALPN; empty: it ignores ALPN.
    pub alpn: Vec<&'a str>,
    /// Its key exchange groups; None: the provider's.
    pub groups: Option<Vec<&'static dyn rustls::crypto::SupportedKxGroup>>,
}

impl<'a> ServerSetup<'a> {
    pub fn new(identity: &'a Identity) -> ServerSetup<'a> {
        ServerSetup {
            identity,
            client_ca: None,
            alpn: Vec::new(),
            groups: None,
        }
    }

    fn config(&self) -> ServerConfig {
        let mut provider = rustls::crypto::aws_lc_rs::default_provider();
        if let Some(groups) = &self.groups {
            provider.kx_groups = groups.clone();
        }
        let provider = Arc::new(provider);
        let builder = ServerConfig::builder_with_provider(provider.clone())
            .with_safe_default_protocol_versions()
            .unwrap();
        let builder = match self.client_ca {
            Some(ca) => {
                let mut roots = RootCertStore::empty();
                roots.add(cert_der(&ca.pem)).unwrap();
                let verifier = WebPkiClientVerifier::builder_with_provider(roots.into(), provider)
                    .build()
                    .unwrap();
                builder.with_client_cert_verifier(verifier)
            }
            None => builder.with_no_client_auth(),
        };
        let key = PrivateKeyDer::from_pem_slice(self.identity.key.as_bytes()).unwrap();
        let chain = vec![cert_der(&self.identity.cert)];
        let mut config = builder.with_single_cert(chain, key).unwrap();
        config.alpn_protocols = self.alpn.iter().map(|p| p.as_bytes().to_vec()).collect();
        config
    }

    /// A server on 127.0.0.1 that does the handshake of each connection, then waits
    /// for the client to close; it runs until the test process ends.
    pub fn start(&self) -> SocketAddr {
        let config = Arc::new(self.config());
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        std::thread::spawn(move || {
            for sock in listener.incoming().flatten() {
                let config = config.clone();
                std::thread::spawn(move || handshake(config, sock));
            }
        });
        addr
    }
}

fn handshake(config: Arc<ServerConfig>, mut sock: TcpStream) {
    let _ = sock.set_read_timeout(Some(Duration::from_secs(10)));
    let Ok(mut conn) = ServerConnection::new(config) else {
        return;
    };
    // Until the handshake fails (its alert written) or the client closes.
    while conn
        .complete_io(&mut sock)
        .is_ok_and(|(read, written)| read + written > 0)
    {}
}

/// A server that accepts connections and never says a word.
pub fn silent_server() -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        let held: Vec<TcpStream> = listener.incoming().flatten().collect();
        drop(held);
    });
    addr
}

/// A clear-text HTTP server, as nginx on its http port answers a ClientHello: 400.
pub fn clear_text_server() -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        for mut sock in listener.incoming().flatten() {
            let mut hello = [0u8; 512];
            let _ = sock.read(&mut hello);
            let _ = sock.write_all(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n");
        }
    });
    addr
}

fn cert_der(pem: &str) -> CertificateDer<'static> {
    CertificateDer::from_pem_slice(pem.as_bytes()).unwrap()
}
