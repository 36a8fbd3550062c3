//! Verification over TLS: a rustls client that trusts only the test CA, the chain it
//! verifies, and what the server negotiates with it (version, suite, key exchange, ALPN,
//! resumption). The HTTP checks then run over its connections as over clear text.

use super::connection::Connection;
use super::exchange::connect;
use super::{check, Check, Probe, VerifyError};
use crate::contestant::certificates::{CertificateError, CertificateFiles};
use engine::CertificateRefusal;
use rustls::client::Resumption;
use rustls::pki_types::ServerName;
use rustls::{ClientConfig, ClientConnection, HandshakeKind, StreamOwned};
use rustls::{ProtocolVersion, SupportedProtocolVersion};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

/// The name a contestant is asked for (SNI) and verified against.
const NAME: &str = "localhost";

/// The only protocol verification speaks, offered by ALPN.
const ALPN: &[u8] = b"http/1.1";

/// A TLS client for one contestant: TLS 1.2 and 1.3, ALPN `http/1.1`, the test CA of
/// the certificate it serves as the only one trusted, checked as every client of
/// shootout checks (engine::PartialChain).
#[derive(Debug)]
pub(super) struct TlsProbe {
    config: Arc<ClientConfig>,
    tls12: Arc<ClientConfig>,
    /// The certificate the server is given to serve, named when it serves another.
    serves: PathBuf,
}

/// What a handshake settled on, as the `tls` check reports it.
struct Negotiated {
    version: Option<ProtocolVersion>,
    suite: Option<rustls::CipherSuite>,
    group: Option<rustls::NamedGroup>,
    alpn: Option<Vec<u8>>,
    kind: Option<HandshakeKind>,
}

impl TlsProbe {
    /// The client for a server serving `certificate`.
    pub fn new(certificate: &CertificateFiles) -> Result<TlsProbe, CertificateError> {
        let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
        let verifier = Arc::new(certificate.verifier(&provider)?);
        let config = |versions: &[&'static SupportedProtocolVersion]| {
            let mut c = ClientConfig::builder_with_provider(provider.clone())
                .with_protocol_versions(versions)
                .expect("the provider offers TLS 1.2 and 1.3")
                .dangerous()
                .with_custom_certificate_verifier(verifier.clone())
                .with_no_client_auth();
            c.alpn_protocols = vec![ALPN.to_vec()];
            Arc::new(c)
        };
        Ok(TlsProbe {
            config: config(rustls::ALL_VERSIONS),
            tls12: config(&[&rustls::version::TLS12]),
            serves: certificate.cert.clone(),
        })
    }

    /// A connection to `addr` asking for `localhost`, its handshake done.
    pub fn connect(&self, addr: SocketAddr) -> Result<Connection, VerifyError> {
        let s = self.handshake(self.config.clone(), addr, NAME)?;
        Ok(Connection::Tls(Box::new(s)))
    }

    /// A TCP connection to `addr` and a TLS handshake on it with `config`, asking for
    /// `name`.
    fn handshake(
        &self,
        config: Arc<ClientConfig>,
        addr: SocketAddr,
        name: &str,
    ) -> Result<StreamOwned<ClientConnection, std::net::TcpStream>, VerifyError> {
        let mut socket = connect(addr)?;
        let name = ServerName::try_from(name)
            .map_err(|e| VerifyError::Tls(rustls::Error::General(e.to_string())))?
            .to_owned();
        let mut tls = ClientConnection::new(config, name).map_err(VerifyError::Tls)?;
        while tls.is_handshaking() {
            tls.complete_io(&mut socket)
                .map_err(|e| match CertificateRefusal::of_io(&e) {
                    Some(refusal) => VerifyError::Certificate {
                        refusal,
                        serves: self.serves.clone(),
                    },
                    None => VerifyError::Handshake(e),
                })?;
        }
        Ok(StreamOwned::new(tls, socket))
    }
}

