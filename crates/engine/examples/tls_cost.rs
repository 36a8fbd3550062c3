//! What a request costs the client over TLS, next to clear text: one loop loads a server
//! and prints its CPU per request (the loop thread's user + system time while measuring).
//! Until the bench/ script exists (issue 22), docs/tls.md says how it was run.
//!
//! `cargo run --release --example tls_cost -- ADDR MODE [CA.pem] [REQUESTS] [CONNECTIONS]
//! [epoll|uring]`, MODE one of `clear` (no TLS), `clear-close` (no TLS, a new connection per
//! request), `keepalive`, `full` (a new connection per request, no resumption), `resumed`
//! (a new connection per request, tickets), `full-nochain` (`full` without checking the
//! certificate chain, as wrk and h2load do: the handshake's signature is still checked),
//! `hold` / `hold-clear` (CONNECTIONS kept open for 3 s at 100 requests/s, over TLS or not;
//! the peak resident memory printed: their difference over CONNECTIONS is what holding a
//! TLS connection costs).

use engine::{IoChoice, LoadConfig, Pace, RateSchedule, Resume, Stop, Target, TlsClient};
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::WebPkiSupportedAlgorithms;
use rustls::crypto::{aws_lc_rs, verify_tls12_signature, verify_tls13_signature};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{ClientConfig, DigitallySignedStruct, RootCertStore, SignatureScheme};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let arg = |i: usize| args.get(i).map(String::as_str);
    let (Some(addr), Some(mode)) = (arg(0), arg(1)) else {
        return Err(
            "usage: tls_cost ADDR MODE [CA.pem] [REQUESTS] [CONNECTIONS] [epoll|uring]".into(),
        );
    };
    let requests: u64 = arg(3).unwrap_or("20000").parse()?;
    let connections: usize = arg(4).unwrap_or("10").parse()?;
    let mut c = LoadConfig::new(Target::parse(&format!("http://{addr}/"))?);
    c.connections = connections;
    c.threads = 1;
    c.stop = Stop::Requests(requests);
    // No warm-up: the process's CPU over all requests compares with wrk's and h2load's.
    c.warmup = Duration::ZERO;
    c.io = match arg(5) {
        Some("uring") => IoChoice::Uring,
        _ => IoChoice::Epoll,
    };
    let resume = match mode {
        "clear" | "clear-close" | "hold-clear" => None,
        "keepalive" | "resumed" | "hold" => Some(Resume::Tickets),
        "full" | "full-nochain" | "hold-off" => Some(Resume::Off),
        other => return Err(format!("unknown mode {other}").into()),
    };
    c.keepalive = matches!(mode, "clear" | "keepalive") || mode.starts_with("hold");
    if mode.starts_with("hold") {
        c.pace = Pace::Open(RateSchedule::constant(100.0));
        c.stop = Stop::After(Duration::from_secs(3));
    }
    if let Some(resume) = resume {
        let ca = arg(2).ok_or("a TLS mode needs CA.pem")?;
        c.tls = Some(TlsClient {
            config: client_config(ca, mode == "full-nochain")?,
            server_name: ServerName::try_from("localhost")?,
            resume,
        });
    }
    let r = engine::run(&c, &AtomicBool::new(false))?;
    let q = &r.requests;
    let (handshakes, resumed) = r
        .tls
        .as_ref()
        .map_or((0, 0), |t| (t.handshakes(), t.resumed));
    println!(
        "{mode} {}: {} ok of {}, {:.0} req/s, CPU {:.3} s = {:.2} us/request; {handshakes} handshakes ({resumed} resumed){}",
        r.generator.io,
        q.ok,
        q.total(),
        r.rps,
        r.generator.cpu_seconds,
        r.generator.cpu_seconds * 1e6 / q.finished().max(1) as f64,
        r.tls
            .as_ref()
            .and_then(|t| t.negotiated.as_ref())
            .map_or(String::new(), |n| format!(", {n}")),
    );
    if mode.starts_with("hold") {
        let status = std::fs::read_to_string("/proc/self/status")?;
        let peak = status
            .lines()
            .find(|l| l.starts_with("VmHWM:"))
            .unwrap_or("VmHWM: ?");
        println!(
            "{} connections opened; peak resident memory {peak}",
            r.connections.opened
        );
    }
    Ok(())
}

/// X25519 then P-256, as wrk and h2load (OpenSSL 3.0) offer; roots: the CA in `ca`, or
/// none checked (`nochain`).
fn client_config(ca: &str, nochain: bool) -> Result<Arc<ClientConfig>, Box<dyn std::error::Error>> {
    let mut provider = aws_lc_rs::default_provider();
    provider.kx_groups = vec![aws_lc_rs::kx_group::X25519, aws_lc_rs::kx_group::SECP256R1];
    let algorithms = provider.signature_verification_algorithms;
    let mut roots = RootCertStore::empty();
    roots.add(CertificateDer::from_pem_file(ca)?)?;
    let mut config = ClientConfig::builder_with_provider(Arc::new(provider))
        .with_safe_default_protocol_versions()?
        .with_root_certificates(roots)
        .with_no_client_auth();
    if nochain {
        let verifier = Arc::new(NoChain(algorithms));
        config.dangerous().set_certificate_verifier(verifier);
    }
    Ok(Arc::new(config))
}

/// Takes any certificate chain, but checks the handshake's signature with its key (what
/// OpenSSL's SSL_VERIFY_NONE, wrk's and h2load's setting, does).
#[derive(Debug)]
struct NoChain(WebPkiSupportedAlgorithms);

impl ServerCertVerifier for NoChain {
    fn verify_server_cert(
        &self,
        _: &CertificateDer<'_>,
        _: &[CertificateDer<'_>],
        _: &ServerName<'_>,
        _: &[u8],
        _: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls12_signature(message, cert, dss, &self.0)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls13_signature(message, cert, dss, &self.0)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.supported_schemes()
    }
}
