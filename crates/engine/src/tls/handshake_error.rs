//! Why the pre-flight handshake failed, in one line that names the reason and the flag
//! that changes it: `certificate not valid for name "127.0.0.1", only for "localhost"
//! (use --sni NAME, or --insecure to skip verification)`.

use super::certificate::{CertificateRefusal, Remedy};
use rustls::AlertDescription;
use std::io;
use std::time::Duration;

/// A TLS handshake that did not complete, or completed on terms the load cannot use.
#[derive(Debug, thiserror::Error)]
pub enum HandshakeError {
    #[error("{} ({})", .0, remedy_text(.0.remedy()))]
    Certificate(CertificateRefusal),
    #[error("the server refused the TLS handshake: alert {}{}", alert_name(*.0), alert_hint(*.0))]
    Alert(AlertDescription),
    #[error("the server does not answer in TLS (is the URL http://?)")]
    NotTls,
    #[error("no TLS handshake within {} (--timeout)", crate::spec::format_duration(*.0))]
    TimedOut(Duration),
    #[error("the server closed the connection during the TLS handshake")]
    Closed,
    #[error("the server chose ALPN {chosen:?}; {}", alpn_hint(expected))]
    Alpn {
        chosen: String,
        expected: &'static str,
    },
    #[error("the server chose no ALPN protocol: it does not offer HTTP/2 over TLS (h2)")]
    NoH2,
    #[error("TLS handshake failed: {0}")]
    Tls(rustls::Error),
    #[error("TLS handshake failed: {0}")]
    Io(io::Error),
}

/// What to do when the server chose another protocol than the load's `expected` one.
fn alpn_hint(expected: &str) -> &'static str {
    match expected {
        "h2" => "the load speaks HTTP/2 (--alpn h2, or drop --http2)",
        _ => "the load speaks HTTP/1.1 (--alpn http/1.1, or --http2 to load it over HTTP/2)",
    }
}

impl HandshakeError {
    pub(super) fn of(e: rustls::Error) -> HandshakeError {
        match e {
            rustls::Error::InvalidCertificate(e) => HandshakeError::Certificate((&e).into()),
            rustls::Error::AlertReceived(alert) => HandshakeError::Alert(alert),
            rustls::Error::InvalidMessage(rustls::InvalidMessage::InvalidContentType) => {
                HandshakeError::NotTls
            }
            e => HandshakeError::Tls(e),
        }
    }

    /// An error of a socket read or write, or of rustls wrapped in one by `complete_io`.
    pub(super) fn of_io(e: io::Error, timeout: Duration) -> HandshakeError {
        match e.kind() {
            io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut => {
                return HandshakeError::TimedOut(timeout)
            }
            io::ErrorKind::UnexpectedEof
            | io::ErrorKind::ConnectionReset
            | io::ErrorKind::ConnectionAborted
            | io::ErrorKind::BrokenPipe => return HandshakeError::Closed,
            _ => {}
        }
        let tls = e
            .get_ref()
            .and_then(|inner| inner.downcast_ref::<rustls::Error>());
        match tls {
            Some(tls) => HandshakeError::of(tls.clone()),
            None => HandshakeError::Io(e),
        }
    }
}

/// What helps, in a load's settings.
fn remedy_text(remedy: Remedy) -> String {
    const SKIP: &str = "--insecure to skip verification";
    match remedy {
        Remedy::TrustIt => format!("use --cacert FILE with it, or {SKIP}"),
        Remedy::TrustItsCa => format!("use --cacert FILE with its CA, or {SKIP}"),
        Remedy::AnotherName => format!("use --sni NAME, or {SKIP}"),
        Remedy::Remake(how) => format!("make it anew {how}, or use {SKIP}"),
        Remedy::Clock => format!("check the clock, or use {SKIP}"),
        Remedy::Skip => format!("use {SKIP}"),
    }
}

/// `handshake_failure`: the alert as RFC 8446 names it.
fn alert_name(alert: AlertDescription) -> String {
    let Some(name) = alert.as_str() else {
        return format!("{}", u8::from(alert));
    };
    let mut snake = String::new();
    for (i, c) in name.char_indices() {
        if c.is_ascii_uppercase() && i > 0 {
            snake.push('_');
        }
        snake.push(c.to_ascii_lowercase());
    }
    snake
}

/// Which settings an alert points at.
fn alert_hint(alert: AlertDescription) -> &'static str {
    use AlertDescription as A;
    match alert {
        A::HandshakeFailure | A::InsufficientSecurity | A::ProtocolVersion => {
            " (no version, cipher suite or group in common: see --tls-version, --ciphers, \
             --tls-groups)"
        }
        A::CertificateRequired => " (it wants a client certificate: --cert FILE --key FILE)",
        A::BadCertificate
        | A::UnsupportedCertificate
        | A::CertificateRevoked
        | A::CertificateExpired
        | A::CertificateUnknown
        | A::UnknownCA
        | A::AccessDenied => " (it refused the client certificate: see --cert, --key)",
        A::NoApplicationProtocol => " (no ALPN protocol in common: see --alpn)",
        A::UnrecognisedName => " (it does not know the name sent: see --sni)",
        _ => "",
    }
}