impl Negotiated {
    fn of(s: &StreamOwned<ClientConnection, std::net::TcpStream>) -> Negotiated {
        let c = &s.conn;
        Negotiated {
            version: c.protocol_version(),
            suite: c.negotiated_cipher_suite().map(|s| s.suite()),
            group: c.negotiated_key_exchange_group().map(|g| g.name()),
            alpn: c.alpn_protocol().map(<[u8]>::to_vec),
            kind: c.handshake_kind(),
        }
    }
}

impl std::fmt::Display for Negotiated {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let version = match self.version {
            Some(ProtocolVersion::TLSv1_3) => "TLS 1.3".to_string(),
            Some(ProtocolVersion::TLSv1_2) => "TLS 1.2".to_string(),
            other => format!("{other:?}"),
        };
        let known = |v: Option<String>| v.unwrap_or_else(|| "none".into());
        write!(
            f,
            "{version}, {}, {}, ALPN {}",
            known(self.suite.map(|s| format!("{s:?}"))),
            known(self.group.map(|g| format!("{g:?}"))),
            known(
                self.alpn
                    .as_ref()
                    .map(|a| String::from_utf8_lossy(a).into())
            ),
        )
    }
}

/// The TLS checks of the server `p` probes: `tls` (the chain, for a name and for an
/// address, and what is negotiated), `tls1.2` and `tls-resume` (the framing endpoint's
/// request on the first connection brings the session tickets of TLS 1.3).
pub(super) fn checks(p: &Probe, tls: &TlsProbe) -> Vec<Check> {
    vec![
        check("tls", chain(tls, p.addr)),
        optional("tls1.2", tls12(tls, p.addr)),
        optional("tls-resume", resume(p, tls)),
    ]
}

/// A check whose failure is reported, flagged, and does not fail the contestant.
fn optional(name: &str, result: Result<String, VerifyError>) -> Check {
    let mut c = check(name, result);
    if !c.passed {
        (c.passed, c.flagged) = (true, true);
    }
    c
}

fn chain(p: &TlsProbe, addr: SocketAddr) -> Result<String, VerifyError> {
    let named = p.handshake(p.config.clone(), addr, NAME)?;
    let ip = addr.ip().to_string();
    p.handshake(p.config.clone(), addr, &ip)
        .map_err(|e| VerifyError::ForAddress {
            ip: ip.clone(),
            source: Box::new(e),
        })?;
    Ok(format!(
        "{}; chain verified for {NAME} (SNI) and {ip}",
        Negotiated::of(&named)
    ))
}

fn tls12(p: &TlsProbe, addr: SocketAddr) -> Result<String, VerifyError> {
    let s = p.handshake(p.tls12.clone(), addr, NAME)?;
    Ok(Negotiated::of(&s).to_string())
}

/// A full handshake and one exchange, then a second connection offering the session.
fn resume(p: &Probe, tls: &TlsProbe) -> Result<String, VerifyError> {
    let mut config = (*tls.config).clone();
    config.resumption = Resumption::in_memory_sessions(8);
    let config = Arc::new(config);
    let first = tls.handshake(config.clone(), p.addr, NAME)?;
    let mut first = Connection::Tls(Box::new(first));
    p.exchange(&mut first, p.endpoint, "HTTP/1.1", "")?;
    drop(first);
    let second = Negotiated::of(&tls.handshake(config, p.addr, NAME)?);
    match second.kind {
        Some(HandshakeKind::Resumed) => Ok(format!("resumed ({second})")),
        _ => Err(VerifyError::NotResumed),
    }
}

#[cfg(test)]
mod tests {
    use super::super::{run_over_tls, Plan};
    use crate::contestant::certificates::{ensure, CertificateFiles, KeyKind};
    use crate::model::endpoint::Endpoint;
    use crate::model::VerifyLevel;
    use rustls::pki_types::pem::PemObject;
    use rustls::pki_types::{CertificateDer, PrivateKeyDer};
    use rustls::{ServerConfig, ServerConnection, StreamOwned};
    use std::io::{Read, Write};
    use std::net::{SocketAddr, TcpListener, TcpStream};
    use std::sync::Arc;

    /// A keep-alive HTTPS server answering every request `Hello World` (with a Date
    /// header), serving `files`, for a bounded number of connections.
    fn hello_over_tls(files: &CertificateFiles) -> SocketAddr {
        let chain = vec![CertificateDer::from_pem_file(&files.cert).unwrap()];
        let key = PrivateKeyDer::from_pem_file(&files.key).unwrap();
        let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
        let mut config = ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_no_client_auth()
            .with_single_cert(chain, key)
            .unwrap();
        config.alpn_protocols = vec![b"http/1.1".to_vec()];
        let config = Arc::new(config);
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = l.local_addr().unwrap();
        std::thread::spawn(move || {
            for s in l.incoming().take(16).flatten() {
                let config = config.clone();
                std::thread::spawn(move || answer(ServerConnection::new(config).unwrap(), s));
            }
        });
        addr
    }

    fn answer(tls: ServerConnection, s: TcpStream) {
        let _ = s.set_read_timeout(Some(super::super::PATIENCE));
        let mut s = StreamOwned::new(tls, s);
        let mut head = Vec::new();
        let mut byte = [0u8; 1];
        while let Ok(1) = s.read(&mut byte) {
            head.push(byte[0]);
            if head.ends_with(b"\r\n\r\n") {
                let _ = s.write_all(
                    b"HTTP/1.1 200 OK\r\nDate: Thu, 01 Jan 1970 00:00:00 GMT\r\n\
                      Content-Length: 11\r\n\r\nHello World",
                );
                let text = String::from_utf8_lossy(&head).to_lowercase();
                if text.contains("connection: close") || text.contains("http/1.0") {
                    s.conn.send_close_notify();
                    let _ = s.flush();
                    return;
                }
                head.clear();
            }
        }
    }

    fn http_plan(endpoints: &[Endpoint]) -> Plan<'_> {
        Plan {
            level: VerifyLevel::Http,
            endpoints,
            parses_http: true,
            database: None,
        }
    }

    #[test]
    fn a_server_with_the_test_certificate_passes_and_says_what_it_negotiated() {
        let builds = tempfile::tempdir().unwrap();
        let files = ensure(builds.path(), KeyKind::Ecdsa).unwrap();
        let hello = [Endpoint::hello()];
        let checks = run_over_tls(hello_over_tls(&files), &http_plan(&hello), &files).unwrap();
        let names: Vec<&str> = checks.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "tls",
                "tls1.2",
                "tls-resume",
                "hello",
                "keep-alive",
                "connection-close",
                "http/1.0"
            ]
        );
        assert!(checks.iter().all(|c| c.passed), "{checks:#?}");
        assert!(
            checks[0].detail.starts_with("TLS 1.3, TLS13_")
                && checks[0]
                    .detail
                    .ends_with("ALPN http/1.1; chain verified for localhost (SNI) and 127.0.0.1"),
            "{checks:#?}"
        );
    }

    #[test]
    fn a_chain_the_test_ca_did_not_sign_fails_the_tls_check_in_one_line() {
        let builds = tempfile::tempdir().unwrap();
        let ecdsa = ensure(builds.path(), KeyKind::Ecdsa).unwrap();
        let rsa = ensure(builds.path(), KeyKind::Rsa).unwrap();
        let hello = [Endpoint::hello()];
        // The server serves the RSA leaf; the client trusts the ECDSA CA only.
        let checks = run_over_tls(hello_over_tls(&rsa), &http_plan(&hello), &ecdsa).unwrap();
        let tls = checks.iter().find(|c| c.name == "tls").unwrap();
        assert!(!tls.passed);
        assert_eq!(
            tls.detail,
            format!(
                "TLS handshake: certificate issued by \"CN=shootout test CA (rsa)\", which is \
                 not trusted, and the server sent no chain from it to a trusted CA (it must \
                 serve {}, of the test CA)",
                ecdsa.cert.display()
            )
        );
        assert!(checks.iter().filter(|c| !c.flagged).all(|c| !c.passed));
    }
}
